import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { formatLots, moneyToDecimal, type Account, type Deal, type JournalEntry, type Position } from "../../../core/trading/index.ts";
import { accountsMirrorOf, accountsMirrorPlugin } from "../../accounts/plugin.ts";
import { columnsOf } from "../../accounts/rows.ts";
import { platformRuntimeOf } from "../../accounts/runtime.ts";
import { upsertAccounts } from "../../accounts/store.ts";
import { ConnectorError } from "../../connectors/errors.ts";
import { HttpError } from "../../http/errors.ts";
import { actorOf, recordAudit } from "../audit/record.ts";
import { performBalanceOperation } from "./balanceOperations.ts";
import { viaConnector } from "./connectorErrors.ts";
import { findAccount, listAccounts, platformOf } from "./repository.ts";
import {
  AccountDetailSchema,
  AccountListSchema,
  AccountParamsSchema,
  AccountRowSchema,
  BalanceOperationBodySchema,
  BalanceOperationResultSchema,
  CreateAccountSchema,
  DealSchema,
  IdempotencyHeadersSchema,
  JournalEntrySchema,
  JournalQuerySchema,
  ListAccountsQuerySchema,
  PatchAccountSchema,
  PositionSchema,
  RangeQuerySchema,
  ResetPasswordSchema,
} from "./schemas.ts";

const NO_SUCH_ACCOUNT = "No such account";
const DEFAULT_RANGE_MS = 30 * 86_400_000;
const tags = ["accounts"];
const read = { permission: { module: "users", value: "read" } } as const;
const write = { permission: { module: "users", value: "write" } } as const;
const money = { permission: { module: "users", value: "money" } } as const;

/**
 * Trading accounts ("users" in MetaTrader's words) of the organization's platforms: the list
 * reads the mirror (server/accounts/), the detail tabs and every change go to the platform
 * through its connector, then the mirror row and the audit log are written.
 */
