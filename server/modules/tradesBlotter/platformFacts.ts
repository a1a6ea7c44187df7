/**
 * What the node knows of each blotter platform beyond its trade events, to make rows of them:
 * each account's group (the accounts mirror, then `accountChanged` on the bus) and each symbol's
 * contract size (read from the platform, again after ten minutes). Loaded before a stream or a
 * platform joins a channel; forgotten when the platform goes.
 */
import type { BlotterLookups } from "../../../core/schemas/blotterLive.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { DomainEvent } from "../../events/types.ts";

/** Symbols are read from the platform again after this long (contract sizes rarely change). */
const FACTS_TTL_MS = 10 * 60_000;

interface Facts {
  groups: Map<string, string>;
  contractSizes: Map<string, number>;
  loadedAt: number;
  symbolsLoaded: boolean;
}

export interface PlatformFactsSources {
  /** login → group of the platform's mirrored accounts. */
  groupsOf(platformId: string): Promise<Map<string, string>>;
  platforms: { connectorFor(organizationId: string, platformId: string): Promise<Pick<TradePlatformConnector, "listSymbols">> };
}

export class PlatformFacts {
  private readonly facts = new Map<string, Facts>();
  private readonly loading = new Map<string, Promise<Facts>>();

  constructor(private readonly sources: PlatformFactsSources) {}

  /** Reads the platform's facts unless they are fresh (or being read). */
  async load(organizationId: string, platformId: string): Promise<void> {
    await this.loaded(organizationId, platformId);
  }

  private loaded(organizationId: string, platformId: string): Promise<Facts> {
    const known = this.facts.get(platformId);
    if (known && known.symbolsLoaded && Date.now() - known.loadedAt < FACTS_TTL_MS) return Promise.resolve(known);
    const pending = this.loading.get(platformId);
    if (pending) return pending;
    const load = (async () => {
      const groups = await this.sources.groupsOf(platformId);
      const contractSizes = new Map<string, number>();
      let symbolsLoaded = false;
      try {
        const connector = await this.sources.platforms.connectorFor(organizationId, platformId);
        for (const s of await connector.listSymbols()) contractSizes.set(s.name, s.contractSize);
        symbolsLoaded = true;
      } catch {
        // Not connected now: notional exposure waits for the next read.
      }
      const loaded: Facts = { groups, contractSizes, loadedAt: Date.now(), symbolsLoaded };
      // Groups that changed while the mirror was read are newer than what it returned.
      for (const [login, group] of known?.groups ?? []) if (!groups.has(login)) groups.set(login, group);
      this.facts.set(platformId, loaded);
      return loaded;
    })().finally(() => this.loading.delete(platformId));
    this.loading.set(platformId, load);
    return load;
  }

  /** What a row of the platform's events needs to know (unknown: "" and null until loaded). */
  lookupsOf(platformId: string): BlotterLookups {
    const f = this.facts.get(platformId);
    return {
      group: (login) => f?.groups.get(login) ?? "",
      contractSize: (symbol) => (symbol === null ? null : (f?.contractSizes.get(symbol) ?? null)),
    };
  }

  /** The node's follower of the bus: a group changes, a platform goes. */
  follow(event: DomainEvent): void {
    if (event.type === "platformRemoved") this.facts.delete(event.platformId);
    else if (event.type === "trade" && event.event.type === "accountChanged")
      this.facts.get(event.platformId)?.groups.set(event.event.account.login, event.event.account.group);
  }
}
