/**
 * The currencies an organization may state its figures in (organizations.currency, the blotter's
 * net exposure: docs/trades-blotter.md#net-exposure), ISO 4217. One list for the API, the form and
 * the docs (docs/administration.md "Organization profile"): the majors and the currencies brokers
 * commonly keep books in. A currency no connected server quotes a pair for is allowed, its figures
 * then show "—" rather than a guessed rate.
 */
export const CURRENCIES = [
  { code: "USD", name: "US dollar" },
  { code: "EUR", name: "Euro" },
  { code: "GBP", name: "Pound sterling" },
  { code: "JPY", name: "Japanese yen" },
  { code: "CHF", name: "Swiss franc" },
  { code: "AUD", name: "Australian dollar" },
  { code: "CAD", name: "Canadian dollar" },
  { code: "NZD", name: "New Zealand dollar" },
  { code: "SEK", name: "Swedish krona" },
  { code: "NOK", name: "Norwegian krone" },
  { code: "DKK", name: "Danish krone" },
  { code: "PLN", name: "Polish złoty" },
  { code: "CZK", name: "Czech koruna" },
  { code: "HUF", name: "Hungarian forint" },
  { code: "SGD", name: "Singapore dollar" },
  { code: "HKD", name: "Hong Kong dollar" },
  { code: "CNY", name: "Chinese yuan" },
  { code: "ZAR", name: "South African rand" },
  { code: "MXN", name: "Mexican peso" },
  { code: "TRY", name: "Turkish lira" },
  { code: "ILS", name: "Israeli new shekel" },
  { code: "AED", name: "UAE dirham" },
] as const;

export type CurrencyCode = (typeof CURRENCIES)[number]["code"];

export const CURRENCY_CODES: readonly CurrencyCode[] = CURRENCIES.map((c) => c.code);

/** The column's default (server/db/tables/organizations.ts). */
export const DEFAULT_CURRENCY: CurrencyCode = "USD";

export function isCurrencyCode(value: string): value is CurrencyCode {
  return (CURRENCY_CODES as readonly string[]).includes(value);
}

/** "EUR — Euro"; a code outside the list (set in the database) as itself. */
export function currencyLabel(code: string): string {
  const known = CURRENCIES.find((c) => c.code === code);
  return known ? `${known.code} — ${known.name}` : code;
}
