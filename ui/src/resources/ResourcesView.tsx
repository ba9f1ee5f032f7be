// Resources of every server: list and templates (fill the URI template),
// read with a preview (text, image, binary size), subscribe for updates.
import { Completing } from "../components/Completing";
import { useState } from "react";
import type { ResourceRow } from "../ipc";
import { Freshness, PickList, ServerFilter } from "../components/PickList";
import { Markdown } from "../content/Markdown";
import { Button, Input, plural } from "../design";
import type { ListCache, ResourcesBackend } from "../ipc";

type Content = { uri?: string; mimeType?: string; text?: string; blob?: string };

/** RFC 6570 level-1 variables of a URI template (`{name}`, `{+path}`, `{?q}`). */
/** What a read's answer says of caching (2026-07-28 `ttlMs`, `cacheScope`). */
export function readCacheText(result: unknown): string | null {
  const r = (result ?? {}) as { ttlMs?: unknown; cacheScope?: unknown };
  if (r.ttlMs === undefined && r.cacheScope === undefined) return null;
  const ttl = typeof r.ttlMs === "number" ? (r.ttlMs > 0 ? `fresh for ${Math.ceil(r.ttlMs / 1000)} s` : "stale at once (ttlMs 0)") : "no ttlMs";
  const scope = typeof r.cacheScope === "string" ? r.cacheScope : "no cacheScope";
  return `Cache hints: ${ttl}, ${scope}`;
}

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

function Preview({ content }: { content: Content }) {
  const mime = content.mimeType ?? "";
  if (typeof content.text === "string" && mime.includes("markdown") && content.text.length <= 200_000) {
    return <Markdown text={content.text} />;
  }
  if (typeof content.text === "string") {
    return <pre className={mime.includes("json") ? "json" : undefined}>{content.text.length > 200_000 ? `${content.text.slice(0, 200_000)}\n… (${content.text.length.toLocaleString()} characters)` : content.text}</pre>;
  }
  if (typeof content.blob === "string") {
    const bytes = Math.floor((content.blob.length * 3) / 4);
    if (/^image\/[\w.+-]+$/.test(mime)) return <img alt={content.uri ?? "resource"} src={`data:${mime};base64,${content.blob}`} />;
    return (
      <p className="muted">
        binary {mime || "data"}, {bytes.toLocaleString()} bytes
      </p>
    );
  }
  return <p className="muted">no content</p>;
}

function Detail({
  backend,
  row,
  subscribed,
  onSubscribed,
}: {
  backend: ResourcesBackend;
  row: ResourceRow;
  /** Subscriptions live with the view, not the open resource: kept as you pick others. */
  subscribed: boolean;
  onSubscribed: (on: boolean) => void;
}) {
  const r = row.resource as Record<string, unknown>;
  const template = row.template ? String(r.uriTemplate ?? "") : null;
  const vars = template ? templateVariables(template) : [];
  const [values, setValues] = useState<Record<string, string>>({});
  const uri = template ? fillTemplate(template, values) : String(r.uri ?? "");
  const [contents, setContents] = useState<Content[] | null>(null);
  const [cache, setCache] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const read = () => {
    setError(null);
    backend.readResource(row.server, uri).then(
      (result) => {
        setContents(((result as { contents?: Content[] }).contents ?? []) as Content[]);
        setCache(readCacheText(result));
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  };
  return (
    <div className="resource-detail">
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
        <Button variant="primary" onClick={read}>
          Read
        </Button>
        {!template && (
          <Button variant="secondary"
            aria-pressed={subscribed}
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
      {error && (
        <div className="error-banner" role="alert">
          <p className="error-message">{error}</p>
        </div>
      )}
      {contents && cache && <p className="muted read-cache">{cache}</p>}
      {contents?.map((c, i) => (
        <div key={i} className="result">
          <p className="muted">
            {c.uri} {c.mimeType && `· ${c.mimeType}`}
          </p>
          <Preview content={c} />
        </div>
      ))}
    </div>
  );
}

const keyOf = (row: ResourceRow) => {
  const r = row.resource as Record<string, unknown>;
  return `${row.server} ${String(r.uri ?? r.uriTemplate ?? "")}`;
};

export function ResourcesView({ backend, rows, updated, hints }: { backend: ResourcesBackend; rows: ResourceRow[]; updated: string[]; hints?: ListCache[] }) {
  // The open resource by its server and URI (an index would move when lists change).
  const [openKey, setOpenKey] = useState<string | null>(null);
  const [subscriptions, setSubscriptions] = useState<Set<string>>(new Set());
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
      const title = (
        <>
          {String(r.title ?? r.name ?? id)} {row.template && <span className="badge">template</span>}
          {subscriptions.has(`${row.server} ${id}`) && <span className="badge tone-info">subscribed</span>}
          {updated.includes(`${row.server} ${id}`) && <span className="badge tone-accent">updated</span>}
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
          {rows.length === 0 && <p className="muted empty-hint">No resources: servers that offer some list them here once ready.</p>}
        </>
      }
      detail={
        current ? (
          <Detail
            key={openKey}
            backend={backend}
            row={current}
            subscribed={subscriptions.has(keyOf(current))}
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
      empty={{ title: "Pick a resource", text: "Read it, fill a template, or subscribe to its updates." }}
    />
  );
}
