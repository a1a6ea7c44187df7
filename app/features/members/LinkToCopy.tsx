import { Copy } from "lucide-react";
import { Button } from "~/ui/Button";
import { Input } from "~/ui/Input";
import { toast } from "~/ui/toast";

/** An invitation link to give by hand (no e-mail server): shown once, never kept, not even in the outbox. */
export function LinkToCopy({ link, children }: { link: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-2 rounded-md border border-border bg-subtle p-3" role="status">
      <p className="text-sm">{children}</p>
      <div className="flex gap-2">
        <Input readOnly value={link} aria-label="Invitation link" onFocus={(e) => e.target.select()} className="font-mono text-xs" />
        <Button
          variant="secondary"
          onClick={() => {
            void navigator.clipboard?.writeText(link).then(() => toast({ title: "Link copied", color: "success" }));
          }}
        >
          <Copy aria-hidden />
          Copy
        </Button>
      </div>
    </div>
  );
}
