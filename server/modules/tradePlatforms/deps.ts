/** What the platform services work with, and the words they share. */
import type { Db } from "../../db/client.ts";
import type { Quotas } from "../../quotas.ts";
import type { SecretCipher } from "../../secrets/cipher.ts";
import type { PlatformRuntime } from "./runtime/runtime.ts";

export interface PlatformDeps {
  db: Db;
  platforms: PlatformRuntime;
  secrets: SecretCipher;
  quotas: Quotas;
}

/** Another organization's platform is never revealed: it does not exist. */
export const NOT_FOUND = "No such trade platform";
/** The audit records' target type. */
export const AUDIT_TARGET = "tradePlatform";
