// The MCP Registry room: search the registry (the official one, or the one
// the settings name), look at a server — its versions, the ways it runs,
// the entry it becomes and what that entry will ask — and add it. Added,
// it is the person's: trusted as written, it starts once its values are
// given. Everything a server's publisher wrote is shown as text.
import { useEffect, useRef, useState } from "react";
import { FolderOpen, Library, RefreshCw, Search } from "lucide-react";
import { Badge, Button, Checkbox, EmptyState, Field, Input, Select, Skeleton, useToast } from "../design";
import type { PickedBundle, RegistryBackend, RegistryPage, RegistryServer, RegistryShown } from "../ipc";
import type { HostFile } from "../ipc/sessions";
import { BundleInstall } from "./BundleInstall";
import { PathInput } from "./PathInput";
import "./registry.css";

/** An input the entry declares, as the backend describes it. */
interface Asked {
  id: string;
  type: "promptString" | "pickString";
  description?: string;
  password?: boolean;
  options?: string[];
  default?: string;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function RegistryRoom({
  backend,
  existingNames,
  hasProject,
  onAdded,
  dropped,
}: {
  backend: RegistryBackend;
  existingNames: string[];
  hasProject: boolean;
  onAdded: (name: string) => void;
  /** A bundle's path dropped on the window: shown ready to install. */
  dropped?: string;
}) {
  const [words, setWords] = useState("");
  const [allVersions, setAllVersions] = useState(false);
  const [page, setPage] = useState<RegistryPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [chosen, setChosen] = useState<RegistryServer | null>(null);
  const [bundle, setBundle] = useState<PickedBundle | null>(null);
  const asked = useRef(0);
  const openBundle = () => {
    backend.pickBundle().then(
      (b) => {
        if (b) {
          setBundle(b);
          setChosen(null);
        }
      },
      (e: unknown) => setError(message(e)),
    );
  };

  useEffect(() => {
    if (!dropped) return;
    backend.showBundle(dropped).then(
      (b) => {
        setBundle(b);
        setChosen(null);
        setError(null);
      },
      (e: unknown) => setError(`${dropped} cannot be installed: ${message(e)}`),
    );
  }, [backend, dropped]);

  const search = (refresh: boolean, cursor: string | null = null) => {
    const n = ++asked.current;
    setLoading(true);
    backend.registrySearch(words.trim() || null, cursor, allVersions, refresh).then(
      (p) => {
        if (n !== asked.current) return;
        setPage(cursor && page ? { ...p, servers: [...page.servers, ...p.servers] } : p);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (n !== asked.current) return;
        setError(message(e));
        setLoading(false);
      },
    );
  };
  // Search as the person types (a pause first), and once on opening.
  useEffect(() => {
    const t = setTimeout(() => search(false), words ? 300 : 0);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [words, allVersions]);

  return (
    <div className="registry-room">
      <section className="registry-list" aria-label="Registry servers">
        <h2>MCP Registry</h2>
        <div className="registry-search">
          <Input
            type="search"
            aria-label="Search the registry"
            placeholder="Search names and descriptions"
            value={words}
            autoFocus
            onChange={(e) => setWords(e.target.value)}
            onKeyDown={(e) => e.key === "Enter" && search(false)}
          />
          <Button size="sm" variant="ghost" icon={RefreshCw} onClick={() => search(true)} aria-label="Ask the registry again">
            Refresh
          </Button>
        </div>
        <Button size="sm" variant="secondary" icon={FolderOpen} onClick={openBundle}>
          Install a bundle (.mcpb)…
        </Button>
        <label className="field checkbox">
          <Checkbox checked={allVersions} onChange={(e) => setAllVersions(e.target.checked)} /> Every version
        </label>
        {page && (
          <p className="muted registry-base">
            Reading <code>{page.base}</code>
          </p>
        )}
        {page?.staleMinutes != null && (
          <p role="status" className="callout notice">
            The registry cannot be reached: this is its last answer, {page.staleMinutes} min old.
          </p>
        )}
        {error && (
          <p role="alert" className="field-error">
            {error}
          </p>
        )}
        {loading && !page && <Skeleton lines={5} label="Asking the registry" />}
        {page && page.servers.length === 0 && (
          <EmptyState compact icon={Search} title="No server matches">
            Try fewer words, or another registry in Settings.
          </EmptyState>
        )}
        <ul className="registry-results">
          {page?.servers.map((s) => (
            <li key={`${s.name}@${s.version}`}>
              <button
                type="button"
                className={`registry-row${chosen?.name === s.name && chosen.version === s.version ? " selected" : ""}`}
                aria-pressed={chosen?.name === s.name && chosen.version === s.version}
                onClick={() => {
                  setChosen(s);
                  setBundle(null);
                }}
              >
                <span className="registry-row-name">
                  {s.title ?? s.name} <span className="muted">{s.version}</span>
                  {s.deprecated && <Badge tone="warn">deprecated</Badge>}
                </span>
                {s.title != null && s.title !== s.name && <span className="registry-row-id muted">{s.name}</span>}
                <span className="registry-row-description">{s.description}</span>
              </button>
            </li>
          ))}
        </ul>
        {page?.nextCursor && (
          <Button variant="secondary" size="sm" disabled={loading} onClick={() => search(false, page.nextCursor)}>
            More
          </Button>
        )}
      </section>
      <section className="registry-detail" aria-label="Server from the registry">
        {bundle ? (
          <BundleInstall key={bundle.path} backend={backend} picked={bundle} existingNames={existingNames} onInstalled={onAdded} />
        ) : chosen ? (
          <ServerDetail
            key={`${chosen.name}@${chosen.version}`}
            backend={backend}
            server={chosen}
            existingNames={existingNames}
            hasProject={hasProject}
            onAdded={onAdded}
          />
        ) : (
          <EmptyState icon={Library} title="Pick a server">
            Its versions, how it runs, the entry it becomes in your mcp.json and what it will ask you for.
          </EmptyState>
        )}
      </section>
    </div>
  );
}

/** A way it runs: package `n` or remote `n` (from 0), as one string for the pick list. */
type Way = `package:${number}` | `remote:${number}`;

function ServerDetail({
  backend,
  server,
  existingNames,
  hasProject,
  onAdded,
}: {
  backend: RegistryBackend;
  server: RegistryServer;
  existingNames: string[];
  hasProject: boolean;
  onAdded: (name: string) => void;
}) {
  const toast = useToast();
  const [version, setVersion] = useState(server.version);
  const [versions, setVersions] = useState<RegistryServer[] | null>(null);
  const [way, setWay] = useState<Way | null>(null);
  const [shown, setShown] = useState<RegistryShown | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [answers, setAnswers] = useState<Record<string, string>>({});
  // Where it goes: the workbench's own file ("user", "project") or a
  // host's ("host:PATH"), written in that host's shape.
  const [into, setInto] = useState<string>("user");
  const [hosts, setHosts] = useState<HostFile[]>([]);
  const [plainTextOk, setPlainTextOk] = useState(false);
  const [deprecatedOk, setDeprecatedOk] = useState(false);
  const [adding, setAdding] = useState(false);

  useEffect(() => {
    backend.registryVersions(server.name).then((p) => setVersions(p.servers), () => setVersions(null));
  }, [backend, server.name]);
  useEffect(() => {
    backend.hostFiles().then(
      // Every host's file an entry can be added into in its shape (YAML and TOML too).
      (files) => setHosts(files.filter((f) => f.writable)),
      () => setHosts([]),
    );
  }, [backend]);
  useEffect(() => {
    const [kind, n] = way ? way.split(":") : [null, null];
    setShown(null);
    backend.registryShow(server.name, version, kind === "package" ? Number(n) : null, kind === "remote" ? Number(n) : null).then(
      (s) => {
        setShown(s);
        setError(null);
        setName((old) => old || s.preview?.name || "");
      },
      (e: unknown) => setError(message(e)),
    );
  }, [backend, server.name, version, way]);

  if (error) {
    return (
      <p role="alert" className="field-error">
        {error}
      </p>
    );
  }
  if (!shown) return <Skeleton lines={6} label="Reading the server" />;
  const s = shown.server;
  const inputs = (shown.preview?.inputs ?? []) as unknown as Asked[];
  const taken = existingNames.includes(name.trim());
  const defaults = Object.fromEntries(inputs.filter((i) => i.type === "pickString" && i.default).map((i) => [i.id, i.default as string]));
  const host = into.startsWith("host:") ? hosts.find((h) => h.path === into.slice(5)) ?? null : null;
  // Where the host keeps a secret (the backend's one rule): it asks for it
  // itself (VS Code), reads it from its environment (the file names the
  // variable: Codex, Gemini CLI, Claude Code), or holds it as text.
  const hostKeepsText = host !== null && host.secrets === "plain_text";
  const fromEnvironment = host !== null && host.secrets === "environment";
  const plainSecrets = hostKeepsText ? inputs.filter((i) => i.password && (answers[i.id] ?? "") !== "").map((i) => i.id) : [];
  const add = () => {
    // Only an entry shown can be added (the button is under it).
    const preview = shown.preview;
    if (!preview) return;
    const [kind, n] = way ? way.split(":") : [null, null];
    setAdding(true);
    backend
      .registryAdd({
        name: s.name,
        version: s.version,
        package: kind === "package" ? Number(n) : null,
        remote: kind === "remote" ? Number(n) : null,
        asName: name.trim() || null,
        scope: into === "project" ? "project" : "user",
        deprecatedOk,
        // A pick list shows its default as chosen: it is given as such.
        answers: Object.entries({ ...defaults, ...answers }).filter(([, v]) => v !== ""),
        host: host?.path ?? null,
        plainTextOk: plainSecrets.length > 0 && plainTextOk,
        // The entry as shown: one the registry now makes otherwise is refused.
        shown: preview.fingerprint,
      })
      .then(
        (added) => {
          setAdding(false);
          if (host) {
            toast(`Added ${added.name} to ${host.dialect}`, { description: `Written into ${added.file}. Restart ${host.dialect} to load it.` });
            return;
          }
          toast(`Added ${added.name}`, {
            description: added.inputs.length ? `It starts once you give: ${added.inputs.map((i) => (i as unknown as Asked).id).join(", ")}` : "It starts now.",
          });
          onAdded(added.name);
        },
        (e: unknown) => {
          setAdding(false);
          setError(null);
          toast("Not added", { tone: "danger", description: message(e) });
        },
      );
  };
  const ways: { value: Way; label: string }[] = [
    ...shown.packages.map((p, i) => ({ value: `package:${i}` as Way, label: `Package: ${p}` })),
    ...shown.remotes.map((r, i) => ({ value: `remote:${i}` as Way, label: `Remote: ${r}` })),
  ];
  return (
    <div className="registry-server">
      <h2>
        {s.title ?? s.name} <span className="muted">{s.version}</span>
      </h2>
      <p className="muted">
        <code>{s.name}</code>
        {s.repository && (
          <>
            {" · "}
            <code>{s.repository}</code>
          </>
        )}
      </p>
      <p>{s.description}</p>
      {s.deprecated && (
        <div role="status" className="callout notice">
          <p>Deprecated by its publisher{s.statusMessage ? `: ${s.statusMessage}` : "."}</p>
          <label className="field checkbox">
            <Checkbox checked={deprecatedOk} onChange={(e) => setDeprecatedOk(e.target.checked)} /> Add this version anyway
          </label>
        </div>
      )}
      <div className="registry-choices">
        {versions && versions.length > 1 && (
          <Field label="Version">
            <Select value={version} onChange={setVersion}>
              {versions.map((v) => (
                <option key={v.version} value={v.version}>
                  {v.version}
                  {v.deprecated ? " (deprecated)" : ""}
                  {v.isLatest ? " (latest)" : ""}
                </option>
              ))}
            </Select>
          </Field>
        )}
        {ways.length > 1 && (
          <Field label="Run it as">
            <Select value={way ?? ways[0]?.value} onChange={(v) => setWay(v as Way)}>
              {ways.map((w) => (
                <option key={w.value} value={w.value}>
                  {w.label}
                </option>
              ))}
            </Select>
          </Field>
        )}
      </div>
      {shown.refusal && (
        <p role="alert" className="field-error">
          It cannot be added this way: {shown.refusal}
        </p>
      )}
      {shown.preview && (
        <>
          <h3>The entry it becomes</h3>
          <pre className="registry-entry" aria-label="The entry it becomes">
            {JSON.stringify({ [name.trim() || shown.preview.name]: shown.preview.entry }, null, 2)}
          </pre>
          {shown.preview.notes.length > 0 && (
            <ul className="registry-notes" aria-label="Notes">
              {shown.preview.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
          {inputs.length > 0 && <h3>What it asks for</h3>}
          {inputs.map((i) => (
            <Field
              key={i.id}
              label={i.description ?? i.id}
              hint={
                host
                  ? host.secrets === "host_asks" && i.password
                    ? "Secret: VS Code asks for it and keeps it."
                    : fromEnvironment && i.password
                      ? `Secret: ${host.dialect}'s file names a variable, not the value; set it in the environment ${host.dialect} starts in (the variable is said when added).`
                      : i.password
                        ? `Secret: ${host.dialect} keeps it as plain text in its file.`
                        : "Needed now: the host asks for nothing itself."
                  : i.password
                    ? "Secret: kept in the OS keychain, never in mcp.json. Leave it empty to be asked later."
                    : i.default != null
                      ? `Its default, ${i.default}, is kept unless you give another.`
                      : "Leave it empty to be asked later."
              }
            >
              {i.type === "pickString" && i.options ? (
                <Select value={answers[i.id] ?? i.default ?? ""} onChange={(v) => setAnswers({ ...answers, [i.id]: v })} placeholder="Choose…" aria-label={i.id}>
                  {i.options.map((o) => (
                    <option key={o} value={o}>
                      {o}
                    </option>
                  ))}
                </Select>
              ) : shown.preview?.pathInputs.includes(i.id) ? (
                <PathInput backend={backend} folder={false} label={i.id} value={answers[i.id] ?? ""} onChange={(v) => setAnswers({ ...answers, [i.id]: v })} />
              ) : (
                <Input
                  aria-label={i.id}
                  type={i.password ? "password" : "text"}
                  autoComplete="off"
                  value={answers[i.id] ?? ""}
                  onChange={(e) => setAnswers({ ...answers, [i.id]: e.target.value })}
                />
              )}
            </Field>
          ))}
          <Field label={host ? "Name in its file" : "Name in mcp.json"} error={!host && taken ? "A server of this name exists: give another." : undefined}>
            <Input value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          {(hasProject || hosts.length > 0) && (
            <Field label="Into" hint={host ? `Written in ${host.dialect}'s shape into its own file; the workbench's file is not changed.` : undefined}>
              <Select value={into} onChange={setInto}>
                <option value="user">Your mcp.json</option>
                {hasProject && <option value="project">The project's .mcp.json</option>}
                {hosts.map((h) => (
                  <option key={h.path} value={`host:${h.path}`}>
                    {`${h.dialect}: ${h.path}`}
                  </option>
                ))}
              </Select>
            </Field>
          )}
          {plainSecrets.length > 0 && (
            <label className="field checkbox">
              <Checkbox checked={plainTextOk} onChange={(e) => setPlainTextOk(e.target.checked)} /> Write {plainSecrets.join(", ")} into {host?.path} as plain text
            </label>
          )}
          <Button
            onClick={add}
            disabled={adding || (!host && taken) || !name.trim() || (s.deprecated && !deprecatedOk) || (plainSecrets.length > 0 && !plainTextOk)}
          >
            {adding ? "Adding…" : "Add server"}
          </Button>
        </>
      )}
    </div>
  );
}
