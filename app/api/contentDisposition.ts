import { parse } from "content-disposition";

export const DEFAULT_DOWNLOAD_NAME = "downloaded-file";

/**
 * The file name a download is saved under (docs/requirements.md#r-calls): `filename*` (RFC 5987, e.g. UTF-8) wins over
 * `filename`; anything missing or unreadable gives 'downloaded-file'. The server's name is not
 * trusted: folders, control characters and names made only of dots are removed.
 */
export function fileNameFromContentDisposition(header: string | null | undefined): string {
  if (!header) return DEFAULT_DOWNLOAD_NAME;
  return safeFileName(parsedFileName(header)) || DEFAULT_DOWNLOAD_NAME;
}

function parsedFileName(header: string): string | undefined {
  try {
    // The package decodes filename* and lets it override filename, whatever their order.
    return parse(header).parameters.filename;
  } catch {
    // Servers send sloppy headers (unquoted spaces, odd charsets): take a plain filename if any.
    return /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i
      .exec(header)
      ?.slice(1)
      .find((v) => v !== undefined);
  }
}

function safeFileName(name: string | undefined): string {
  if (!name) return "";
  const base = name.split(/[/\\]/).pop() ?? "";
  const cleaned = base
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/[\u0000-\u001f\u007f<>:"|?*]/g, "")
    .trim();
  return /^\.+$/.test(cleaned) ? "" : cleaned.replace(/^\.+/, "").slice(0, 200);
}
