/**
 * What a person should read from an error answer: the `message` of our JSON errors
 * ({statusCode, error, message}), otherwise the body text. HTML pages (a proxy's 502 page) and
 * empty bodies give '' so the caller falls back to its docs/requirements.md#r-errors text.
 */
export function readableBody(body: string, contentType: string | null): string {
  const text = body.trim();
  if (!text) return "";
  if (contentType?.includes("text/html") || /^<(!doctype|html)/i.test(text)) return "";
  if (text.startsWith("{") || contentType?.includes("json")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object") {
        const { message, error } = parsed as { message?: unknown; error?: unknown };
        if (typeof message === "string" && message.trim()) return message.trim();
        if (typeof error === "string" && error.trim()) return error.trim();
      }
    } catch {
      // Not JSON after all: show it as text.
    }
  }
  // Keep a runaway body (a stack trace, a dump) from filling the screen.
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
