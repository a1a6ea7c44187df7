/**
 * Figures as a dealer reads them in a table, in the member's format (app/ui/format, core/format.ts).
 * Money arrives from the API as exact decimal strings ("1250.5", "-30.00"); formatting works on the
 * text, so no float ever rounds a cent.
 */
import { currentFormat } from "../format";

export { toDate } from "@core/format";

/** "1234567.5" → "1,234,567.50" (separators per the member's format); unreadable shows as a dash. */
export const formatMoney = (value: string | number | null | undefined, digits = 2): string => currentFormat().money(value, digits);

/** Margin level in percent with two decimals; no margin in use shows a dash. */
export const formatPercent = (value: string | number | null | undefined): string => currentFormat().percent(value);

export const formatInteger = (value: number | null | undefined): string => currentFormat().integer(value);

/** ISO text or epoch milliseconds → "21/11/2025, 14:03:07" in the member's format and zone; missing → dash. */
export const formatDateTime = (value: string | number | null | undefined): string => currentFormat().dateTime(value);
