import { Card, CardContent } from "~/ui/Card";
import { DeletePlatformDialog } from "./DeletePlatformDialog";

export function DangerZone({ platform }: { platform: { id: string; name: string } }) {
  return (
    <section aria-labelledby="danger-zone" className="grid gap-3">
      <h3 id="danger-zone" className="text-base font-semibold text-danger">
        Danger zone
      </h3>
      <Card className="border-danger/40">
        <CardContent className="flex flex-wrap items-center justify-between gap-4">
          <div className="max-w-prose">
            <p className="font-medium">Delete this platform</p>
            <p className="text-sm text-muted">Disconnects it and removes it from this organization, with its settings and application assignments.</p>
          </div>
          <DeletePlatformDialog platform={platform} />
        </CardContent>
      </Card>
    </section>
  );
}
