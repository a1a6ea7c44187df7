/**
 * A tiny HTML template helper: every interpolated value is escaped unless it is already
 * `SafeHtml` (the output of another `html` template). Pages are built only through it, so
 * a person's name or a provider message can never inject markup.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (typeof value === "string") return escapeHtml(value);
  if (typeof value === "number" || typeof value === "bigint" || value === true) return escapeHtml(String(value));
  // An object would print as "[object Object]": a bug in the page, not something to show a person.
  throw new TypeError(`html template: cannot render a value of type ${typeof value}; pass text, a number or SafeHtml.`);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  // A template always has one more string than values; `?? ""` only satisfies the index type.
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return new SafeHtml(out);
}

/** Markup that is trusted as is (only for constants written in this folder). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
