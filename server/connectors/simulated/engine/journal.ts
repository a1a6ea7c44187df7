/** The server journal: what a MetaTrader administrator sees in its Journal tab, bounded. */
import { matchesJournalFilter, type JournalEntry, type JournalFilter, type JournalLevel } from "../../../../core/trading/index.ts";

export class ServerJournal {
  private entries: JournalEntry[] = [];
  private nextId = 1;

  constructor(private readonly capacity = 100_000) {}

  write(time: number, level: JournalLevel, message: string, login: string | null = null, sourceIp: string | null = null): void {
    this.entries.push({ id: String(this.nextId++), time, level, sourceIp, login, message });
    if (this.entries.length >= this.capacity * 2) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** Entries within [from, to] matching the filter, oldest first, at most `limit`. */
  query(from: number, to: number, filter: JournalFilter, limit: number): JournalEntry[] {
    const result: JournalEntry[] = [];
    for (let i = this.firstAtOrAfter(from); i < this.entries.length && result.length < limit; i++) {
      const entry = this.entries[i] as JournalEntry;
      if (entry.time > to) break;
      if (matchesJournalFilter(entry, filter)) result.push({ ...entry });
    }
    return result;
  }

  private firstAtOrAfter(time: number): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as JournalEntry).time < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
