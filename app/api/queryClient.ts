import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "./ApiError";

/**
 * Server data defaults: fresh for 30 s; a refused request (4xx) is never retried, a network or
 * server failure once after a second (the client already told the user with a toast).
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        retry: (failures, error) => !(error instanceof ApiError && error.isClientError) && failures < 1,
        retryDelay: 1000,
      },
      mutations: { retry: false },
    },
  });
}
