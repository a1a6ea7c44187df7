/** What other features use of the shell: the deployment facts the root loader hands the browser. */
export { usePublicConfig } from "./usePublicConfig";