export async function accountRoutes(app: FastifyInstance) {
  await app.register(accountsMirrorPlugin);
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const connectorFor = (organizationId: string, platformId: string) => platformRuntimeOf(app).connectorFor(organizationId, platformId);
  const refreshLater = (platformId: string, login: string) => {
    void accountsMirrorOf(app.ctx)
      ?.refresh(platformId, [login])
      .catch((err: unknown) => app.log.warn({ err, platformId }, "account refresh failed"));
  };

  /** The account must be the organization's (mirrored); otherwise 404, as for an unknown one. */
  async function accountOf(organizationId: string, platformId: string, login: string) {
    const account = await findAccount(db, organizationId, platformId, login);
    if (!account) throw new HttpError(404, NO_SUCH_ACCOUNT);
    return account;
  }

  api.get(
    "/accounts",
    {
      config: read,
      schema: {
        tags,
        summary: "Trading accounts of the organization's platforms: filtered, sorted, paged",
        querystring: ListAccountsQuerySchema,
        response: { 200: AccountListSchema },
      },
    },
    async (request) => listAccounts(db, request.organization.id, request.query),
  );

  api.get(
    "/accounts/:platformId/:login",
    {
      config: read,
      schema: {
        tags,
        summary: "One trading account with its personal details; figures fresh from the platform when it answers",
        params: AccountParamsSchema,
        response: { 200: AccountDetailSchema },
      },
    },
    async (request) => {
      const { platformId, login } = request.params;
      const org = request.organization.id;
      const mirrored = await accountOf(org, platformId, login);
      let live: Account;
      try {
        const connector = await connectorFor(org, platformId);
        live = await connector.getAccount(login);
      } catch (error) {
        if (error instanceof ConnectorError && error.code === "notFound") throw new HttpError(404, NO_SUCH_ACCOUNT);
        // Platform disabled, disconnected or slow: the last mirrored figures, marked as such.
        if (error instanceof HttpError || error instanceof ConnectorError) return { ...mirrored, live: false };
        throw error;
      }
      await upsertAccounts(db, { id: platformId, organizationId: org }, [columnsOf(live)]);
      return { ...(await accountOf(org, platformId, login)), live: true };
    },
  );

  api.get(
    "/accounts/:platformId/:login/positions",
    {
      config: read,
      schema: { tags, summary: "Open positions of the account, from the platform", params: AccountParamsSchema, response: { 200: z.array(PositionSchema) } },
    },
    async (request) => {
      const { platformId, login } = request.params;
      await accountOf(request.organization.id, platformId, login);
      const connector = await connectorFor(request.organization.id, platformId);
      const positions = await viaConnector(() => connector.openPositions(login));
      return positions.map(positionView);
    },
  );

  api.get(
    "/accounts/:platformId/:login/deals",
    {
      config: read,
      schema: {
        tags,
        summary: "Deal history of the account within [from, to] (default: the last 30 days), from the platform",
        params: AccountParamsSchema,
        querystring: RangeQuerySchema,
        response: { 200: z.array(DealSchema) },
      },
    },
    async (request) => {
      const { platformId, login } = request.params;
      await accountOf(request.organization.id, platformId, login);
      const { from, to } = rangeOf(request.query);
      const connector = await connectorFor(request.organization.id, platformId);
      const deals = await viaConnector(() => connector.dealHistory({ login, from, to }));
      return deals.map(dealView);
    },
  );

  api.get(
    "/accounts/:platformId/:login/journal",
    {
      config: read,
      schema: {
        tags,
        summary: "The platform's journal lines about the account within [from, to] (default: the last 30 days)",
        params: AccountParamsSchema,
        querystring: JournalQuerySchema,
        response: { 200: z.array(JournalEntrySchema) },
      },
    },
    async (request) => {
      const { platformId, login } = request.params;
      await accountOf(request.organization.id, platformId, login);
      const { from, to } = rangeOf(request.query);
      const { levels, text, limit } = request.query;
      const connector = await connectorFor(request.organization.id, platformId);
      const entries = await viaConnector(() => connector.journal({ from, to, login, levels, text, limit }));
      return entries.map(journalView);
    },
  );

  api.post(
    "/accounts",
    {
      config: write,
      schema: { tags, summary: "Create a trading account on a platform", body: CreateAccountSchema, response: { 201: AccountRowSchema } },
    },
    async (request, reply) => {
      const org = request.organization.id;
      const { platformId, password, investorPassword, ...details } = request.body;
      const platform = await platformOf(db, org, platformId);
      if (!platform) throw new HttpError(404, "No such trade platform");
      const connector = await connectorFor(org, platformId);
      const created = await viaConnector(() => connector.createAccount({ ...details, password, investorPassword }));
      await db.transaction(async (tx) => {
        await upsertAccounts(tx, { id: platformId, organizationId: org }, [columnsOf(created)]);
        await recordAudit(tx, actorOf(request), {
          action: "account.created",
          targetType: "tradingAccount",
          targetId: `${platformId}/${created.login}`,
          after: auditedFields(created),
        });
      });
      const { phone: _p, country: _c, city: _ci, address: _a, comment: _co, updatedAt: _u, ...row } = await accountOf(org, platformId, created.login);
      return reply.status(201).send(row);
    },
  );

  api.patch(
    "/accounts/:platformId/:login",
    {
      config: write,
      schema: {
        tags,
        summary: "Change an account's group, leverage, or trading rights",
        params: AccountParamsSchema,
        body: PatchAccountSchema,
        response: { 200: AccountRowSchema },
      },
    },
    async (request) => {
      const org = request.organization.id;
      const { platformId, login } = request.params;
      const before = await accountOf(org, platformId, login);
      const connector = await connectorFor(org, platformId);
      const updated = await viaConnector(() => connector.updateAccount(login, request.body));
      await db.transaction(async (tx) => {
        await upsertAccounts(tx, { id: platformId, organizationId: org }, [columnsOf(updated)]);
        const fields = Object.keys(request.body) as (keyof typeof request.body)[];
        await recordAudit(tx, actorOf(request), {
          action: "account.changed",
          targetType: "tradingAccount",
          targetId: `${platformId}/${login}`,
          before: Object.fromEntries(fields.map((f) => [f, before[f]])),
          after: Object.fromEntries(fields.map((f) => [f, updated[f]])),
        });
      });
      const { phone: _p, country: _c, city: _ci, address: _a, comment: _co, updatedAt: _u, ...row } = await accountOf(org, platformId, login);
      return row;
    },
  );

  api.post(
    "/accounts/:platformId/:login/reset-password",
    {
      config: write,
      schema: {
        tags,
        summary: "Set a new main password for the account (it is never stored or shown)",
        params: AccountParamsSchema,
        body: ResetPasswordSchema,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const org = request.organization.id;
      const { platformId, login } = request.params;
      await accountOf(org, platformId, login);
      const connector = await connectorFor(org, platformId);
      await viaConnector(() => connector.resetPassword(login, request.body.password, "main"));
      await recordAudit(db, actorOf(request), {
        action: "account.password.reset",
        targetType: "tradingAccount",
        targetId: `${platformId}/${login}`,
      });
      return reply.status(204).send(null);
    },
  );

  api.post(
    "/accounts/:platformId/:login/balance-operations",
    {
      config: money,
      schema: {
        tags,
        summary: "Deposit, withdrawal, credit in or out — exactly once per Idempotency-Key",
        description:
          "A retry with the same Idempotency-Key answers with the first result (header `Idempotent-Replayed: true`) and moves no money; " +
          "the same key with a different request is refused (422); a platform rejection answers 422 and records nothing as done.",
        params: AccountParamsSchema,
        headers: IdempotencyHeadersSchema,
        body: BalanceOperationBodySchema,
        response: { 201: BalanceOperationResultSchema },
      },
    },
    async (request, reply) => {
      const { platformId, login } = request.params;
      const outcome = await performBalanceOperation(
        { db, connectorFor, afterDone: refreshLater },
        {
          organizationId: request.organization.id,
          platformId,
          login,
          idempotencyKey: request.headers["idempotency-key"],
          body: request.body,
          actor: actorOf(request),
        },
      );
      if (outcome.replayed) reply.header("Idempotent-Replayed", "true");
      return reply.status(201).send(outcome.answer);
    },
  );
}

function rangeOf(query: { from?: string; to?: string }): { from: number; to: number } {
  const to = query.to ? Date.parse(query.to) : Date.now();
  const from = query.from ? Date.parse(query.from) : to - DEFAULT_RANGE_MS;
  return { from, to };
}

/** What the audit log keeps of a new account: everything but secrets (it has none; passwords are never in it). */
function auditedFields(account: Account) {
  return {
    login: account.login,
    group: account.group,
    name: account.name,
    email: account.email,
    leverage: account.leverage,
    enabled: account.enabled,
    readOnly: account.readOnly,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

function positionView(p: Position) {
  return {
    id: p.id,
    login: p.login,
    symbol: p.symbol,
    side: p.side,
    volume: formatLots(p.volume),
    openTime: iso(p.openTime),
    openPrice: p.openPrice,
    currentPrice: p.currentPrice,
    sl: p.sl,
    tp: p.tp,
    profit: moneyToDecimal(p.profit),
    swap: moneyToDecimal(p.swap),
    comment: p.comment,
    reason: p.reason,
    native: { ...p.native },
  };
}

function dealView(d: Deal) {
  return {
    id: d.id,
    login: d.login,
    time: iso(d.time),
    action: d.action,
    entry: d.entry,
    positionId: d.positionId,
    symbol: d.symbol,
    volume: formatLots(d.volume),
    price: d.price,
    profit: moneyToDecimal(d.profit),
    commission: moneyToDecimal(d.commission),
    swap: moneyToDecimal(d.swap),
    comment: d.comment,
    reason: d.reason,
    native: { ...d.native },
  };
}

function journalView(j: JournalEntry) {
  return { id: j.id, time: iso(j.time), level: j.level, sourceIp: j.sourceIp, login: j.login, message: j.message };
}
