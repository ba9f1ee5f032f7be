// Settings: LLM providers, the agent's limits, which servers are trusted
// (their read-only tools run without asking) and may have their sampling
// requests answered without asking, per-tool policies, appearance. Shared
// with mcpwb through the settings file; keys stay in the keychain.
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound, Star, Trash2 } from "lucide-react";
import type { AgentBackend, AgentSettingsChange } from "../ipc/agent";
import type { ToolPolicy } from "../bindings";
import { Badge, Button, Disclosure, Field, Input, Segmented, setThemeChoice, Skeleton, Switch, themeChoice, type ThemeChoice, useToast } from "../design";
import type { Workbench } from "../shell/workbench";
import type { HistoryBackend } from "../ipc/history";
import { ProviderSetup } from "./ProviderSetup";
import { afterAgentSettings, keys } from "../queries";

const none: AgentSettingsChange = {
  default_provider: null,
  max_steps: null,
  deferred_threshold: null,
  session_max_idle_days: null,
  tool_policy: null,
  trusted: null,
  auto_sampling: null,
};

/** Settings reaches the agent's settings and providers, and the history's cap. */
type SettingsBackend = AgentBackend & HistoryBackend;

type ProviderView = Awaited<ReturnType<AgentBackend["listProviders"]>>[number];

/** Where a provider's key comes from; a provider that needs none (Ollama, a
 * local server) is not flagged for lacking one. */
function KeyBadge({ provider: p }: { provider: ProviderView }) {
  if (p.key.kind === "keychain" || p.key.kind === "environment") {
    return (
      <Badge tone="ok" icon={KeyRound}>
        {p.key.kind === "keychain" ? "key in keychain" : `key from ${p.key.var}`}
      </Badge>
    );
  }
  const local = p.config.kind === "ollama" || /^https?:\/\/(localhost|127\.|\[::1\])/i.test(p.config.base_url ?? "");
  return local ? (
    <Badge tone="neutral" icon={KeyRound} title="A provider on this machine needs no key">
      no key needed
    </Badge>
  ) : (
    <Badge tone="warn" icon={KeyRound}>
      no key
    </Badge>
  );
}

