// Where the person writes: Enter sends, Shift+Enter is a new line, Esc
// stops the turn; the box grows with the text. `@` attaches a resource of
// the chat's servers, `/` in an empty box puts a prompt's messages in it;
// images (and text files) pasted or dropped are attached. What is attached
// shows as chips, each with its ✕.
import { useEffect, useRef, useState } from "react";
import { ArrowUp, AtSign, ImageOff, Paperclip, Square, SquareSlash, X } from "lucide-react";
import type { PromptRow, ResourceRow } from "../ipc";
import type { Part } from "../ipc/agent";
import { Button, IconButton, Textarea, useToast } from "../design";
import { takeChatDraft } from "../content/apps";
import { PromptPicker, ResourcePicker } from "./Pickers";
import type { ComponentProps } from "react";

/** What the pickers need: the chat's servers' resources and prompts, and the backend. */
export type Sources = { backend: ComponentProps<typeof ResourcePicker>["backend"]; resources: ResourceRow[]; prompts: PromptRow[] };

/** A file pasted or dropped, as an attachment (an image, or a text file as a resource). */
function readFile(file: File): Promise<Part> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(new Error(`${file.name} could not be read`));
    if (file.type.startsWith("image/")) {
      reader.onload = () => {
        const url = String(reader.result ?? "");
        resolve({ type: "image", mime_type: file.type, data: url.slice(url.indexOf(",") + 1), name: file.name || undefined });
      };
      reader.readAsDataURL(file);
    } else if (file.type.startsWith("text/") || /\.(md|txt|json|csv|ya?ml|toml|log|[jt]sx?|py|rs)$/i.test(file.name)) {
      reader.onload = () =>
        resolve({ type: "resource", server: "this computer", uri: `file:${file.name}`, mime_type: file.type || "text/plain", text: String(reader.result ?? "") });
      reader.readAsText(file);
    } else {
      reject(new Error(`${file.name} is not an image or a text file: only those go with a message`));
    }
  });
}

function label(p: Part): string {
  if (p.type === "resource") return p.uri;
  if (p.type === "image") return p.name ?? `image (${p.mime_type})`;
  return p.type;
}

export function Composer({
  running,
  waiting = 0,
  onSend,
  onStop,
  sources,
  noImages,
}: {
  running: boolean;
  /** Calls waiting for the person's decision in this turn. */
  waiting?: number;
  /** `title`: the prompt's name when the message began as one (the chat is named after it). */
  onSend: (text: string, attachments: Part[], title?: string) => void;
  onStop: () => void;
  /** The chat's servers' resources and prompts (none: no `@` and `/`). */
  sources?: Sources;
  /** Why an attached image will not be sent (the chat's model takes none). */
  noImages?: string;
}) {
  // A message an App wrote outside a chat, offered as this chat's draft.
  const [text, setText] = useState(takeChatDraft);
  const [attachments, setAttachments] = useState<Part[]>([]);
  const [picking, setPicking] = useState<"resource" | "prompt" | null>(null);
  const [notes, setNotes] = useState<string[]>([]);
  // The prompt the message began as: the chat takes its name.
  const [title, setTitle] = useState<string | undefined>(undefined);
  const toast = useToast();
  const addFiles = (files: File[]) =>
    Promise.all(files.map(readFile)).then(
      (parts) => setAttachments((old) => [...old, ...parts]),
      (e: unknown) => toast("Not attached", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);
  // Esc stops the turn from anywhere in the chat.
  useEffect(() => {
    if (!running) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && box.current?.offsetParent && !document.querySelector("[role=dialog]")) onStop();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [running, onStop]);
  const send = () => {
    if (running || (!text.trim() && attachments.length === 0)) return;
    onSend(text, attachments, title);
    setText("");
    setAttachments([]);
    setNotes([]);
    setTitle(undefined);
  };
  return (
    <div className="composer">
      {(attachments.length > 0 || notes.length > 0) && (
        <div className="composer-attachments">
          {attachments.length > 0 && (
            <ul className="attachments" aria-label="Attachments">
              {attachments.map((a, i) => (
                <li key={i} className={a.type === "image" && noImages ? "attachment-chip attachment-refused-chip" : "attachment-chip"} title={a.type === "image" ? noImages : undefined}>
                  {a.type === "image" && noImages ? <ImageOff aria-hidden size={12} /> : <Paperclip aria-hidden size={12} />} <code>{label(a)}</code>
                  {a.type === "resource" && <span className="muted">{a.server}</span>}
                  {a.type === "image" && noImages && <span className="attachment-refused">{noImages}</span>}
                  <IconButton size="sm" label={`Remove ${label(a)}`} icon={X} onClick={() => setAttachments((old) => old.filter((_, j) => j !== i))} />
                </li>
              ))}
            </ul>
          )}
          {notes.map((n) => (
            <p key={n} className="muted composer-note">
              {n}
            </p>
          ))}
        </div>
      )}
      {sources && (
        <div className="composer-tools">
          <IconButton size="sm" label="Attach a resource (@)" icon={AtSign} disabled={running} onClick={() => setPicking("resource")} />
          <IconButton size="sm" label="Use a prompt (/)" icon={SquareSlash} disabled={running} onClick={() => setPicking("prompt")} />
        </div>
      )}
      {sources && picking === "resource" && (
        <ResourcePicker backend={sources.backend} rows={sources.resources} onPick={(parts) => setAttachments((old) => [...old, ...parts])} onClose={() => setPicking(null)} />
      )}
      {sources && picking === "prompt" && (
        <PromptPicker
          backend={sources.backend}
          rows={sources.prompts}
          onPick={(draft) => {
            setText((old) => (old.trim() ? `${old}\n\n${draft.text}` : draft.text));
            setAttachments((old) => [...old, ...draft.attachments]);
            setNotes(draft.notes);
            if (draft.title) setTitle((old) => old ?? draft.title);
            box.current?.focus();
          }}
          onClose={() => setPicking(null)}
        />
      )}
      <Textarea
        ref={box}
        aria-label="Message"
        placeholder={
          running && waiting > 0
            ? `Waiting for you to allow or deny ${waiting === 1 ? "a call" : `${waiting} calls`} above (Esc stops)`
            : running
              ? "The model is working… (Esc stops it)"
              : sources
                ? "Ask something (Enter sends, Shift+Enter: new line; @ attaches a resource, / uses a prompt)"
                : "Ask something (Enter sends, Shift+Enter: new line)"
        }
        title="The model may use the tools of this chat's servers. Enter sends, Shift+Enter starts a new line."
        value={text}
        rows={1}
        onChange={(e) => {
          const next = e.target.value;
          // `@` typed at a word's start, `/` typed in an empty box: the pickers.
          if (sources && next === `${text}@` && (text === "" || /\s$/.test(text))) {
            setPicking("resource");
            return;
          }
          if (sources && text === "" && next === "/") {
            setPicking("prompt");
            return;
          }
          setText(next);
        }}
        onPaste={(e) => {
          const files = Array.from(e.clipboardData.files);
          if (files.length > 0) {
            e.preventDefault();
            void addFiles(files);
          }
        }}
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          const files = Array.from(e.dataTransfer.files);
          if (files.length > 0) {
            e.preventDefault();
            void addFiles(files);
          }
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      {running ? (
        <Button variant="secondary" icon={Square} onClick={onStop} title="Esc" className="composer-button">
          Stop
        </Button>
      ) : (
        <Button variant="primary" icon={ArrowUp} onClick={send} disabled={!text.trim() && attachments.length === 0} className="composer-button">
          Send
        </Button>
      )}
    </div>
  );
}
