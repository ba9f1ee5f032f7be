// Resources of every server: list and templates (fill the URI template),
// read with a preview (text, image, binary size), subscribe for updates.
import { Completing } from "../components/Completing";
import { useEffect, useRef, useState } from "react";
import type { ResourceRow } from "../ipc";
import type { ServerStatus_Serialize as ServerStatus } from "../bindings";
import { Freshness, PickList, ServerFilter } from "../components/PickList";
import { noneYet } from "../components/noneYet";
import { ResourceContents, type ResultBackend } from "../content/ResultView";
import { Button, Input, plural } from "../design";
import type { ListCache } from "../ipc";


/** What a read's answer says of caching (2026-07-28 `ttlMs`, `cacheScope`). */
export function readCacheText(result: unknown): string | null {
  const r = (result ?? {}) as { ttlMs?: unknown; cacheScope?: unknown };
  if (r.ttlMs === undefined && r.cacheScope === undefined) return null;
  const ttl = typeof r.ttlMs === "number" ? (r.ttlMs > 0 ? `fresh for ${Math.ceil(r.ttlMs / 1000)} s` : "stale at once (ttlMs 0)") : "no ttlMs";
  const scope = typeof r.cacheScope === "string" ? r.cacheScope : "no cacheScope";
  return `Cache hints: ${ttl}, ${scope}`;
}

/** RFC 6570 variables of a URI template (`{name}`, `{+path}`, `{?q}`). */
export function templateVariables(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(/\{([+#./;?&]?)([^}]+)\}/g)) {
    for (const name of (m[2] ?? "").split(",")) {
      const clean = name.replace(/\*$/, "").replace(/:\d+$/, "");
      if (clean && !out.includes(clean)) out.push(clean);
    }
  }
  return out;
}

/** Fill a URI template (simple and reserved expansion; query forms). */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, op: string, names: string) => {
    const vars = names.split(",").map((n) => n.replace(/\*$/, "").replace(/:\d+$/, ""));
    const enc = (v: string) => (op === "+" || op === "#" ? encodeURI(v) : encodeURIComponent(v));
    const present = vars.filter((n) => (values[n] ?? "") !== "");
    if (op === "?" || op === "&") {
      const pairs = present.map((n) => `${n}=${encodeURIComponent(values[n] ?? "")}`);
      return pairs.length ? `${op}${pairs.join("&")}` : "";
    }
    const joined = present.map((n) => enc(values[n] ?? "")).join(",");
    return op === "+" || op === "" ? joined : `${op}${joined}`;
  });
}

/** A template's variables that make its path (`{id}`, `{+path}`): read
 * with one empty, the URI is not the one meant. Query forms may be left out. */
