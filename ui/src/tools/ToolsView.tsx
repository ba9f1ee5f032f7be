// Every tool of every server in one searchable, virtualised list — grouped
// by server (each group folds) or flat, filtered by server — with what the
// server says about each (read-only, destructive, ...) as icons; the
// selected one opens in the panel beside it. A tool of a server that is
// not ready is shown as unavailable.
import { useEffect, useMemo, useRef, useState } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useQueryClient } from "@tanstack/react-query";
import { ChevronRight, RefreshCw, Wrench } from "lucide-react";
import type { ToolRow } from "../ipc";
import type { ServerStatus_Serialize as ServerStatus } from "../bindings";
import { EmptyState, IconButton, Input, Pane, PaneHandle, Panes, Segmented, Select, Skeleton, plural, useToast } from "../design";
import { afterCatalog } from "../queries";
import { describeHint, freshFor, useNow } from "../components/PickList";
import type { ListCache } from "../ipc";
import { noneYet } from "../components/noneYet";
import { AnnotationIcons } from "./annotations";
import { ToolPanel } from "./ToolPanel";
import type { ComponentProps } from "react";

const ROW_HEIGHT = 52;
const HEADER_HEIGHT = 30;

function matches(row: ToolRow, query: string): boolean {
  if (!query) return true;
  const t = row.tool as Record<string, unknown>;
  const hay = `${row.qualified} ${String(t.title ?? "")} ${String(t.description ?? "")}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => hay.includes(word));
}

/** A list's freshness, short: "fresh 60 s · public", "ttlMs 0" (the server says not to reuse it), "stale" (its time ran out), "no cache hints". */
export function cacheLabel(h: { hint: { ttl_ms?: number | null; scope?: string | null; read_at_ms?: number | null } } | undefined, now: number): string {
  if (!h) return "";
  if (h.hint.ttl_ms == null && h.hint.scope == null) return "no cache hints";
  const scope = h.hint.scope === "public" ? " · public" : "";
  if (h.hint.ttl_ms === 0) return `ttlMs 0${scope}`;
  const fresh = freshFor(h, now);
  return fresh > 0 ? `fresh ${Math.ceil(fresh / 1000)} s${scope}` : `stale${scope}`;
}

/** A server's tool list's freshness in its group's header, counting down by itself. */
function CacheLabel({ hint }: { hint: ListCache | undefined }) {
  const now = useNow(5_000);
  if (!hint?.hint.pages) return null;
  return (
    <span className="tool-group-cache" title={`tools/list: ${describeHint(hint, now)} (the server's cache hints)`}>
      {cacheLabel(hint, now)}
    </span>
  );
}

type Item = { kind: "header"; server: string; count: number; folded: boolean } | { kind: "tool"; row: ToolRow };

const GROUPING_KEY = "mcpwb.tools.grouping";

