import { Mail } from "lucide-react";
import { ROLE_LABELS } from "@core/roles";
import type { InvitationView } from "@core/schemas/members";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card } from "~/ui/Card";
import { formatDateTime } from "~/ui/grid";
import { toast } from "~/ui/toast";
import { useResend, useRevoke } from "./membersApi";

/** Invitations not yet accepted: resend (a new link, 7 more days) or revoke. */
export function InvitationList({ invitations, canWrite }: { invitations: InvitationView[]; canWrite: boolean }) {
  const resend = useResend();
  const revoke = useRevoke();
  if (invitations.length === 0) return <p className="text-sm text-muted">No pending invitations.</p>;
  return (
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
            {canWrite ? (
              <div className="flex gap-2">
                <Button
                  variant="secondary"
                  size="sm"
                  aria-label={`Resend the invitation to ${i.email}`}
                  onClick={() =>
                    void resend.mutateAsync(i.id).then(
                      (sent) =>
                        toast({
                          title: "Invitation sent again",
                          description: sent.link
                            ? "A new link is in the outbox below; the previous one no longer works."
                            : `A new link is on its way to ${i.email}.`,
                          color: "success",
                        }),
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
  );
}
