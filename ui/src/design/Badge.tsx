// Small labels: a tone (never the only carrier of meaning: a status badge
// also has an icon and a word) and an optional icon.
import type { HTMLAttributes, ReactNode } from "react";
import type { LucideIcon } from "lucide-react";

export type Tone = "neutral" | "accent" | "ok" | "warn" | "danger" | "info";

export function Badge({
  tone = "neutral",
  icon: Icon,
  children,
  className,
  ...rest
}: { tone?: Tone; icon?: LucideIcon; children?: ReactNode } & HTMLAttributes<HTMLSpanElement>) {
  return (
    <span className={`badge tone-${tone}${className ? ` ${className}` : ""}`} {...rest}>
      {Icon && <Icon aria-hidden size={12} strokeWidth={2.25} />}
      {children}
    </span>
  );
}
