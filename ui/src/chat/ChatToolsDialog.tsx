// The servers and tools a chat may use: a switch per server, a checkbox per
// tool, the step limit, and what was adapted for the provider or held back
// (said, never silently dropped).
import { useMemo, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { AgentBackend, ChatTools, ChatView, SessionOptions } from "../ipc/agent";
import { Button, Checkbox, Disclosure, Field, Input, Modal, Switch, useToast } from "../design";
import type { Workbench } from "../shell/workbench";
import { keys } from "../queries";

export function ChatToolsDialog({
  wb,
  backend,
  chat,
  tools,
  onClose,
  onChanged,
}: {
  wb: Workbench;
  backend: AgentBackend;
  chat: ChatView;
  tools: ChatTools | undefined;
  onClose: () => void;
  onChanged: () => void;
}) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const all = useMemo(() => (wb.servers.data?.servers ?? []).map((s) => s.name), [wb.servers.data]);
  const [servers, setServers] = useState<string[]>(chat.options.servers ?? all);
  const [disabled, setDisabled] = useState<string[]>(chat.options.disabled_tools);
  const [maxSteps, setMaxSteps] = useState<string>(chat.options.max_steps ? String(chat.options.max_steps) : "");
  // Every tool of the catalog, by server (the chat's view lists only enabled ones).
  const byServer = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const t of wb.tools.data ?? []) {
      const name = String((t.tool as { name?: string }).name ?? "");
      map.set(t.server, [...(map.get(t.server) ?? []), name]);
    }
    return map;
  }, [wb.tools.data]);
  // Every skill of the catalog, by server: the model loads them through
  // load_skill; one turned off here is `server/skill:NAME` in the list.
  const skillsByServer = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const s of wb.skills.data ?? []) map.set(s.server, [...(map.get(s.server) ?? []), s.name]);
    return map;
  }, [wb.skills.data]);
  const save = () => {
    const options: SessionOptions = {
      servers: servers.length === all.length ? null : servers,
      disabled_tools: disabled,
      max_steps: maxSteps.trim() ? Math.max(1, Number(maxSteps)) : null,
      allowed: {},
      loaded_tools: [],
    };
    backend.setChatOptions(chat.session.id, options).then(
      () => {
        void queryClient.invalidateQueries({ queryKey: keys.chatTools(chat.session.id) });
        onChanged();
        onClose();
        toast("Tools for this chat saved");
      },
      (e: unknown) => toast("Not saved", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  };
  return (
    <Modal
      open
      onOpenChange={(o) => !o && onClose()}
      title="Tools for this chat"
      description="The model sees only these. Turned-off tools and skills, and those denied in Settings, are never offered."
      wide
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" onClick={save}>
            Save
          </Button>
        </>
      }
    >
      {tools && tools.notes.length > 0 && (
        <div className="callout tone-info tool-notes">
          <ul>
            {tools.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </div>
      )}
      {all.map((server) => {
        const on = servers.includes(server);
        const names = byServer.get(server) ?? [];
        const skills = skillsByServer.get(server) ?? [];
        return (
          <Disclosure
            key={server}
            defaultOpen={false}
            title={server}
            count={`${names.filter((t) => !disabled.includes(`${server}/${t}`)).length} of ${names.length} tools`}
            actions={<Switch label={on ? "on" : "off"} checked={on} onChange={(v) => setServers((old) => (v ? [...old, server] : old.filter((s) => s !== server)))} />}
          >
            {names.length === 0 && <p className="muted">No tools (the server is not ready, or offers none).</p>}
            <Checks items={names.map((t) => ({ key: `${server}/${t}`, label: t }))} enabled={on} disabled={disabled} setDisabled={setDisabled} />
            {skills.length > 0 && (
              <>
                <h4 className="tool-checks-heading">Skills the model may load</h4>
                <Checks items={skills.map((name) => ({ key: `${server}/skill:${name}`, label: name }))} enabled={on} disabled={disabled} setDisabled={setDisabled} />
              </>
            )}
          </Disclosure>
        );
      })}
      <Field label="Step limit" hint="Model steps a turn may take before it stops and says so (empty: the default from Settings).">
        <Input type="number" min={1} value={maxSteps} onChange={(e) => setMaxSteps(e.target.value)} placeholder="default" />
      </Field>
    </Modal>
  );
}

/** A checkbox per tool (or skill) of a server: checked unless turned off for the chat. */
function Checks({
  items,
  enabled,
  disabled,
  setDisabled,
}: {
  items: { key: string; label: string }[];
  enabled: boolean;
  disabled: string[];
  setDisabled: (change: (old: string[]) => string[]) => void;
}) {
  return (
    <ul className="tool-checks">
      {items.map(({ key, label }) => (
        <li key={key}>
          <label>
            <Checkbox
              disabled={!enabled}
              checked={enabled && !disabled.includes(key)}
              onChange={(e) => setDisabled((old) => (e.target.checked ? old.filter((k) => k !== key) : [...old, key]))}
            />{" "}
            <code>{label}</code>
          </label>
        </li>
      ))}
    </ul>
  );
}
