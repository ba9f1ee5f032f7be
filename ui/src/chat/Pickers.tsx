// What the composer adds to a message from the chat's servers: `@` picks a
// resource (or fills a template's variables) and attaches what the server
// returns; `/` picks a prompt, asks its arguments (the server's completions
// offered) and puts its messages into the box to edit, its images and
// embedded resources attached. Nothing is read before the person picks.
import { useMemo, useState, type KeyboardEvent } from "react";
import type { PromptRow, ResourceRow } from "../ipc";
import type { ResourcesBackend } from "../ipc/resources";
import type { Part } from "../ipc/agent";
import { Button, Input, Modal } from "../design";
import { ArgField, type Arg } from "../resources/PromptsView";
import { fillTemplate, templateVariables } from "../resources/ResourcesView";

/** A prompt as a draft: its text, attachments, what did not fit, and its name (the chat's title). */
export type Draft = { text: string; attachments: Part[]; notes: string[]; title: string };

type PickerBackend = ResourcesBackend & {
  attachResource(server: string, uri: string): Promise<Part[]>;
  promptDraft(server: string, name: string, args: Record<string, string>): Promise<Draft>;
};

const matches = (hay: string, query: string) =>
  query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.toLowerCase().includes(w));

/** One request a picker makes (attach, insert): busy while it runs, its
 * failure said; on success the result goes on and the picker closes. */
function useRequest(onClose: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = <T,>(request: Promise<T>, then: (value: T) => void) => {
    setBusy(true);
    setError(null);
    request.then(
      (value) => {
        then(value);
        onClose();
      },
      (e: unknown) => {
        setBusy(false);
        setError(e instanceof Error ? e.message : String(e));
      },
    );
  };
  const failure = error && (
    <p className="callout tone-danger" role="alert">
      {error}
    </p>
  );
  return { busy, run, failure };
}

/** Enter in a field of a picker's form submits it (a field, not a button). */
function enterSubmits(e: KeyboardEvent<HTMLFormElement>) {
  if (e.key === "Enter" && !e.nativeEvent.isComposing && (e.target as HTMLElement).tagName === "INPUT") {
    e.preventDefault();
    e.currentTarget.requestSubmit();
  }
}

/** `@`: a resource or template of the chat's servers, attached as read. */
export function ResourcePicker({
  backend,
  rows,
  onPick,
  onClose,
}: {
  backend: PickerBackend;
  rows: ResourceRow[];
  onPick: (parts: Part[]) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState("");
  const [chosen, setChosen] = useState<ResourceRow | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const { busy, run, failure } = useRequest(onClose);
  const shown = useMemo(() => rows.filter((r) => matches(`${r.server} ${JSON.stringify(r.resource)}`, query)).slice(0, 200), [rows, query]);
  const r = (chosen?.resource ?? {}) as Record<string, unknown>;
  const template = chosen?.template ? String(r.uriTemplate ?? "") : null;
  const uri = template ? fillTemplate(template, values) : String(r.uri ?? "");
  const attach = (row: ResourceRow, at: string) => run(backend.attachResource(row.server, at), onPick);
  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title="Attach a resource" description="Its contents go with your message, with its URI and type." wide>
      {!chosen && (
        <>
          <Input type="search" aria-label="Search resources" placeholder="Search the chat's resources and templates" value={query} onChange={(e) => setQuery(e.target.value)} autoFocus />
          {rows.length === 0 && <p className="muted">The chat's servers offer no resources.</p>}
          <ul className="picker-list" role="listbox" aria-label="Resources">
            {shown.map((row) => {
              const x = row.resource as Record<string, unknown>;
              const id = String(x.uri ?? x.uriTemplate ?? "");
              return (
                <li key={`${row.server} ${id}`} role="option" aria-selected={false}>
                  <button
                    type="button"
                    className="picker-item"
                    disabled={busy}
                    onClick={() => (row.template ? setChosen(row) : attach(row, id))}
                  >
                    <span>{String(x.title ?? x.name ?? id)}</span> <code>{id}</code> <span className="muted">{row.server}</span>
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      )}
      {chosen && template && (
        <form
          className="template-fields"
          onKeyDown={enterSubmits}
          onSubmit={(e) => {
            e.preventDefault();
            attach(chosen, uri);
          }}
        >
          <code>{template}</code>
          {templateVariables(template).map((v) => (
            <label key={v} className="field">
              <span className="field-label">{v}</span>
              <Input aria-label={v} value={values[v] ?? ""} onChange={(e) => setValues({ ...values, [v]: e.target.value })} />
            </label>
          ))}
          <div className="dialog-buttons">
            <Button onClick={() => setChosen(null)}>Back</Button>
            <Button variant="primary" type="submit" disabled={busy}>
              Attach {uri}
            </Button>
          </div>
        </form>
      )}
      {failure}
    </Modal>
  );
}

/** `/`: a prompt of the chat's servers, its messages as a draft. */
export function PromptPicker({
  backend,
  rows,
  onPick,
  onClose,
}: {
  backend: PickerBackend;
  rows: PromptRow[];
  onPick: (draft: Draft) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState("");
  const [chosen, setChosen] = useState<PromptRow | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const { busy, run, failure } = useRequest(onClose);
  const shown = useMemo(() => rows.filter((r) => matches(`${r.server} ${JSON.stringify(r.prompt)}`, query)).slice(0, 200), [rows, query]);
  const p = (chosen?.prompt ?? {}) as { name?: string; title?: string; description?: string; arguments?: Arg[] };
  const insert = (row: PromptRow, name: string) =>
    run(backend.promptDraft(row.server, name, Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ""))), onPick);
  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title="Use a prompt" description="Its messages go into your message, to edit before you send it." wide>
      {!chosen && (
        <>
          <Input type="search" aria-label="Search prompts" placeholder="Search the chat's prompts" value={query} onChange={(e) => setQuery(e.target.value)} autoFocus />
          {rows.length === 0 && <p className="muted">The chat's servers offer no prompts.</p>}
          <ul className="picker-list" role="listbox" aria-label="Prompts">
            {shown.map((row) => {
              const x = row.prompt as { name?: string; title?: string; description?: string; arguments?: Arg[] };
              return (
                <li key={`${row.server} ${x.name}`} role="option" aria-selected={false}>
                  <button
                    type="button"
                    className="picker-item"
                    disabled={busy}
                    onClick={() => ((x.arguments ?? []).length > 0 ? setChosen(row) : insert(row, String(x.name ?? "")))}
                  >
                    <span>{x.title ?? x.name}</span> <code>/{x.name}</code> <span className="muted">{row.server}</span>
                    {x.description && <span className="muted picker-description">{x.description}</span>}
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      )}
      {chosen && (
        <form
          className="prompt-detail"
          onKeyDown={enterSubmits}
          onSubmit={(e) => {
            e.preventDefault();
            insert(chosen, String(p.name ?? ""));
          }}
        >
          <p>
            <strong>{p.title ?? p.name}</strong> <code className="qualified">{chosen.server}</code>
          </p>
          {(p.arguments ?? []).map((a) => (
            <ArgField
              key={a.name}
              backend={backend}
              row={chosen}
              arg={a}
              value={values[a.name] ?? ""}
              others={Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== a.name && v !== ""))}
              onChange={(v) => setValues({ ...values, [a.name]: v })}
            />
          ))}
          <div className="dialog-buttons">
            <Button onClick={() => setChosen(null)}>Back</Button>
            <Button variant="primary" type="submit" disabled={busy}>
              Insert
            </Button>
          </div>
        </form>
      )}
      {failure}
    </Modal>
  );
}
