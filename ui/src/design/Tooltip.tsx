// Tooltips (Radix): shown on hover and on keyboard focus, never the only
// place a control is named (its aria-label or text is).
import { createContext, useContext, type ReactNode } from "react";
import { Tooltip as T } from "radix-ui";

const Provided = createContext(false);

export function TooltipProvider({ children }: { children: ReactNode }) {
  return (
    <T.Provider delayDuration={350} skipDelayDuration={150}>
      <Provided.Provider value>{children}</Provided.Provider>
    </T.Provider>
  );
}

export function Tip({ label, children, side = "top" }: { label: ReactNode; children: ReactNode; side?: "top" | "bottom" | "left" | "right" }) {
  const provided = useContext(Provided);
  const tip = (
    <T.Root>
      <T.Trigger asChild>{children}</T.Trigger>
      <T.Portal>
        <T.Content className="tooltip" side={side} sideOffset={6} collisionPadding={8}>
          {label}
        </T.Content>
      </T.Portal>
    </T.Root>
  );
  // A component shown on its own (a test, a portal) still gets its tooltip.
  return provided ? tip : <TooltipProvider>{tip}</TooltipProvider>;
}