export function SettingsRoom({ wb, backend }: { wb: Workbench; backend: SettingsBackend }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const providers = useQuery({ queryKey: keys.providers(), queryFn: () => backend.listProviders() });
  const settings = useQuery({ queryKey: keys.agentSettings(), queryFn: () => backend.agentSettings() });
  const [theme, setTheme] = useState<ThemeChoice>(themeChoice);
  // Providers added here this visit (remounts "Add a provider" closed and empty).
  const [added, setAdded] = useState(0);
  const refresh = () => {
    afterAgentSettings(queryClient);
  };
  const change = (c: Partial<AgentSettingsChange>, done?: string) =>
    backend.updateAgentSettings({ ...none, ...c }).then(
      () => {
        refresh();
        if (done) toast(done);
      },
      (e: unknown) => toast("Not saved", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  const servers = (wb.servers.data?.servers ?? []).map((s) => s.name);
  const s = settings.data;
  return (
    <div className="room-scroll settings">
      <h1>Settings</h1>
      <p className="muted">Shared with mcpwb. API keys are kept in the OS keychain, never in the settings file.</p>
      <section aria-labelledby="providers-heading">
        <h2 id="providers-heading">LLM providers</h2>
        {providers.isPending && <Skeleton lines={3} />}
        {(providers.data ?? []).map((p) => (
          <Disclosure
            key={p.config.id}
            defaultOpen={false}
            title={
              <span className="provider-title">
                {p.config.id} <span className="muted">· {p.config.default_model ?? "no default model"}</span>
              </span>
            }
            actions={
              <>
                {p.is_default ? (
                  <Badge tone="accent" icon={Star}>
                    default
                  </Badge>
                ) : (
                  <Button size="sm" variant="ghost" onClick={() => void change({ default_provider: p.config.id }, `${p.config.id} is the default`)}>
                    Make default
                  </Button>
                )}
                <KeyBadge provider={p} />
                <Button
                  size="sm"
                  variant="ghost"
                  icon={Trash2}
                  aria-label={`Remove ${p.config.id}`}
                  onClick={() =>
                    backend.removeProvider(p.config.id).then(
                      () => {
                        refresh();
                        toast(`${p.config.id} removed`, { description: "Its stored key was deleted from the keychain." });
                      },
                      (e: unknown) => toast("Not removed", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
                    )
                  }
                />
              </>
            }
          >
            <ProviderSetup backend={backend} existing={p} onSaved={refresh} heading={false} />
          </Disclosure>
        ))}
        {/* A new one each time a provider is added: closed, empty. */}
        <Disclosure key={added} title="Add a provider" defaultOpen={added === 0 && (providers.data ?? []).length === 0}>
          <ProviderSetup
            backend={backend}
            onSaved={refresh}
            heading={false}
            onAdded={(id, said) => {
              toast(`${id} added`, { description: said });
              setAdded((n) => n + 1);
            }}
          />
        </Disclosure>
      </section>
      {s && (
        <section aria-labelledby="agent-heading">
          <h2 id="agent-heading">The agent</h2>
          <div className="settings-grid">
            <Field label="Step limit" hint="Model steps a turn may take.">
              <Input type="number" min={1} defaultValue={s.max_steps} onBlur={(e) => Number(e.target.value) !== s.max_steps && void change({ max_steps: Number(e.target.value) }, "Saved")} />
            </Field>
            <Field label="Search tools from" hint="With this many tools enabled, the model finds them with search_tools instead of seeing every schema.">
              <Input
                type="number"
                min={1}
                defaultValue={s.deferred_threshold}
                onBlur={(e) => Number(e.target.value) !== s.deferred_threshold && void change({ deferred_threshold: Number(e.target.value) }, "Saved")}
              />
            </Field>
            <Field label="Delete chats idle for (days)" hint="0 keeps them all.">
              <Input
                type="number"
                min={0}
                defaultValue={s.session_max_idle_days}
                onBlur={(e) => Number(e.target.value) !== s.session_max_idle_days && void change({ session_max_idle_days: Number(e.target.value) }, "Saved")}
              />
            </Field>
          </div>
        </section>
      )}
      {s && (
        <section aria-labelledby="servers-heading">
          <h2 id="servers-heading">Servers</h2>
          <p className="muted">
            Which servers may run at all is said on each server&apos;s page (its trust card). Here: whose read-only tools run without asking —
            annotations are hints from the server, so only for a server you vouch for (read-only, not destructive, not open-world) — and whose
            sampling requests the default provider answers without asking.
          </p>
          <table className="settings-table">
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col">Read-only tools run unasked</th>
                <th scope="col">Answer sampling without asking</th>
              </tr>
            </thead>
            <tbody>
              {servers.map((name) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>
                    <Switch label={`Read-only tools of ${name} run unasked`} checked={s.trusted_servers.includes(name)} onChange={(on) => void change({ trusted: [name, on] })} />
                  </td>
                  <td>
                    <Switch label={`Sampling for ${name}`} checked={s.auto_sampling_servers.includes(name)} onChange={(on) => void change({ auto_sampling: [name, on] })} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Tool policies</h3>
          {Object.keys(s.tool_policies).length === 0 ? (
            <p className="muted">Every tool asks before it runs. Set a tool to allow or deny from its page in Tools; “Always allow” in a chat writes the entry’s autoApprove.</p>
          ) : (
            <ul className="policy-list">
              {Object.entries(s.tool_policies).map(([tool, policy]) => (
                <li key={tool}>
                  <code>{tool}</code>
                  <Segmented<ToolPolicy>
                    label={`Policy of ${tool}`}
                    value={policy ?? "ask"}
                    onChange={(v) => void change({ tool_policy: [tool, v] })}
                    options={[
                      { value: "ask", label: "Ask" },
                      { value: "allow", label: "Allow" },
                      { value: "deny", label: "Deny" },
                    ]}
                  />
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <HistorySection backend={backend} />
      <TracesSection backend={backend} />
      <section aria-labelledby="appearance-heading">
        <h2 id="appearance-heading">Appearance</h2>
        <Segmented<ThemeChoice>
          label="Theme"
          value={theme}
          onChange={(t) => {
            setTheme(t);
            setThemeChoice(t);
          }}
          options={[
            { value: "system", label: "System" },
            { value: "light", label: "Light" },
            { value: "dark", label: "Dark" },
          ]}
        />
      </section>
    </div>
  );
}

/** Where traces go: an OTLP/HTTP collector the person names, or nowhere. */
function TracesSection({ backend }: { backend: HistoryBackend }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const current = useQuery({ queryKey: keys.traceSettings(), queryFn: () => backend.traceSettings() });
  if (!current.data) return null;
  const save = (text: string) => {
    const endpoint = text.trim() || null;
    if (endpoint === (current.data?.otlp_endpoint ?? null)) return;
    backend.setTraceEndpoint(endpoint).then(
      () => {
        void queryClient.invalidateQueries({ queryKey: keys.traceSettings() });
        toast(endpoint ? `Traces go to ${endpoint}` : "No traces are sent");
      },
      (err: unknown) => toast("Not saved", { tone: "danger", description: err instanceof Error ? err.message : String(err) }),
    );
  };
  return (
    <section aria-labelledby="traces-heading">
      <h2 id="traces-heading">Traces</h2>
      <p className="muted">
        A span for every call, suite case, chat turn and step, bridge relay and load run, sent over OTLP/HTTP to the collector you name (Jaeger, the
        OpenTelemetry Collector, ...); each request to a server carries its span as traceparent, so the server&apos;s own tracing joins. Empty: nothing is
        sent. OTEL_EXPORTER_OTLP_ENDPOINT is read too.
      </p>
      <div className="settings-grid">
        <Field label="OTLP/HTTP collector" hint="e.g. http://127.0.0.1:4318 (spans go to /v1/traces)">
          <Input defaultValue={current.data.otlp_endpoint ?? ""} placeholder="none" spellCheck={false} onBlur={(e) => save(e.target.value)} />
        </Field>
      </div>
    </section>
  );
}

/** How much of the call history is kept (every caller's calls; saved ones always). */
function HistorySection({ backend }: { backend: HistoryBackend }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const usage = useQuery({ queryKey: keys.historyUsage(), queryFn: () => backend.historyUsage() });
  const u = usage.data;
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Call history</h2>
      <p className="muted">
        Every call made by hand, by the chat, through the bridge, by mcpwb and by suites is kept here and in History; the oldest go first when
        the history outgrows its size, never calls saved to a suite or a chat&apos;s.
        {u && ` Now: ${u.calls.toLocaleString()} calls, ${(u.bytes / 1048576).toFixed(1)} MiB.`}
      </p>
      {u && (
        <div className="settings-grid">
          <Field label="Keep at most (MiB)">
            <Input
              type="number"
              min={1}
              defaultValue={u.settings.max_mib}
              onBlur={(e) => {
                const mib = Number(e.target.value);
                if (!Number.isInteger(mib) || mib < 1 || mib === u.settings.max_mib) return;
                backend.setHistoryCap(mib).then(
                  () => {
                    void queryClient.invalidateQueries({ queryKey: keys.historyUsage() });
                    void queryClient.invalidateQueries({ queryKey: keys.history() });
                    toast("Saved");
                  },
                  (err: unknown) => toast("Not saved", { tone: "danger", description: err instanceof Error ? err.message : String(err) }),
                );
              }}
            />
          </Field>
        </div>
      )}
    </section>
  );
}
