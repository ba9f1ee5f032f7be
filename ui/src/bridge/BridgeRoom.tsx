// The bridge: every Ready server's tools, resources and prompts as one MCP
// server for other clients (Claude Code, Cursor, VS Code, scripts), on
// 127.0.0.1 with this install's token. On/off and port, the URL and token
// with copy buttons, who is connected, calls waiting for a decision here
// (tools no rule allows), and ready-made entries for other clients.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Cable, Copy, Eye, EyeOff, RefreshCw } from "lucide-react";
import { useState } from "react";
import type { AgentBackend, BridgeStatus, BridgeBackend, WindowBackend } from "../ipc";
import { Badge, Button, Disclosure, Field, Input, Segmented, Skeleton, Switch, useToast } from "../design";
import "./bridge.css";
import { keys } from "../queries";

function since(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

export function BridgeRoom({ backend }: { backend: BridgeBackend & WindowBackend & Pick<AgentBackend, "decideCall"> }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: keys.bridge(), queryFn: () => backend.bridgeStatus(), refetchInterval: 2000 });
  const [port, setPort] = useState<string | null>(null);
  const [client, setClient] = useState("Claude Code");
  const [busy, setBusy] = useState(false);
  // The token is shown in full (here and in the entries) only when asked.
  const [reveal, setReveal] = useState(false);
  const s = status.data;
  const shownPort = port ?? String(s?.port ?? 8767);
  const portError = /^\d+$/.test(shownPort) && Number(shownPort) > 0 && Number(shownPort) < 65536 ? undefined : "a port from 1 to 65535";
  const apply = (doing: Promise<BridgeStatus>, said: string) => {
    setBusy(true);
    doing.then(
      (st) => {
        queryClient.setQueryData(keys.bridge(), st);
        toast(said);
      },
      (e: unknown) => toast("The bridge did not change", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    ).finally(() => setBusy(false));
  };
  const copy = (text: string, what: string) => void backend.copyText(text).then(() => toast(`${what} copied`), () => undefined);
  const decide = (id: number, approve: boolean) =>
    void backend
      .decideCall(id, { approve, arguments: null, remember: "once", reason: approve ? null : "refused in the Bridge panel" })
      .then(() => void queryClient.invalidateQueries({ queryKey: keys.bridge() }));
  const shown = (s?.snippets ?? []).filter((x) => x.client === client);
  return (
    <div className="room-scroll bridge-room">
      <header className="room-head">
        <h2>
          <Cable aria-hidden size={18} /> Bridge
        </h2>
        <p className="muted">
          Every ready server's tools, resources and prompts as one MCP server, for Claude Code, Cursor, VS Code or a script — the workbench runs the
          servers, and every call shows in Traffic under <code>bridge ← client</code>. Names are <code>server__tool</code>; resources{" "}
          <code>mcpwb://server/uri</code>.
        </p>
      </header>
      {status.isPending && <Skeleton lines={3} label="Reading the bridge" />}
      {status.isError && <p role="alert">{status.error instanceof Error ? status.error.message : String(status.error)}</p>}
      {s && (
        <>
          <section className="panel-section" aria-label="On or off">
            <div className="bridge-switch">
              <Switch
                checked={s.on}
                disabled={busy || (!s.on && !!portError)}
                onChange={(on) => apply(backend.bridgeSet(on, Number(shownPort)), on ? "The bridge is on" : "The bridge is off")}
                label={s.on ? "On" : "Off"}
                hint="Listens on 127.0.0.1 only; every request needs the token; web pages are refused. Remembered for the next start."
              />
              <Field label="Port" error={portError}>
                <Input type="text" inputMode="numeric" value={shownPort} disabled={s.on || busy} onChange={(e) => setPort(e.target.value)} />
              </Field>
            </div>
            {s.on && s.url && s.token && (
              <dl className="bridge-facts">
                <dt>URL</dt>
                <dd>
                  <code className="bridge-url">{s.url}</code>
                  <Button size="sm" variant="ghost" icon={Copy} onClick={() => copy(s.url ?? "", "URL")}>
                    Copy URL
                  </Button>
                </dd>
                <dt>Token</dt>
                <dd>
                  <code className="bridge-token">{reveal ? s.token : `${s.token.slice(0, 6)}…`}</code>
                  <Button size="sm" variant="ghost" icon={reveal ? EyeOff : Eye} aria-pressed={reveal} onClick={() => setReveal((r) => !r)}>
                    {reveal ? "Hide token" : "Show token"}
                  </Button>
                  <Button size="sm" variant="ghost" icon={Copy} onClick={() => copy(s.token ?? "", "Token")}>
                    Copy token
                  </Button>
                  <Button size="sm" variant="ghost" icon={RefreshCw} disabled={busy} onClick={() => apply(backend.bridgeNewToken(), "New token: clients need it now")}>
                    New token
                  </Button>
                </dd>
              </dl>
            )}
          </section>
          {s.on && (
            <>
              <Disclosure title="Connected clients" count={s.callers.length}>
                {s.callers.length === 0 ? (
                  <p className="muted">No client is connected. Add one of the entries below to a client and start it.</p>
                ) : (
                  <table className="bridge-callers">
                    <thead>
                      <tr>
                        <th scope="col">Client</th>
                        <th scope="col">Over</th>
                        <th scope="col">Since</th>
                        <th scope="col">Calls</th>
                      </tr>
                    </thead>
                    <tbody>
                      {s.callers.map((c) => (
                        <tr key={c.id}>
                          <td>
                            {c.name} <span className="muted">{c.version}</span>
                          </td>
                          <td>
                            {c.transport} · {c.protocol}
                          </td>
                          <td>{since(c.since_ms ?? Date.now())}</td>
                          <td>{c.calls}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </Disclosure>
              {s.pending.length > 0 && (
                <section className="panel-section bridge-pending" aria-label="Calls waiting for you">
                  <h3>Waiting for you</h3>
                  {s.pending.map((a) => (
                    <div key={a.id} className="bridge-approval">
                      <Badge tone="warn">asks</Badge> <code>{a.qualified}</code>
                      <pre className="json" tabIndex={0}>{JSON.stringify(a.arguments, null, 2)}</pre>
                      <Button size="sm" onClick={() => decide(a.id, true)}>
                        Allow once
                      </Button>
                      <Button size="sm" variant="ghost" onClick={() => decide(a.id, false)}>
                        Refuse
                      </Button>
                    </div>
                  ))}
                </section>
              )}
              <section className="panel-section" aria-label="Add it to a client">
                <h3>Add it to a client</h3>
                <Segmented label="Client" value={client} onChange={setClient} options={["Claude Code", "Cursor", "VS Code"].map((c) => ({ value: c, label: c }))} />
                {shown.map((x) => (
                  <div key={x.kind} className="bridge-snippet">
                    <div className="bridge-snippet-head">
                      <strong>{x.kind === "http" ? "This bridge (HTTP, with the token)" : "mcpwb serve (stdio: starts the servers itself)"}</strong>
                      <Button size="sm" variant="ghost" icon={Copy} onClick={() => copy(x.text, `${client} entry`)}>
                        Copy
                      </Button>
                    </div>
                    <pre className="json" tabIndex={0}>{reveal || !s.token ? x.text : x.text.split(s.token).join(`${s.token.slice(0, 6)}…`)}</pre>
                    {x.notes.map((n) => (
                      <p key={n} className="muted">
                        {n}
                      </p>
                    ))}
                  </div>
                ))}
              </section>
            </>
          )}
        </>
      )}
    </div>
  );
}
