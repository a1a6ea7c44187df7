/**
 * Server holidays as MetaTrader keeps them (MT4 `ConHoliday`, MT5 `IMTConHoliday`): a date in
 * server time, the hours the market still trades that day (none: shut all day), the symbols it
 * applies to, a description, enabled. Match-Trader has none (an instrument's trading hours say
 * when it trades). Pure: the rules, the version of a server's list and whether a holiday shuts a
 * symbol at a moment (docs/connectors.md, "Configuration writes").
 */
import { configVersion } from "./configVersion.ts";
import { compileMask } from "./mask.ts";

export interface Holiday {
  /** The day in server time, YYYY-MM-DD. */
  date: string;
  /** The window the market still trades that day, minutes from midnight in server time, `to` exclusive; 0 and 0: shut all day. */
  from: number;
  to: number;
  /** What it applies to: "*" all, or symbol names and symbol-group masks ("EURUSD,Forex\\*"), comma-separated. */
  symbols: string;
  description: string;
  enabled: boolean;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MINUTES_PER_DAY = 24 * 60;

function realDate(date: unknown): date is string {
  if (typeof date !== "string") return false;
  const match = DATE.exec(date);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const at = new Date(Date.UTC(year, month - 1, day));
  return year >= 1970 && year <= 2100 && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}

/** The rules for one holiday, as sentences; none when it is valid. `at`: its place in the list, for the message. */
export function holidayProblems(holiday: Holiday, at?: number): string[] {
  const which = at === undefined ? "The holiday" : `Holiday ${at + 1}`;
  const problems: string[] = [];
  if (typeof holiday !== "object" || holiday === null) return [`${which} is not a holiday.`];
  if (!realDate(holiday.date)) problems.push(`${which}: the date must be a real day written YYYY-MM-DD.`);
  const whole = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= MINUTES_PER_DAY;
  const shut = holiday.from === 0 && holiday.to === 0;
  if (!whole(holiday.from) || !whole(holiday.to) || (!shut && holiday.from >= holiday.to))
    problems.push(`${which}: the trading window is minutes from 0 to 1440 with its start before its end, or 0 to 0 when the market is shut all day.`);
  if (typeof holiday.symbols !== "string" || holiday.symbols.trim() === "" || holiday.symbols.length > 256)
    problems.push(`${which}: say what it applies to: "*" for all symbols, or symbol names and symbol-group masks (at most 256 characters).`);
  if (typeof holiday.description !== "string" || holiday.description.length > 128)
    problems.push(`${which}: the description is text of at most 128 characters.`);
  if (typeof holiday.enabled !== "boolean") problems.push(`${which}: enabled is yes or no.`);
  return problems;
}

/** The rules for a server's whole list: each holiday's, and at most one per date and symbols. */
export function holidaysProblems(holidays: readonly Holiday[]): string[] {
  const given: unknown = holidays;
  if (!Array.isArray(given)) return ["The holidays are a list."];
  if (holidays.length > 1000) return ["A server holds at most 1000 holidays."];
  const problems = holidays.flatMap((h, i) => holidayProblems(h, i));
  const seen = new Set<string>();
  for (const h of holidays) {
    const key = `${h.date}|${h.symbols}`;
    if (seen.has(key)) problems.push(`Two holidays on ${h.date} apply to "${h.symbols}": keep one.`);
    seen.add(key);
  }
  return problems;
}

/** The version of a server's holiday list as an editor read it (configVersion of the list, in its order). */
export function holidaysVersion(holidays: readonly Holiday[]): string {
  return configVersion({ holidays });
}

/**
 * Whether an enabled holiday shuts `symbol` at `serverLocalTime` (server-local milliseconds): one
 * on that date whose symbols take the symbol's name or its group path, outside its trading window.
 */
export function holidayShuts(holidays: readonly Holiday[], symbol: { name: string; path: string }, serverLocalTime: number): boolean {
  if (holidays.length === 0) return false;
  const moment = new Date(serverLocalTime);
  const date = moment.toISOString().slice(0, 10);
  const minute = moment.getUTCHours() * 60 + moment.getUTCMinutes();
  return holidays.some((h) => {
    if (!h.enabled || h.date !== date) return false;
    const applies = compileMask(h.symbols);
    if (!applies(symbol.name) && !applies(symbol.path)) return false;
    return !(minute >= h.from && minute < h.to);
  });
}
