// Empty states that say what to do, and skeletons while something loads.
import type { ReactNode } from "react";
import type { LucideIcon } from "lucide-react";

export function EmptyState({
  icon: Icon,
  title,
  children,
  actions,
  compact = false,
}: {
  icon?: LucideIcon;
  title: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  compact?: boolean;
}) {
  return (
    <div className={`empty-state${compact ? " small" : ""}`}>
      {Icon && (
        <div className="empty-icon" aria-hidden>
          <Icon size={compact ? 18 : 28} strokeWidth={1.6} />
        </div>
      )}
      <h2>{title}</h2>
      {children && <div className="empty-body">{children}</div>}
      {actions && <div className="empty-actions">{actions}</div>}
    </div>
  );
}

export function Skeleton({ lines = 3, label = "Loading" }: { lines?: number; label?: string }) {
  return (
    <div className="skeleton" role="status" aria-label={label}>
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} className="skeleton-line" style={{ width: `${90 - ((i * 23) % 40)}%` }} />
      ))}
    </div>
  );
}
