/**
 * `copierDivergence` from the engine (docs/trades-copier.md "The engine"): a source position's
 * stops change or partial close finds the follower's copy gone — the ledger has it open, the
 * follower's platform no longer does (closed by hand, by its stop loss or take profit) — so the
 * follower no longer holds what the source holds. Published once per missing copy (a row in
 * copy_divergence_notices, whichever node sees it first), not on every later signal.
 */
import { followerKey, sourceIdOf, type SourceAction } from "../../../../core/copier/index.ts";
import type { FollowerSettings } from "../../../../core/schemas/copier.ts";
import type { CopierDeps, EngineLink } from "./copyOne.ts";
import * as ledger from "./ledgerRepository.ts";
import { firstNotice } from "./riskRepository.ts";

/** After a `notCopied` skip: publishes the divergence if the ledger had a copy open that the platform no longer has, once. */
export async function noticeDivergence(deps: CopierDeps, link: EngineLink, follower: FollowerSettings, action: SourceAction): Promise<void> {
  // A close of the source leaves nothing to differ; order changes of a copied order that filled are not a copy gone.
  if (action.type !== "stops" && action.type !== "partialClose") return;
  const sourceId = sourceIdOf(action);
  const { platformId, login } = follower.account;
  const state = (await ledger.copyStates(deps.db, link.id, platformId, login)).get(sourceId);
  if (!state?.followerId || !state.openRequestId) return;
  if (!(await firstNotice(deps.db, link.id, platformId, login, sourceId, state.openRequestId))) return;
  deps.notify?.({
    type: "copierDivergence",
    organizationId: link.organizationId,
    platformId,
    linkId: link.id,
    message: `Account ${login} no longer holds its copy (position ${state.followerId}) of source position ${action.position.id} of account ${link.sourceLogin}: it was closed outside the copier (by hand, or by its stop loss or take profit) while the source still holds it. The copier does not reopen it; Resync on the status page opens it again.`,
    id: `copierDivergence:${link.id}:${followerKey(follower.account)}:${state.openRequestId}`,
  });
}
