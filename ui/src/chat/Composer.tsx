// Where the person writes: Enter sends, Shift+Enter is a new line, Esc
// stops the turn; the box grows with the text.
import { useEffect, useRef, useState } from "react";
import { ArrowUp, Square } from "lucide-react";
import { Button, Textarea } from "../design";
import { takeChatDraft } from "../content/apps";

export function Composer({
  running,
  waiting = 0,
  onSend,
  onStop,
}: {
  running: boolean;
  /** Calls waiting for the person's decision in this turn. */
  waiting?: number;
  onSend: (text: string) => void;
  onStop: () => void;
}) {
  // A message an App wrote outside a chat, offered as this chat's draft.
  const [text, setText] = useState(takeChatDraft);
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
    if (running || !text.trim()) return;
    onSend(text);
    setText("");
  };
  return (
    <div className="composer">
      <Textarea
        ref={box}
        aria-label="Message"
        placeholder={
          running && waiting > 0
            ? `Waiting for you to allow or deny ${waiting === 1 ? "a call" : `${waiting} calls`} above (Esc stops)`
            : running
              ? "The model is working… (Esc stops it)"
              : "Ask something (Enter sends, Shift+Enter: new line)"
        }
        title="The model may use the tools of this chat's servers. Enter sends, Shift+Enter starts a new line."
        value={text}
        rows={1}
        onChange={(e) => setText(e.target.value)}
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
        <Button variant="primary" icon={ArrowUp} onClick={send} disabled={!text.trim()} className="composer-button">
          Send
        </Button>
      )}
    </div>
  );
}
