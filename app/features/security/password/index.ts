export { PasswordSection } from "./PasswordSection";
