// A session's messages in order: time, direction, what each is; errors and
// slow answers marked; filtered to the calls or the errors. Their text is the
// host's and the server's: shown as text only.
import { useMemo, useState } from "react";
import type { TapMessage } from "../ipc/sessions";
import { Badge, Segmented, took } from "../design";
import { SLOW_MS, empty, pretty, readAll } from "./messages";

type Show = "all" | "calls" | "problems";

const DIRECTION: Record<string, string> = { host: "host → server", server: "server → host", tap: "tap" };

export function SessionMessages({ messages: all }: { messages: TapMessage[] }) {
  const [show, setShow] = useState<Show>("all");
  // An SSE event without data (a keep-alive, a priming event) is no message.
  const messages = useMemo(() => all.filter((m) => !empty(m)), [all]);
  const read = useMemo(() => readAll(messages), [messages]);
  const start = messages[0]?.at_ms ?? 0;
  const problems = read.filter((r) => r.error || (r.tookMs ?? 0) >= SLOW_MS).length;
  const shown = messages
    .map((m, i) => ({ m, r: read[i] }))
    .filter(({ m, r }) => {
      if (!r) return false;
      if (show === "problems") return r.error || (r.tookMs ?? 0) >= SLOW_MS;
      if (show === "calls") return m.text.includes('"tools/call"') || r.what.startsWith("result of") || r.what.includes("error of");
      return true;
    });
  return (
    <section className="session-traffic" aria-label="Messages">
      <div className="session-traffic-bar">
        <Segmented
          label="Show"
          value={show}
          onChange={(v) => setShow(v as Show)}
          options={[
            { value: "all", label: `All ${messages.length}` },
            { value: "calls", label: "Calls" },
            { value: "problems", label: `Errors and slow ${problems}` },
          ]}
        />
      </div>
      <ol className="session-messages">
        {shown.map(({ m, r }) => (
          <li key={m.seq} className={`session-message from-${m.direction}`}>
            <details>
              <summary>
                <span className="session-time">{((m.at_ms - start) / 1000).toFixed(3)} s</span>
                <span className="session-dir">{DIRECTION[m.direction] ?? m.direction}</span>
                <code className="session-what">{r?.what}</code>
                {r?.error && <Badge tone="danger">error</Badge>}
                {r?.tookMs != null && r.tookMs >= SLOW_MS && <Badge tone="warn">slow · {took(r.tookMs)}</Badge>}
                <span className="muted">{m.size.toLocaleString()} B</span>
                {/* How long the host waited for this answer. */}
                {r?.tookMs != null && r.tookMs < SLOW_MS && <span className="muted session-took">{r.tookMs < 1 ? "under 1 ms" : took(r.tookMs)}</span>}
              </summary>
              <pre>{pretty(m)}</pre>
            </details>
          </li>
        ))}
      </ol>
    </section>
  );
}
