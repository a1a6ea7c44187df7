import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useId, type ComponentProps } from "react";
import type { AccountPage } from "@core/schemas/accountViews";
import { api } from "~/api";
import { useAccess } from "~/profile";
import { Input } from "~/ui/Input";

/** Accounts the picker offers at most. */
const OFFERED = 20;

interface Props extends Pick<ComponentProps<"input">, "id" | "aria-describedby" | "aria-invalid"> {
  platformId: string;
  value: string;
  disabled: boolean;
  placeholder: string;
  onChange: (login: string) => void;
}

/**
 * A login typed or picked: the platform's accounts whose login starts with what is typed (or its
 * first ones) are offered with their names and groups, through the browser's own list (keyboard
 * and screen-reader friendly). Without read access to Users it is a plain input. Inside a `Field`:
 * its id and aria wiring reach the input.
 */
export function LoginInput({ platformId, value, disabled, placeholder, onChange, ...wiring }: Props) {
  const listId = useId();
  const { hasModule } = useAccess();
  const term = useDeferredValue(value.trim());
  const canRead = hasModule("users", "read");
  const accounts = useQuery({
    queryKey: ["copier-login-picker", platformId, term],
    enabled: canRead && platformId !== "" && !disabled && /^[A-Za-z0-9._-]{0,31}$/.test(term),
    staleTime: 30_000,
    queryFn: ({ signal }) =>
      api.get<AccountPage>("/api/accounts", { query: { platformId, ...(term ? { login: `${term}*` } : {}), limit: OFFERED }, signal, silent: true }),
  });
  return (
    <>
      <Input
        {...wiring}
        value={value}
        inputMode="numeric"
        placeholder={placeholder}
        disabled={disabled}
        autoComplete="off"
        list={canRead ? listId : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {canRead ? (
        <datalist id={listId}>
          {(accounts.data?.items ?? []).map((a) => (
            <option key={a.login} value={a.login}>
              {`${a.name} · ${a.group}`}
            </option>
          ))}
        </datalist>
      ) : null}
    </>
  );
}
