// Words with numbers: "1 case", "2 cases" — never "1 cases".

/** `n` and the noun for it: `plural(1, "case")` is "1 case", `plural(3, "case")` "3 cases". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** How long something took, read at a glance: "12 ms" under a second,
 * "10.0 s" under a minute, "2 min 05 s" past it. */
export function took(ms: number): string {
  if (ms < 1000) return `${ms.toFixed(0)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}
