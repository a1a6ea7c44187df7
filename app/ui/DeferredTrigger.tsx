import {
  useRef,
  useState,
  type ButtonHTMLAttributes,
  type ComponentType,
  type KeyboardEvent,
  type PointerEvent,
  type ReactElement,
  type ReactNode,
} from "react";

/** What a deferred overlay module renders: its Radix root around `trigger`, open at once when `defaultOpen`. */
export interface DeferredOverlayProps {
  trigger: ReactElement;
  defaultOpen: boolean;
}

export type OverlayModule = { default: ComponentType<DeferredOverlayProps> };

interface DeferredTriggerProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, "onClick" | "onKeyDown" | "onPointerDown"> {
  /** Imports the module whose default export draws the overlay (a menu, a drawer) around the trigger. */
  load: () => Promise<OverlayModule>;
  /** What the button opens: a menu opens on press (mouse down, Enter, Space, ↓) like Radix's, a dialog on click. */
  popup: "menu" | "dialog";
  children: ReactNode;
}

/**
 * The button of a menu or drawer whose code (Radix and what it draws) loads only when it is about
 * to be used: on hover or focus it starts loading, and pressing it opens the overlay as soon as
 * it has arrived. Until then it is a plain button that says what it opens, so the shell's
 * JavaScript stays small (docs/requirements.md#r-targets-shell) without changing what a person sees or can do.
 */
export function DeferredTrigger({ load, popup, children, ...buttonProps }: DeferredTriggerProps) {
  const [loaded, setLoaded] = useState<OverlayModule | null>(null);
  const [openOnArrival, setOpenOnArrival] = useState(false);
  const loading = useRef<Promise<void> | null>(null);

  const fetchOverlay = () => {
    loading.current ??= load().then(setLoaded, (error: unknown) => {
      // A failed download (offline, a new deployment): the next press tries again.
      console.error("The menu could not be loaded", error);
      loading.current = null;
      setOpenOnArrival(false);
    });
  };
  const open = () => {
    setOpenOnArrival(true);
    fetchOverlay();
  };

  const trigger = (
    <button type="button" {...buttonProps}>
      {children}
    </button>
  );
  if (loaded) {
    const Overlay = loaded.default;
    return <Overlay trigger={trigger} defaultOpen={openOnArrival} />;
  }
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" || event.key === " " || (popup === "menu" && event.key === "ArrowDown")) {
      event.preventDefault();
      open();
    }
  };
  const onPointerDown = (event: PointerEvent) => {
    if (popup !== "menu" || event.button !== 0 || event.ctrlKey) return;
    event.preventDefault(); // as Radix does: the focus goes to the menu, not the button
    open();
  };
  return (
    <button
      type="button"
      aria-haspopup={popup}
      aria-expanded={openOnArrival}
      {...buttonProps}
      onPointerEnter={fetchOverlay}
      onFocus={fetchOverlay}
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
      onClick={popup === "dialog" ? open : undefined}
    >
      {children}
    </button>
  );
}
