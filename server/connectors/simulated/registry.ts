/**
 * The simulated servers running in this process, by key. A simulated platform's connector (and
 * every reconnect of it) finds its server here, so the demo accounts and their history survive
 * reconnects; removing a platform stops its server.
 */
import type { Clock } from "../clock.ts";
import { SimulatedServer, type SimulatedServerOptions } from "./server.ts";

export class SimulatedServerRegistry {
  private readonly servers = new Map<string, SimulatedServer>();

  /** `defaults`: options every server made here starts with (the platform runtime: `populateInSlices`). */
  constructor(
    private readonly clock?: Clock,
    private readonly defaults: Partial<Omit<SimulatedServerOptions, "clock">> = {},
  ) {}

  /** The server under `key`, created and started on first use. */
  obtain(key: string, options: Omit<SimulatedServerOptions, "clock">): SimulatedServer {
    const existing = this.servers.get(key);
    if (existing) {
      if (existing.platform !== options.platform) throw new Error(`Simulated server "${key}" is ${existing.platform}, not ${options.platform}`);
      return existing;
    }
    const server = new SimulatedServer({ ...this.defaults, ...options, clock: this.clock });
    server.start();
    this.servers.set(key, server);
    return server;
  }

  get(key: string): SimulatedServer | undefined {
    return this.servers.get(key);
  }

  remove(key: string): void {
    this.servers.get(key)?.stop();
    this.servers.delete(key);
  }

  stopAll(): void {
    for (const key of [...this.servers.keys()]) this.remove(key);
  }
}
