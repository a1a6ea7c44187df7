export { MembersPage } from "./MembersPage";
export { AcceptInvitation } from "./AcceptInvitation";
export { AccessEditor, MODULE_LABELS, draftOf, type AccessDraft } from "./AccessEditor";
