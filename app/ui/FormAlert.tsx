import { CircleAlert } from "lucide-react";

/** A message about the whole form (the API refused it), read out at once. */
export function FormAlert({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div role="alert" className="flex gap-3 rounded-md border border-danger/30 bg-danger/5 p-3 text-sm">
      <CircleAlert aria-hidden className="mt-0.5 size-4 shrink-0 text-danger" />
      <p>{message}</p>
    </div>
  );
}
