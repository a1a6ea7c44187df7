export { SecurityPolicySections } from "./SecurityPolicySections";
