// A section that folds (Radix Collapsible): a header button with a chevron,
// an optional count and actions, and its content.
import { useState, type ReactNode } from "react";
import { Collapsible } from "radix-ui";
import { ChevronRight } from "lucide-react";

export function Disclosure({
  title,
  count,
  actions,
  defaultOpen = true,
  open: controlled,
  onOpenChange,
  children,
  className,
}: {
  title: ReactNode;
  count?: number | string;
  actions?: ReactNode;
  defaultOpen?: boolean;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  children: ReactNode;
  className?: string;
}) {
  const [own, setOwn] = useState(defaultOpen);
  const open = controlled ?? own;
  return (
    <Collapsible.Root
      open={open}
      onOpenChange={(o) => {
        setOwn(o);
        onOpenChange?.(o);
      }}
      className={`disclosure${className ? ` ${className}` : ""}`}
    >
      <div className="disclosure-header">
        <Collapsible.Trigger className="disclosure-trigger">
          <ChevronRight aria-hidden size={14} className="disclosure-chevron" />
          <span className="disclosure-title">{title}</span>
          {count !== undefined && <span className="disclosure-count">{count}</span>}
        </Collapsible.Trigger>
        {actions && <div className="disclosure-actions">{actions}</div>}
      </div>
      <Collapsible.Content className="disclosure-content">{children}</Collapsible.Content>
    </Collapsible.Root>
  );
}
