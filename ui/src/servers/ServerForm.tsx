// Add or edit a server: local (command, args, env with secret toggles, cwd)
// or remote (url, headers, transport). Validated as you type; "Try it"
// connects without saving; Save writes only this entry's keys.
import { useState } from "react";
import type { Scope, TrialReport } from "../ipc";
import { emptyForm, formToFields, validate, type EntryForm, type Row } from "./entryForm";
import { Button, Checkbox, Input, Select, plural } from "../design";
import type { ConfigBackend } from "../ipc";

function Rows({ label, rows, onChange, error }: { label: string; rows: Row[]; onChange: (r: Row[]) => void; error?: string }) {
  return (
    <fieldset className="field rows">
      <legend>{label}</legend>
      {rows.map((r, i) => (
        <div className="row-edit" key={i}>
          <Input aria-label={`${label} name ${i + 1}`} placeholder="NAME" value={r.key} onChange={(e) => onChange(rows.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)))} />
          <Input
            aria-label={`${label} value ${i + 1}`}
            type={r.secret ? "password" : "text"}
            placeholder="value"
            value={r.value}
            onChange={(e) => onChange(rows.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
          />
          <label className="secret-toggle" title="Kept in the OS keychain; the file holds a reference">
            <Checkbox checked={r.secret} onChange={(e) => onChange(rows.map((x, j) => (j === i ? { ...x, secret: e.target.checked } : x)))} /> secret
          </label>
          <Button variant="secondary" aria-label={`Remove ${label} ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            ×
          </Button>
        </div>
      ))}
      <Button variant="secondary" onClick={() => onChange([...rows, { key: "", value: "", secret: false }])}>
        Add {label.toLowerCase()}
      </Button>
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}

function Text({ label, value, onChange, error, placeholder }: { label: string; value: string; onChange: (v: string) => void; error?: string; placeholder?: string }) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      <Input aria-label={label} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} aria-invalid={!!error} />
      {error && <span className="field-error">{error}</span>}
    </label>
  );
}

export function ServerForm({
  backend,
  initial,
  seed,
  existingNames,
  onDone,
  hasProject = false,
  defaultScope = "user",
}: {
  backend: ConfigBackend;
  /** Present when editing. */
  initial?: EntryForm;
  /** A new server's starting values (duplicating one). */
  seed?: EntryForm;
  existingNames: string[];
  onDone: (name: string | null) => void;
  /** A project folder is open: a new server can go to its `.mcp.json`. */
  hasProject?: boolean;
  /** Where a new server goes unless the user picks the other file. */
  defaultScope?: Scope;
}) {
  const editing = initial !== undefined;
  const [form, setForm] = useState<EntryForm>(initial ?? seed ?? emptyForm());
  const [scope, setScope] = useState<Scope>(defaultScope);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [report, setReport] = useState<TrialReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const taken = existingNames.filter((n) => n !== initial?.name);
  const problems = validate(form, taken);
  const show = (k: string) => (touched ? problems[k] : undefined);
  const set = (patch: Partial<EntryForm>) => setForm({ ...form, ...patch });
  const fields = () => formToFields(form, (field, key, value) => backend.storeSecret(form.name, field, key, value, scope));
  const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));

  const tryIt = async () => {
    setTouched(true);
    if (Object.keys(problems).length) return;
    setBusy("Connecting…");
    setError(null);
    setReport(null);
    try {
      // Secrets are not stored for a trial: the values are used as typed.
      const trial = await formToFields(form, (_f, _k, v) => Promise.resolve(v));
      const clean = Object.fromEntries(Object.entries(trial).filter(([, v]) => v !== null));
      setReport(await backend.tryServer(form.name, clean));
    } catch (e) {
      fail(e);
    } finally {
      setBusy(null);
    }
  };
  const save = async () => {
    setTouched(true);
    if (Object.keys(problems).length) return;
    setBusy("Saving…");
    setError(null);
    try {
      if (editing && initial.name !== form.name) {
        await backend.editServer({ kind: "rename", from: initial.name, to: form.name });
      }
      // An edited server stays in its file; a new one goes where chosen.
      await backend.editServer({ kind: "upsert", name: form.name, fields: (await fields()) as never }, editing ? undefined : scope);
      onDone(form.name);
    } catch (e) {
      fail(e);
    } finally {
      setBusy(null);
    }
  };
  const local = form.transport === "stdio";
  return (
    <form
      className="server-form"
      aria-label={editing ? `Edit ${initial.name}` : "Add a server"}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>{editing ? `Edit ${initial.name}` : "Add a server"}</h2>
      <Text label="Name" value={form.name} onChange={(name) => set({ name })} error={show("name")} placeholder="e.g. github" />
      {hasProject && !editing && (
        <label className="field">
          <span className="field-label">Save to</span>
          <Select aria-label="Save to" value={scope} onChange={(v) => setScope(v as Scope)}>
            <option value="user">Your user file (every project)</option>
            <option value="project">This project's .mcp.json</option>
          </Select>
        </label>
      )}
      <label className="field">
        <span className="field-label">Kind</span>
        <Select aria-label="Kind" value={form.transport} onChange={(v) => set({ transport: v as EntryForm["transport"] })}>
          <option value="stdio">Local: a command (stdio)</option>
          <option value="http">Remote: Streamable HTTP</option>
          <option value="sse">Remote: legacy SSE</option>
          <option value="auto">Remote: try HTTP, then SSE</option>
        </Select>
      </label>
      {local ? (
        <>
          <Text label="Command" value={form.command} onChange={(command) => set({ command })} error={show("command")} placeholder="npx, uvx, docker, /path/to/server" />
          <fieldset className="field rows">
            <legend>Arguments</legend>
            {form.args.map((a, i) => (
              <div className="row-edit" key={i}>
                <Input aria-label={`Argument ${i + 1}`} value={a} onChange={(e) => set({ args: form.args.map((x, j) => (j === i ? e.target.value : x)) })} />
                <Button variant="secondary" aria-label={`Move argument ${i + 1} up`} disabled={i === 0} onClick={() => set({ args: form.args.map((x, j) => (j === i - 1 ? (form.args[i] ?? x) : j === i ? (form.args[i - 1] ?? x) : x)) })}>
                  ↑
                </Button>
                <Button variant="secondary" aria-label={`Remove argument ${i + 1}`} onClick={() => set({ args: form.args.filter((_, j) => j !== i) })}>
                  ×
                </Button>
              </div>
            ))}
            <Button variant="secondary" onClick={() => set({ args: [...form.args, ""] })}>
              Add argument
            </Button>
          </fieldset>
          <Rows label="Environment" rows={form.env} onChange={(env) => set({ env })} error={show("env")} />
          <Text label="Working folder" value={form.cwd} onChange={(cwd) => set({ cwd })} placeholder="(the config's folder)" />
        </>
      ) : (
        <>
          <Text label="URL" value={form.url} onChange={(url) => set({ url })} error={show("url")} placeholder="https://example.com/mcp" />
          <Rows label="Headers" rows={form.headers} onChange={(headers) => set({ headers })} error={show("headers")} />
        </>
      )}
      <Text label="Description" value={form.description} onChange={(description) => set({ description })} />
      <label className="field">
        <span className="field-label">Protocol</span>
        <Select aria-label="Protocol" value={form.protocol} onChange={(v) => set({ protocol: v as EntryForm["protocol"] })}>
          <option value="auto">automatic (2026-07-28, else 2025-11-25)</option>
          <option value="2025-11-25">2025-11-25 only (initialize)</option>
          <option value="2026-07-28">2026-07-28 only (server/discover)</option>
        </Select>
        <span className="field-description">Pin one to test a server under each era.</span>
      </label>
      <label className="field checkbox">
        <Checkbox checked={form.disabled} onChange={(e) => set({ disabled: e.target.checked })} /> Disabled
      </label>
      <div className="run-bar">
        <Button type="submit" variant="primary" disabled={!!busy}>
          Save
        </Button>
        <Button variant="secondary" disabled={!!busy} onClick={() => void tryIt()}>
          Try it
        </Button>
        <Button variant="secondary" onClick={() => onDone(null)}>
          Cancel
        </Button>
        {busy && <span role="status">{busy}</span>}
      </div>
      {error && (
        <div className="error-banner" role="alert">
          <p className="error-message">{error}</p>
        </div>
      )}
      {report && (
        <div className={report.status.state === "ready" ? "result" : "result result-error"} role="status" aria-label="Trial">
          {report.status.state === "ready" ? (
            <p>
              Connected: {report.status.info?.name} {report.status.info?.version} · protocol {report.status.info?.protocol_version} ·{" "}
              {plural(report.tools.length, "tool")}, {plural(report.resources, "resource")}
              {report.templates ? `, ${plural(report.templates, "template")}` : ""}, {plural(report.prompts, "prompt")}
            </p>
          ) : (
            <p>
              Did not connect ({report.status.state}
              {"reason" in report.status ? `: ${report.status.reason}` : ""})
            </p>
          )}
          {report.tools.length > 0 && <p className="muted">{report.tools.join(", ")}</p>}
        </div>
      )}
    </form>
  );
}
