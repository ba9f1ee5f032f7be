// The thread: each message as typed parts — text (Markdown, rendered
// safely), reasoning (folded), tool calls as cards with their approval and
// result, notices — then what the running turn is writing. Keeps the
// newest in view while the person is at the bottom. Long chats show their
// last 150 messages first.
import { useEffect, useMemo, useRef, useState } from "react";
import { Bot, Check, Copy, FlaskConical, Paperclip, Pencil, RotateCw, User } from "lucide-react";
import type { Approval, ChatMessage, Part } from "../ipc/agent";
import { Button, Disclosure, IconButton, Textarea, useToast } from "../design";
import { Markdown } from "../content/Markdown";
import { ApprovalBatch } from "./ApprovalCard";
import { ToolCallCard } from "./ToolCallCard";
import type { Live } from "./live";
import { AppFrame } from "../content/AppFrame";
import { appUri, partialJson } from "../content/apps";
import { useMaybeWorkbench } from "../shell/workbench";
import type { ComponentProps } from "react";
import type { WindowBackend } from "../ipc";

const FIRST_SHOWN = 150;

/** A call the model is still writing, of a tool with an App: the App shows
 * with the arguments so far (`tool-input-partial`). */
function WritingApp({ backend, name, args }: { backend: ComponentProps<typeof AppFrame>["backend"]; name: string; args: string }) {
  const wb = useMaybeWorkbench();
  const row = wb?.tools.data?.find((t) => t.qualified === name);
  const tool = row ? (row.tool as Record<string, unknown>) : null;
  if (!row || !tool || !appUri(tool)) return null;
  return <AppFrame backend={backend} server={row.server} tool={tool} args={partialJson(args) ?? {}} writing />;
}

type ToolResult = Extract<Part, { type: "tool_result" }>;

