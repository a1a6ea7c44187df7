import { ApiError } from "~/api";
import { platformApi, type TestConnectionResult } from "../platformApi";
import { connectionFrom, type PlatformFormValues } from "./platformForm";

/** The answer shown under "Test connection", in words. */
export type TestOutcome = { ok: true; serverTime: string; accounts: number } | { ok: false; title: string; message: string };

const FAILURE_TITLES: Record<Extract<TestConnectionResult, { ok: false }>["code"], string> = {
  unreachable: "The server could not be reached",
  credentialsRefused: "The server refused the login",
  timeout: "The server did not answer in time",
  invalidRequest: "The connection details are not right",
  rateLimited: "The server is limiting requests",
};

/** `platformId`: testing a saved platform's changed settings, where an empty secret means the stored one. */
export async function testPlatformConnection(values: PlatformFormValues, platformId?: string): Promise<TestOutcome> {
  try {
    const result = await platformApi.testConnection({
      type: values.type,
      connection: connectionFrom(values),
      timeZone: values.timeZone,
      ...(platformId ? { platformId } : {}),
    });
    if (result.ok) return result;
    return { ok: false, title: FAILURE_TITLES[result.code] ?? "The connection failed", message: result.message };
  } catch (error) {
    if (error instanceof ApiError && error.status >= 400 && error.status < 500)
      return { ok: false, title: "Toolbox can't test this connection", message: error.message };
    return { ok: false, title: "Toolbox's service did not answer", message: "Try again in a moment." };
  }
}
