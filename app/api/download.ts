import { trackActivity } from "~/ui/loadingBar";
import { saveFile } from "~/ui/saveFile";
import { fileNameFromContentDisposition } from "./contentDisposition";
import { ApiError } from "./ApiError";
import { toastFailure } from "./failureToasts";
import { apiHeaders } from "./headers";
import { readableBody } from "./readableBody";

/**
 * docs/requirements.md#r-calls file download: GET `path` with the API headers and save the answer under the name its
 * Content-Disposition gives. Any failure shows the 'Error' toast and rejects.
 */
export async function download(path: string, options: { signal?: AbortSignal } = {}): Promise<string> {
  const headers = await apiHeaders();
  let response: Response;
  try {
    response = await trackActivity(() => fetch(path, { headers, signal: options.signal, credentials: "same-origin" }));
  } catch (error) {
    toastFailure("");
    throw new ApiError(0, error instanceof Error ? error.message : "Network error");
  }
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    const readable = readableBody(text, response.headers.get("Content-Type"));
    toastFailure(readable);
    throw new ApiError(response.status, readable || `HTTP ${response.status}`, text);
  }
  const name = fileNameFromContentDisposition(response.headers.get("Content-Disposition"));
  saveFile(await response.blob(), name);
  return name;
}
