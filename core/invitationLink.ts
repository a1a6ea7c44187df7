/**
 * The invitation link's parts, shared by the server (server/modules/members/invitations.ts, the
 * embedded provider) and the browser. Kept apart from core/schemas/members.ts so that the sign-in
 * code of every page (app/auth/redirects.ts) does not load zod and the member schemas with them.
 */

/** Where an invitation link points: the organizations page accepts it (the token after `#invitation=`, never sent to a server log). */
export const INVITATION_LINK_PATH = "/settings/organizations";
export const INVITATION_LINK_HASH = "invitation";
/**
 * The sign-in request's parameter (`invitation=1`) telling the embedded provider that the person
 * follows an invitation link: its sign-up page then says they join the inviting organization. It
 * carries no token (the token stays in the browser).
 */
export const INVITATION_SIGN_IN_PARAM = "invitation";
