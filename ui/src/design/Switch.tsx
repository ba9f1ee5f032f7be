// An on/off switch with its label (Radix: role=switch, Space toggles).
import { useId } from "react";
import { Switch as S } from "radix-ui";

export function Switch({
  checked,
  onChange,
  label,
  hint,
  disabled,
}: {
  checked: boolean;
  onChange: (on: boolean) => void;
  label: string;
  hint?: string;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="switch-row">
      <S.Root id={id} className="switch" checked={checked} onCheckedChange={onChange} disabled={disabled}>
        <S.Thumb className="switch-thumb" />
      </S.Root>
      <label htmlFor={id}>
        {label}
        {hint && <span className="switch-hint">{hint}</span>}
      </label>
    </div>
  );
}
