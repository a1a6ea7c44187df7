// Moved to the design system (app/ui/FormAlert.tsx): accounts uses it too. Import it from `~/ui/FormAlert`.
export { FormAlert } from "~/ui/FormAlert";