export function unfilled(template: string, values: Record<string, string>): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(/\{([+#./;?&]?)([^}]+)\}/g)) {
    if (m[1] === "?" || m[1] === "&") continue;
    for (const name of (m[2] ?? "").split(",")) {
      const clean = name.replace(/\*$/, "").replace(/:\d+$/, "");
      if (clean && !(values[clean] ?? "") && !out.includes(clean)) out.push(clean);
    }
  }
  return out;
}

function Detail({
  backend,
  row,
  subscribed,
  noSubscriptions,
  updates,
  onSubscribed,
  onRead,
}: {
  backend: ResultBackend;
  row: ResourceRow;
  /** Subscriptions live with the view, not the open resource: kept as you pick others. */
  subscribed: boolean;
  /** Why it cannot be subscribed to (the server does not offer it), or null. */
  noSubscriptions: string | null;
  /** How many times the server said this resource changed (subscribed). */
  updates: number;
  onSubscribed: (on: boolean) => void;
  /** A read began when the server had said `updates` changes. */
  onRead: (updates: number) => void;
}) {
  const r = row.resource as Record<string, unknown>;
  const template = row.template ? String(r.uriTemplate ?? "") : null;
  const vars = template ? templateVariables(template) : [];
  const [values, setValues] = useState<Record<string, string>>({});
  const uri = template ? fillTemplate(template, values) : String(r.uri ?? "");
  const missing = template ? unfilled(template, values) : [];
  const [contents, setContents] = useState<Record<string, unknown>[] | null>(null);
  const [cache, setCache] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  // When the shown contents were read: again on the server's word.
  const [readAgain, setReadAgain] = useState<string | null>(null);
  const read = (why: string | null = null) => {
    setError(null);
    setReading(true);
    onRead(updates);
    backend.readResource(row.server, uri).then(
      (result) => {
        setReading(false);
        setContents(((result as { contents?: Record<string, unknown>[] }).contents ?? []) as Record<string, unknown>[]);
        setCache(readCacheText(result));
        setReadAgain(why);
      },
      (e: unknown) => {
        setReading(false);
        setError(e instanceof Error ? e.message : String(e));
      },
    );
  };
  // Subscribed and read: the server's update reads it again, so what is shown is what it holds now.
  const seen = useRef(updates);
  useEffect(() => {
    if (updates === seen.current) return;
    seen.current = updates;
    if (subscribed && contents !== null && !reading) read(`Read again at ${new Date().toLocaleTimeString()}: the server said it changed.`);
    // Only a new update reads again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [updates]);
  return (
    <form
      className="resource-detail"
      onSubmit={(e) => {
        e.preventDefault();
        if (!reading && missing.length === 0) read();
      }}
    >
      <h2>
        {String(r.title ?? r.name ?? uri)} <code className="qualified">{row.server}</code>
      </h2>
      {typeof r.description === "string" && <p className="tool-description">{r.description}</p>}
      {template && (
        <div className="template-fields">
          <code>{template}</code>
          {vars.map((v) => (
            <Completing
              key={v}
              backend={backend}
              server={row.server}
              reference={{ type: "ref/resource", uri: template }}
              argument={v}
              value={values[v] ?? ""}
              others={Object.fromEntries(Object.entries(values).filter(([k]) => k !== v))}
              onChange={(x) => setValues({ ...values, [v]: x })}
              label={v}
            />
          ))}
        </div>
      )}
      <div className="run-bar">
        <code>{uri}</code>
        <Button type="submit" variant="primary" disabled={reading || missing.length > 0} title={missing.length > 0 ? `Fill ${missing.join(", ")} first` : "Enter"}>
          {reading ? "Reading…" : "Read"}
        </Button>
        {!template && (
          <Button
            variant="secondary"
            aria-pressed={subscribed}
            disabled={noSubscriptions !== null && !subscribed}
            title={noSubscriptions ?? undefined}
            onClick={() =>
              backend.subscribeResource(row.server, uri, !subscribed).then(
                () => onSubscribed(!subscribed),
                (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
              )
            }
          >
            {subscribed ? "Unsubscribe" : "Subscribe"}
          </Button>
        )}
      </div>
      {!template && noSubscriptions && !subscribed && <p className="muted">{noSubscriptions}</p>}
      {error && (
        <div className="error-banner" role="alert">
          <p className="error-message">{error}</p>
        </div>
      )}
      {readAgain && contents && (
        <p className="muted" role="status">
          {readAgain}
        </p>
      )}
      {contents && cache && <p className="muted read-cache">{cache}</p>}
      {contents && (contents.length === 0 ? <p className="muted">The server returned no contents.</p> : <ResourceContents backend={backend} contents={contents} headed />)}
    </form>
  );
}

/** Why a server's resources cannot be subscribed to, or null when they can. */
export function subscribeRefusal(status: ServerStatus | undefined): string | null {
  // Not known here (no capabilities yet): the server is asked, and says.
  if (!status?.info) return null;
  const caps = (status.info.capabilities ?? {}) as { resources?: { subscribe?: unknown } };
  return caps.resources?.subscribe === true ? null : `${status.name} does not offer subscriptions (its capabilities do not say resources.subscribe).`;
}

const keyOf = (row: ResourceRow) => {
  const r = row.resource as Record<string, unknown>;
  return `${row.server} ${String(r.uri ?? r.uriTemplate ?? "")}`;
};

export function ResourcesView({
  backend,
  rows,
  updated,
  hints,
  statuses = [],
}: {
  backend: ResultBackend;
  rows: ResourceRow[];
  /** How many times each subscribed resource ("server uri") changed. */
  updated: Record<string, number>;
  hints?: ListCache[];
  statuses?: ServerStatus[];
}) {
  // The open resource by its server and URI (an index would move when lists change).
  const [openKey, setOpenKey] = useState<string | null>(null);
  const [subscriptions, setSubscriptions] = useState<Set<string>>(new Set());
  // How many of each resource's updates its last read came after.
  const [readAfter, setReadAfter] = useState<Record<string, number>>({});
  const [query, setQuery] = useState("");
  const [server, setServer] = useState("");
  const selectedIndex = rows.findIndex((r) => keyOf(r) === openKey);
  const selected = selectedIndex < 0 ? null : selectedIndex;
  const setSelected = (i: number) => setOpenKey(rows[i] ? keyOf(rows[i]) : null);
  const current = selected === null ? null : rows[selected];
  const items = rows
    .map((row, index) => ({ row, index }))
    .filter(({ row }) => (!server || row.server === server) && JSON.stringify(row.resource).toLowerCase().includes(query.toLowerCase()))
    .map(({ row, index }) => {
      const r = row.resource as Record<string, unknown>;
      const id = String(r.uri ?? r.uriTemplate ?? "");
      const key = keyOf(row);
      const title = (
        <>
          {String(r.title ?? r.name ?? id)} {row.template && <span className="badge">template</span>}
          {subscriptions.has(key) && <span className="badge tone-info">subscribed</span>}
          {(updated[key] ?? 0) > (readAfter[key] ?? 0) && (
            <span className="badge tone-accent" title="The server said it changed since you last read it">
              updated
            </span>
          )}
        </>
      );
      return { key: `${row.server}/${id}`, index, title, server: row.server, code: id, data: { "data-uri": id } };
    });
  return (
    <PickList
      id="resources"
      label="Resources"
      items={items}
      selected={selected}
      onSelect={setSelected}
      top={
        <>
          <Input type="search" aria-label="Search resources" placeholder={`Search ${plural(rows.length, "resource")}`} value={query} onChange={(e) => setQuery(e.target.value)} />
          <ServerFilter servers={rows.map((r) => r.server)} value={server} onChange={setServer} />
          <Freshness hints={hints} lists={["resources", "resourceTemplates"]} server={server} />
          {rows.length === 0 && <p className="muted empty-hint">{noneYet(statuses, "resources")}</p>}
          {rows.length > 0 && items.length === 0 && <p className="muted empty-hint">No resource matches “{query}”.</p>}
        </>
      }
      detail={
        current ? (
          <Detail
            key={openKey}
            backend={backend}
            row={current}
            subscribed={subscriptions.has(keyOf(current))}
            noSubscriptions={subscribeRefusal(statuses.find((s) => s.name === current.server))}
            updates={updated[keyOf(current)] ?? 0}
            onRead={(n) => setReadAfter((old) => ({ ...old, [keyOf(current)]: n }))}
            onSubscribed={(on) =>
              setSubscriptions((old) => {
                const next = new Set(old);
                if (on) next.add(keyOf(current));
                else next.delete(keyOf(current));
                return next;
              })
            }
          />
        ) : null
      }
      empty={{ title: "Pick a resource", text: "Read it (Enter), fill a template, or subscribe to its updates." }}
    />
  );
}
