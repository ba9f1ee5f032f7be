// Every message with direction, method, id, size and latency; filter by
// server, direction and text; expand to pretty JSON; copy; export JSONL.
// The log stays in the core: the list asks for the rows around the ones on
// screen, so 100,000 entries (and a server flooding more) scroll like 100.
import { useEffect, useMemo, useState } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { Backend, TrafficEntry, TrafficQuery } from "../backend";

const ROW = 26;
/** Rows fetched beyond those on screen, each side. */
const MARGIN = 60;
const ARROW: Record<string, string> = { outgoing: "→", incoming: "←", stderr: "⚠" };

function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** The text filter, applied once typing pauses. */
function useSettled(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

export function TrafficView({
  backend,
  version,
  servers,
  logSize,
}: {
  backend: Backend;
  /** Changes when the log grows (its newest sequence number). */
  version: number;
  servers: string[];
  /** Entries in the whole log. */
  logSize?: number;
}) {
  const [server, setServer] = useState("");
  const [direction, setDirection] = useState("");
  const [text, setText] = useState("");
  const needle = useSettled(text, 150);
  const [open, setOpen] = useState<TrafficEntry | null>(null);
  const [page, setPage] = useState<{ total: number; offset: number; entries: TrafficEntry[] }>({ total: 0, offset: 0, entries: [] });
  const [error, setError] = useState<string | null>(null);
  const [scroller, setScroller] = useState<HTMLDivElement | null>(null);
  // At the bottom of the list, new entries keep it at the bottom (as a
  // terminal does); scrolling up stops that until the bottom is reached again.
  const [follow, setFollow] = useState(false);
  const virtual = useVirtualizer({
    count: page.total,
    getScrollElement: () => scroller,
    estimateSize: () => ROW,
    overscan: 20,
    initialRect: { width: 900, height: 600 },
  });
  const items = virtual.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? 0;
  // Refetch when the rows on screen leave the middle of what was fetched.
  const anchor = Math.floor(first / (MARGIN / 2));
  const filter = useMemo<TrafficQuery>(
    () => ({
      server: server || null,
      direction: direction === "" ? null : (direction as TrafficQuery["direction"]),
      text: needle.trim() || null,
      limit: 0,
    }),
    [server, direction, needle],
  );
  const span = last - first;
  useEffect(() => {
    let cancelled = false;
    const offset = Math.max(0, anchor * (MARGIN / 2) - MARGIN);
    const limit = span + 1 + 3 * MARGIN;
    backend.trafficPage({ ...filter, offset, limit }).then(
      (p) => {
        if (cancelled) return;
        setError(null);
        setPage({ total: p.total, offset: p.offset, entries: p.entries });
      },
      (e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      cancelled = true;
    };
  }, [backend, version, filter, anchor, span]);
  useEffect(() => {
    if (follow && page.total > 0) virtual.scrollToEnd();
  }, [follow, page.total, virtual]);
  const onScroll = (e: React.UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget;
    const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW;
    if (atBottom !== follow) setFollow(atBottom);
  };
  const exportJsonl = () => {
    void backend.trafficPage({ ...filter, offset: 0, limit: page.total }).then((all) => {
      const blob = new Blob([all.entries.map((e) => JSON.stringify(e)).join("\n") + "\n"], { type: "application/x-ndjson" });
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = "mcp-traffic.jsonl";
      a.click();
      URL.revokeObjectURL(a.href);
    });
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
          {page.total.toLocaleString()} of {(logSize ?? page.total).toLocaleString()}
        </span>
        <button
          type="button"
          aria-pressed={follow}
          title="Keep the newest message in view"
          onClick={() => {
            setFollow(!follow);
            if (!follow && page.total > 0) virtual.scrollToEnd();
          }}
        >
          Follow newest
        </button>
        <button type="button" onClick={exportJsonl} disabled={page.total === 0}>
          Export JSONL
        </button>
      </div>
      {error && (
        <p className="error-banner" role="alert">
          The traffic log could not be read: {error}
        </p>
      )}
      <div className="traffic-scroller" ref={setScroller} role="table" aria-label="Traffic" onScroll={onScroll}>
        <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
          {items.map((item) => {
            const e = page.entries[item.index - page.offset];
            const style = { position: "absolute", top: 0, left: 0, right: 0, height: ROW, transform: `translateY(${item.start}px)` } as const;
            if (!e) return <div key={`pending-${item.index}`} role="row" className="traffic-row pending" style={style} />;
            return (
              <div
                key={e.seq}
                role="row"
                className={`traffic-row dir-${e.direction} kind-${e.kind}${e.seq === open?.seq ? " selected" : ""}`}
                style={style}
                onClick={() => setOpen(e.seq === open?.seq ? null : e)}
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
      {open && (
        <div className="traffic-detail" aria-label="Message">
          <div className="toolbar">
            <strong>
              {open.server} {ARROW[open.direction]} {open.method ?? open.kind}
            </strong>
            <button type="button" onClick={() => void navigator.clipboard.writeText(open.body).catch(() => undefined)}>
              Copy
            </button>
            {open.truncated && <span className="muted">truncated in the log ({open.size.toLocaleString()} bytes on the wire)</span>}
          </div>
          <pre className="json">{prettyBody(open.body)}</pre>
        </div>
      )}
    </div>
  );
}
