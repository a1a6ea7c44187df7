import { Page } from "~/ui/Page";
import { TooltipProvider } from "~/ui/Tooltip";
import { InteractiveSamples } from "./InteractiveSamples";
import { StaticSamples } from "./StaticSamples";
import { ThemePanels } from "./ThemePanels";

/** /index-sample: the living style guide; every block of app/ui in light and dark. */
export function StyleGuidePage() {
  return (
    <Page title="UI building blocks" description="Every block of app/ui, in light and dark. Build screens from these, not from scratch.">
      <div className="grid gap-8">
        <section aria-labelledby="sg-overlays" className="grid gap-3">
          <h2 id="sg-overlays" className="text-base font-semibold">
            Overlays and feedback
          </h2>
          <TooltipProvider>
            <InteractiveSamples />
          </TooltipProvider>
        </section>
        <section aria-labelledby="sg-blocks" className="grid gap-3">
          <h2 id="sg-blocks" className="text-base font-semibold">
            Blocks in both themes
          </h2>
          <ThemePanels>
            <StaticSamples />
          </ThemePanels>
        </section>
      </div>
    </Page>
  );
}
