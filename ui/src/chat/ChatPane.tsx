// One open chat: its header (model, system prompt, tools, context), the
// conversation with the running turn's live parts and approvals, and the
// composer. Sending, Stop, Retry, regenerate and edit-and-resend start
// turns whose events stream into `live`.
import { useEffect, useState, type ComponentProps } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { AlertTriangle, RotateCw } from "lucide-react";
import { BackendError } from "../ipc";
import type { AgentBackend, ChatMessage, ChatView, EndReason, Part } from "../ipc/agent";
import type { HistoryBackend, TurnCase } from "../ipc/history";
import { SavePromptCase } from "../suites/SavePromptCase";
import { Button, Skeleton, useToast } from "../design";
import type { RoomId } from "../shell/route";
import type { Workbench } from "../shell/workbench";
import { ChatHeader } from "./ChatHeader";
import { Composer } from "./Composer";
import { Conversation } from "./Conversation";
import * as live from "./live";
import { afterChat, keys } from "../queries";

/** What a chat reaches of the Rust side: the agent, and what its calls' cards, Apps and results need. */
export type ChatBackend = AgentBackend & HistoryBackend & ComponentProps<typeof Conversation>["backend"];

export function ChatPane({ wb, backend, id, go }: { wb: Workbench; backend: ChatBackend; id: string; go: (room: RoomId, param?: string) => void }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const chat = useQuery({ queryKey: keys.chat(id), queryFn: () => backend.openChat(id) });
  const state = live.useLive(id);
  const running = state.running || (chat.data?.running ?? false);
  // Opened afresh: what the last turn stored is in the opened view.
  useEffect(() => {
    if (chat.data && !state.running) live.settle(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [chat.data]);

  const refresh = () => {
    afterChat(queryClient, id);
  };
  /** Run a turn; `keep` cuts the opened messages first (edit, regenerate). */
  const start = (turn: (onEvent: (e: Parameters<typeof live.apply>[1]) => void) => Promise<EndReason>, keep?: (m: ChatMessage) => boolean) => {
    if (keep) {
      queryClient.setQueryData<ChatView>(keys.chat(id), (old) => (old ? { ...old, messages: old.messages.filter(keep) } : old));
    }
    live.begin(id);
    turn((e) => live.apply(id, e)).then(
      () => {
        live.end(id);
        refresh();
      },
      (e: unknown) => {
        live.end(id);
        toast(e instanceof BackendError && e.code === "busy" ? "A turn is already running in this chat" : "The message was not sent", {
          tone: "danger",
          description: e instanceof Error ? e.message : String(e),
        });
        refresh();
      },
    );
  };
  // What an App asked to keep in the model's context: sent with the next
  // message (the newest only), shown above the composer until then.
  const [appContext, setAppContext] = useState<string | null>(null);
  const [saving, setSaving] = useState<TurnCase | null>(null);
  const saveCase = (seq: number) =>
    void backend.turnCase(id, seq).then(setSaving, (e: unknown) =>
      toast("This turn cannot be saved", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  // What an App asked to post as the person's message (`ui/message`): shown
  // until the person sends or discards it; one at a time (a second ask
  // while one waits is refused).
  const [appMessage, setAppMessage] = useState<{ text: string; answer: (sent: boolean) => void } | null>(null);
  const askToSend = (text: string) =>
    new Promise<boolean>((answer) => {
      setAppMessage((pending) => {
        if (pending) {
          answer(false);
          return pending;
        }
        return { text, answer };
      });
    });
  const send = (text: string, attachments: Part[] = [], title?: string) => {
    const context = appContext;
    setAppContext(null);
    const full = context ? `[Context from an App in this chat]\n${context}\n\n${text}` : text;
    start((on) => backend.sendMessage(id, { text: full, attachments, title }, on));
  };
  // An image for a model that takes none is not sent: its chip says so first.
  const noImages = chat.data && !chat.data.accepts_images ? `${chat.data.session.model} takes no images: this one will not be sent` : undefined;
  // The chat's servers' resources and prompts, for `@` and `/`.
  const chosen = chat.data?.options.servers ?? null;
  const ofChat = <T extends { server: string }>(rows: T[] | undefined) => (rows ?? []).filter((r) => !chosen || chosen.includes(r.server));
  const sources = { backend, resources: ofChat(wb.resources.data), prompts: ofChat(wb.prompts.data) };
  const regenerate = () => {
    const messages = chat.data?.messages ?? [];
    const lastUser = [...messages, ...state.stored].filter((m) => m.role === "user").at(-1);
    start((on) => backend.regenerate(id, on), lastUser ? (m) => m.seq <= lastUser.seq : undefined);
  };
  const edit = (seq: number, text: string) => start((on) => backend.editMessage(id, seq, text, on), (m) => m.seq < seq);
  const stop = () => void backend.stopChat(id);

  if (chat.isPending) return <Skeleton lines={8} label="Opening the chat" />;
  if (chat.isError || !chat.data) {
    return (
      <div className="error-banner" role="alert">
        <p className="error-message">{chat.error instanceof Error ? chat.error.message : "The chat could not be opened."}</p>
      </div>
    );
  }
  const opened = chat.data.messages;
  const messages = [...opened, ...state.stored.filter((m) => !opened.some((o) => o.id === m.id))];
  const approvals = state.approvals.length > 0 ? state.approvals : chat.data.pending;
  return (
    <div className="chat-pane">
      <ChatHeader wb={wb} backend={backend} chat={chat.data} liveUsage={state.usage} running={running} onChanged={refresh} loaded={state.loaded} />
      <Conversation
        backend={backend}
        messages={messages}
        live={state}
        approvals={approvals}
        running={running}
        onEdit={edit}
        onRegenerate={regenerate}
        onTraffic={(server) => go("traffic", server)}
        onAppMessage={askToSend}
        onAppContext={(text) => setAppContext(text || null)}
        onSaveCase={saveCase}
      />
      <SavePromptCase backend={backend} turn={saving} onClose={() => setSaving(null)} />
      {appMessage && (
        <div className="callout tone-warn chat-status app-message-ask" role="group" aria-label="An App asks to send a message">
          <p>
            An App in this chat asks to send this as your message:
          </p>
          <blockquote className="app-message-text">{appMessage.text}</blockquote>
          <div className="toolbar">
            <Button
              size="sm"
              variant="primary"
              disabled={running}
              onClick={() => {
                appMessage.answer(true);
                setAppMessage(null);
                send(`[From an App in this chat, sent by the person]\n${appMessage.text}`);
              }}
            >
              Send
            </Button>
            <Button
              size="sm"
              variant="ghost"
              onClick={() => {
                appMessage.answer(false);
                setAppMessage(null);
              }}
            >
              Discard
            </Button>
          </div>
        </div>
      )}
      {appContext && (
        <p className="callout tone-info chat-status app-context-note" role="status">
          An App keeps this for the model; it goes with your next message: <q>{appContext}</q>
          <Button size="sm" variant="ghost" onClick={() => setAppContext(null)}>
            Drop
          </Button>
        </p>
      )}
      {state.retrying && (
        <p className="callout tone-warn chat-status" role="status">
          <RotateCw aria-hidden size={14} /> {state.retrying.reason}. Trying again in {(state.retrying.waitMs / 1000).toFixed(1)} s (attempt {state.retrying.attempt}).
        </p>
      )}
      {state.error && !running && (
        <div className="callout tone-danger chat-status" role="alert">
          <AlertTriangle aria-hidden size={14} />
          {/* Said once: the conversation's last notice already says it (kept with the chat). */}
          <span className="error-message">{saidAbove(messages, state.error.message) ? "The model's provider failed (above)." : state.error.message}</span>
          {state.error.retryable && (
            <Button size="sm" icon={RotateCw} onClick={regenerate}>
              Retry
            </Button>
          )}
        </div>
      )}
      <Composer running={running} waiting={approvals.length} onSend={send} onStop={stop} sources={sources} noImages={noImages} />
    </div>
  );
}

/** Whether the conversation's last message is the error notice `message`. */
export function saidAbove(messages: { parts: { type: string; text?: string; error?: boolean }[] }[], message: string): boolean {
  const last = messages.at(-1)?.parts.at(-1);
  return last?.type === "notice" && last.error === true && last.text === message;
}
