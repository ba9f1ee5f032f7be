// Tooltips (Radix): shown on hover and on keyboard focus, never the only
// place a control is named (its aria-label or text is).
import type { ReactNode } from "react";
import { Tooltip as T } from "radix-ui";

export function TooltipProvider({ children }: { children: ReactNode }) {
  return (
    <T.Provider delayDuration={350} skipDelayDuration={150}>
      {children}
    </T.Provider>
  );
}

export function Tip({ label, children, side = "top" }: { label: ReactNode; children: ReactNode; side?: "top" | "bottom" | "left" | "right" }) {
  return (
    <T.Root>
      <T.Trigger asChild>{children}</T.Trigger>
      <T.Portal>
        <T.Content className="tooltip" side={side} sideOffset={6} collisionPadding={8}>
          {label}
        </T.Content>
      </T.Portal>
    </T.Root>
  );
}
