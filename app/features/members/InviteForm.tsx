import { Send } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import { canGrant } from "@core/grants";
import { PRESET_ACCESS } from "@core/roles";
import { ApiError } from "~/api";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/ui/Card";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";
import { AccessEditor, choiceOf, draftOf, type AccessDraft } from "./AccessEditor";
import { LinkToCopy } from "./LinkToCopy";
import { useInvite } from "./membersApi";
import { useCaller } from "./useCaller";

/** Invite by e-mail with a role; without e-mail delivery, the link to copy is shown once. */
export function InviteForm() {
  const [email, setEmail] = useState("");
  const caller = useCaller().access;
  // Viewer when the person may give it; otherwise no permissions, to tick among theirs.
  const [draft, setDraft] = useState<AccessDraft>(() => (canGrant(caller, PRESET_ACCESS.viewer).allowed ? draftOf("viewer", {}) : draftOf("custom", {})));
  const [error, setError] = useState<string | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const invite = useInvite();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setLink(null);
    if (!email.trim()) {
      setError("Enter the e-mail address to invite.");
      input.current?.focus();
      return;
    }
    try {
      const sent = await invite.mutateAsync({ email: email.trim(), ...choiceOf(draft) });
      setEmail("");
      if (sent.link) {
        setLink(sent.link);
        toast({ title: "Invitation created", description: "No e-mail server is set up: copy the link and send it yourself.", color: "success" });
      } else {
        toast({ title: "Invitation sent", description: `${sent.invitation.email} will get an e-mail with the link.`, color: "success" });
      }
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return;
      setError(e instanceof ApiError && e.status ? e.message : "Toolbox's service does not answer. Try again in a moment.");
      input.current?.focus();
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Invite a member</CardTitle>
        <CardDescription>
          They get a link that works once, for 7 days. They sign in, or create their account with this address, and join with the role you choose.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form onSubmit={submit} noValidate className="grid gap-4">
          <Field label="E-mail address" error={error}>
            <Input
              ref={input}
              type="email"
              value={email}
              onChange={(e) => {
                setEmail(e.target.value);
                if (error) setError(null);
              }}
              autoComplete="off"
              placeholder="colleague@example.com"
              maxLength={254}
              required
            />
          </Field>
          <AccessEditor value={draft} onChange={setDraft} caller={caller} />
          <div>
            <Button type="submit" loading={invite.isPending}>
              {invite.isPending ? null : <Send aria-hidden />}
              Send invitation
            </Button>
          </div>
        </form>
        {link ? <LinkToCopy link={link}>Copy this link and give it to the invitee. It is shown only now.</LinkToCopy> : null}
      </CardContent>
    </Card>
  );
}
