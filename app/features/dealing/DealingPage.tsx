import { useState } from "react";
import { useAccess } from "~/profile";
import { Skeleton } from "~/ui/Skeleton";
import { FormAlert } from "~/ui/FormAlert";
import { ActiveProfileCard } from "./ActiveProfileCard";
import { useDealing } from "./dealingApi";
import { SettingsEditor } from "./SettingsEditor";

/**
 * `…/settings/dealing` (docs/dealing.md): the profile in force with why and the next switch, the
 * manual override, and the editor of profiles, weekly schedule and holidays. Writes need
 * `dealing` write; readers see everything read-only.
 */
export function DealingPage({ platformId }: { platformId: string }) {
  const dealing = useDealing(platformId);
  const canWrite = useAccess().hasModule("dealing", "write");
  // The stored settings' version this page saved last: the editor remounts on a new version, so it is kept here.
  const [savedVersion, setSavedVersion] = useState<string | null>(null);
  if (dealing.isPending) return <Skeleton className="h-64" />;
  if (dealing.isError) return <FormAlert message={dealing.error.message} />;
  const view = dealing.data;
  return (
    <div className="space-y-4">
      <ActiveProfileCard platformId={platformId} view={view} canWrite={canWrite} />
      {/* Remounted when the stored settings change (a save here or elsewhere), so the draft starts from them. */}
      <SettingsEditor
        key={view.updatedAt ?? "default"}
        platformId={platformId}
        initial={view.settings}
        canWrite={canWrite}
        saved={savedVersion !== null && savedVersion === view.updatedAt}
        onSaved={setSavedVersion}
      />
    </div>
  );
}
