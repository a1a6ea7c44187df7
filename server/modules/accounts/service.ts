/**
 * What the accounts routes do. Reads check the account is the organization's (mirrored) and ask
 * the platform; every change follows one path, `changeOnPlatform`: call the platform through its
 * connector → write the mirror row and the audit record in one transaction. Money has its own
 * exactly-once protocol (./balanceOperations.ts).
 */
import type { Account, PasswordKind } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { ConnectorError } from "../../connectors/errors.ts";
import type { Db } from "../../db/client.ts";
import { DomainError, NotFoundError, viaConnector } from "../../errors.ts";
import { recordAudit, type Actor, type AuditChange } from "../audit/record.ts";
import { recentBalanceOperations, type BalanceOperationOutcome } from "./balanceOperationOutcomes.ts";
import { performBalanceOperation, type BalanceOperationDeps, type BalanceOperationLog } from "./balanceOperations.ts";
import { columnsOf } from "./mirror/rows.ts";
import { performPositionOperation, type PositionOperationOutcome, type PositionRequest } from "./positionOperations.ts";
import { upsertAccounts } from "./mirror/writeRepository.ts";
import { findAccount, platformOf } from "./repository.ts";
import type {
  AccountDetail,
  AccountRow,
  BalanceOperationBody,
  BalanceOperationRecord,
  CreateAccountBody,
  JournalQuery,
  PatchAccountBody,
  PlatformGroup,
  RangeQuery,
} from "./schemas.ts";
import { auditedFields, dealView, journalView, positionView, rangeOf } from "./views.ts";

export interface AccountsDeps {
  db: Db;
  connectorFor: (organizationId: string, platformId: string) => Promise<TradePlatformConnector>;
  /** Ask the mirror to re-read an account from its platform, best effort. */
  refreshLater: (platformId: string, login: string) => void;
  /** Tells the event bus a balance operation was done (`balanceOperationDone`). */
  balanceOperationDone?: BalanceOperationDeps["onDone"];
  log?: BalanceOperationLog;
}

/** Where an account lives: the organization's platform, and its login there. */
export interface AccountRef {
  organizationId: string;
  platformId: string;
  login: string;
}

const NO_SUCH_ACCOUNT = "No such account";
const TARGET = "tradingAccount";

/** The account must be the organization's (mirrored); otherwise 404, as for an unknown one. */
async function mirroredAccount(deps: AccountsDeps, ref: AccountRef) {
  const account = await findAccount(deps.db, ref.organizationId, ref.platformId, ref.login);
  if (!account) throw new NotFoundError(NO_SUCH_ACCOUNT);
  return account;
}

async function mirroredRow(deps: AccountsDeps, ref: AccountRef): Promise<AccountRow> {
  const { phone: _p, country: _c, city: _ci, address: _a, comment: _co, updatedAt: _u, ...row } = await mirroredAccount(deps, ref);
  return row;
}

/** The connector of an account known to be the organization's. */
async function connectorOf(deps: AccountsDeps, ref: AccountRef) {
  await mirroredAccount(deps, ref);
  return deps.connectorFor(ref.organizationId, ref.platformId);
}

/**
 * The one path of a change: the platform first (its refusal changes nothing here), then the
 * mirror row and the audit record together.
 */
async function changeOnPlatform(
  deps: AccountsDeps,
  actor: Actor,
  platformId: string,
  change: (connector: TradePlatformConnector) => Promise<Account>,
  audit: (account: Account) => Omit<AuditChange, "targetType" | "targetId">,
): Promise<Account> {
  const connector = await deps.connectorFor(actor.organizationId, platformId);
  const account = await viaConnector(() => change(connector));
  await deps.db.transaction(async (tx) => {
    await upsertAccounts(tx, { id: platformId, organizationId: actor.organizationId }, [columnsOf(account)]);
    await recordAudit(tx, actor, { ...audit(account), targetType: TARGET, targetId: `${platformId}/${account.login}` });
  });
  return account;
}

/** One account with live figures when the platform answers, else the last mirrored ones (`live: false`). */
export async function getAccountDetail(deps: AccountsDeps, ref: AccountRef): Promise<AccountDetail> {
  const mirrored = await mirroredAccount(deps, ref);
  let live: Account;
  try {
    const connector = await deps.connectorFor(ref.organizationId, ref.platformId);
    live = await connector.getAccount(ref.login);
  } catch (error) {
    if (error instanceof ConnectorError && error.code === "notFound") throw new NotFoundError(NO_SUCH_ACCOUNT);
    // Platform disabled, disconnected or slow: the last mirrored figures, marked as such.
    if (error instanceof DomainError || error instanceof ConnectorError) return { ...mirrored, live: false };
    throw error;
  }
  await upsertAccounts(deps.db, { id: ref.platformId, organizationId: ref.organizationId }, [columnsOf(live)]);
  return { ...(await mirroredAccount(deps, ref)), live: true };
}

