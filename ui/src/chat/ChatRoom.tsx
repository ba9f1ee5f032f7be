// The Chat room: chats on the left (search, new, rename, delete, export),
// the open chat beside them. With no provider configured it says exactly
// how to add one, and offers the local servers it found.
import { useEffect, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { MessagesSquare, Plus, Search } from "lucide-react";
import { BackendError } from "../ipc";
import type { SessionRow } from "../ipc/agent";
import { Button, EmptyState, Input, Pane, PaneHandle, Panes, Skeleton, useToast } from "../design";
import type { RoomId } from "../shell/route";
import type { Workbench } from "../shell/workbench";
import { ProviderSetup } from "../settings/ProviderSetup";
import { ChatPane, type ChatBackend } from "./ChatPane";
import { ChatListItem } from "./ChatListItem";
import { keys } from "../queries";

const OPEN_KEY = "mcpwb.chat.open";

export function ChatRoom({ wb, backend, active, chatId, go }: { wb: Workbench; backend: ChatBackend; active: boolean; chatId?: string; go: (room: RoomId, param?: string) => void }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [search, setSearch] = useState("");
  const [open, setOpenState] = useState<string | null>(() => localStorage.getItem(OPEN_KEY));
  const setOpen = (id: string | null) => {
    setOpenState(id);
    if (id) localStorage.setItem(OPEN_KEY, id);
    else localStorage.removeItem(OPEN_KEY);
  };
  const providers = useQuery({ queryKey: keys.providers(), queryFn: () => backend.listProviders() });
  const chats = useQuery({ queryKey: keys.chats(search), queryFn: () => backend.listChats(search || undefined), enabled: active });
  const create = () =>
    backend.createChat({ title: null, provider: null, model: null, system_prompt: null, options: null }).then(
      // The list learns of the chat before it opens: opened first, it would
      // not be in the list yet and the room would show "Pick a chat" (and the
      // chat open before would stay) until the list came back.
      async (s) => {
        await queryClient.invalidateQueries({ queryKey: keys.chats() });
        setOpen(s.id);
      },
      (e: unknown) => toast("Could not start a chat", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  // The palette's "New chat", or a chat opened from elsewhere.
  useEffect(() => {
    if (chatId === "new") void create();
    else if (chatId) setOpen(chatId);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [chatId]);
  // A chat that was deleted (or never existed) is not left open.
  const list = chats.data ?? [];
  const current = open && (chats.isPending || list.some((c) => c.id === open) || search) ? open : null;

  if (providers.isPending) return <Skeleton lines={6} label="Loading chats" />;
  if ((providers.data ?? []).length === 0) {
    return (
      <div className="room-scroll">
        <EmptyState icon={MessagesSquare} title="Chat with a model that uses your servers' tools">
          <p>
            Add an LLM provider first: OpenAI, Anthropic, Gemini, a local Ollama, or any OpenAI-compatible server (LM Studio, vLLM, llama.cpp,
            OpenRouter, Groq, DeepSeek). Keys are kept in the OS keychain; <code>OPENAI_API_KEY</code>, <code>ANTHROPIC_API_KEY</code> and{" "}
            <code>GEMINI_API_KEY</code> are used when set.
          </p>
        </EmptyState>
        <div className="onboarding">
          <ProviderSetup backend={backend} onSaved={() => void queryClient.invalidateQueries({ queryKey: keys.providers() })} />
        </div>
      </div>
    );
  }
  return (
    <Panes id="chat">
      <Pane id="chat-list" defaultSize={250} minSize={180} maxSize="40" collapsible className="chat-list">
        <div className="list-controls">
          <div className="chat-list-head">
            <Button variant="primary" icon={Plus} onClick={() => void create()}>
              New chat
            </Button>
          </div>
          <div className="search-field">
            <Search aria-hidden size={14} />
            <Input type="search" aria-label="Search chats" placeholder="Search chats" value={search} onChange={(e) => setSearch(e.target.value)} />
          </div>
        </div>
        <div className="chat-items" role="list" aria-label="Chats">
          {chats.isPending && <Skeleton lines={4} label="Loading chats" />}
          {chats.isError && <p className="field-error">{chats.error instanceof BackendError ? chats.error.message : String(chats.error)}</p>}
          {!chats.isPending && list.length === 0 && (
            <p className="muted empty-hint">{search ? `No chat mentions “${search}”.` : "No chats yet. Start one with New chat."}</p>
          )}
          {list.map((c: SessionRow) => (
            <ChatListItem key={c.id} backend={backend} chat={c} selected={c.id === current} onOpen={() => setOpen(c.id)} onDeleted={() => c.id === current && setOpen(null)} />
          ))}
        </div>
      </Pane>
      <PaneHandle label="Resize the chat list" />
      <Pane id="chat-main" minSize={360} className="chat-main">
        {current ? (
          <ChatPane key={current} wb={wb} backend={backend} id={current} go={go} />
        ) : (
          <EmptyState icon={MessagesSquare} title="Pick a chat or start one" actions={<Button variant="primary" icon={Plus} onClick={() => void create()}>New chat</Button>}>
            <p>The model sees the tools of the servers you choose for each chat, and asks before it calls one.</p>
          </EmptyState>
        )}
      </Pane>
    </Panes>
  );
}
