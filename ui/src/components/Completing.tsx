// A text field with the server's completions (`completion/complete`) as
// options to pick — buttons under the field, since WebKit never opens a
// <datalist>. Asked again as the value (and the other arguments) change.
import { useEffect, useId, useState, type ReactNode } from "react";
import type { ResourcesBackend } from "../ipc";
import { Input } from "../design";

export function Completing({
  backend,
  server,
  reference,
  argument,
  value,
  others,
  onChange,
  label,
  hint,
}: {
  backend: ResourcesBackend;
  server: string;
  /** `{type: "ref/prompt", name}` or `{type: "ref/resource", uri}`. */
  reference: unknown;
  argument: string;
  value: string;
  /** The other arguments' values so far: completions may depend on them. */
  others: Record<string, string>;
  onChange: (v: string) => void;
  label: ReactNode;
  hint?: ReactNode;
}) {
  const id = useId();
  const [options, setOptions] = useState<string[]>([]);
  const ref = JSON.stringify(reference);
  const context = JSON.stringify(others);
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      backend.complete(server, JSON.parse(ref) as unknown, argument, value, JSON.parse(context) as Record<string, string>).then(
        (v) => live && setOptions(v),
        () => live && setOptions([]),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [backend, server, ref, argument, value, context]);
  const shown = options.filter((o) => o !== value).slice(0, 12);
  return (
    <div className="field completing">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <Input id={id} value={value} onChange={(e) => onChange(e.target.value)} autoComplete="off" />
      {shown.length > 0 && (
        <div className="suggestions" role="group" aria-label={`Suggestions for ${argument}`}>
          {shown.map((o) => (
            <button key={o} type="button" className="suggestion" onClick={() => onChange(o)}>
              {o}
            </button>
          ))}
          {options.length > shown.length + (options.includes(value) ? 1 : 0) && <span className="muted">…</span>}
        </div>
      )}
      {hint && <p className="field-description">{hint}</p>}
    </div>
  );
}
