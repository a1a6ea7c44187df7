import { html, raw, type SafeHtml } from "./html.ts";

/**
 * The provider pages' look, matching the Toolbox app: a centred card, green primary, light or
 * dark from the system preference. Kept inline so the pages need no asset route and the CSP
 * can stay at `default-src 'none'`.
 */
const STYLES = raw(`
:root{color-scheme:light dark;--bg:#f4f6f8;--card:#fff;--text:#0f172a;--muted:#5b6474;--border:#d9dee5;
--input:#fff;--primary:#16a34a;--primary-strong:#15803d;--primary-hover:#166534;--on-primary:#fff;
--link:#15803d;--danger:#b91c1c;--danger-bg:#fef2f2;--danger-border:#fecaca;--ring:rgba(22,163,74,.35)}
@media (prefers-color-scheme:dark){:root{--bg:#0b0f14;--card:#121821;--text:#e6e9ee;--muted:#9aa4b2;--border:#263040;
--input:#0e141c;--primary:#22c55e;--primary-strong:#15803d;--primary-hover:#166534;--link:#4ade80;
--danger:#fca5a5;--danger-bg:#2a1215;--danger-border:#7f1d1d;--ring:rgba(34,197,94,.4)}}
*{box-sizing:border-box}
html,body{margin:0;min-height:100%}
body{background:var(--bg);color:var(--text);font:15px/1.5 ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
display:flex;flex-direction:column;align-items:center;justify-content:center;min-height:100vh;padding:24px 16px}
.brand{display:flex;align-items:center;gap:10px;margin-bottom:20px;font-weight:700;font-size:20px;letter-spacing:-.01em;color:var(--text);text-decoration:none}
.brand svg{width:32px;height:32px}
.card{width:100%;max-width:400px;background:var(--card);border:1px solid var(--border);border-radius:12px;padding:28px;
box-shadow:0 1px 2px rgba(15,23,42,.05),0 8px 24px rgba(15,23,42,.06)}
h1{font-size:22px;line-height:1.3;margin:0 0 4px;letter-spacing:-.01em}
.lead{color:var(--muted);margin:0 0 20px}
.field{margin-bottom:16px}
label{display:block;font-weight:600;font-size:14px;margin-bottom:6px}
input{width:100%;height:42px;padding:0 12px;font:inherit;color:var(--text);background:var(--input);border:1px solid var(--border);border-radius:8px}
input:focus{outline:none;border-color:var(--primary);box-shadow:0 0 0 3px var(--ring)}
input[aria-invalid=true]{border-color:var(--danger)}
.hint{color:var(--muted);font-size:13px;margin-top:4px}
.field-error{color:var(--danger);font-size:13px;margin-top:4px}
.alert{border:1px solid var(--danger-border);background:var(--danger-bg);color:var(--danger);border-radius:8px;padding:10px 12px;margin-bottom:16px;font-size:14px}
.button{display:inline-flex;align-items:center;justify-content:center;width:100%;height:42px;padding:0 16px;border:0;border-radius:8px;
background:var(--primary-strong);color:var(--on-primary);font:inherit;font-weight:600;cursor:pointer;text-decoration:none}
.button:hover{background:var(--primary-hover)}
.button:focus-visible{outline:none;box-shadow:0 0 0 3px var(--ring)}
.button.secondary{background:transparent;color:var(--link);border:1px solid var(--border);margin-top:10px}
.button.secondary:hover{background:var(--bg)}
.notice{border:1px solid var(--border);border-radius:8px;padding:10px 12px;margin-bottom:16px;font-size:14px}
pre{white-space:pre-wrap;word-break:break-word;font-size:13px;margin:8px 0 0}
.alt{margin:20px 0 0;text-align:center;color:var(--muted);font-size:14px}
a{color:var(--link);font-weight:600}
a:focus-visible{outline:2px solid var(--primary);outline-offset:2px;border-radius:2px}
.foot{margin-top:20px;color:var(--muted);font-size:13px;text-align:center}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);border:0}
`);

/** Same mark as the app's ToolboxMark: a green rounded square with a toolbox outline. */
const LOGO = raw(
  `<svg viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" fill="#16a34a"/>` +
    `<path d="M12 11V9.5A1.5 1.5 0 0 1 13.5 8h5A1.5 1.5 0 0 1 20 9.5V11M7.5 11h17a1 1 0 0 1 1 1v10a2 2 0 0 1-2 2h-15a2 2 0 0 1-2-2V12a1 1 0 0 1 1-1ZM6.5 17h19M14 17v2h4v-2" ` +
    `fill="none" stroke="#fff" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"/></svg>`,
);

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
  /** Where the Toolbox name leads (the app's root). */
  homeUrl: string;
  /** Script tags to add (already carrying their nonce). */
  scripts?: SafeHtml;
}

export function layout(opts: LayoutOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${opts.title} · Toolbox</title>
<style>${STYLES}</style>
</head>
<body>
<a class="brand" href="${opts.homeUrl}">${LOGO}<span>Toolbox</span></a>
<main class="card">
${opts.body}
</main>
<p class="foot">Toolbox back-office</p>
${opts.scripts}
</body>
</html>
`.value;
}
