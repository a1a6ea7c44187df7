import { Mail } from "lucide-react";
import { useState } from "react";
import { canManage } from "@core/grants";
import { ROLE_LABELS } from "@core/roles";
import type { InvitationView } from "@core/schemas/members";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card } from "~/ui/Card";
import { formatDateTime } from "~/ui/grid";
import { toast } from "~/ui/toast";
import { LinkToCopy } from "./LinkToCopy";
import { useResend, useRevoke } from "./membersApi";
import { useCaller } from "./useCaller";

/**
 * Invitations not yet accepted: resend (a new link, 7 more days) or revoke, only those the person
 * could have sent (core/grants.ts); for the others, the reason. Without an e-mail server, a
 * resent link is shown here once (the outbox does not keep links).
 */
export function InvitationList({ invitations, canWrite }: { invitations: InvitationView[]; canWrite: boolean }) {
  const resend = useResend();
  const revoke = useRevoke();
  const caller = useCaller().access;
  const [resent, setResent] = useState<{ email: string; link: string } | null>(null);
  if (invitations.length === 0) return <p className="text-sm text-muted">No pending invitations.</p>;
  /** Why the person may not resend or revoke this one, or null when they may. */
  const refusal = (i: InvitationView) => {
    const verdict = canManage(caller, { admin: i.admin, permissions: i.permissions }, { action: "resend or revoke it", holds: "it gives" });
    return verdict.allowed ? null : verdict.reason;
  };
  return (
    <>
      {resent ? (
        <LinkToCopy link={resent.link}>
          Copy the new link for {resent.email} and give it to them; the previous one no longer works. It is shown only now.
        </LinkToCopy>
      ) : null}
      <Card className="overflow-hidden">
        <ul className="divide-y divide-border" aria-label="Pending invitations">
          {invitations.map((i) => (
            <li key={i.id} className="flex flex-wrap items-center gap-3 px-4 py-3">
              <Mail aria-hidden className="size-4 text-muted" />
              <div className="min-w-0 flex-1">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="truncate font-medium">{i.email}</span>
                  <Badge tone="outline">{ROLE_LABELS[i.role]}</Badge>
                  {i.status === "expired" ? <Badge tone="warning">Expired</Badge> : <Badge tone="info">Pending</Badge>}
                </div>
                <div className="text-xs text-muted">
                  Sent {formatDateTime(i.sentAt)} by {i.invitedBy} · {i.status === "expired" ? "expired" : "valid until"} {formatDateTime(i.expiresAt)}
                </div>
              </div>
              {canWrite && refusal(i) ? <p className="basis-full text-xs text-muted">{refusal(i)}</p> : null}
              {canWrite && !refusal(i) ? (
                <div className="flex gap-2">
                  <Button
                    variant="secondary"
                    size="sm"
                    aria-label={`Resend the invitation to ${i.email}`}
                    onClick={() =>
                      void resend.mutateAsync(i.id).then(
                        (sent) => {
                          setResent(sent.link ? { email: i.email, link: sent.link } : null);
                          toast({
                            title: "Invitation sent again",
                            description: sent.link ? "Copy the new link above; the previous one no longer works." : `A new link is on its way to ${i.email}.`,
                            color: "success",
                          });
                        },
                        () => undefined,
                      )
                    }
                  >
                    Resend
                  </Button>
                  <Button
                    variant="secondary"
                    size="sm"
                    aria-label={`Revoke the invitation to ${i.email}`}
                    onClick={() =>
                      void revoke.mutateAsync(i.id).then(
                        () => toast({ title: "Invitation revoked", description: `The link sent to ${i.email} no longer works.`, color: "success" }),
                        () => undefined,
                      )
                    }
                  >
                    Revoke
                  </Button>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      </Card>
    </>
  );
}
