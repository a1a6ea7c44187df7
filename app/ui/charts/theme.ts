/** The colours a chart draws with, read from the theme tokens (app.css) around its element. */
export type ChartTone = "primary" | "info" | "warning" | "danger" | "success";

export interface ChartTheme {
  tone(tone: ChartTone): string;
  fg: string;
  muted: string;
  border: string;
  /** The page's font family, for axis labels and values drawn on the canvas. */
  fontFamily: string;
}

const TOKENS: Record<ChartTone, string> = {
  primary: "--tb-primary",
  success: "--tb-primary",
  info: "--tb-info",
  warning: "--tb-warning",
  danger: "--tb-danger",
};

/**
 * Read from the element itself, not the document: a `.light`/`.dark` subtree (the style guide shows
 * both) carries its own tokens, and the chart must match the panel it is drawn in.
 */
export function chartTheme(element: Element): ChartTheme {
  const style = getComputedStyle(element);
  const token = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    tone: (tone) => token(TOKENS[tone], "#2f9e63"),
    fg: token("--tb-fg", "#1f2a24"),
    muted: token("--tb-muted", "#5f6d65"),
    border: token("--tb-border", "#dfe5e1"),
    fontFamily: style.fontFamily || "sans-serif",
  };
}

/** `color` at `alpha` opacity, for the colour syntaxes the tokens use ("oklch(0.5 0.1 150)"). */
export function withAlpha(color: string, alpha: number): string {
  const match = /^(oklch|oklab|lch|lab|rgb|hsl)\(([^/)]*)\)$/i.exec(color);
  if (match && !match[2]!.includes(",")) return `${match[1]}(${match[2]!.trim()} / ${alpha})`;
  return "transparent";
}
