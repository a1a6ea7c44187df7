/**
 * The product API: one client (api.get/post/put/patch/del) and the query cache. The download helper
 * is imported from ~/api/download where it is used, so its parser stays out of the shell.
 */
export { api, type RequestOptions } from "./client";
export { ApiError } from "./ApiError";
export { QueryProvider } from "./QueryProvider";
