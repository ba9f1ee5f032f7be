// How long a call by hand may take: its timeout (started again at each
// progress notification, unless that is turned off) and the longest it may
// take however it progresses. Empty: the server's own (its entry's
// callTimeout and maxCallTime). Folded under the run bar; what is set is
// said on its header.
import { Disclosure, Field, Input, Switch } from "../design";

export interface Limits {
  /** Seconds without an answer or progress (empty: the server's). */
  timeout: string;
  /** Seconds in all, however it progresses (empty: the server's). */
  maxTotal: string;
  progressResets: boolean;
}

export const NO_LIMITS: Limits = { timeout: "", maxTotal: "", progressResets: true };

/** A positive number of seconds, or null (empty or not a number). */
export function seconds(text: string): number | null {
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(n) && n > 0 ? n : null;
}

/** What the limits ask for, for the call. */
export function asCallLimits(l: Limits): { timeout_s: number | null; max_total_s: number | null; progress_resets: boolean } {
  return { timeout_s: seconds(l.timeout), max_total_s: seconds(l.maxTotal), progress_resets: l.progressResets };
}

function summary(l: Limits): string {
  const parts: string[] = [];
  const t = seconds(l.timeout);
  const m = seconds(l.maxTotal);
  if (t !== null) parts.push(`timeout ${t} s`);
  if (m !== null) parts.push(`at most ${m} s`);
  if (!l.progressResets) parts.push("progress does not reset the timeout");
  return parts.length ? parts.join(", ") : "the server's";
}

export function CallLimits({ limits, onChange }: { limits: Limits; onChange: (l: Limits) => void }) {
  const bad = (text: string) => (text.trim() !== "" && seconds(text) === null ? "a number of seconds above 0" : undefined);
  return (
    <Disclosure title={`Time limits: ${summary(limits)}`} defaultOpen={false} className="call-limits">
      <div className="call-limits-fields">
        <Field label="Timeout (s)" hint="Without an answer or progress; empty: the server's" error={bad(limits.timeout)}>
          <Input inputMode="decimal" value={limits.timeout} placeholder="server's" onChange={(e) => onChange({ ...limits, timeout: e.target.value })} />
        </Field>
        <Field label="At most (s)" hint="However it progresses; empty: the server's (10 min)" error={bad(limits.maxTotal)}>
          <Input inputMode="decimal" value={limits.maxTotal} placeholder="server's" onChange={(e) => onChange({ ...limits, maxTotal: e.target.value })} />
        </Field>
        <Switch label="Progress resets the timeout" checked={limits.progressResets} onChange={(on) => onChange({ ...limits, progressResets: on })} />
      </div>
    </Disclosure>
  );
}
