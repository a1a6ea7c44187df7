/**
 * A dealer's changes to an open position — new stops, a close, a partial close — exactly once per
 * Idempotency-Key, with the protocol of the balance operations (./balanceOperations.ts,
 * decision 0028) made simpler by the connectors' own exactly-once orders (docs/connectors.md):
 *
 *  1. The key's row in `position_operations` (unique per organization) is inserted `pending` with
 *     a lease; of concurrent requests with one key exactly one inserts, the others wait for its
 *     outcome and answer with it (409 while it runs).
 *  2. The lease holder sends the order with the row's id as its `requestId`. If the answer is
 *     lost (timeout, lost link, a crash), the lease is given up and the next retry with the key
 *     takes the row over and sends the same request id again: the platform answers with its first
 *     result, and nothing is done twice.
 *  3. One transaction marks the row `done` with the answer and writes the audit record (the
 *     position before and after). If that fails, the lease is given up too: a retry records it.
 *
 * A refusal (the platform's, or its "no such position") is the key's final answer, replayed as is;
 * a new key is a new request. The same key with a different request is refused (422).
 */
import { createHash } from "node:crypto";
import { formatLots, lotsToVolume, type OrderResult, type Position } from "../../../core/trading/index.ts";
import { partialCloseProblem, type PositionOperationKind, type PositionOperationResult } from "../../../core/schemas/positionOperations.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import { ConnectorError } from "../../connectors/errors.ts";
import type { Db } from "../../db/client.ts";
import { ConflictError, DomainError, InvalidRequestError, NotFoundError, RefusedError, UnavailableError, domainErrorOf, viaConnector } from "../../errors.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { LEASE_MARGIN_MS } from "./balanceOperations.ts";
import * as store from "./positionOperationRepository.ts";
import type { PositionOperationRow, PositionOperationRowNow } from "./positionOperationRepository.ts";
import { findAccount } from "./repository.ts";
import { positionView } from "./views.ts";

export const DIFFERENT_REQUEST = "This Idempotency-Key was already used for a different request";
export const IN_PROGRESS = "The same request is still in progress; retry in a moment";
const NO_SUCH_POSITION = "No such open position on this account";
const RETRY = "Retry with the same Idempotency-Key: it will not be done twice.";

export interface PositionOperationDeps {
  db: Db;
  connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector>;
  /** Called after a done operation, best effort (the mirror re-reads the account's figures). */
  afterDone?(platformId: string, login: string): void;
  /** How long a concurrent retry waits for the running attempt before answering 409. */
  waitMs?: number;
}

/** What is asked, in the model's units. */
export type PositionRequest = { kind: "modify"; sl: number | null; tp: number | null } | { kind: "close" } | { kind: "partialClose"; volume: number };

export interface PositionOperationCall {
  organizationId: string;
  platformId: string;
  login: string;
  positionId: string;
  idempotencyKey: string;
  request: PositionRequest;
  actor: Actor;
}

export interface PositionOperationOutcome {
  answer: PositionOperationResult;
  replayed: boolean;
}

interface Rejection {
  code: string;
  message: string;
}

/** What the audit record keeps of a position. */
type PositionFacts = { positionId: string; symbol: string; side: string; volume: string; sl: number | null; tp: number | null };
const factsOf = (p: Position): PositionFacts => ({ positionId: p.id, symbol: p.symbol, side: p.side, volume: formatLots(p.volume), sl: p.sl, tp: p.tp });

export function requestHash(call: Pick<PositionOperationCall, "platformId" | "login" | "positionId" | "request">): string {
  const text = JSON.stringify([call.platformId.toLowerCase(), call.login, call.positionId, call.request]);
  return createHash("sha256").update(text).digest("hex");
}

/** The request as a body's fields name it: lots for a partial close. */
export function positionRequestOf(kind: PositionOperationKind, body: { sl?: number | null; tp?: number | null; volume?: string }): PositionRequest {
  if (kind === "modify") return { kind, sl: body.sl ?? null, tp: body.tp ?? null };
  return body.volume === undefined ? { kind: "close" } : { kind: "partialClose", volume: lotsToVolume(Number(body.volume)) };
}

