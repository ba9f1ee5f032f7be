// A chat's header: its title, the model (any configured provider's), the
// system prompt, the servers and tools it may use, how full the context is
// and what the chat has cost in tokens; export.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { FileDown, FileJson, MoreHorizontal, ScrollText, Wrench } from "lucide-react";
import type { AgentBackend, ChatView, ProviderView } from "../ipc/agent";
import type { ContextMeter, Usage } from "../bindings";
import { Button, IconButton, Menu, Modal, Select, Textarea, Tip, useToast } from "../design";
import type { Workbench } from "../shell/workbench";
import { exportChat } from "./ChatListItem";
import { ChatToolsDialog } from "./ChatToolsDialog";
import { keys } from "../queries";

const n = (x: number) => x.toLocaleString();

function Meter({ context, usage }: { context: ContextMeter; usage: Usage }) {
  const share = Math.min(1, context.used / Math.max(1, context.window));
  const tone = share > 0.9 ? "danger" : share > 0.7 ? "warn" : "ok";
  const detail = `Context: about ${n(context.used)} of ${n(context.window)} tokens${context.window_known ? "" : " (window assumed; set it in the provider's settings)"}, of which tool schemas ~${n(
    context.tools,
  )}. This chat so far: ${n(usage.input)} in (${n(usage.cached)} cached), ${n(usage.output)} out.`;
  return (
    <Tip label={detail}>
      <div className={`meter tone-${tone}`} role="meter" aria-label="Context used" aria-valuemin={0} aria-valuemax={context.window} aria-valuenow={context.used} tabIndex={0}>
        <div className="meter-bar">
          <div className="meter-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
        </div>
        <span className="meter-text">
          {n(context.used)} / {n(context.window)}
          {!context.window_known && <span className="muted"> assumed</span>}
        </span>
      </div>
    </Tip>
  );
}

export function ChatHeader({
  wb,
  backend,
  chat,
  liveUsage,
  running,
  onChanged,
  loaded = [],
}: {
  wb: Workbench;
  backend: AgentBackend;
  chat: ChatView;
  liveUsage: { session: Usage; context: ContextMeter } | null;
  running: boolean;
  onChanged: () => void;
  /** Tools the running turn loaded (by their qualified names): counted at once, not when it ends. */
  loaded?: string[];
}) {
  const toast = useToast();
  const s = chat.session;
  const providers = useQuery({ queryKey: keys.providers(), queryFn: () => backend.listProviders() });
  const tools = useQuery({ queryKey: keys.chatTools(s.id), queryFn: () => backend.chatTools(s.id) });
  const models = useQuery({
    queryKey: keys.models(s.provider),
    queryFn: () => backend.providerModels(s.provider),
    staleTime: 5 * 60_000,
  });
  const [system, setSystem] = useState<string | null>(null);
  const [toolsOpen, setToolsOpen] = useState(false);
  const change = (c: Partial<{ provider: string; model: string; system_prompt: string }>) =>
    backend.updateChat(s.id, { title: null, provider: c.provider ?? null, model: c.model ?? null, system_prompt: c.system_prompt ?? null, options: null }).then(onChanged, (e: unknown) =>
      toast("Not changed", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  const modelList = [...new Set([s.model, ...(models.data ?? [])])];
  const context = liveUsage?.context ?? tools.data?.context;
  const usage = liveUsage?.session ?? s.usage;
  // A skill the model may load is listed as `skill:NAME` (through load_skill).
  const toolRows = tools.data?.tools.filter((t) => !t.tool.startsWith("skill:")) ?? [];
  const skillCount = (tools.data?.tools.length ?? 0) - toolRows.length;
  const offered = toolRows.filter((t) => t.offered || loaded.includes(t.name)).length;
  return (
    <header className="chat-header">
      <h2 className="chat-header-title truncate" title={s.title}>
        {s.title}
      </h2>
      <div className="chat-header-controls">
        <Select
          aria-label="Provider"
          value={s.provider}
          disabled={running}
          onChange={(v) => {
            const p = (providers.data ?? []).find((x: ProviderView) => x.config.id === v);
            void change({ provider: v, model: p?.config.default_model ?? undefined });
          }}
        >
          {(providers.data ?? []).map((p) => (
            <option key={p.config.id} value={p.config.id}>
              {p.config.id}
            </option>
          ))}
        </Select>
        <Select aria-label="Model" value={s.model} disabled={running} onChange={(v) => void change({ model: v })} className="model-select">
          {modelList.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </Select>
        <Button size="sm" variant="ghost" icon={ScrollText} onClick={() => setSystem(s.system_prompt)}>
          {s.system_prompt ? "System prompt ✓" : "System prompt"}
        </Button>
        <Button size="sm" variant="ghost" icon={Wrench} onClick={() => setToolsOpen(true)}>
          Tools {tools.data ? (tools.data.deferred ? `${offered} loaded of ${toolRows.length}` : toolRows.length) : ""}
          {skillCount > 0 ? ` · ${skillCount} ${skillCount === 1 ? "skill" : "skills"}` : ""}
        </Button>
        {context && <Meter context={context} usage={usage} />}
        <Menu
          trigger={<IconButton size="sm" label="More" icon={MoreHorizontal} />}
          items={[
            { label: "Export as Markdown…", icon: FileDown, onSelect: () => exportChat(backend, s.id, false, toast) },
            { label: "Export as JSON…", icon: FileJson, onSelect: () => exportChat(backend, s.id, true, toast) },
          ]}
        />
      </div>
      <Modal
        open={system !== null}
        onOpenChange={(o) => !o && setSystem(null)}
        title="System prompt"
        description="Sent before the conversation in every request of this chat."
        wide
        footer={
          <>
            <Button onClick={() => setSystem(null)}>Cancel</Button>
            <Button
              variant="primary"
              onClick={() => {
                void change({ system_prompt: system ?? "" });
                setSystem(null);
              }}
            >
              Save
            </Button>
          </>
        }
      >
        <Textarea aria-label="System prompt text" className="system-prompt" value={system ?? ""} onChange={(e) => setSystem(e.target.value)} rows={10} autoFocus />
      </Modal>
      {toolsOpen && <ChatToolsDialog wb={wb} backend={backend} chat={chat} tools={tools.data} onClose={() => setToolsOpen(false)} onChanged={onChanged} />}
    </header>
  );
}
