export { ApiClientsSection } from "./ApiClientsSection";
