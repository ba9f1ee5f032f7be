// Prompts of every server: fill the arguments (with the server's
// completions as suggestions), get the messages and render them.
import { useState } from "react";
import type { PromptRow } from "../ipc";
import { Completing } from "../components/Completing";
import { Freshness, PickList, ServerFilter } from "../components/PickList";
import { noneYet } from "../components/noneYet";
import { Markdown } from "../content/Markdown";
import { BlockView, type ResultBackend } from "../content/ResultView";
import type { ServerStatus_Serialize as ServerStatus } from "../bindings";
import { Button, Input, plural } from "../design";
import type { ListCache, ResourcesBackend } from "../ipc";

export type Arg = { name: string; description?: string; required?: boolean };
type Message = { role?: string; content?: Record<string, unknown> };

export function ArgField({
  backend,
  row,
  arg,
  value,
  others,
  onChange,
}: {
  backend: ResourcesBackend;
  row: PromptRow;
  arg: Arg;
  value: string;
  others: Record<string, string>;
  onChange: (v: string) => void;
}) {
  const name = String((row.prompt as { name?: string }).name ?? "");
  return (
    <Completing
      backend={backend}
      server={row.server}
      reference={{ type: "ref/prompt", name }}
      argument={arg.name}
      value={value}
      others={others}
      onChange={onChange}
      label={
        <>
          {arg.name}
          {arg.required && <span className="required"> *</span>}
        </>
      }
      hint={arg.description}
    />
  );
}

function Detail({ backend, row }: { backend: ResultBackend; row: PromptRow }) {
  const p = row.prompt as { name?: string; title?: string; description?: string; arguments?: Arg[] };
  const args = p.arguments ?? [];
  const [values, setValues] = useState<Record<string, string>>({});
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [getting, setGetting] = useState(false);
  const get = () => {
    setError(null);
    setGetting(true);
    const filled = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ""));
    backend.getPrompt(row.server, String(p.name ?? ""), filled).then(
      (r) => {
        setGetting(false);
        setMessages(((r as { messages?: Message[] }).messages ?? []) as Message[]);
      },
      (e: unknown) => {
        setGetting(false);
        setError(e instanceof Error ? e.message : String(e));
      },
    );
  };
  return (
    <form
      className="prompt-detail"
      onSubmit={(e) => {
        e.preventDefault();
        if (!getting) get();
      }}
    >
      <h2>
        {p.title ?? p.name} <code className="qualified">{row.server}</code>
      </h2>
      {p.description && <p className="tool-description">{p.description}</p>}
      {args.map((a) => (
        <ArgField
          key={a.name}
          backend={backend}
          row={row}
          arg={a}
          value={values[a.name] ?? ""}
          others={Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== a.name && v !== ""))}
          onChange={(v) => setValues({ ...values, [a.name]: v })}
        />
      ))}
      <div className="run-bar">
        <Button type="submit" variant="primary" disabled={getting} title="Enter">
          {getting ? "Getting…" : "Get messages"}
        </Button>
      </div>
      {error && (
        <div className="error-banner" role="alert">
          <p className="error-message">{error}</p>
        </div>
      )}
      {messages && messages.length === 0 && <p className="muted">The server returned no messages.</p>}
      {messages && messages.length > 0 && (
        <ol className="prompt-messages">
          {messages.map((m, i) => (
            <li key={i} className="result">
              <strong>{m.role}</strong>
              {/* Text is prose for a model (Markdown); the rest as a tool's result shows it: images, audio, resources and links. */}
              {m.content?.type === "text" ? <Markdown text={String(m.content.text ?? "")} /> : <BlockView block={m.content ?? {}} backend={backend} server={row.server} />}
            </li>
          ))}
        </ol>
      )}
    </form>
  );
}

export function PromptsView({ backend, rows, hints, statuses = [] }: { backend: ResultBackend; rows: PromptRow[]; hints?: ListCache[]; statuses?: ServerStatus[] }) {
  // The open prompt by server and name (an index would move when lists change).
  const [openKey, setOpenKey] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [server, setServer] = useState("");
  const keyOf = (row: PromptRow) => `${row.server}/${String((row.prompt as { name?: string }).name ?? "")}`;
  const index = rows.findIndex((r) => keyOf(r) === openKey);
  const current = index < 0 ? null : rows[index];
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const items = rows
    .map((row, i) => ({ row, i }))
    .filter(({ row }) => {
      if (server && row.server !== server) return false;
      const p = row.prompt as { name?: string; title?: string; description?: string };
      const hay = `${row.server} ${p.name ?? ""} ${p.title ?? ""} ${p.description ?? ""}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    })
    .map(({ row, i }) => {
      const p = row.prompt as { name?: string; title?: string };
      return { key: keyOf(row), index: i, title: p.title ?? p.name, server: row.server, code: String(p.name ?? "") };
    });
  return (
    <PickList
      id="prompts"
      label="Prompts"
      items={items}
      selected={index < 0 ? null : index}
      onSelect={(i) => setOpenKey(rows[i] ? keyOf(rows[i]) : null)}
      top={
        <>
          <Input type="search" aria-label="Search prompts" placeholder={`Search ${plural(rows.length, "prompt")}`} value={query} onChange={(e) => setQuery(e.target.value)} />
          <ServerFilter servers={rows.map((r) => r.server)} value={server} onChange={setServer} />
          <Freshness hints={hints} lists={["prompts"]} server={server} />
          {rows.length === 0 && <p className="muted empty-hint">{noneYet(statuses, "prompts")}</p>}
          {rows.length > 0 && items.length === 0 && <p className="muted empty-hint">No prompt matches “{query}”.</p>}
        </>
      }
      detail={current ? <Detail key={openKey} backend={backend} row={current} /> : null}
      empty={{ title: "Pick a prompt", text: "Fill its arguments (the server suggests values) and get its messages (Enter)." }}
    />
  );
}