function textOf(m: ChatMessage): string {
  return m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

/** What went with a message: a server's resources (as chips: server and
 * URI, their text on hover is not shown — it is in the export) and images
 * (shown small; server or pasted bytes, never markup). */
export function Attachments({ message }: { message: ChatMessage }) {
  const items = message.parts.flatMap((p, i) => {
    if (p.type === "resource")
      return [
        <li key={i} className="attachment-chip" title={`${p.server}: ${p.uri}${p.mime_type ? ` (${p.mime_type})` : ""}`}>
          <Paperclip aria-hidden size={12} /> <code>{p.uri}</code> <span className="muted">{p.server}</span>
        </li>,
      ];
    if (p.type === "image" && p.mime_type.startsWith("image/"))
      return [
        <li key={i} className="attachment-chip">
          <img className="attachment-image" alt={p.name ?? "attached image"} src={`data:${p.mime_type};base64,${p.data}`} />
          {p.name && <span className="muted">{p.name}</span>}
        </li>,
      ];
    return [];
  });
  if (items.length === 0) return null;
  return (
    <ul className="attachments" aria-label="Attached">
      {items}
    </ul>
  );
}

function UserMessage({
  message,
  editable,
  onEdit,
  onSaveCase,
}: {
  message: ChatMessage;
  editable: boolean;
  onEdit: (text: string) => void;
  onSaveCase?: () => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const toast = useToast();
  const text = textOf(message);
  if (editing !== null) {
    return (
      <div className="msg msg-user editing">
        <Textarea aria-label="Edit message" value={editing} onChange={(e) => setEditing(e.target.value)} autoFocus rows={Math.min(10, editing.split("\n").length + 1)} />
        <div className="msg-edit-actions">
          <Button size="sm" onClick={() => setEditing(null)}>
            Cancel
          </Button>
          <Button
            size="sm"
            variant="primary"
            icon={Check}
            disabled={!editing.trim()}
            onClick={() => {
              onEdit(editing);
              setEditing(null);
            }}
          >
            Send again
          </Button>
        </div>
        <p className="muted msg-edit-note">Sending replaces everything after this message.</p>
      </div>
    );
  }
  return (
    <div className="msg msg-user" data-seq={message.seq}>
      <div className="msg-avatar" aria-hidden>
        <User size={14} />
      </div>
      <div className="msg-body">
        <div className="msg-text">{text}</div>
        <Attachments message={message} />
        <div className="msg-actions">
          <IconButton size="sm" label="Copy" icon={Copy} onClick={() => void navigator.clipboard?.writeText(text).then(() => toast("Copied"), () => undefined)} />
          {editable && <IconButton size="sm" label="Edit and send again" icon={Pencil} onClick={() => setEditing(text)} />}
          {onSaveCase && <IconButton size="sm" label="Save to suite as a prompt case" icon={FlaskConical} onClick={onSaveCase} />}
        </div>
      </div>
    </div>
  );
}

export function Conversation({
  backend,
  messages,
  live,
  approvals,
  running,
  onEdit,
  onRegenerate,
  onTraffic,
  onAppMessage,
  onAppContext,
  onSaveCase,
  readOnly = false,
}: {
  backend: ComponentProps<typeof ToolCallCard>["backend"] & WindowBackend;
  messages: ChatMessage[];
  live: Live;
  approvals: Approval[];
  running: boolean;
  onEdit: (seq: number, text: string) => void;
  onRegenerate: () => void;
  onTraffic: (server: string) => void;
  onAppMessage?: (text: string) => Promise<boolean>;
  onAppContext?: (text: string) => void;
  /** Save to suite: the turn that began with the person's message `seq` as a prompt case. */
  onSaveCase?: (seq: number) => void;
  /** A transcript (an eval's run): nothing to edit, regenerate or send. */
  readOnly?: boolean;
}) {
  const toast = useToast();
  const [showAll, setShowAll] = useState(false);
  const results = useMemo(() => {
    const map = new Map<string, ToolResult>();
    for (const m of messages) for (const p of m.parts) if (p.type === "tool_result") map.set(p.call_id, p);
    return map;
  }, [messages]);
  const shown = showAll ? messages : messages.slice(-FIRST_SHOWN);
  const lastAssistant = [...messages].reverse().find((m) => m.role === "assistant");
  // Follow the newest while at the bottom.
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  useEffect(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [messages, live.text, live.reasoning, live.calls, approvals]);
  // Calls the model is writing that are not stored yet.
  const storedCalls = new Set(messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "tool_call" ? [p.call_id] : []))));
  const pendingCalls = Object.entries(live.calls).filter(([id]) => !storedCalls.has(id));
  return (
    <div
      className="conversation"
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
      aria-live="off"
    >
      {messages.length === 0 && !running && !readOnly && <p className="muted conversation-hint">Say what you want done. The model may call your servers' tools; you approve each call it makes.</p>}
      {!showAll && messages.length > FIRST_SHOWN && (
        <Button size="sm" variant="ghost" className="show-earlier" onClick={() => setShowAll(true)}>
          Show {messages.length - FIRST_SHOWN} earlier messages
        </Button>
      )}
      {shown.map((m) => {
        if (m.role === "user")
          return (
            <UserMessage
              key={m.id}
              message={m}
              editable={!running && !readOnly}
              onEdit={(text) => onEdit(m.seq, text)}
              onSaveCase={onSaveCase && !running && !readOnly ? () => onSaveCase(m.seq) : undefined}
            />
          );
        if (m.role !== "assistant") return null;
        const text = textOf(m);
        return (
          <div key={m.id} className="msg msg-assistant" data-seq={m.seq}>
            <div className="msg-avatar" aria-hidden>
              <Bot size={14} />
            </div>
            <div className="msg-body">
              {m.parts.map((p, i) => {
                switch (p.type) {
                  case "reasoning":
                    return (
                      <Disclosure key={i} title="Reasoning" defaultOpen={false} className="reasoning">
                        <div className="reasoning-text">{p.text}</div>
                      </Disclosure>
                    );
                  case "text":
                    return <Markdown key={i} text={p.text} />;
                  case "tool_call":
                    return (
                      <ToolCallCard
                        key={p.call_id}
                        backend={backend}
                        call={p}
                        result={results.get(p.call_id)}
                        live={live.calls[p.call_id]}
                        onAppMessage={onAppMessage}
                        onAppContext={onAppContext}
                        approval={approvals.find((a) => a.call_id === p.call_id)}
                        onTraffic={onTraffic}
                      />
                    );
                  case "notice":
                    return (
                      <p key={i} className={`callout ${p.error ? "tone-danger" : "tone-info"} notice-part`} role={p.error ? "alert" : undefined}>
                        {p.text}
                      </p>
                    );
                  default:
                    return null;
                }
              })}
              {(text || m.usage) && (
                <div className="msg-actions">
                  {text && <IconButton size="sm" label="Copy" icon={Copy} onClick={() => void backend.copyText(text).then(() => toast("Copied"), () => undefined)} />}
                  {m.id === lastAssistant?.id && !running && !readOnly && <IconButton size="sm" label="Regenerate" icon={RotateCw} onClick={onRegenerate} />}
                  {m.usage && (
                    <span className="msg-usage" title="Tokens of this step, as the provider counted them">
                      {m.usage.input.toLocaleString()} in{m.usage.cached ? ` (${m.usage.cached.toLocaleString()} cached)` : ""} · {m.usage.output.toLocaleString()} out
                    </span>
                  )}
                </div>
              )}
            </div>
          </div>
        );
      })}
      {(live.reasoning || live.text || pendingCalls.length > 0) && (
        <div className="msg msg-assistant streaming" aria-busy="true">
          <div className="msg-avatar" aria-hidden>
            <Bot size={14} />
          </div>
          <div className="msg-body">
            {live.reasoning && (
              <Disclosure title="Reasoning…" defaultOpen={false} className="reasoning">
                <div className="reasoning-text">{live.reasoning}</div>
              </Disclosure>
            )}
            {live.text && <div className="msg-text streaming-text">{live.text}</div>}
            {pendingCalls.map(([id, c]) => (
              <div key={id} className="tool-card writing">
                <span className="tool-card-name">{c.name}</span> <code className="muted">{c.arguments}</code>
                {!c.status && <WritingApp backend={backend} name={c.name} args={c.arguments} />}
              </div>
            ))}
          </div>
        </div>
      )}
      {running && !live.text && !live.reasoning && pendingCalls.length === 0 && approvals.length === 0 && (
        <div className="thinking" role="status">
          <span className="dot" />
          <span className="dot" />
          <span className="dot" />
          <span className="sr-only">The model is working</span>
        </div>
      )}
      {live.loaded.length > 0 && (
        <p className="callout tone-info loaded-tools" role="status">
          Tools loaded into this chat: {live.loaded.join(", ")}
        </p>
      )}
      {approvals.length > 1 && <ApprovalBatch backend={backend} approvals={approvals} />}
    </div>
  );
}
