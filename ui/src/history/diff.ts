// Comparing two calls: a structural diff of JSON (each path that was added,
// removed or changed) and a line diff of text (longest common subsequence).

export type JsonChange = { path: string; kind: "added" | "removed" | "changed"; before?: unknown; after?: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Every JSON pointer where `after` differs from `before`, in document order. */
export function jsonDiff(before: unknown, after: unknown, path = ""): JsonChange[] {
  if (isObject(before) && isObject(after)) {
    const out: JsonChange[] = [];
    for (const key of Object.keys(before)) {
      const p = `${path}/${escape(key)}`;
      if (!(key in after)) out.push({ path: p, kind: "removed", before: before[key] });
      else out.push(...jsonDiff(before[key], after[key], p));
    }
    for (const key of Object.keys(after)) {
      if (!(key in before)) out.push({ path: `${path}/${escape(key)}`, kind: "added", after: after[key] });
    }
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const out: JsonChange[] = [];
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      const p = `${path}/${i}`;
      if (i >= after.length) out.push({ path: p, kind: "removed", before: before[i] });
      else if (i >= before.length) out.push({ path: p, kind: "added", after: after[i] });
      else out.push(...jsonDiff(before[i], after[i], p));
    }
    return out;
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path: path || "/", kind: "changed", before, after }];
}

export type Line = { op: " " | "-" | "+"; text: string };

/** A line diff of two texts; past 2,000 lines a side, all of one then the other. */
export function lineDiff(a: string, b: string): Line[] {
  const x = a.split("\n");
  const y = b.split("\n");
  if (x.length > 2000 || y.length > 2000) {
    return [...x.map((text) => ({ op: "-" as const, text })), ...y.map((text) => ({ op: "+" as const, text }))];
  }
  // lcs[i * w + j]: the longest common run of x[i..] and y[j..].
  const w = y.length + 1;
  const lcs = new Int32Array((x.length + 1) * w);
  const at = (i: number, j: number) => lcs[i * w + j] ?? 0;
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const out: Line[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const a = x[i] ?? "";
    const b = y[j] ?? "";
    if (a === b) {
      out.push({ op: " ", text: a });
      i++;
      j++;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      out.push({ op: "-", text: a });
      i++;
    } else {
      out.push({ op: "+", text: b });
      j++;
    }
  }
  for (; i < x.length; i++) out.push({ op: "-", text: x[i] ?? "" });
  for (; j < y.length; j++) out.push({ op: "+", text: y[j] ?? "" });
  return out;
}

/** The text blocks of a result, joined with newlines. */
export function resultText(result: unknown): string {
  const content = isObject(result) && Array.isArray(result.content) ? result.content : [];
  return content
    .filter((b): b is { type: string; text: string } => isObject(b) && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("\n");
}
