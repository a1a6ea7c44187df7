/**
 * One outgoing POST to an address an organization chose (webhooks, the Telegram Bot API), through
 * the address checks of ./targets.ts at connect time. No redirects are followed (a redirect could
 * lead anywhere); the answer's body is read up to 64 KB.
 */
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { addressProblem, guardedLookup, hostOf, TargetRefused, type TargetPolicy } from "./targets.ts";

export interface PostAnswer {
  status: number;
  body: string;
}

const MAX_ANSWER = 64 * 1024;

export function postTo(policy: TargetPolicy, target: string, body: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<PostAnswer> {
  const url = new URL(target);
  const client = url.protocol === "https:" ? https : http;
  // A literal address is connected to without any lookup, so the guarded lookup never sees it:
  // checked here, whatever was checked when the URL was saved (the allow-list may have changed).
  const host = hostOf(url);
  const problem = net.isIP(host) ? addressProblem(policy, host, host) : null;
  if (problem) return Promise.reject(new TargetRefused(problem));
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Toolbox-Notifications/1", ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup(policy),
        timeout: timeoutMs,
        agent: false,
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (text.length < MAX_ANSWER) text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text.slice(0, MAX_ANSWER) }));
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)));
    request.on("error", (err) => reject(err instanceof TargetRefused ? err : new Error(readable(err))));
    request.end(body);
  });
}

function readable(err: Error & { code?: string }): string {
  if (err.code === "ECONNREFUSED") return "connection refused";
  if (err.code === "ENOTFOUND") return "host not found";
  if (err.code === "ECONNRESET") return "connection reset";
  return err.message;
}
