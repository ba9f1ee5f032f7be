// Every tool of every server in one searchable, virtualised list; the
// selected one opens in the panel beside it.
import { useMemo, useRef, useState } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { Backend, ToolRow } from "../backend";
import { ToolPanel } from "./ToolPanel";

const ROW_HEIGHT = 52;

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

export function ToolsView({
  backend,
  tools,
  selected,
  onSelect,
}: {
  backend: Backend;
  tools: ToolRow[];
  /** The qualified name of the open tool (the palette can open one). */
  selected: string | null;
  onSelect: (qualified: string | null) => void;
}) {
  const [query, setQuery] = useState("");
  const setSelected = onSelect;
  const shown = useMemo(() => tools.filter((t) => matches(t, query)), [tools, query]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    initialRect: { width: 320, height: 800 },
  });
  const current = tools.find((t) => t.qualified === selected) ?? null;
  const move = (delta: number) => {
    if (shown.length === 0) return;
    const at = shown.findIndex((t) => t.qualified === selected);
    const next = Math.min(shown.length - 1, Math.max(0, at < 0 ? 0 : at + delta));
    const target = shown[next];
    if (!target) return;
    setSelected(target.qualified);
    virtual.scrollToIndex(next);
  };
  return (
    <div className="tools-view">
      <div className="tool-list">
        <input
          type="search"
          aria-label="Search tools"
          placeholder={`Search ${tools.length.toLocaleString()} tools`}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              move(1);
            } else if (e.key === "ArrowUp") {
              e.preventDefault();
              move(-1);
            }
          }}
        />
        {tools.length === 0 && <p className="muted empty-hint">No tools yet: they appear when a server is ready.</p>}
        {tools.length > 0 && shown.length === 0 && <p className="muted empty-hint">No tool matches “{query}”.</p>}
        <div className="tool-scroller" ref={scroller} role="listbox" aria-label="Tools">
          <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
            {virtual.getVirtualItems().map((item) => {
              const row = shown[item.index];
              if (!row) return null;
              const t = row.tool as Record<string, unknown>;
              return (
                <div
                  key={row.qualified}
                  role="option"
                  aria-selected={row.qualified === selected}
                  className={row.qualified === selected ? "tool-row selected" : "tool-row"}
                  style={{ position: "absolute", top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  onClick={() => setSelected(row.qualified)}
                  data-qualified={row.qualified}
                >
                  <span className="tool-name">{String(t.title ?? t.name ?? "")}</span>
                  <span className="tool-meta">
                    {row.server} · <code>{String(t.name ?? "")}</code>
                  </span>
                </div>
              );
            })}
          </div>
        </div>
      </div>
      <div className="tool-detail">
        {current ? (
          <ToolPanel key={current.qualified} backend={backend} row={current} />
        ) : (
          <div className="empty-state">
            <h2>Pick a tool</h2>
            <p>Search by name or description; ↑ and ↓ move through the list.</p>
          </div>
        )}
      </div>
    </div>
  );
}
