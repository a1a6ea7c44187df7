export { TwoFactorSection } from "./TwoFactorSection";
