// A modal dialog (Radix): focus is trapped and returned, Escape closes,
// the title names it for screen readers.
import type { ReactNode } from "react";
import { Dialog as D } from "radix-ui";
import { X } from "lucide-react";

export function Modal({
  open,
  onOpenChange,
  title,
  description,
  children,
  footer,
  wide = false,
  dismissable = true,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
  /** Whether Escape and a click outside close it (not for a decision the server waits on). */
  dismissable?: boolean;
}) {
  return (
    <D.Root open={open} onOpenChange={onOpenChange}>
      <D.Portal>
        <D.Overlay className="modal-overlay" />
        <D.Content
          className={`modal${wide ? " modal-wide" : ""}`}
          onEscapeKeyDown={(e) => !dismissable && e.preventDefault()}
          onPointerDownOutside={(e) => !dismissable && e.preventDefault()}
        >
          <header className="modal-header">
            <D.Title asChild>
              <h2>{title}</h2>
            </D.Title>
            {dismissable && (
              <D.Close className="btn btn-ghost btn-sm btn-icon" aria-label="Close">
                <X aria-hidden size={16} />
              </D.Close>
            )}
          </header>
          {description ? <D.Description className="modal-description">{description}</D.Description> : <D.Description className="sr-only">{typeof title === "string" ? title : "Dialog"}</D.Description>}
          <div className="modal-body">{children}</div>
          {footer && <footer className="modal-footer">{footer}</footer>}
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}
