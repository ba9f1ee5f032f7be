// Adding or changing an LLM provider: which API, its address, its key
// (into the OS keychain; or an environment variable), the model new chats
// start with (listed from the provider), and Test. Local servers found on
// this machine are offered with one click.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { FlaskConical, PlugZap, Save } from "lucide-react";
import type { AgentBackend } from "../ipc";
import type { ProviderConfig, ProviderView } from "../ipc/agent";
import type { ProviderKind } from "../bindings";
import { Button, Field, Input, Select, useToast } from "../design";
import { keys } from "../queries";

const KINDS: { kind: ProviderKind; label: string; url: string; env: string | null }[] = [
  { kind: "open_ai", label: "OpenAI", url: "https://api.openai.com/v1/", env: "OPENAI_API_KEY" },
  { kind: "anthropic", label: "Anthropic", url: "https://api.anthropic.com/v1/", env: "ANTHROPIC_API_KEY" },
  { kind: "gemini", label: "Gemini", url: "https://generativelanguage.googleapis.com/v1beta/", env: "GEMINI_API_KEY" },
  { kind: "ollama", label: "Ollama", url: "http://127.0.0.1:11434/", env: null },
  { kind: "open_ai_compatible", label: "OpenAI-compatible (LM Studio, vLLM, llama.cpp, OpenRouter, Groq, DeepSeek…)", url: "", env: null },
];

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function ProviderSetup({
  backend,
  existing,
  onSaved,
  onAdded,
  heading = true,
}: {
  backend: AgentBackend;
  existing?: ProviderView;
  onSaved: () => void;
  /** A new provider's Save, Save and list models or Save and test finished: what it said. */
  onAdded?: (id: string, said: string) => void;
  /** Its own heading (off where a disclosure already names it). */
  heading?: boolean;
}) {
  const toast = useToast();
  const [kind, setKind] = useState<ProviderKind>(existing?.config.kind ?? "open_ai");
  const meta = KINDS.find((k) => k.kind === kind) ?? { kind, label: "OpenAI", url: "", env: null };
  const [id, setId] = useState(existing?.config.id ?? "");
  const [baseUrl, setBaseUrl] = useState(existing?.config.base_url ?? "");
  const [key, setKey] = useState("");
  const [keyEnv, setKeyEnv] = useState(existing?.config.api_key_env ?? "");
  const [model, setModel] = useState(existing?.config.default_model ?? "");
  const [models, setModels] = useState<string[]>([]);
  const [windowSize, setWindowSize] = useState(() => {
    const m = existing?.config.default_model;
    const w = m ? existing?.config.context_windows?.[m] : undefined;
    return w ? String(w) : "";
  });
  const [status, setStatus] = useState<{ text: string; ok: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const local = useQuery({ queryKey: keys.localProviders(), queryFn: () => backend.localProviders(), enabled: !existing, staleTime: 30_000 });
  const providerId = (id.trim() || (meta.label.split(" ")[0] ?? "provider").toLowerCase().replace(/[^a-z0-9-]/g, "")).trim();
  const config = (): ProviderConfig => ({
    id: providerId,
    kind,
    base_url: baseUrl.trim() || null,
    api_key_env: keyEnv.trim() || null,
    default_model: model.trim() || null,
    context_windows: {
      ...(existing?.config.context_windows ?? {}),
      ...(model.trim() && Number(windowSize) > 0 ? { [model.trim()]: Math.floor(Number(windowSize)) } : {}),
    },
  });
  // Where a request would go, as the address is typed (either form of an
  // Anthropic gateway's address is taken).
  const requestUrl = useQuery({
    queryKey: keys.providerRequestUrl(kind, baseUrl.trim(), model.trim()),
    queryFn: () => backend.providerRequestUrl(config(), model.trim()),
    retry: false,
  });
  /** Save, then store the key: listing models and testing need both. */
  const save = async (quiet = false): Promise<undefined> => {
    await backend.saveProvider(config(), !existing);
    if (key.trim()) await backend.setProviderKey(providerId, key.trim());
    if (!quiet) {
      toast(`Provider ${providerId} saved`, { description: key.trim() ? "The key is in the OS keychain." : undefined });
      setStatus({ text: "Saved", ok: true });
    }
    onSaved();
  };
  const run = (label: string, task: () => Promise<string | undefined>) => {
    setBusy(true);
    setStatus({ text: `${label}…`, ok: true });
    task()
      .then((said) => {
        // A new provider is in the list now: the form is done with it.
        if (!existing) onAdded?.(providerId, said || "Saved");
      })
      .catch((e: unknown) => setStatus({ text: errorText(e), ok: false }))
      .finally(() => setBusy(false));
  };
  const listModels = () =>
    run("Asking for the models", async () => {
      await save(true);
      const list = await backend.providerModels(providerId);
      setModels(list);
      if (!model && list[0]) setModel(list[0]);
      const said = `${list.length} models listed`;
      setStatus({ text: said, ok: true });
      return said;
    });
  const test = () =>
    run("Testing", async () => {
      await save(true);
      const m = model.trim() || (await backend.providerModels(providerId))[0];
      if (!m) throw new Error("choose a model first");
      const report = await backend.testProvider(providerId, m);
      const said = `${report.model} answered “${report.reply.trim()}” in ${(report.latency_ms ?? 0).toFixed(0)} ms`;
      setStatus({ text: said, ok: true });
      return said;
    });
  return (
    <div className="provider-setup card">
      {!existing && (local.data ?? []).length > 0 && (
        <div className="callout tone-ok found-local">
          <PlugZap aria-hidden size={16} />
          <div>
            <p>Found on this machine:</p>
            {(local.data ?? []).map((l) => (
              <Button
                key={l.provider.id}
                size="sm"
                variant="primary"
                onClick={() =>
                  backend.saveProvider(l.provider, true).then(
                    () => {
                      toast(`${l.provider.id} added`, { description: `${l.models.length} models; ${l.provider.default_model ?? ""} by default` });
                      onSaved();
                    },
                    (e: unknown) => setStatus({ text: errorText(e), ok: false }),
                  )
                }
              >
                Use {l.provider.id} ({l.models.length} models)
              </Button>
            ))}
          </div>
        </div>
      )}
      {heading && <h3>{existing ? `Provider ${existing.config.id}` : "Add a provider"}</h3>}
      <Field label="API">
        <Select value={kind} disabled={!!existing} onChange={(v) => setKind(v as ProviderKind)}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </Select>
      </Field>
      {!existing && (
        <Field label="Name" hint="How chats and mcpwb --provider refer to it.">
          <Input value={id} placeholder={providerId} onChange={(e) => setId(e.target.value)} />
        </Field>
      )}
      <Field
        label="Address"
        hint={
          <>
            {kind === "open_ai_compatible" ? "Required, e.g. http://127.0.0.1:1234/v1/ for LM Studio." : `Empty: ${meta.url}`}
            {requestUrl.data && (
              <>
                {" "}
                Requests go to <code className="request-url">{requestUrl.data}</code>.
              </>
            )}
          </>
        }
        required={kind === "open_ai_compatible"}
      >
        <Input value={baseUrl} placeholder={meta.url || "http://127.0.0.1:1234/v1/"} onChange={(e) => setBaseUrl(e.target.value)} />
      </Field>
      {kind !== "ollama" && (
        <Field
          label="API key"
          hint={
            existing?.key.kind === "keychain"
              ? "A key is stored in the OS keychain; type a new one to replace it."
              : existing?.key.kind === "environment"
                ? `From the environment (${existing.key.var}); a key typed here is kept in the keychain and wins.`
                : `Kept in the OS keychain, never in a file.${meta.env ? ` ${meta.env} is used when set.` : ""}`
          }
        >
          <Input type="password" value={key} autoComplete="off" onChange={(e) => setKey(e.target.value)} />
        </Field>
      )}
      {kind !== "ollama" && (
        <Field label="Key from environment variable" hint="Instead of a stored key (optional).">
          <Input value={keyEnv} placeholder={meta.env ?? "MY_API_KEY"} onChange={(e) => setKeyEnv(e.target.value)} />
        </Field>
      )}
      <Field label="Model for new chats">
        {models.length > 0 ? (
          <Select value={model} onChange={(v) => setModel(v)}>
            {models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </Select>
        ) : (
          <Input value={model} placeholder="e.g. gpt-4o-mini, claude-sonnet-4-5, llama3.2" onChange={(e) => setModel(e.target.value)} />
        )}
      </Field>
      <Field label="Context window (tokens)" hint="For the context meter and when to search tools instead of sending them all. Empty: from the built-in table (8,192 assumed for unknown models).">
        <Input type="number" min={1} value={windowSize} placeholder="from the table" onChange={(e) => setWindowSize(e.target.value)} />
      </Field>
      <div className="toolbar">
        <Button variant="primary" icon={Save} disabled={busy} onClick={() => run("Saving", () => save())}>
          Save
        </Button>
        {/* Both ask the provider with the key, which lives with the saved provider: they say they save. */}
        <Button disabled={busy} onClick={listModels} title="Saves the provider, then asks it for its models">
          Save and list models
        </Button>
        <Button icon={FlaskConical} disabled={busy} onClick={test} title="Saves the provider, then sends it one short message">
          Save and test
        </Button>
      </div>
      {status && (
        <p className={status.ok ? "muted" : "field-error"} role="status">
          {status.text}
        </p>
      )}
    </div>
  );
}
