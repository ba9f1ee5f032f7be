// A menu of actions behind a button (Radix DropdownMenu: arrow keys, type
// to select, Escape closes).
import type { ReactNode } from "react";
import { DropdownMenu as M } from "radix-ui";
import type { LucideIcon } from "lucide-react";

export interface MenuItem {
  label: string;
  icon?: LucideIcon;
  onSelect: () => void;
  danger?: boolean;
  disabled?: boolean;
}

export function Menu({ trigger, items, align = "end" }: { trigger: ReactNode; items: (MenuItem | "separator")[]; align?: "start" | "end" }) {
  return (
    <M.Root>
      <M.Trigger asChild>{trigger}</M.Trigger>
      <M.Portal>
        <M.Content className="menu" align={align} sideOffset={4} collisionPadding={8}>
          {items.map((item, i) =>
            item === "separator" ? (
              <M.Separator key={`sep-${i}`} className="menu-separator" />
            ) : (
              <M.Item
                key={item.label}
                className={`menu-item${item.danger ? " danger" : ""}`}
                disabled={item.disabled}
                onSelect={item.onSelect}
              >
                {item.icon && <item.icon aria-hidden size={14} />}
                {item.label}
              </M.Item>
            ),
          )}
        </M.Content>
      </M.Portal>
    </M.Root>
  );
}
