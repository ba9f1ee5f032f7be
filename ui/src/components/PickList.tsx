// A list to pick from beside the picked item's detail: the shape of the
// resources and prompts views.
import { useEffect, useState, type ReactNode } from "react";
import type { ListCache } from "../ipc/resources";
import { EmptyState, Pane, PaneHandle, Panes, Select } from "../design";

/** Which server's items to list (as the Tools list has it). */
export function ServerFilter({ servers, value, onChange }: { servers: string[]; value: string; onChange: (server: string) => void }) {
  const names = [...new Set(servers)].sort();
  if (names.length < 2 && value === "") return null;
  return (
    <div className="list-filters">
      <Select aria-label="Server" value={value} onChange={(v) => onChange(v)}>
        <option value="">All servers</option>
        {names.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </Select>
    </div>
  );
}

const METHOD: Record<string, string> = {
  tools: "tools/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
  prompts: "prompts/list",
  skills: "skills/list",
};

/** The time now, renewed every `ms` (a label that counts down re-renders
 * itself, not the room around it). */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

type Hint = { hint: { ttl_ms?: number | null; scope?: string | null; read_at_ms?: number | null } };

/** Milliseconds a list stays fresh from `now` (0: stale; no ttlMs counts as 0). */
export function freshFor(h: Hint, now: number): number {
  return Math.max(0, (h.hint.read_at_ms ?? 0) + (h.hint.ttl_ms ?? 0) - now);
}

/** A list's cache hints in words, as the workbench says them (`mcpwb tools`). */
export function describeHint(h: Hint, now: number): string {
  const { ttl_ms, scope } = h.hint;
  if (ttl_ms == null && scope == null) return "no cache hints";
  const fresh = freshFor(h, now);
  const state = ttl_ms === 0 ? "not to be reused (ttlMs 0)" : ttl_ms == null ? "no ttlMs (stale)" : fresh === 0 ? `stale (ttlMs ${ttl_ms})` : `fresh for ${Math.ceil(fresh / 1000)} s`;
  return `${state}, ${scope ?? "no cacheScope"}`;
}

/** What each (chosen) server's list answers said of their freshness
 * (2026-07-28 cache hints), one line a server (its lists' words merged when
 * they say the same); nothing for servers that said nothing. */
export function Freshness({ hints, lists, server }: { hints?: ListCache[]; lists: string[]; server: string }) {
  const now = useNow(5_000);
  const shown = (hints ?? []).filter((h) => lists.includes(h.list) && (!server || h.server === server) && (h.hint.ttl_ms != null || h.hint.scope != null));
  if (shown.length === 0) return null;
  const byServer = new Map<string, { methods: string[]; words: string[] }>();
  for (const h of shown) {
    const entry = byServer.get(h.server) ?? { methods: [], words: [] };
    entry.methods.push(METHOD[h.list] ?? h.list);
    entry.words.push(describeHint(h, now));
    byServer.set(h.server, entry);
  }
  return (
    <ul className="list-freshness muted" aria-label="Cache hints">
      {[...byServer].map(([name, { methods, words }]) => (
        <li key={name} title={methods.map((m, i) => `${m}: ${words[i]}`).join("\n")}>
          {name}: {new Set(words).size === 1 ? words[0] : methods.map((m, i) => `${m} ${words[i]}`).join("; ")}
        </li>
      ))}
    </ul>
  );
}

export type PickItem = { key: string; index: number; title: ReactNode; server: string; code: string; data?: Record<string, string> };

export function PickList({
  id,
  label,
  items,
  selected,
  onSelect,
  top,
  detail,
  empty,
}: {
  /** Names the remembered pane sizes. */
  id: string;
  label: string;
  items: PickItem[];
  selected: number | null;
  onSelect: (index: number) => void;
  /** Above the list: a search field, an empty-list hint. */
  top?: ReactNode;
  /** The picked item's detail (null: nothing picked). */
  detail: ReactNode | null;
  empty: { title: string; text: string };
}) {
  return (
    <div className="tools-view">
      <Panes id={id}>
        <Pane id={`${id}-list`} defaultSize={320} minSize={220} maxSize="60" className="tool-list">
          <div className="list-controls">{top}</div>
          <div className="tool-scroller" role="listbox" aria-label={label}>
            {items.map((item, at) => (
              <div
                key={item.key}
                role="option"
                aria-selected={item.index === selected}
                // One row in the Tab order: the open one, else the first.
                tabIndex={item.index === selected || (at === 0 && !items.some((i) => i.index === selected)) ? 0 : -1}
                className={item.index === selected ? "tool-row selected" : "tool-row"}
                onClick={() => onSelect(item.index)}
                onKeyDown={(e) => {
                  if (e.key === "Enter" || e.key === " ") {
                    e.preventDefault();
                    onSelect(item.index);
                    return;
                  }
                  // ↑ and ↓ (Home, End) open the row they move to, as in Tools.
                  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[e.key];
                  const next = to === undefined ? undefined : items[to];
                  if (!next) return;
                  e.preventDefault();
                  onSelect(next.index);
                  const rows = e.currentTarget.parentElement?.children;
                  (rows?.[to as number] as HTMLElement | undefined)?.focus();
                }}
                {...item.data}
              >
                <span className="tool-name">{item.title}</span>
                <span className="tool-meta">
                  {item.server} · <code>{item.code}</code>
                </span>
              </div>
            ))}
          </div>
        </Pane>
        <PaneHandle label={`Resize the ${label.toLowerCase()} list`} />
        <Pane id={`${id}-detail`} minSize={320} className="tool-detail">
          {detail ?? <EmptyState title={empty.title}>{empty.text}</EmptyState>}
        </Pane>
      </Panes>
    </div>
  );
}
