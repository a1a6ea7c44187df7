import { AuditLog } from "~/features/logs/AuditLog";
import { RetentionSetting } from "~/features/logs/RetentionSetting";

export const meta = () => [{ title: "Audit log · Toolbox" }];

export default function AuditLogPage() {
  return (
    <div className="grid gap-6">
      <AuditLog />
      <RetentionSetting />
    </div>
  );
}
