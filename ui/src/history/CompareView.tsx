// Two calls side by side: what differs in their arguments and structured
// content (path by path) and in their text (line by line).
import type { CallRow } from "../ipc/history";
import { jsonDiff, lineDiff, resultText, type JsonChange } from "./diff";

/** A value as the table shows it; an absent one says so (an empty string shows as ""). */
function Shown({ value }: { value: unknown }) {
  if (value === undefined) return <span className="muted absent">(absent)</span>;
  return <code>{JSON.stringify(value)}</code>;
}

function Changes({ title, changes, same = "The same." }: { title: string; changes: JsonChange[]; same?: string }) {
  return (
    <section>
      <h3>{title}</h3>
      {changes.length === 0 ? (
        <p className="muted">{same}</p>
      ) : (
        <table className="json-changes">
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Older</th>
              <th scope="col">Newer</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.path} className={`change-${c.kind}`}>
                <td>
                  <code>{c.path}</code>
                </td>
                <td>
                  <Shown value={c.before} />
                </td>
                <td>
                  <Shown value={c.after} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function CompareView({ a, b }: { a: CallRow; b: CallRow }) {
  const [older, newer] = a.id < b.id ? [a, b] : [b, a];
  const structured = (r: CallRow) => (r.result as { structuredContent?: unknown } | null)?.structuredContent;
  const text = lineDiff(resultText(older.result), resultText(newer.result));
  const textChanged = text.some((l) => l.op !== " ");
  return (
    <article className="compare" aria-label="Comparison">
      <h2>
        Call {older.id} against call {newer.id}
      </h2>
      <p className="muted">
        {older.server}/{older.tool} ({older.status}, {older.duration_ms?.toFixed(0) ?? "–"} ms) → {newer.server}/{newer.tool} ({newer.status}, {newer.duration_ms?.toFixed(0) ?? "–"} ms)
      </p>
      <Changes title="Arguments" changes={jsonDiff(older.arguments, newer.arguments)} />
      <Changes
        title="Structured content"
        changes={jsonDiff(structured(older) ?? null, structured(newer) ?? null)}
        same={structured(older) == null && structured(newer) == null ? "Neither has any." : "The same."}
      />
      <section>
        <h3>Text</h3>
        {textChanged ? (
          <pre className="diff-lines" aria-label="Text difference">
            {text.map((l, i) => (
              <span key={i} className={l.op === "+" ? "added" : l.op === "-" ? "removed" : undefined}>
                {`${l.op} ${l.text}\n`}
              </span>
            ))}
          </pre>
        ) : (
          <p className="muted">The same.</p>
        )}
      </section>
    </article>
  );
}
