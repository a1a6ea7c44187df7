import { formatDateTime } from "~/ui/grid";
import { useOutbox } from "./membersApi";

/** Messages Toolbox would have e-mailed (no SMTP_URL set), for the administrator to pass on. */
export function Outbox() {
  const outbox = useOutbox(true);
  const messages = outbox.data ?? [];
  if (messages.length === 0) return null;
  return (
    <details className="rounded-md border border-border p-3">
      <summary className="cursor-pointer text-sm font-medium">Outbox ({messages.length}): messages not e-mailed because no e-mail server is set up</summary>
      <ul className="mt-3 grid gap-3">
        {messages.map((m) => (
          <li key={m.id} className="grid gap-1 rounded-md bg-subtle p-3">
            <div className="text-xs text-muted">
              To {m.to} · {formatDateTime(m.createdAt)}
            </div>
            <div className="text-sm font-medium">{m.subject}</div>
            <pre className="text-xs break-all whitespace-pre-wrap">{m.text}</pre>
          </li>
        ))}
      </ul>
    </details>
  );
}
