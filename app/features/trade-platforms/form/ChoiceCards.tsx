// Moved to the design system (app/ui/ChoiceCards.tsx): accounts uses it too. Import it from `~/ui/ChoiceCards`.
export { ChoiceCards, type Choice } from "~/ui/ChoiceCards";
