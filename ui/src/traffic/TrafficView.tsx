// Every message with direction, method, id, size and latency; filter by
// server, direction and text; expand to pretty JSON; copy; export JSONL.
// The log stays in the core: the list asks for the rows around the ones on
// screen, so 100,000 entries (and a server flooding more) scroll like 100.
import { useEffect, useMemo, useState } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { ArrowDownToLine, Copy, Download, Link2, Radio } from "lucide-react";
import type { TrafficEntry, TrafficQuery } from "../ipc";
import { Button, EmptyState, Input, Select, useToast, plural } from "../design";
import type { TrafficBackend, WindowBackend } from "../ipc";

const ROW = 26;
/** Rows fetched beyond those on screen, each side. */
const MARGIN = 60;
const ARROW: Record<string, string> = { outgoing: "→", incoming: "←", stderr: "⚠", note: "ⓘ", from_app: "App →", to_app: "→ App" };

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

/** Time of day to the millisecond. */
export function clock(ms: number | null): string {
  const d = new Date(ms ?? 0);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

export function TrafficView({
  backend,
  version,
  servers,
  logSize,
  focusServer,
}: {
  backend: TrafficBackend & WindowBackend;
  /** Changes when the log grows (its newest sequence number). */
  version: number;
  servers: string[];
  /** Entries in the whole log. */
  logSize?: number;
  /** Show this server's messages (a chat's tool call links here). */
  focusServer?: string;
}) {
  const toast = useToast();
  const [server, setServer] = useState(focusServer ?? "");
  useEffect(() => {
    if (focusServer) setServer(focusServer);
  }, [focusServer]);
  // The request or response paired with the open entry (same id, other way).
  const [partner, setPartner] = useState<TrafficEntry | null>(null);
  const [direction, setDirection] = useState("");
  const [text, setText] = useState("");
  const needle = useSettled(text, 150);
  const [open, setOpen] = useState<TrafficEntry | null>(null);
  const [page, setPage] = useState<{ total: number; offset: number; entries: TrafficEntry[] }>({ total: 0, offset: 0, entries: [] });
  const [error, setError] = useState<string | null>(null);
  // Whether a page has come back yet (until then the table, not "nothing here").
  const [loaded, setLoaded] = useState(false);
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
        setLoaded(true);
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
  useEffect(() => {
    setPartner(null);
    if (!open?.id || !(open.direction === "outgoing" || open.direction === "incoming")) return;
    let cancelled = false;
    backend.trafficPage({ server: open.server, id: open.id, limit: 50 }).then(
      (p) => {
        if (cancelled) return;
        const others = p.entries.filter((e) => e.direction !== open.direction);
        // The nearest one the other way: the request before a response, the response after a request.
        const found = open.direction === "incoming" ? others.filter((e) => e.seq < open.seq).at(-1) : others.find((e) => e.seq > open.seq);
        setPartner(found ?? null);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [backend, open]);
  const exportJsonl = () => {
    backend.exportTraffic({ ...filter, offset: 0 }).then(
      (done) => done && toast(`Exported ${plural(done.entries, "message")}`, { description: done.path }),
      (e: unknown) => toast("The export failed", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  };
  const columns = ["Time", "Server", "", "Method", "Id", "Size", "Latency"];
  return (
    <div className="traffic-view">
      <div className="toolbar">
        <Select aria-label="Server" value={server} onChange={(v) => setServer(v)}>
          <option value="">all servers</option>
          {servers.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
        <Select aria-label="Direction" value={direction} onChange={(v) => setDirection(v)}>
          <option value="">both directions</option>
          <option value="outgoing">→ to server</option>
          <option value="incoming">← from server</option>
          <option value="stderr">stderr</option>
          <option value="note">the workbench&apos;s notes</option>
          <option value="from_app">App → workbench</option>
          <option value="to_app">workbench → App</option>
        </Select>
        <Input type="search" aria-label="Filter traffic" placeholder="method or text" value={text} onChange={(e) => setText(e.target.value)} />
        <span className="muted" role="status">
          {page.total.toLocaleString()} of {(logSize ?? page.total).toLocaleString()}
        </span>
        <span className="run-bar-spacer" />
        <Button
          size="sm"
          icon={ArrowDownToLine}
          aria-pressed={follow}
          title="Keep the newest message in view"
          onClick={() => {
            setFollow(!follow);
            if (!follow && page.total > 0) virtual.scrollToEnd();
          }}
        >
          Follow newest
        </Button>
        <Button size="sm" icon={Download} onClick={exportJsonl} disabled={page.total === 0}>
          Export JSONL
        </Button>
      </div>
      {error && (
        <p className="error-banner" role="alert">
          The traffic log could not be read: {error}
        </p>
      )}
      {loaded && page.total === 0 && !error ? (
        <EmptyState icon={Radio} title={logSize ? "No message matches" : "No messages yet"}>
          <p>{logSize ? "Change the filters above to see more." : "Every message to and from your servers appears here as it happens, with stderr lines."}</p>
        </EmptyState>
      ) : (
        <div className="traffic-table" role="table" aria-label="Traffic" aria-rowcount={page.total + 1}>
          <div role="rowgroup" className="traffic-head">
            <div role="row" className="traffic-row traffic-header">
              {columns.map((c, i) => (
                <span key={i} role="columnheader" className={`t-${["time", "server", "dir", "method", "id", "size", "latency"][i]}`}>
                  {c || <span className="sr-only">Direction</span>}
                </span>
              ))}
            </div>
          </div>
          <div className="traffic-scroller" ref={setScroller} role="rowgroup" onScroll={onScroll}>
            <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
              {items.map((item) => {
                const e = page.entries[item.index - page.offset];
                const style = { position: "absolute", top: 0, left: 0, right: 0, height: ROW, transform: `translateY(${item.start}px)` } as const;
                if (!e) return <div key={`pending-${item.index}`} className="traffic-row pending" style={style} aria-hidden />;
                const selected = e.seq === open?.seq;
                const paired = e.seq === partner?.seq;
                const toggle = () => setOpen(selected ? null : e);
                return (
                  <div
                    key={e.seq}
                    role="row"
                    aria-rowindex={item.index + 2}
                    aria-selected={selected}
                    tabIndex={0}
                    className={`traffic-row dir-${e.direction} kind-${e.kind}${selected ? " selected" : ""}${paired ? " paired" : ""}`}
                    style={style}
                    onClick={toggle}
                    onKeyDown={(k) => {
                      if (k.key === "Enter" || k.key === " ") {
                        k.preventDefault();
                        toggle();
                      }
                    }}
                  >
                    <span role="cell" className="t-time">
                      {clock(e.time_ms)}
                    </span>
                    <span role="cell" className="t-server">
                      {e.server}
                    </span>
                    <span role="cell" className="t-dir" title={e.direction}>
                      {ARROW[e.direction] ?? "?"}
                    </span>
                    <span role="cell" className="t-method">
                      {e.method ?? (e.direction === "stderr" || e.direction === "note" ? e.body : e.kind)}
                    </span>
                    <span role="cell" className="t-id">
                      {e.id ?? ""}
                    </span>
                    <span role="cell" className="t-size">
                      {e.size.toLocaleString()} B
                    </span>
                    <span role="cell" className="t-latency">
                      {e.latency_ms != null ? `${e.latency_ms.toFixed(1)} ms` : ""}
                    </span>
                  </div>
                );
              })}
            </div>
          </div>
        </div>
      )}
      {open && (
        <div className="traffic-detail" aria-label="Message">
          <div className="toolbar">
            <strong>
              {open.server} {ARROW[open.direction]} {open.method ?? open.kind}
            </strong>
            <span className="muted">{clock(open.time_ms)}</span>
            <Button size="sm" variant="ghost" icon={Copy} onClick={() => void backend.copyText(open.body).then(() => toast("Message copied"), () => undefined)}>
              Copy
            </Button>
            {partner && (
              <Button size="sm" variant="ghost" icon={Link2} onClick={() => setOpen(partner)} className="partner-link">
                {open.direction === "incoming" ? "Its request" : "Its response"}
                {(open.latency_ms ?? partner.latency_ms) != null && ` · ${(open.latency_ms ?? partner.latency_ms ?? 0).toFixed(1)} ms`}
              </Button>
            )}
            {open.truncated && <span className="muted">truncated in the log ({open.size.toLocaleString()} bytes on the wire)</span>}
          </div>
          <pre className="json" tabIndex={0}>{prettyBody(open.body)}</pre>
        </div>
      )}
    </div>
  );
}
