// One chat in the list: its title, model, message count and last activity;
// a menu to rename, export or delete it.
import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { FileDown, FileJson, MoreHorizontal, Pencil, Trash2 } from "lucide-react";
import type { AgentBackend } from "../ipc";
import type { SessionRow } from "../ipc/agent";
import { Button, IconButton, Input, Menu, Modal, useToast, plural } from "../design";
import { keys } from "../queries";

export function ago(ms: number): string {
  const s = Math.max(0, (Date.now() - ms) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 86400 * 7) return `${Math.floor(s / 86400)} d ago`;
  return new Date(ms).toLocaleDateString();
}

export function exportChat(backend: AgentBackend, id: string, json: boolean, toast: ReturnType<typeof useToast>) {
  backend.exportChat(id, json).then(
    (path) => path && toast("Chat exported", { description: path }),
    (e: unknown) => toast("Could not export the chat", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
  );
}

export function ChatListItem({
  backend,
  chat,
  selected,
  onOpen,
  onDeleted,
}: {
  backend: AgentBackend;
  chat: SessionRow;
  selected: boolean;
  onOpen: () => void;
  onDeleted: () => void;
}) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.chats() });
  const rename = () => {
    if (renaming === null) return;
    backend.updateChat(chat.id, { title: renaming, provider: null, model: null, system_prompt: null, options: null }).then(
      () => {
        setRenaming(null);
        refresh();
        void queryClient.invalidateQueries({ queryKey: keys.chat(chat.id) });
      },
      (e: unknown) => toast("Could not rename", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  };
  return (
    <div role="listitem" className={`chat-item${selected ? " selected" : ""}`}>
      <button type="button" className="chat-item-open" onClick={onOpen} aria-current={selected || undefined}>
        <span className="chat-title truncate" title={chat.title}>
          {chat.title}
        </span>
        <span className="chat-meta truncate">
          {chat.model} · {plural(chat.message_count, "message")} · {ago(chat.updated_at)}
        </span>
      </button>
      <Menu
        trigger={<IconButton size="sm" label={`Actions for ${chat.title}`} icon={MoreHorizontal} className="chat-item-menu" />}
        items={[
          { label: "Rename…", icon: Pencil, onSelect: () => setRenaming(chat.title) },
          { label: "Export as Markdown…", icon: FileDown, onSelect: () => exportChat(backend, chat.id, false, toast) },
          { label: "Export as JSON…", icon: FileJson, onSelect: () => exportChat(backend, chat.id, true, toast) },
          "separator",
          { label: "Delete…", icon: Trash2, danger: true, onSelect: () => setDeleting(true) },
        ]}
      />
      <Modal
        open={renaming !== null}
        onOpenChange={(o) => !o && setRenaming(null)}
        title="Rename chat"
        footer={
          <>
            <Button onClick={() => setRenaming(null)}>Cancel</Button>
            <Button variant="primary" onClick={rename} disabled={!renaming?.trim()}>
              Rename
            </Button>
          </>
        }
      >
        <Input
          aria-label="Title"
          className="wide-input"
          value={renaming ?? ""}
          onChange={(e) => setRenaming(e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && rename()}
          autoFocus
        />
      </Modal>
      <Modal
        open={deleting}
        onOpenChange={setDeleting}
        title={`Delete “${chat.title}”?`}
        description="Its messages and the record of its tool calls go with it. This cannot be undone."
        footer={
          <>
            <Button onClick={() => setDeleting(false)}>Keep it</Button>
            <Button
              variant="danger"
              onClick={() =>
                backend.deleteChat(chat.id).then(
                  () => {
                    setDeleting(false);
                    toast("Chat deleted");
                    onDeleted();
                    refresh();
                  },
                  (e: unknown) => toast("Could not delete", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
                )
              }
            >
              Delete
            </Button>
          </>
        }
      />
    </div>
  );
}