export async function performPositionOperation(deps: PositionOperationDeps, call: PositionOperationCall): Promise<PositionOperationOutcome> {
  const { db } = deps;
  const hash = requestHash(call);
  for (let round = 0; round < 5; round++) {
    const existing = await store.findByKey(db, call.organizationId, call.idempotencyKey);
    if (existing) {
      if (existing.requestHash !== hash) throw new RefusedError(DIFFERENT_REQUEST);
      if (existing.status !== "pending") return replay(existing);
      if (existing.leaseActive) {
        const settled = await waitForOutcome(db, existing.id, deps.waitMs ?? 10_000);
        if (settled.status !== "pending") return replay(settled);
        if (settled.leaseActive) throw new ConflictError(IN_PROGRESS);
        continue;
      }
      // Pending with its lease given up (no answer, or not recorded): the same request id again.
      const connector = await deps.connectorFor(call.organizationId, call.platformId);
      const taken = await store.takeOver(db, existing, connector.requestTimeoutMs + LEASE_MARGIN_MS);
      if (!taken) continue;
      return execute(deps, call, taken, connector);
    }

    // First time this key is seen: the account must be the organization's, the position open on it.
    if (!(await findAccount(db, call.organizationId, call.platformId, call.login))) throw new NotFoundError("No such account");
    const connector = await deps.connectorFor(call.organizationId, call.platformId);
    const position = (await viaConnector(() => connector.openPositions(call.login))).find((p) => p.id === call.positionId);
    if (!position) {
      // A request with the same key may have closed it meanwhile (MT4 gives a partly closed
      // position's rest a new ticket): its answer is this one's.
      if (await store.findByKey(db, call.organizationId, call.idempotencyKey)) continue;
      throw new NotFoundError(NO_SUCH_POSITION);
    }
    if (call.request.kind === "partialClose") await checkPartialVolume(connector, position, call.request.volume);
    const inserted = await store.insertPending(
      db,
      {
        organizationId: call.organizationId,
        platformId: call.platformId,
        login: call.login,
        positionId: call.positionId,
        idempotencyKey: call.idempotencyKey,
        requestHash: hash,
        kind: call.request.kind,
        request: call.request,
        before: factsOf(position),
        actorSub: call.actor.sub,
      },
      connector.requestTimeoutMs + LEASE_MARGIN_MS,
    );
    if (!inserted) continue;
    return execute(deps, call, inserted, connector);
  }
  throw new ConflictError(IN_PROGRESS);
}

/** The symbol's minimum and step, and the position's volume: a 400 in a dealer's words before anything is sent. */
async function checkPartialVolume(connector: TradePlatformConnector, position: Position, volume: number) {
  const symbol = (await viaConnector(() => connector.listSymbols())).find((s) => s.name === position.symbol);
  const problem = partialCloseProblem(formatLots(volume), {
    positionVolume: position.volume,
    volumeMin: symbol?.volumeMin ?? 0,
    volumeStep: symbol?.volumeStep ?? 0,
  });
  if (problem) throw new InvalidRequestError(problem);
}

