import type { FastifyInstance, FastifyRequest } from "fastify";
import { refusal } from "../../../core/schemas/apiError.ts";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../audit/record.ts";
import { accountsMirrorOf, accountsMirrorPlugin } from "./mirror/plugin.ts";
import { platformRuntimeOf } from "./platformPort.ts";
import { listAccounts } from "./accountListRepository.ts";
import * as accounts from "./service.ts";
import { positionRequestOf } from "./positionOperations.ts";
import {
  AccountDetailSchema,
  AccountListSchema,
  AccountParamsSchema,
  AccountRowSchema,
  BalanceOperationBodySchema,
  BalanceOperationRecordSchema,
  BalanceOperationResultSchema,
  BalanceOperationUnreconciledSchema,
  CreateAccountSchema,
  DealSchema,
  IdempotencyHeadersSchema,
  JournalEntrySchema,
  JournalQuerySchema,
  ListAccountsQuerySchema,
  PatchAccountSchema,
  PlatformGroupSchema,
  PlatformGroupsQuerySchema,
  ClosePositionBodySchema,
  ModifyPositionBodySchema,
  PositionOperationResultSchema,
  PositionParamsSchema,
  PositionSchema,
  RangeQuerySchema,
  ResetPasswordSchema,
} from "./schemas.ts";

const tags = ["accounts"];
const read = { permission: { module: "users", value: "read" } } as const;
const write = { permission: { module: "users", value: "write" } } as const;
const money = { permission: { module: "users", value: "money" } } as const;

/**
 * Trading accounts ("users" in MetaTrader's words) of the organization's platforms: the list
 * reads the mirror (./mirror/), the detail tabs and every change go to the platform through
 * ./service.ts. Handlers parse, call the service, and answer.
 */
