// Toasts for what finished in the background (saved, exported, copied,
// restarted): Radix toasts in one viewport, announced politely to screen
// readers. A toast the same as one still shown replaces it with a count
// (three identical failures are one toast, "×3"); errors stay longer, but
// leave.
import { createContext, useCallback, useContext, useState, type ReactNode } from "react";
import { Toast as T } from "radix-ui";
import { CheckCircle2, AlertTriangle, Info, X } from "lucide-react";

type ToastTone = "ok" | "info" | "danger";
interface Item {
  id: number;
  title: string;
  description?: string;
  tone: ToastTone;
  /** How many times it was shown while still up. */
  count: number;
  /** One thing to do about it (Review, Open): a button on the toast. */
  action?: ToastAction;
}

/** A toast's one action. */
export interface ToastAction {
  label: string;
  onClick: () => void;
}

/** How long a toast stays (errors longer: they may need reading). */
export const TOAST_MS = { ok: 4000, info: 4000, danger: 12_000 } as const;
type Show = (title: string, options?: { description?: string; tone?: ToastTone; action?: ToastAction }) => void;

const Ctx = createContext<Show>(() => undefined);

let next = 0;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<Item[]>([]);
  const show = useCallback<Show>((title, options) => {
    next += 1;
    const item: Item = { id: next, title, description: options?.description, tone: options?.tone ?? "ok", count: 1, action: options?.action };
    setItems((old) => {
      const same = old.find((i) => i.title === item.title && i.description === item.description && i.tone === item.tone);
      // The same again: one toast, counted, its time started afresh (a new id).
      if (same) return [...old.filter((i) => i !== same), { ...item, count: same.count + 1 }];
      return [...old.slice(-4), item];
    });
  }, []);
  const icons = { ok: CheckCircle2, info: Info, danger: AlertTriangle };
  return (
    <Ctx.Provider value={show}>
      <T.Provider swipeDirection="right" duration={4000}>
        {children}
        {items.map((item) => {
          const Icon = icons[item.tone];
          return (
            <T.Root
              key={item.id}
              className={`toast tone-${item.tone}`}
              duration={TOAST_MS[item.tone]}
              onOpenChange={(open) => !open && setItems((old) => old.filter((i) => i.id !== item.id))}
            >
              <Icon aria-hidden size={16} className="toast-icon" />
              <div className="toast-text">
                <T.Title className="toast-title">
                  {item.title}
                  {item.count > 1 && <span className="toast-count"> ×{item.count}</span>}
                </T.Title>
                {item.description && <T.Description className="toast-description">{item.description}</T.Description>}
              </div>
              {item.action && (
                <T.Action className="btn btn-sm" altText={item.action.label} onClick={item.action.onClick}>
                  {item.action.label}
                </T.Action>
              )}
              <T.Close className="btn btn-ghost btn-sm btn-icon" aria-label="Dismiss">
                <X aria-hidden size={14} />
              </T.Close>
            </T.Root>
          );
        })}
        <T.Viewport className="toast-viewport" label="Notifications ({hotkey})" />
      </T.Provider>
    </Ctx.Provider>
  );
}

/** Show a toast: `toast("Saved", { description, tone })`. */
export function useToast(): Show {
  return useContext(Ctx);
}
