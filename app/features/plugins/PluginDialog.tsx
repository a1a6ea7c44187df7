import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import type { PluginView } from "@core/schemas/plugins";
import { pluginUpdateProblem } from "@core/trading/plugin";
import { ApiError } from "~/api";
import { Button } from "~/ui/Button";
import { DialogContent, DialogRoot } from "~/ui/Dialog";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { Switch } from "~/ui/Switch";
import { toast } from "~/ui/toast";
import { useChangePlugin } from "./pluginsApi";

/**
 * A plugin's enabled flag and its parameters, an ordered list of name/value strings as the server
 * keeps them; saved together. The platform's refusal (MT4's 127-character values, say) shows here
 * in its words. Without write access, or for a plugin that takes no settings, it only shows them.
 */
export function PluginDialog({ platformId, plugin, canWrite, onClose }: { platformId: string; plugin: PluginView; canWrite: boolean; onClose: () => void }) {
  const [enabled, setEnabled] = useState(plugin.enabled);
  const [parameters, setParameters] = useState(() => plugin.parameters.map((p) => ({ ...p })));
  const [failure, setFailure] = useState<string | null>(null);
  const change = useChangePlugin(platformId);
  const editable = canWrite && plugin.configurable;
  const parametersChanged = JSON.stringify(parameters) !== JSON.stringify(plugin.parameters);
  const dirty = enabled !== plugin.enabled || parametersChanged;
  const problem = parametersChanged ? pluginUpdateProblem({ parameters }) : null;

  // An edit starts over: the server's last refusal was about what was there before.
  const edit = (change: (list: typeof parameters) => typeof parameters) => {
    setFailure(null);
    setParameters(change);
  };
  const set = (index: number, field: "name" | "value", text: string) => edit((list) => list.map((p, i) => (i === index ? { ...p, [field]: text } : p)));

  const save = async () => {
    setFailure(null);
    try {
      const saved = await change.mutateAsync({
        pluginId: plugin.id,
        body: { ...(enabled !== plugin.enabled ? { enabled } : {}), ...(parametersChanged ? { parameters } : {}) },
      });
      toast({
        title: `${saved.name} saved`,
        description: `${saved.enabled ? "Enabled" : "Disabled"} with ${saved.parameters.length} parameters on the server.`,
        color: "success",
      });
      onClose();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setFailure(error.message);
    }
  };

  return (
    <DialogRoot open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        title={plugin.name || plugin.id}
        description={`${plugin.file}, version ${plugin.version}`}
        className="max-w-2xl"
        footer={
          canWrite ? (
            <>
              <Button variant="secondary" onClick={onClose}>
                Cancel
              </Button>
              <Button loading={change.isPending} disabled={!dirty || problem !== null} onClick={() => void save()}>
                Save on the server
              </Button>
            </>
          ) : undefined
        }
      >
        <div className="flex items-center gap-3">
          <Switch
            id="plugin-enabled"
            checked={enabled}
            onCheckedChange={(on) => {
              setFailure(null);
              setEnabled(on);
            }}
            disabled={!canWrite}
          />
          <label htmlFor="plugin-enabled" className="text-sm font-medium">
            {enabled ? "Enabled: the server runs it" : "Disabled: the server keeps it but does not run it"}
          </label>
        </div>
        {!plugin.configurable ? (
          <p className="text-sm text-muted">This plugin takes no settings from a manager connection; only the server's administrator can change them.</p>
        ) : null}
        <fieldset className="grid gap-2" disabled={!editable}>
          <legend className="mb-1 text-sm font-medium">Parameters, in the server's order</legend>
          {parameters.length === 0 ? <p className="text-sm text-muted">No parameters.</p> : null}
          {parameters.map((p, index) => (
            <div key={index} className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)_auto] items-center gap-2">
              <Input aria-label={`Name of parameter ${index + 1}`} value={p.name} disabled={!editable} onChange={(e) => set(index, "name", e.target.value)} />
              <Input
                aria-label={`Value of ${p.name || `parameter ${index + 1}`}`}
                value={p.value}
                disabled={!editable}
                onChange={(e) => set(index, "value", e.target.value)}
              />
              {editable ? (
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label={`Remove ${p.name || `parameter ${index + 1}`}`}
                  onClick={() => edit((l) => l.filter((_, i) => i !== index))}
                >
                  <Trash2 aria-hidden />
                </Button>
              ) : (
                <span />
              )}
            </div>
          ))}
          {editable ? (
            <Button variant="secondary" size="sm" className="justify-self-start" onClick={() => edit((l) => [...l, { name: "", value: "" }])}>
              <Plus aria-hidden /> Add a parameter
            </Button>
          ) : null}
        </fieldset>
        <FormAlert message={failure ?? (dirty ? problem : null)} />
      </DialogContent>
    </DialogRoot>
  );
}