export async function accountRoutes(app: FastifyInstance) {
  await app.register(accountsMirrorPlugin);
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const base = {
    db,
    connectorFor: (organizationId: string, platformId: string) => platformRuntimeOf(app).connectorFor(organizationId, platformId),
    refreshLater: (platformId: string, login: string) => {
      void accountsMirrorOf(app.ctx)
        ?.refresh(platformId, [login])
        .catch((err: unknown) => app.log.warn({ err, platformId }, "account refresh failed"));
    },
    // On the bus once it is recorded: the notifications (large balance operations) and any later follower.
    balanceOperationDone: (op: Parameters<NonNullable<accounts.AccountsDeps["balanceOperationDone"]>>[0]) => {
      const event = {
        type: "balanceOperationDone" as const,
        organizationId: op.organizationId,
        platformId: op.platformId,
        operationId: op.id,
        login: op.login,
        operationType: op.type,
        amount: op.amount,
        actorSub: op.actor.sub,
        actorName: op.actor.name,
      };
      app.bus.publish(event).catch((err: unknown) => app.log.warn({ err, operationId: op.id }, "cannot publish a balance operation on the bus"));
    },
  };
  const deps = (request: FastifyRequest): accounts.AccountsDeps => ({ ...base, log: request.log });
  const refOf = (request: FastifyRequest<{ Params: z.infer<typeof AccountParamsSchema> }>): accounts.AccountRef => ({
    organizationId: request.organization.id,
    ...request.params,
  });

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
    "/accounts/groups",
    {
      config: read,
      schema: {
        tags,
        summary: "The groups of one of the organization's platforms, with the platform's own names, for a new or moved account",
        querystring: PlatformGroupsQuerySchema,
        response: { 200: z.array(PlatformGroupSchema) },
      },
    },
    async (request) => accounts.platformGroups(deps(request), request.organization.id, request.query.platformId),
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
    async (request) => accounts.getAccountDetail(deps(request), refOf(request)),
  );

  api.get(
    "/accounts/:platformId/:login/positions",
    {
      config: read,
      schema: { tags, summary: "Open positions of the account, from the platform", params: AccountParamsSchema, response: { 200: z.array(PositionSchema) } },
    },
    async (request) => accounts.openPositions(deps(request), refOf(request)),
  );

  const positionOnce =
    "Exactly once per Idempotency-Key: the order goes to the platform under one request id, so a retry with the same key answers with the first result " +
    "(header `Idempotent-Replayed: true`) and does nothing twice; the same key with a different request is refused (422), as is the platform's own refusal " +
    '(replayed to a retry); 409 means the same request is still in progress (retry with the same key); a 503 ending in "Retry with the same Idempotency-Key" ' +
    "means the outcome is not known yet.";
  for (const [action, body, summary] of [
    ["modify", ModifyPositionBodySchema, "Change an open position's stop loss and take profit (null removes one)"],
    ["close", ClosePositionBodySchema, "Close an open position, or only `volume` lots of it (within the symbol's minimum and volume step)"],
  ] as const) {
    api.post(
      `/accounts/:platformId/:login/positions/:positionId/${action}`,
      {
        config: write,
        schema: {
          tags,
          summary,
          description: positionOnce,
          params: PositionParamsSchema,
          headers: IdempotencyHeadersSchema,
          body,
          response: {
            200: PositionOperationResultSchema,
            409: refusal("The same operation is still in progress: retry with the same Idempotency-Key"),
            422: refusal("Refused by the platform (its reason in the message), or the same Idempotency-Key with a different request"),
          },
        },
      },
      async (request, reply) => {
        const { positionId, ...ref } = request.params;
        const { answer, replayed } = await accounts.positionOperation(
          deps(request),
          actorOf(request),
          { organizationId: request.organization.id, ...ref },
          positionId,
          request.headers["idempotency-key"],
          positionRequestOf(action, request.body),
        );
        if (replayed) reply.header("Idempotent-Replayed", "true");
        return answer;
      },
    );
  }

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
    async (request) => accounts.dealHistory(deps(request), refOf(request), request.query),
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
    async (request) => accounts.journal(deps(request), refOf(request), request.query),
  );

  api.post(
    "/accounts",
    {
      config: write,
      schema: { tags, summary: "Create a trading account on a platform", body: CreateAccountSchema, response: { 201: AccountRowSchema } },
    },
    async (request, reply) => reply.status(201).send(await accounts.createAccount(deps(request), actorOf(request), request.body)),
  );

  api.patch(
    "/accounts/:platformId/:login",
    {
      config: write,
      schema: {
        tags,
        summary: "Change an account's group, leverage, trading rights, or the client's name, e-mail, phone and country",
        params: AccountParamsSchema,
        body: PatchAccountSchema,
        response: { 200: AccountRowSchema, 409: refusal("The platform is disabled in Toolbox: enable it to change its accounts") },
      },
    },
    async (request) => accounts.changeAccount(deps(request), actorOf(request), refOf(request), request.body),
  );

  api.post(
    "/accounts/:platformId/:login/reset-password",
    {
      config: write,
      schema: {
        tags,
        summary: "Set a new main or investor password for the account (it is never stored or shown)",
        params: AccountParamsSchema,
        body: ResetPasswordSchema,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      await accounts.resetPassword(deps(request), actorOf(request), refOf(request), request.body.password, request.body.kind);
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
          '201: done and recorded. 202: the platform answered but Toolbox could not finish recording it (`status: "unreconciled"`, with the reason): ' +
          "the money may have moved, so a person checks the account on the platform; it is listed under the account's balance operations. " +
          "A retry with the same Idempotency-Key answers with the first result (header `Idempotent-Replayed: true`) and moves no money; " +
          "the same key with a different request is refused (422); a platform rejection answers 422 and records nothing as done; " +
          "409 means the same operation is still in progress (retry with the same key).",
        params: AccountParamsSchema,
        headers: IdempotencyHeadersSchema,
        body: BalanceOperationBodySchema,
        response: {
          201: BalanceOperationResultSchema,
          202: BalanceOperationUnreconciledSchema,
          409: refusal("The same operation is still in progress: retry with the same Idempotency-Key"),
          422: refusal("Refused by the platform (its reason in the message), or the same Idempotency-Key with a different request"),
        },
      },
    },
    async (request, reply) => {
      const { answer, replayed } = await accounts.balanceOperation(
        deps(request),
        actorOf(request),
        refOf(request),
        request.headers["idempotency-key"],
        request.body,
      );
      if (replayed) reply.header("Idempotent-Replayed", "true");
      return answer.status === "done" ? reply.status(201).send(answer) : reply.status(202).send(answer);
    },
  );

  api.get(
    "/accounts/:platformId/:login/balance-operations",
    {
      config: read,
      schema: {
        tags,
        summary: "The account's latest balance operations made through Toolbox, newest first, with those that need reconciling marked",
        params: AccountParamsSchema,
        response: { 200: z.array(BalanceOperationRecordSchema) },
      },
    },
    async (request) => accounts.balanceOperations(deps(request), refOf(request)),
  );
}
