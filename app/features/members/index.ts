export { MembersPage } from "./MembersPage";
export { AcceptInvitation } from "./AcceptInvitation";
