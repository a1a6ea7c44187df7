/**
 * What a copy link must satisfy beyond its schema (docs/trades-copier.md "Links and the screen"): every account on
 * one of the organization's platforms (another organization's: 404, as if absent), each platform
 * with the Trades Copier assigned (400), each account existing there (the accounts mirror, else
 * the platform itself), and no cycle across the organization's links. Field-level refusals carry
 * the body path of the field, so the screen shows them on it.
 */
import type { AccountRef, CopyLink, CopyLinkBody } from "../../../core/schemas/copier.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { ConnectorError } from "../../connectors/errors.ts";
import type { DbOrTx } from "../../db/client.ts";
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import { mirroredLogins, platformsOf, type CopierPlatform } from "./repository.ts";

export interface FieldIssue {
  path: string;
  message: string;
}

/** A 400 whose issues name the fields at fault (`body.followers.0.account`). */
export class LinkInvalidError extends InvalidRequestError {
  constructor(readonly issues: FieldIssue[]) {
    super(issues.map((i) => i.message).join(". "));
  }
}

export type ConnectorFor = (organizationId: string, platformId: string) => Promise<TradePlatformConnector>;

const keyOf = (a: AccountRef) => `${a.platformId}:${a.login}`;

/** Platform ids in lower case, so one account is one key however its id was written. */
export function normalized(body: CopyLinkBody): CopyLinkBody {
  const ref = (a: AccountRef) => ({ platformId: a.platformId.toLowerCase(), login: a.login });
  return { ...body, source: ref(body.source), followers: body.followers.map((f) => ({ ...f, account: ref(f.account) })) };
}

/** Each account with the body path of its field. */
function accountsOf(body: CopyLinkBody): { account: AccountRef; path: string }[] {
  return [{ account: body.source, path: "body.source" }, ...body.followers.map((f, i) => ({ account: f.account, path: `body.followers.${i}.account` }))];
}

async function checkPlatforms(db: DbOrTx, organizationId: string, body: CopyLinkBody): Promise<Map<string, CopierPlatform>> {
  const ids = [...new Set(accountsOf(body).map((a) => a.account.platformId))];
  const platforms = new Map((await platformsOf(db, organizationId, ids)).map((p) => [p.id, p]));
  if (ids.some((id) => !platforms.has(id))) throw new NotFoundError("No such platform");
  const issues: FieldIssue[] = [];
  const told = new Set<string>();
  for (const { account, path } of accountsOf(body)) {
    const platform = platforms.get(account.platformId)!;
    if (platform.copier || told.has(platform.id)) continue;
    told.add(platform.id);
    issues.push({
      path,
      message: `The Trades Copier is not assigned to ${platform.name}: assign the app to the platform first (Trade platforms → Assign application)`,
    });
  }
  if (issues.length > 0) throw new LinkInvalidError(issues);
  return platforms;
}

async function checkExisting(db: DbOrTx, connectorFor: ConnectorFor, organizationId: string, body: CopyLinkBody, platforms: Map<string, CopierPlatform>) {
  const issues: FieldIssue[] = [];
  for (const platform of platforms.values()) {
    const here = accountsOf(body).filter((a) => a.account.platformId === platform.id);
    const mirrored = await mirroredLogins(
      db,
      organizationId,
      platform.id,
      here.map((a) => a.account.login),
    );
    const missing = here.filter((a) => !mirrored.has(a.account.login));
    if (missing.length === 0) continue;
    // Not mirrored (yet): the platform itself says. Unreachable is its own answer (503), not "no account".
    const connector = await connectorFor(organizationId, platform.id);
    for (const { account, path } of missing) {
      try {
        await connector.getAccount(account.login);
      } catch (error) {
        if (error instanceof ConnectorError && error.code === "notFound") issues.push({ path, message: `No account ${account.login} on ${platform.name}` });
        else throw error;
      }
    }
  }
  if (issues.length > 0) throw new LinkInvalidError(issues);
}

/**
 * The shortest chain of links from `from` back to `to`, as accounts, or undefined. `edges`:
 * source key → follower keys (every other link of the organization, and this one).
 */
function chain(edges: Map<string, Set<string>>, from: string, to: string): string[] | undefined {
  const parent = new Map<string, string>([[from, ""]]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i]!;
    if (at === to) {
      const path = [at];
      for (let p = parent.get(at)!; p !== ""; p = parent.get(p)!) path.unshift(p);
      return path;
    }
    for (const next of edges.get(at) ?? []) {
      if (parent.has(next)) continue;
      parent.set(next, at);
      queue.push(next);
    }
  }
  return undefined;
}

function checkCycles(body: CopyLinkBody, others: CopyLink[], platforms: Map<string, CopierPlatform>) {
  const edges = new Map<string, Set<string>>();
  const add = (from: AccountRef, to: AccountRef) => {
    const set = edges.get(keyOf(from)) ?? new Set<string>();
    set.add(keyOf(to));
    edges.set(keyOf(from), set);
  };
  for (const link of [...others, body]) for (const f of link.followers) add(link.source, f.account);
  const nameOf = (key: string) => {
    const [platformId, login] = key.split(":") as [string, string];
    return `${platforms.get(platformId)?.name ?? "another platform"} ${login}`;
  };
  const issues: FieldIssue[] = [];
  body.followers.forEach((f, i) => {
    const back = chain(edges, keyOf(f.account), keyOf(body.source));
    if (!back) return;
    const accounts = [keyOf(body.source), ...back].map(nameOf).join(" → ");
    issues.push({ path: `body.followers.${i}.account`, message: `Links cannot form a cycle: ${accounts}` });
  });
  if (issues.length > 0) throw new LinkInvalidError(issues);
}

/** Platforms, then accounts (outside the writing transaction: it may ask a platform). */
export async function checkAccounts(db: DbOrTx, connectorFor: ConnectorFor, organizationId: string, body: CopyLinkBody): Promise<void> {
  const platforms = await checkPlatforms(db, organizationId, body);
  await checkExisting(db, connectorFor, organizationId, body, platforms);
}

/** No cycle with the organization's other links (inside the transaction that holds the organization's lock). */
export async function checkNoCycle(db: DbOrTx, organizationId: string, body: CopyLinkBody, others: CopyLink[]): Promise<void> {
  const all = new Map((await platformsOf(db, organizationId)).map((p) => [p.id, p]));
  checkCycles(body, others, all);
}
