// Every message with direction, method, id, size and latency; filter by
// server, direction and text; expand to pretty JSON; copy; export JSONL.
// Virtualised: 100,000 entries scroll like 100.
import { useMemo, useRef, useState } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { TrafficEntry } from "../backend";

const ROW = 26;
const ARROW: Record<string, string> = { outgoing: "→", incoming: "←", stderr: "⚠" };

function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function filterEntries(entries: TrafficEntry[], server: string, direction: string, text: string): TrafficEntry[] {
  const needle = text.trim().toLowerCase();
  return entries.filter(
    (e) =>
      (server === "" || e.server === server) &&
      (direction === "" || e.direction === direction) &&
      (needle === "" || (e.method ?? "").toLowerCase().includes(needle) || e.body.toLowerCase().includes(needle)),
  );
}

export function TrafficView({ entries, servers, missed = 0 }: { entries: TrafficEntry[]; servers: string[]; missed?: number }) {
  const [server, setServer] = useState("");
  const [direction, setDirection] = useState("");
  const [text, setText] = useState("");
  const [open, setOpen] = useState<number | null>(null);
  const shown = useMemo(() => filterEntries(entries, server, direction, text), [entries, server, direction, text]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 20,
    initialRect: { width: 900, height: 600 },
  });
  const selected = shown.find((e) => e.seq === open) ?? null;
  const exportJsonl = () => {
    const blob = new Blob([shown.map((e) => JSON.stringify(e)).join("\n") + "\n"], { type: "application/x-ndjson" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "mcp-traffic.jsonl";
    a.click();
    URL.revokeObjectURL(a.href);
  };
  return (
    <div className="traffic-view">
      <div className="toolbar">
        <select aria-label="Server" value={server} onChange={(e) => setServer(e.target.value)}>
          <option value="">all servers</option>
          {servers.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <select aria-label="Direction" value={direction} onChange={(e) => setDirection(e.target.value)}>
          <option value="">both directions</option>
          <option value="outgoing">→ to server</option>
          <option value="incoming">← from server</option>
          <option value="stderr">stderr</option>
        </select>
        <input type="search" aria-label="Filter traffic" placeholder="method or text" value={text} onChange={(e) => setText(e.target.value)} />
        <span className="muted" role="status">
          {shown.length.toLocaleString()} of {entries.length.toLocaleString()}
        </span>
        {missed > 0 && (
          <span className="muted" title="The window fell behind a flood of messages; `mcpwb traffic` and the core's log keep them">
            {missed.toLocaleString()} not shown
          </span>
        )}
        <button type="button" onClick={exportJsonl} disabled={shown.length === 0}>
          Export JSONL
        </button>
      </div>
      <div className="traffic-scroller" ref={scroller} role="table" aria-label="Traffic">
        <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
          {virtual.getVirtualItems().map((item) => {
            const e = shown[item.index];
            if (!e) return null;
            return (
              <div
                key={e.seq}
                role="row"
                className={`traffic-row dir-${e.direction} kind-${e.kind}${e.seq === open ? " selected" : ""}`}
                style={{ position: "absolute", top: 0, left: 0, right: 0, height: ROW, transform: `translateY(${item.start}px)` }}
                onClick={() => setOpen(e.seq === open ? null : e.seq)}
              >
                <span className="t-time">{new Date(e.time_ms ?? 0).toLocaleTimeString()}</span>
                <span className="t-server">{e.server}</span>
                <span className="t-dir" title={e.direction}>
                  {ARROW[e.direction] ?? "?"}
                </span>
                <span className="t-method">{e.method ?? (e.direction === "stderr" ? e.body : e.kind)}</span>
                <span className="t-id">{e.id ?? ""}</span>
                <span className="t-size">{e.size.toLocaleString()} B</span>
                <span className="t-latency">{e.latency_ms != null ? `${e.latency_ms.toFixed(1)} ms` : ""}</span>
              </div>
            );
          })}
        </div>
      </div>
      {selected && (
        <div className="traffic-detail" aria-label="Message">
          <div className="toolbar">
            <strong>
              {selected.server} {ARROW[selected.direction]} {selected.method ?? selected.kind}
            </strong>
            <button type="button" onClick={() => void navigator.clipboard.writeText(selected.body).catch(() => undefined)}>
              Copy
            </button>
            {selected.truncated && <span className="muted">truncated in the log ({selected.size.toLocaleString()} bytes on the wire)</span>}
          </div>
          <pre className="json">{prettyBody(selected.body)}</pre>
        </div>
      )}
    </div>
  );
}
