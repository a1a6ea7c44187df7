import { themeQuartz } from "ag-grid-community";

/**
 * AG Grid's Theming API on our design tokens. Every colour is a `var(--tb-*)`, so the grid
 * follows `.dark` on <html> (and a forced `.light`/`.dark` subtree) with no JavaScript and no
 * second theme object; AG Grid mixes its derived colours in CSS from these.
 */
export const gridTheme = themeQuartz.withParams({
  browserColorScheme: "inherit",
  fontFamily: "inherit",
  fontSize: 13,
  headerFontSize: 12,
  headerFontWeight: 600,
  backgroundColor: "var(--tb-surface)",
  foregroundColor: "var(--tb-fg)",
  textColor: "var(--tb-fg)",
  subtleTextColor: "var(--tb-muted)",
  accentColor: "var(--tb-primary)",
  borderColor: "var(--tb-border)",
  chromeBackgroundColor: "var(--tb-subtle)",
  headerBackgroundColor: "var(--tb-subtle)",
  headerTextColor: "var(--tb-muted)",
  oddRowBackgroundColor: "color-mix(in oklch, var(--tb-subtle) 45%, transparent)",
  rowHoverColor: "color-mix(in oklch, var(--tb-primary) 7%, transparent)",
  selectedRowBackgroundColor: "color-mix(in oklch, var(--tb-primary) 12%, transparent)",
  // A new or changed row stays lit for a second (the live blotter's rowFlash.css): a calm tint
  // that reads apart from hover and selection, with the row's text as legible as on any row.
  valueChangeValueHighlightBackgroundColor: "color-mix(in oklch, var(--tb-warning) 20%, transparent)",
  inputFocusBorder: { color: "var(--tb-primary)" },
  rangeSelectionBorderColor: "var(--tb-primary)",
  wrapperBorderRadius: 8,
  borderRadius: 6,
  spacing: 6,
  rowHeight: 36,
  headerHeight: 36,
  cellHorizontalPadding: 12,
});
