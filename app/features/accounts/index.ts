/** What other features use of the accounts area. */
export { useDebounced } from "./useDebounced";
