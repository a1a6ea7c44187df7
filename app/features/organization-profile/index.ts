export { OrganizationProfileSection } from "./OrganizationProfileSection";
