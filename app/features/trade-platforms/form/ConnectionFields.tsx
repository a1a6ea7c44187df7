import { FlaskConical, Server } from "lucide-react";
import { Field } from "~/ui/Field";
import { cn, focusRing } from "~/ui/cn";
import { Input } from "~/ui/Input";
import { PLATFORM_TYPE_LABELS } from "../platformTypes";
import { ChoiceCards } from "./ChoiceCards";
import { SERVER_KIND, SERVER_KIND_LABELS, SIMULATED_ACCOUNTS_MAX } from "./platformForm";
import type { PlatformForm } from "./usePlatformForm";

/**
 * Where Toolbox connects: a simulated server (accounts, trade rate, seed) or the platform's own
 * API (address, manager login and password; or API URL, key and feed). When a secret is already
 * stored its field starts empty and says "unchanged": only a typed value replaces it.
 */
export function ConnectionFields({ form, secretStored = false, disabled }: { form: PlatformForm; secretStored?: boolean; disabled?: boolean }) {
  const { values: v, errors, set } = form;
  const unchanged = secretStored ? "Unchanged — type to replace" : undefined;
  return (
    <div className="grid gap-5">
      <ChoiceCards
        legend="Connection"
        name="source"
        value={v.source}
        onChange={(source) => set("source", source)}
        disabled={disabled}
        className="sm:grid-cols-2"
        choices={[
          {
            value: "simulated",
            icon: <FlaskConical aria-hidden className="size-4 text-primary" />,
            label: "Simulated server",
            description: `A ${PLATFORM_TYPE_LABELS[v.type]} server inside Toolbox: live prices and simulated traders. Nothing to install.`,
          },
          {
            value: "server",
            icon: <Server aria-hidden className="size-4 text-primary" />,
            label: "Your server",
            description: `Through the ${SERVER_KIND_LABELS[SERVER_KIND[v.type]]}.`,
          },
        ]}
      />
      {v.source === "simulated" ? (
        <div className="grid items-start gap-4 sm:grid-cols-3">
          <Field
            label="Accounts"
            error={errors.accounts}
            description={`Trading accounts it starts with (up to ${SIMULATED_ACCOUNTS_MAX.toLocaleString("en")}).`}
          >
            <Input inputMode="numeric" value={v.accounts} onChange={(e) => set("accounts", e.target.value)} disabled={disabled} />
          </Field>
          <Field label="Trade rate" error={errors.tradeRate} description="Trader actions per second (open, modify, close).">
            <Input inputMode="decimal" value={v.tradeRate} onChange={(e) => set("tradeRate", e.target.value)} disabled={disabled} />
          </Field>
          <Field label="Seed (optional)" error={errors.seed} description="The same seed replays the same market and traders.">
            <Input inputMode="numeric" value={v.seed} onChange={(e) => set("seed", e.target.value)} placeholder="Random" disabled={disabled} />
          </Field>
        </div>
      ) : v.type === "MatchTrader" ? (
        <div className="grid items-start gap-4 sm:grid-cols-2">
          <Field label="API URL" error={errors.apiUrl}>
            <Input
              type="url"
              value={v.apiUrl}
              onChange={(e) => set("apiUrl", e.target.value)}
              placeholder="https://broker-api.example.com"
              autoComplete="off"
              disabled={disabled}
            />
          </Field>
          <Field label="API key" error={errors.apiKey} description="Stored encrypted; never shown again.">
            <Input
              type="password"
              value={v.apiKey}
              onChange={(e) => set("apiKey", e.target.value)}
              placeholder={unchanged}
              autoComplete="off"
              disabled={disabled}
            />
          </Field>
          <Field
            label="Live feed address (optional)"
            error={errors.grpcAddress}
            className="sm:col-span-2"
            description="Host and port of the Broker API's gRPC feed, when it is not the API URL's host and port."
          >
            <Input
              value={v.grpcAddress}
              onChange={(e) => set("grpcAddress", e.target.value)}
              placeholder="grpc-broker-api.example.com:443"
              autoComplete="off"
              spellCheck={false}
              disabled={disabled}
            />
          </Field>
          <Field
            label="Quotes group (optional)"
            error={errors.quotesGroup}
            description="The group whose prices, with its markup, the Quotes Monitor shows; the first offer's group when empty."
          >
            <Input value={v.quotesGroup} onChange={(e) => set("quotesGroup", e.target.value)} autoComplete="off" spellCheck={false} disabled={disabled} />
          </Field>
          <CaCertificateField form={form} disabled={disabled} className="sm:col-span-2" />
        </div>
      ) : (
        <div className="grid items-start gap-4 sm:grid-cols-3">
          <Field label="Server address" error={errors.address} description="Host and port.">
            <Input
              value={v.address}
              onChange={(e) => set("address", e.target.value)}
              placeholder={v.type === "MT4" ? "mt4-gateway.example.com:443" : "mt5.example.com:443"}
              autoComplete="off"
              spellCheck={false}
              disabled={disabled}
            />
          </Field>
          <Field label="Manager login" error={errors.login}>
            <Input inputMode="numeric" value={v.login} onChange={(e) => set("login", e.target.value)} autoComplete="off" disabled={disabled} />
          </Field>
          <Field label="Manager password" error={errors.password} description="Stored encrypted; never shown again.">
            <Input
              type="password"
              value={v.password}
              onChange={(e) => set("password", e.target.value)}
              placeholder={unchanged}
              autoComplete="new-password"
              disabled={disabled}
            />
          </Field>
          {v.type === "MT5" || v.type === "MT4" ? (
            <Field
              label="CA certificate (optional)"
              error={errors.caCertificate}
              className="sm:col-span-3"
              description="The PEM of the authority that signed the server's HTTPS certificate, when it is not a public one (npm run simulator prints its path). Toolbox trusts only this, never any certificate."
            >
              <textarea
                value={v.caCertificate}
                onChange={(e) => set("caCertificate", e.target.value)}
                rows={4}
                spellCheck={false}
                placeholder={"-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----"}
                disabled={disabled}
                className={cn(
                  "w-full rounded-md border border-input bg-surface px-3 py-2 font-mono text-xs text-fg shadow-xs",
                  "placeholder:text-muted disabled:cursor-not-allowed disabled:opacity-50 aria-[invalid=true]:border-danger",
                  focusRing,
                  "focus-visible:ring-offset-0",
                )}
              />
            </Field>
          ) : null}
        </div>
      )}
    </div>
  );
}

/** The CA a real server's certificate chains to: Toolbox trusts exactly it (or the system's CAs when empty). */
function CaCertificateField({ form, disabled, className }: { form: PlatformForm; disabled?: boolean; className?: string }) {
  const { values: v, errors, set } = form;
  return (
    <Field
      label="CA certificate (optional)"
      error={errors.caCertificate}
      className={className}
      description="The PEM of the authority that signed the server's certificates (API and live feed), when it is not a public one (npm run simulator prints its path). Toolbox trusts only this, never any certificate."
    >
      <textarea
        value={v.caCertificate}
        onChange={(e) => set("caCertificate", e.target.value)}
        rows={4}
        spellCheck={false}
        placeholder={"-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----"}
        disabled={disabled}
        className={cn(
          "w-full rounded-md border border-input bg-surface px-3 py-2 font-mono text-xs text-fg shadow-xs",
          "placeholder:text-muted disabled:cursor-not-allowed disabled:opacity-50 aria-[invalid=true]:border-danger",
          focusRing,
          "focus-visible:ring-offset-0",
        )}
      />
    </Field>
  );
}
