// Buttons: one component, four looks (primary, secondary, ghost, danger),
// two sizes, an optional leading icon; IconButton is a square one whose
// label is its tooltip and its accessible name.
import { forwardRef, type ButtonHTMLAttributes, type ReactNode } from "react";
import type { LucideIcon } from "lucide-react";
import { Tip } from "./Tooltip";

type Variant = "primary" | "secondary" | "ghost" | "danger";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  size?: "sm" | "md";
  icon?: LucideIcon;
  /** Shown at the end (a count, a shortcut). */
  trailing?: ReactNode;
}

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  { variant = "secondary", size = "md", icon: Icon, trailing, className, children, type = "button", ...rest },
  ref,
) {
  return (
    <button ref={ref} type={type} className={`btn btn-${variant} btn-${size}${className ? ` ${className}` : ""}`} {...rest}>
      {Icon && <Icon aria-hidden size={size === "sm" ? 14 : 15} strokeWidth={2} />}
      {children}
      {trailing}
    </button>
  );
});

export interface IconButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** What it does: its tooltip and its accessible name. */
  label: string;
  icon: LucideIcon;
  variant?: Variant;
  size?: "sm" | "md";
  /** Shown with the label in the tooltip, e.g. "Ctrl+Enter". */
  shortcut?: string;
}

export const IconButton = forwardRef<HTMLButtonElement, IconButtonProps>(function IconButton(
  { label, icon: Icon, variant = "ghost", size = "md", shortcut, className, type = "button", ...rest },
  ref,
) {
  return (
    <Tip label={shortcut ? `${label} (${shortcut})` : label}>
      <button
        ref={ref}
        type={type}
        aria-label={label}
        className={`btn btn-${variant} btn-${size} btn-icon${className ? ` ${className}` : ""}`}
        {...rest}
      >
        <Icon aria-hidden size={size === "sm" ? 14 : 16} strokeWidth={2} />
      </button>
    </Tip>
  );
});
