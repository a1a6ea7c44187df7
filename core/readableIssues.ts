/**
 * Validation problems in a person's words: "Trade rate: must be at most 100,000", not
 * "body.connection.tradeRate: Too big: expected number to be <=100000". Used where the API's 400
 * messages are produced (server/http/errors.ts); the `issues` list keeps its machine paths.
 */

/** Words that read as letters, not as a word. */
const ACRONYMS = new Set(["grpc", "id", "url", "urls", "ip", "smtp", "csv", "api", "sl", "tp", "utc", "oidc", "nats", "sse", "otp", "mt4", "mt5"]);

/** Where a request part is named in a path; never shown. */
const REQUEST_PARTS = new Set(["body", "querystring", "params", "headers"]);

/** Query parameters whose short names say little to a person. */
const NAMES: Record<string, string> = { q: "Search text", dir: "Sort direction" };

/** The field a path ends in, as written in code ("tradeRate"); undefined for the root. */
function fieldName(path: readonly (string | number)[]): string | undefined {
  return path
    .map(String)
    .filter((part, i) => !(i === 0 && REQUEST_PARTS.has(part)))
    .reverse()
    .find((part) => !/^\d+$/.test(part));
}

/** "tradeRate" → "Trade rate", "smtpUrl" → "SMTP URL". */
export function words(name: string): string {
  if (NAMES[name]) return NAMES[name];
  // "volumeMin" → "Minimum volume", "balanceMax" → "Maximum balance".
  const bound = /^(.+)(Min|Max)$/.exec(name);
  if (bound) return `${bound[2] === "Min" ? "Minimum" : "Maximum"} ${words(bound[1]!).toLowerCase()}`;
  const text = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .split(/\s+/)
    .map((word) => {
      const lower = word.toLowerCase();
      if (lower === "ids") return "IDs";
      return ACRONYMS.has(lower) ? word.toUpperCase() : lower;
    })
    .join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "tradeRate" → "Trade rate", "settings.url" → "URL", "items.2.login" → "Login (item 3)". */
export function fieldLabel(path: readonly (string | number)[]): string {
  const parts = path.map(String).filter((part, i) => !(i === 0 && REQUEST_PARTS.has(part)));
  // The last name in the path, and the list position just around it (items.2.login, tags.0).
  const at = parts.findLastIndex((part) => !/^\d+$/.test(part));
  const name = at === -1 ? undefined : parts[at];
  const position = parts[at + 1] ?? (at > 0 && /^\d+$/.test(parts[at - 1]!) ? parts[at - 1] : undefined);
  const index = position === undefined ? null : Number(position);
  if (name === undefined) return index === null ? "" : `Item ${index + 1}`;
  const label = words(name);
  return index === null ? label : `${label} (item ${index + 1})`;
}

const number = (text: string) => {
  const value = Number(text);
  return Number.isFinite(value) ? value.toLocaleString("en-US", { maximumFractionDigits: 20 }) : text;
};

const KINDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "yes or no",
  array: "a list",
  object: "a set of fields",
  date: "a date",
  bigint: "a whole number",
};

const BOUND: Record<string, string> = { "<=": "at most", "<": "less than", ">=": "at least", ">": "more than" };

/**
 * Zod's default messages ("Too big: expected number to be <=5", "Invalid input: expected string,
 * received undefined") in words; our own messages (already sentences) are kept as they are.
 */
export function readableIssueMessage(message: string): string {
  let m: RegExpExecArray | null;
  if ((m = /^Too (?:big|small): expected (\w+) to (?:have|be) ([<>]=?)(-?[\d.e+]+)(?: (characters|items))?$/.exec(message))) {
    const [, kind, op, value, unit] = m;
    const bound = BOUND[op!] ?? op!;
    if (kind === "string" || unit === "characters") return `use ${bound} ${number(value!)} characters`;
    if (kind === "array" || kind === "set" || unit === "items") return `give ${bound} ${number(value!)} items`;
    if (kind === "date") return `must be ${op!.startsWith("<") ? "on or before" : "on or after"} ${value}`;
    return `must be ${bound} ${number(value!)}`;
  }
  if ((m = /^Invalid input: expected (\w+), received (\w+)$/.exec(message))) {
    const [, expected, received] = m;
    if (received === "undefined") return "is required";
    if (expected === "int" && received === "number") return "must be a whole number";
    return `must be ${KINDS[expected!] ?? expected}`;
  }
  if ((m = /^Invalid (?:option|input): expected one of (.+)$/.exec(message))) return `must be one of ${m[1]!.split("|").join(", ")}`;
  if ((m = /^Invalid input: expected (".*")$/.exec(message))) return `must be ${m[1]}`;
  if ((m = /^Unrecognized keys?: (.+)$/.exec(message))) return `unknown field${m[1]!.includes(",") ? "s" : ""} ${m[1]}`;
  if (/^Invalid string: must match pattern/.test(message)) return "is not in the expected form";
  if (/^Invalid string: must start with/.test(message)) return message.replace(/^Invalid string: /, "");
  if (/^Invalid ISO datetime$/.test(message)) return "must be a date and time (ISO 8601, e.g. 2026-11-27T07:13:00Z)";
  if (/^Invalid ISO date$/.test(message)) return "must be a date (YYYY-MM-DD)";
  if (/^Invalid URL$/.test(message)) return "must be a web address (https://…)";
  if (/^Invalid email address$/.test(message)) return "must be an e-mail address";
  if (/^Invalid UUID$/.test(message)) return "must be an id (UUID)";
  if (/^Invalid input$/.test(message)) return "is not valid";
  return message;
}

/** One issue as a sentence fragment: "Trade rate: must be at most 100,000". */
export function readableIssue(path: readonly (string | number)[], message: string): string {
  const label = fieldLabel(path);
  // Other fields named inside the message ("… greater than balanceMax") in words too.
  const text = readableIssueMessage(message).replace(/(?<=\s)[a-z]+[A-Z][A-Za-z0-9]*\b/g, (name) => {
    const spelled = words(name);
    return /^[A-Z]{2}/.test(spelled) ? spelled : spelled.charAt(0).toLowerCase() + spelled.slice(1);
  });
  // Our own messages often start with the field's code name ("from must not be after to",
  // "tradeRate must be …"): that name in words, and no second label in front.
  const name = fieldName(path);
  if (name && text.startsWith(`${name} `)) return `${label} ${text.slice(name.length + 1)}`;
  const codeName = /^([a-z]+[A-Z][A-Za-z0-9]*) /.exec(text)?.[1];
  if (codeName) return `${words(codeName)} ${text.slice(codeName.length + 1)}`;
  return label ? `${label}: ${text}` : text.charAt(0).toUpperCase() + text.slice(1);
}

/** Several issues, one per field (the first per field), joined for a toast. */
export function readableIssues(issues: readonly { path: readonly (string | number)[]; message: string }[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const issue of issues) {
    const key = issue.path.join(".");
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(readableIssue(issue.path, issue.message));
  }
  return lines.join("; ");
}
