// The design system's select: a button that opens a list drawn like the
// rest of the window (the platform's popup is a GTK menu in another look).
// Radix Select gives it the listbox's keyboard — arrows, Home/End, typing to
// jump, Enter/Space to pick, Escape to close — and its roles. Options are
// written as <option> children, as for the platform's select.
import { Children, Fragment, isValidElement, type ButtonHTMLAttributes, type ReactNode } from "react";
import { Select as S } from "radix-ui";
import { Check, ChevronDown } from "lucide-react";

export interface SelectOption {
  value: string;
  label: string;
  disabled?: boolean;
}

// Radix keeps "" for "nothing picked"; an option whose value is "" (All
// servers, Any) goes by this instead.
const EMPTY = "\u0000";
const toRadix = (v: string) => (v === "" ? EMPTY : v);
const fromRadix = (v: string) => (v === EMPTY ? "" : v);

function textOf(node: ReactNode): string {
  if (node == null || typeof node === "boolean") return "";
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (isValidElement(node)) return textOf((node.props as { children?: ReactNode }).children);
  return "";
}

/** The options written as `<option value>label</option>` children (a value-less option's value is its text). */
export function optionsOf(children: ReactNode): SelectOption[] {
  const out: SelectOption[] = [];
  Children.forEach(children, (child) => {
    if (!isValidElement(child)) return;
    const props = child.props as { value?: string | number; children?: ReactNode; disabled?: boolean };
    if (child.type === Fragment) {
      out.push(...optionsOf(props.children));
      return;
    }
    const label = textOf(props.children);
    out.push({ value: props.value === undefined ? label : String(props.value), label, disabled: props.disabled });
  });
  return out;
}

export interface SelectProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, "value" | "defaultValue" | "onChange" | "children"> {
  value?: string | number;
  defaultValue?: string;
  /** The picked option's value. */
  onChange?: (value: string) => void;
  children: ReactNode;
  /** Shown when the value is none of the options. */
  placeholder?: string;
}

export function Select({ value, defaultValue, onChange, children, disabled, className, placeholder = "—", ...trigger }: SelectProps) {
  const options = optionsOf(children);
  // A value that is none of the options reads as the placeholder ("" to Radix).
  const known = (v: string) => (options.some((o) => o.value === v) ? toRadix(v) : "");
  return (
    <S.Root
      value={value === undefined ? undefined : known(String(value))}
      defaultValue={defaultValue === undefined ? undefined : toRadix(defaultValue)}
      onValueChange={(v) => onChange?.(fromRadix(v))}
      disabled={disabled}
    >
      <S.Trigger className={className ? `select ${className}` : "select"} {...trigger}>
        <span className="select-value">
          <S.Value placeholder={placeholder} />
        </span>
        <S.Icon className="select-chevron">
          <ChevronDown size={14} aria-hidden />
        </S.Icon>
      </S.Trigger>
      <S.Portal>
        <S.Content className="select-content" position="popper" sideOffset={4} collisionPadding={8}>
          <S.Viewport className="select-viewport">
            {options.map((o) => (
              <S.Item key={o.value} value={toRadix(o.value)} disabled={o.disabled} className="select-item">
                <S.ItemText>{o.label}</S.ItemText>
                <S.ItemIndicator className="select-check">
                  <Check size={14} aria-hidden />
                </S.ItemIndicator>
              </S.Item>
            ))}
          </S.Viewport>
        </S.Content>
      </S.Portal>
    </S.Root>
  );
}
