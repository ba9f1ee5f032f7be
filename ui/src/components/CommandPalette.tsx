// Ctrl+K: jump anywhere by typing — views, servers, tools, actions, and the places inside rooms (a server's Doctor, a tool's Load, the Hosts).
import { useEffect, useMemo, useRef, useState } from "react";
import { Input } from "../design";

export type Command = { id: string; label: string; hint?: string; run: () => void };

export function matchCommands(commands: Command[], query: string): Command[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return commands.filter((c) => {
    const hay = `${c.label} ${c.hint ?? ""}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export function CommandPalette({ commands }: { commands: Command[] }) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [at, setAt] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() === "k" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        setOpen((o) => !o);
        setQuery("");
        setAt(0);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  const shown = useMemo(() => matchCommands(commands, query).slice(0, 50), [commands, query]);
  if (!open) return null;
  const run = (c: Command | undefined) => {
    if (!c) return;
    setOpen(false);
    c.run();
  };
  return (
    <div className="dialog-backdrop" onClick={() => setOpen(false)}>
      <div className="dialog palette" role="dialog" aria-label="Command palette" onClick={(e) => e.stopPropagation()}>
        <Input
          ref={input}
          aria-label="Command"
          placeholder="Type a view, a server, a tool, Doctor, Load, Hosts…"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setAt(0);
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") setOpen(false);
            else if (e.key === "ArrowDown") {
              e.preventDefault();
              setAt((a) => Math.min(shown.length - 1, a + 1));
            } else if (e.key === "ArrowUp") {
              e.preventDefault();
              setAt((a) => Math.max(0, a - 1));
            } else if (e.key === "Enter") run(shown[at]);
          }}
        />
        <ul role="listbox" aria-label="Commands">
          {shown.map((c, i) => (
            <li key={c.id} role="option" aria-selected={i === at} className={i === at ? "selected" : undefined} onMouseEnter={() => setAt(i)} onClick={() => run(c)}>
              {c.label} {c.hint && <span className="muted">{c.hint}</span>}
            </li>
          ))}
          {shown.length === 0 && <li className="muted">Nothing matches.</li>}
        </ul>
      </div>
    </div>
  );
}