async function execute(
  deps: PositionOperationDeps,
  call: PositionOperationCall,
  row: PositionOperationRow,
  connector: TradePlatformConnector,
): Promise<PositionOperationOutcome> {
  const request = row.request as PositionRequest;
  let result: OrderResult;
  try {
    result =
      request.kind === "modify"
        ? await connector.modifyPosition({ requestId: row.id, positionId: row.positionId, sl: request.sl, tp: request.tp })
        : await connector.closePosition({
            requestId: row.id,
            positionId: row.positionId,
            ...(request.kind === "partialClose" ? { volume: request.volume } : {}),
          });
  } catch (error) {
    if (error instanceof ConnectorError && (error.code === "rejected" || error.code === "invalidRequest" || error.code === "notFound")) {
      // Refused: nothing was done, and that is this key's final answer.
      const rejection: Rejection = { code: error.code, message: error.message };
      if (!(await store.settle(deps.db, row, { status: "rejected", result: rejection }))) return follow(deps.db, row.id);
      throw rejectionError(rejection);
    }
    // Whether the platform did it is unknown: the next retry asks again under the same request id.
    await store.releaseLease(deps.db, row);
    const known = error instanceof ConnectorError ? domainErrorOf(error) : new UnavailableError("The trading platform's answer could not be read.");
    throw new DomainError(known.kind, `${known.message} ${RETRY}`);
  }

  const after = await positionAfter(connector, row, request).catch(() => null);
  const answer: PositionOperationResult = {
    operationId: row.id,
    kind: row.kind,
    positionId: row.positionId,
    price: result.price,
    closedVolume: request.kind === "modify" ? null : formatLots(result.volume),
    sl: request.kind === "modify" ? request.sl : (after?.sl ?? (row.before as PositionFacts).sl),
    tp: request.kind === "modify" ? request.tp : (after?.tp ?? (row.before as PositionFacts).tp),
    at: new Date(result.time).toISOString(),
    position: after ? positionView(after) : null,
  };
  try {
    const recorded = await deps.db.transaction(async (tx) => {
      if (!(await store.settle(tx, row, { status: "done", result: answer }))) return false;
      await recordAudit(tx, call.actor, {
        action: `account.position.${row.kind === "modify" ? "modified" : row.kind === "close" ? "closed" : "partiallyClosed"}`,
        targetType: "tradingAccount",
        targetId: `${row.platformId}/${row.login}`,
        before: row.before,
        after: {
          positionId: after?.id ?? row.positionId,
          volume: after ? formatLots(after.volume) : "0",
          sl: answer.sl,
          tp: answer.tp,
          ...(answer.closedVolume === null ? {} : { closedVolume: answer.closedVolume, closePrice: answer.price, dealId: result.dealId }),
          operationId: row.id,
          idempotencyKey: row.idempotencyKey,
        },
      });
      return true;
    });
    if (!recorded) return follow(deps.db, row.id);
  } catch {
    // Done on the platform but not recorded: a retry with the key asks again (same request id,
    // nothing done twice) and records it.
    await store.releaseLease(deps.db, row).catch(() => undefined);
    throw new UnavailableError(`The trading platform did it, but Toolbox could not record it yet. ${RETRY}`);
  }
  deps.afterDone?.(row.platformId, row.login);
  return { answer, replayed: false };
}

/**
 * The position after the order: itself, or on MT4 after a partial close the ticket it continues as
 * (`previousId`); null once wholly closed.
 */
async function positionAfter(connector: TradePlatformConnector, row: PositionOperationRow, request: PositionRequest): Promise<Position | null> {
  if (request.kind === "close") return null;
  const open = await connector.openPositions(row.login);
  return open.find((p) => p.id === row.positionId) ?? open.find((p) => p.previousId === row.positionId) ?? null;
}

function replay(row: PositionOperationRow): PositionOperationOutcome {
  if (row.status === "done") return { answer: row.result as PositionOperationResult, replayed: true };
  if (row.status === "rejected") throw rejectionError(row.result as Rejection | null);
  throw new ConflictError(IN_PROGRESS);
}

function rejectionError(rejection: Rejection | null): DomainError {
  const message = rejection?.message ?? "The trading platform refused the order.";
  return rejection?.code === "notFound" ? new NotFoundError(message) : new RefusedError(message);
}

async function follow(db: Db, id: string): Promise<PositionOperationOutcome> {
  const row = await store.findById(db, id);
  if (!row) throw new ConflictError(IN_PROGRESS);
  return replay(row);
}

async function waitForOutcome(db: Db, id: string, waitMs: number): Promise<PositionOperationRowNow> {
  const deadline = Date.now() + waitMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 100)) {
    const row = await store.findById(db, id);
    if (!row) throw new ConflictError(IN_PROGRESS);
    if (row.status !== "pending" || !row.leaseActive || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
