import { useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { INVITATION_LINK_HASH } from "@core/invitationLink";
import { api, ApiError } from "~/api";
import { refreshOrganizations, useSwitchOrganization } from "~/profile";
import { FormAlert } from "~/ui/FormAlert";
import { toast } from "~/ui/toast";

/**
 * An invitation link lands here (`#invitation=<token>`): accept it as the signed-in person, then
 * work in the organization at once. The token leaves the address bar first.
 */
export function AcceptInvitation() {
  const [problem, setProblem] = useState<string | null>(null);
  const started = useRef(false);
  const switchTo = useSwitchOrganization();
  const navigate = useNavigate();

  useEffect(() => {
    if (started.current) return;
    const match = new RegExp(`^#${INVITATION_LINK_HASH}=([A-Za-z0-9_-]+)$`).exec(window.location.hash);
    if (!match) return;
    started.current = true;
    window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
    api
      .post<{ organizationId: string; organizationName: string }>("/api/invitations/accept", { token: match[1] }, { silent: true })
      .then(async (joined) => {
        await refreshOrganizations().catch(() => undefined);
        switchTo(joined.organizationId);
        toast({ title: "Invitation accepted", description: `You are now a member of ${joined.organizationName}.`, color: "success" });
        await navigate("/");
      })
      .catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) return;
        setProblem(e instanceof ApiError && e.status ? e.message : "Toolbox's service does not answer. Open the invitation link again in a moment.");
      });
  }, [navigate, switchTo]);

  return problem ? <FormAlert message={`The invitation could not be accepted: ${problem}`} /> : null;
}
