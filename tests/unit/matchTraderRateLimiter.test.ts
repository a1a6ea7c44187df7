// @vitest-environment node
/**
 * Match-Trader's request budget (server/connectors/matchTraderApi/rateLimiter.ts): what changes the
 * server goes first, bulk history reads last, each lane in order — a copy or a dealer's order must
 * not wait behind a restart's backfill of every account's history.
 */
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../server/connectors/clock.ts";
import { RateLimiter } from "../../server/connectors/matchTraderApi/rateLimiter.ts";
import { priorityOf } from "../../server/connectors/matchTraderApi/rest.ts";

describe("Match-Trader's rate limiter", () => {
  it("starts the waiting requests by lane when the window frees, each lane in order", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(2, 60_000, clock);
    const started: string[] = [];
    const take = (name: string, priority?: "high" | "normal" | "low") => limiter.acquire(priority).then(() => void started.push(name));
    await Promise.all([take("first"), take("second")]);
    const waiting = [take("low 1", "low"), take("normal 1"), take("low 2", "low"), take("high 1", "high"), take("normal 2", "normal"), take("high 2", "high")];
    expect(limiter.waiting).toBe(6);
    // Two a window: the highs, then the normals, then the lows.
    for (let window = 0; window < 3; window++) await clock.advance(60_000);
    await Promise.all(waiting);
    expect(started).toEqual(["first", "second", "high 1", "high 2", "normal 1", "normal 2", "low 1", "low 2"]);
    limiter.close();
  });

  it("puts changes first and bulk history last", () => {
    expect(priorityOf("POST", "/v1/trading-accounts/positions/open")).toBe("high");
    expect(priorityOf("PUT", "/v1/groups")).toBe("high");
    expect(priorityOf("GET", "/v1/trading-accounts/trading-data/open-positions")).toBe("normal");
    expect(priorityOf("GET", "/v1/trading-accounts/trading-data/closed-positions")).toBe("low");
    expect(priorityOf("GET", "/v1/trading-accounts/trading-data/order-history")).toBe("low");
  });
});
