// Assertions proposed from a call's result, for Save to suite: the person
// ticks which to keep. Scalars of the structured content are proposed as
// equal to what came back, objects and arrays by their type.
import { resultText } from "./diff";

export type Proposal = { id: string; label: string; checked: boolean; expect: Record<string, unknown> };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function parsesAsJson(text: string): boolean {
  const t = text.trim();
  if (!t.startsWith("{") && !t.startsWith("[")) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");
const short = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function propose(result: unknown, tool: unknown, durationMs: number): Proposal[] {
  const r = isObject(result) ? result : {};
  const out: Proposal[] = [];
  if (r.isError === true) out.push({ id: "isError", label: "It returns an error (isError)", checked: true, expect: { isError: true } });
  const text = resultText(r);
  // The text is the structured content written out (as SDKs send it): a
  // match on it breaks with the formatting; the pointers below say the same.
  const textIsTheJson = isObject(r.structuredContent) && parsesAsJson(text);
  if (text && !textIsTheJson) {
    const first = (text.split("\n")[0] ?? "").trim();
    if (first) out.push({ id: "text.contains", label: `The text contains "${short(first)}"`, checked: true, expect: { text: { contains: first } } });
    out.push({ id: "text.equals", label: "The text is exactly this", checked: false, expect: { text: { equals: text } } });
  }
  if (isObject(r.structuredContent)) {
    for (const [key, value] of Object.entries(r.structuredContent)) {
      const pointer = `/${escape(key)}`;
      const scalar = value === null || typeof value !== "object";
      out.push(
        scalar
          ? { id: `json ${pointer}`, label: `${pointer} equals ${short(JSON.stringify(value))}`, checked: true, expect: { json: { [pointer]: { equals: value } } } }
          : { id: `json ${pointer}`, label: `${pointer} is an ${typeOf(value)}`, checked: true, expect: { json: { [pointer]: { type: typeOf(value) } } } },
      );
    }
  }
  if (isObject(tool) && isObject(tool.outputSchema)) {
    out.push({ id: "outputSchema", label: "It matches the tool's output schema", checked: true, expect: { outputSchema: true } });
  }
  const budget = Math.max(1000, Math.ceil((durationMs * 3) / 100) * 100);
  out.push({ id: "maxMs", label: `It answers within ${budget} ms`, checked: false, expect: { maxMs: budget } });
  out.push({ id: "snapshot", label: "The whole result stays the same (snapshot)", checked: false, expect: { snapshot: true } });
  return out;
}

/** The `expect` of the ticked proposals, merged. */
export function expectOf(proposals: Proposal[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of proposals.filter((p) => p.checked)) {
    for (const [k, v] of Object.entries(p.expect)) {
      out[k] = isObject(out[k]) && isObject(v) ? { ...out[k], ...v } : v;
    }
  }
  return out;
}
