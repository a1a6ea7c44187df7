export { LoadingBar } from "./LoadingBar";
export { trackActivity, useActivityStore } from "./activity";
export { LOADING_BAR } from "./useLoadingIndicator";
