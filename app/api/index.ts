/** The product API: one client (api.get/post/put/patch/del), the download helper, the query cache. */
export { api, type RequestOptions } from "./client";
export { ApiError } from "./ApiError";
export { download } from "./download";
export { QueryProvider } from "./QueryProvider";