export function ToolsView({
  backend,
  tools,
  selected,
  onSelect,
  statuses = [],
  loading = false,
  focusRequest = 0,
  changes = {},
  onStartChat,
  hints,
}: {
  /** What each server's lists said of their freshness (cache hints). */
  hints?: ListCache[];
  /** An App's message (outside a chat) offered as a new chat's draft. */
  onStartChat?: (text: string) => void;
  /** What changed in each server's surface when it last came back (new and changed tools are marked). */
  /** Each server's last surface change (not marked once a later reload changed nothing). */
  changes?: Record<string, { added_tools: string[]; changed_tools: string[]; unchanged_at_ms?: number | null }>;
  backend: ComponentProps<typeof ToolPanel>["backend"];
  tools: ToolRow[];
  /** The qualified name of the open tool (the palette can open one). */
  selected: string | null;
  onSelect: (qualified: string | null) => void;
  statuses?: ServerStatus[];
  loading?: boolean;
  /** Bumped when a tool is opened from elsewhere (palette, History): focus goes to it. */
  focusRequest?: number;
}) {
  const [query, setQuery] = useState("");
  const [server, setServer] = useState("");
  const [grouping, setGroupingState] = useState<"server" | "flat">(() => (localStorage.getItem(GROUPING_KEY) === "flat" ? "flat" : "server"));
  const setGrouping = (g: "server" | "flat") => {
    setGroupingState(g);
    localStorage.setItem(GROUPING_KEY, g);
  };
  const [folded, setFolded] = useState<Set<string>>(new Set());
  // Focus moves into the open tool's panel once per request (Enter in the
  // search, or an open from elsewhere), never on a click in the list.
  const [focusTick, setFocusTick] = useState(0);
  const [focused, setFocused] = useState(0);
  useEffect(() => {
    if (focusRequest) setFocusTick((t) => t + 1);
  }, [focusRequest]);
  const servers = useMemo(() => [...new Set(tools.map((t) => t.server))], [tools]);
  const shown = useMemo(() => tools.filter((t) => (!server || t.server === server) && matches(t, query)), [tools, query, server]);
  // A tool opened from elsewhere (History, the palette) that the search or
  // the server filter hides: the list is cleared so it shows the open tool.
  useEffect(() => {
    if (selected && tools.some((t) => t.qualified === selected) && !shown.some((t) => t.qualified === selected)) {
      setQuery("");
      setServer("");
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selected]);
  const items = useMemo<Item[]>(() => {
    if (grouping === "flat") return shown.map((row) => ({ kind: "tool", row }));
    const out: Item[] = [];
    let i = 0;
    while (i < shown.length) {
      const name = shown[i]?.server ?? "";
      let j = i;
      while (j < shown.length && shown[j]?.server === name) j++;
      const isFolded = folded.has(name) && !query;
      out.push({ kind: "header", server: name, count: j - i, folded: isFolded });
      if (!isFolded) for (const row of shown.slice(i, j)) out.push({ kind: "tool", row });
      i = j;
    }
    return out;
  }, [shown, grouping, folded, query]);
  const ready = useMemo(() => new Set(statuses.filter((s) => s.state === "ready").map((s) => s.name)), [statuses]);
  // Servers on their way back (starting, restarting): a call waits for them.
  const returning = useMemo(
    () => new Set(statuses.filter((s) => s.state === "starting" || s.state === "restarting").map((s) => s.name)),
    [statuses],
  );
  // What each server's tools/list said of its freshness (2026-07-28 cache
  // hints; the labels count down by themselves).
  const toolsHint = useMemo(() => new Map((hints ?? []).filter((h) => h.list === "tools").map((h) => [h.server, h])), [hints]);
  const queryClient = useQueryClient();
  const toast = useToast();
  const [refreshing, setRefreshing] = useState(false);
  const refresh = () => {
    setRefreshing(true);
    backend.refreshLists(server || undefined).then(
      () => {
        afterCatalog(queryClient);
        setRefreshing(false);
        toast(server ? `${server}'s lists read again` : "Every server's lists read again");
      },
      (e: unknown) => {
        setRefreshing(false);
        toast("Not read again", { tone: "danger", description: e instanceof Error ? e.message : String(e) });
      },
    );
  };
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (items[i]?.kind === "header" ? HEADER_HEIGHT : ROW_HEIGHT),
    overscan: 8,
    initialRect: { width: 320, height: 800 },
  });
  const current = tools.find((t) => t.qualified === selected) ?? null;
  const move = (delta: number) => {
    const rows = items.flatMap((it, index) => (it.kind === "tool" ? [{ row: it.row, index }] : []));
    if (rows.length === 0) return;
    const at = rows.findIndex((r) => r.row.qualified === selected);
    const next = rows[Math.min(rows.length - 1, Math.max(0, at < 0 ? 0 : at + delta))];
    if (!next) return;
    onSelect(next.row.qualified);
    virtual.scrollToIndex(next.index);
  };
  // One Tab stop for the whole list: the open tool, else the first item.
  const tabStop = items.some((it) => it.kind === "tool" && it.row.qualified === selected)
    ? `t-${selected ?? ""}`
    : items[0]?.kind === "header"
      ? `h-${items[0].server}`
      : items[0]?.kind === "tool"
        ? `t-${items[0].row.qualified}`
        : "";
  const toggle = (name: string) => setFolded((f) => (f.has(name) ? new Set([...f].filter((n) => n !== name)) : new Set([...f, name])));
  return (
    <div className="tools-view">
      <Panes id="tools">
        <Pane id="tool-list" defaultSize={320} minSize={220} maxSize="60" className="tool-list">
          <div className="list-controls">
            <Input
              type="search"
              aria-label="Search tools"
              placeholder={`Search ${plural(tools.length, "tool")}`}
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter") {
                  // Open the selected tool if it matches, else the first that does.
                  const target = shown.find((t) => t.qualified === selected) ?? shown[0];
                  if (target) {
                    e.preventDefault();
                    onSelect(target.qualified);
                    setFocusTick((t) => t + 1);
                  }
                } else if (e.key === "ArrowDown") {
                  e.preventDefault();
                  move(1);
                } else if (e.key === "ArrowUp") {
                  e.preventDefault();
                  move(-1);
                }
              }}
            />
            <div className="list-filters">
              <Select aria-label="Server" value={server} onChange={(v) => setServer(v)}>
                <option value="">All servers</option>
                {servers.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </Select>
              <IconButton
                size="sm"
                icon={RefreshCw}
                label={server ? `Read ${server}'s lists again (fresh or not)` : "Read every server's lists again (fresh or not)"}
                disabled={refreshing}
                onClick={refresh}
              />
              <Segmented
                label="Grouping"
                value={grouping}
                onChange={setGrouping}
                options={[
                  { value: "server", label: "By server" },
                  { value: "flat", label: "Flat" },
                ]}
              />
            </div>
          </div>
          {loading && <Skeleton lines={6} label="Loading tools" />}
          {!loading && tools.length === 0 && <p className="muted empty-hint">{noneYet(statuses, "tools")}</p>}
          {tools.length > 0 && shown.length === 0 && <p className="muted empty-hint">No tool matches “{query}”.</p>}
          <div className="tool-scroller" ref={scroller} role="tree" aria-label="Tools">
            <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
              {virtual.getVirtualItems().map((v) => {
                const item = items[v.index];
                if (!item) return null;
                const style = { position: "absolute" as const, top: 0, left: 0, right: 0, height: v.size, transform: `translateY(${v.start}px)` };
                if (item.kind === "header") {
                  return (
                    <div
                      key={`h-${item.server}`}
                      role="treeitem"
                      aria-level={1}
                      aria-expanded={!item.folded}
                      aria-selected={false}
                      tabIndex={tabStop === `h-${item.server}` ? 0 : -1}
                      className="tool-group"
                      style={style}
                      onClick={() => toggle(item.server)}
                      onKeyDown={(e) => {
                        if (e.key === "Enter" || e.key === " " || (e.key === "ArrowLeft" && !item.folded) || (e.key === "ArrowRight" && item.folded)) {
                          e.preventDefault();
                          toggle(item.server);
                        }
                      }}
                    >
                      <ChevronRight aria-hidden size={13} className="tool-group-chevron" />
                      <span className="truncate">{item.server}</span>
                      <span className="tool-group-count">{item.count}</span>
                      <CacheLabel hint={toolsHint.get(item.server)} />
                      {!ready.has(item.server) && <span className="badge tone-warn">unavailable</span>}
                    </div>
                  );
                }
                const row = item.row;
                const t = row.tool as Record<string, unknown>;
                const away = row.stale || !ready.has(row.server);
                const isSelected = row.qualified === selected;
                return (
                  <div
                    key={row.qualified}
                    role="treeitem"
                    aria-level={grouping === "flat" ? 1 : 2}
                    aria-selected={isSelected}
                    aria-disabled={away || undefined}
                    tabIndex={tabStop === `t-${row.qualified}` ? 0 : -1}
                    className={`tool-row${isSelected ? " selected" : ""}${away ? " unavailable" : ""}`}
                    style={style}
                    onClick={() => onSelect(row.qualified)}
                    onKeyDown={(e) => {
                      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                        e.preventDefault();
                        move(e.key === "ArrowDown" ? 1 : -1);
                      }
                    }}
                    data-qualified={row.qualified}
                    title={String(t.description ?? "")}
                  >
                    <span className="tool-name">
                      <span className="truncate">{String(t.title ?? t.name ?? "")}</span>
                      <AnnotationIcons annotations={t.annotations} />
                      {!changes[row.server]?.unchanged_at_ms && changes[row.server]?.added_tools.includes(String(t.name)) && (
                        <span className="badge tone-accent tool-mark" title="Added when the server last came back">
                          new
                        </span>
                      )}
                      {!changes[row.server]?.unchanged_at_ms && changes[row.server]?.changed_tools.includes(String(t.name)) && (
                        <span className="badge tone-warn tool-mark" title="Changed when the server last came back (see its panel)">
                          changed
                        </span>
                      )}
                    </span>
                    <span className="tool-meta">
                      {grouping === "flat" && `${row.server} · `}
                      <code>{String(t.name ?? "")}</code>
                      {away && " · unavailable"}
                    </span>
                  </div>
                );
              })}
            </div>
          </div>
        </Pane>
        <PaneHandle label="Resize the tool list" />
        <Pane id="tool-detail" minSize={320} className="tool-detail">
          {current ? (
            <ToolPanel
              key={current.qualified}
              backend={backend}
              row={current}
              available={(!current.stale && ready.has(current.server)) || returning.has(current.server)}
              returning={returning.has(current.server)}
              focus={focusTick !== focused}
              onFocused={() => setFocused(focusTick)}
              onStartChat={onStartChat}
            />
          ) : (
            <EmptyState icon={Wrench} title="Pick a tool">
              <p>Search by name or description; ↑ and ↓ move through the list. Run a tool with Ctrl+Enter.</p>
            </EmptyState>
          )}
        </Pane>
      </Panes>
    </div>
  );
}