export async function openPositions(deps: AccountsDeps, ref: AccountRef) {
  const connector = await connectorOf(deps, ref);
  const positions = await viaConnector(() => connector.openPositions(ref.login));
  // The symbols' rules ride along for the row actions; without them the positions still show.
  const symbols = positions.length ? await connector.listSymbols().catch(() => []) : [];
  const bySymbol = new Map(symbols.map((s) => [s.name, s]));
  return positions.map((p) => positionView(p, bySymbol.get(p.symbol)));
}

/** New stops, a close or a partial close of one of the account's open positions, exactly once per Idempotency-Key. */
export function positionOperation(
  deps: AccountsDeps,
  actor: Actor,
  ref: AccountRef,
  positionId: string,
  idempotencyKey: string,
  request: PositionRequest,
): Promise<PositionOperationOutcome> {
  return performPositionOperation(
    { db: deps.db, connectorFor: deps.connectorFor, afterDone: deps.refreshLater },
    { ...ref, positionId, idempotencyKey, request, actor },
  );
}

export async function dealHistory(deps: AccountsDeps, ref: AccountRef, query: RangeQuery) {
  const connector = await connectorOf(deps, ref);
  const { from, to } = rangeOf(query);
  return (await viaConnector(() => connector.dealHistory({ login: ref.login, from, to }))).map(dealView);
}

export async function journal(deps: AccountsDeps, ref: AccountRef, query: JournalQuery) {
  const connector = await connectorOf(deps, ref);
  const { from, to } = rangeOf(query);
  const { levels, text, limit } = query;
  return (await viaConnector(() => connector.journal({ from, to, login: ref.login, levels, text, limit }))).map(journalView);
}

export async function createAccount(deps: AccountsDeps, actor: Actor, body: CreateAccountBody): Promise<AccountRow> {
  const { platformId, ...details } = body;
  if (!(await platformOf(deps.db, actor.organizationId, platformId))) throw new NotFoundError("No such trade platform");
  const created = await changeOnPlatform(
    deps,
    actor,
    platformId,
    (c) => c.createAccount(details),
    (account) => ({
      action: "account.created",
      after: auditedFields(account),
    }),
  );
  return mirroredRow(deps, { organizationId: actor.organizationId, platformId, login: created.login });
}

export async function changeAccount(deps: AccountsDeps, actor: Actor, ref: AccountRef, patch: PatchAccountBody): Promise<AccountRow> {
  const before = await mirroredAccount(deps, ref);
  const fields = Object.keys(patch) as (keyof PatchAccountBody)[];
  await changeOnPlatform(
    deps,
    actor,
    ref.platformId,
    (c) => c.updateAccount(ref.login, patch),
    (updated) => ({
      action: "account.changed",
      before: Object.fromEntries(fields.map((f) => [f, before[f]])),
      after: Object.fromEntries(fields.map((f) => [f, updated[f]])),
    }),
  );
  return mirroredRow(deps, ref);
}

/** A new main password; never stored, never in the audit record. */
export async function resetPassword(deps: AccountsDeps, actor: Actor, ref: AccountRef, password: string, kind: PasswordKind = "main"): Promise<void> {
  const connector = await connectorOf(deps, ref);
  await viaConnector(() => connector.resetPassword(ref.login, password, kind));
  // Neither password is ever recorded: before and after say only which one was replaced.
  const field = kind === "main" ? "mainPassword" : "investorPassword";
  await recordAudit(deps.db, actor, {
    action: kind === "main" ? "account.password.reset" : "account.investorPassword.reset",
    targetType: TARGET,
    targetId: `${ref.platformId}/${ref.login}`,
    before: { [field]: "(previous, not recorded)" },
    after: { [field]: "(new, not recorded)" },
  });
}

/** The groups a new or moved account can be put in, with the platform's own names (`demo\retail-usd`), by name. */
export async function platformGroups(deps: AccountsDeps, organizationId: string, platformId: string): Promise<PlatformGroup[]> {
  if (!(await platformOf(deps.db, organizationId, platformId))) throw new NotFoundError("No such trade platform");
  const connector = await deps.connectorFor(organizationId, platformId);
  const groups = await viaConnector(() => connector.listGroups());
  return groups.map((g) => ({ name: g.name, currency: g.currency, defaultLeverage: g.defaultLeverage })).sort((a, b) => a.name.localeCompare(b.name, "en"));
}

export function balanceOperation(
  deps: AccountsDeps,
  actor: Actor,
  ref: AccountRef,
  idempotencyKey: string,
  body: BalanceOperationBody,
): Promise<BalanceOperationOutcome> {
  return performBalanceOperation(
    { db: deps.db, connectorFor: deps.connectorFor, afterDone: deps.refreshLater, onDone: deps.balanceOperationDone, log: deps.log },
    { ...ref, idempotencyKey, body, actor },
  );
}

/** The account's latest balance operations, those to reconcile marked. */
export async function balanceOperations(deps: AccountsDeps, ref: AccountRef): Promise<BalanceOperationRecord[]> {
  await mirroredAccount(deps, ref);
  return recentBalanceOperations(deps.db, ref.organizationId, ref.platformId, ref.login);
}
