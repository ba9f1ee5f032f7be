// The one place the server form's shape and mcp.json's shape meet.

export type Row = { key: string; value: string; secret: boolean };
export type Transport = "stdio" | "http" | "sse" | "auto";
/** `protocolVersion`: negotiate, or speak one era only. */
export type Protocol = "auto" | "2025-11-25" | "2026-07-28";

export type EntryForm = {
  name: string;
  transport: Transport;
  command: string;
  args: string[];
  env: Row[];
  cwd: string;
  url: string;
  headers: Row[];
  description: string;
  disabled: boolean;
  protocol: Protocol;
};

export const emptyForm = (): EntryForm => ({
  name: "",
  transport: "stdio",
  command: "",
  args: [],
  env: [],
  cwd: "",
  url: "",
  headers: [],
  description: "",
  disabled: false,
  protocol: "auto",
});

const isSecretRef = (v: string) => /^\$\{secret:[^}]+\}$/.test(v);

function rows(map: unknown): Row[] {
  if (!map || typeof map !== "object") return [];
  return Object.entries(map as Record<string, unknown>).map(([key, v]) => {
    const value = typeof v === "string" ? v : JSON.stringify(v);
    return { key, value, secret: isSecretRef(value) };
  });
}

/** An entry as written (any dialect's spelling) → the form. */
export function entryToForm(name: string, entry: Record<string, unknown>): EntryForm {
  const type = String(entry.type ?? entry.transport ?? "").toLowerCase().replace(/[-_]/g, "");
  const url = String(entry.url ?? entry.serverUrl ?? "");
  const transport: Transport = entry.command
    ? "stdio"
    : type === "sse"
      ? "sse"
      : type === "http" || type === "streamablehttp"
        ? "http"
        : url
          ? "auto"
          : "stdio";
  return {
    name,
    transport,
    command: typeof entry.command === "string" ? entry.command : "",
    args: Array.isArray(entry.args) ? entry.args.map(String) : [],
    env: rows(entry.env),
    cwd: typeof entry.cwd === "string" ? entry.cwd : "",
    url,
    headers: rows(entry.headers),
    description: typeof entry.description === "string" ? entry.description : "",
    disabled: entry.disabled === true || entry.enabled === false,
    protocol: entry.protocolVersion === "2025-11-25" || entry.protocolVersion === "2026-07-28" ? entry.protocolVersion : "auto",
  };
}

/** Problems to show next to the fields, by field name. */
export function validate(form: EntryForm, takenNames: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!form.name.trim()) out.name = "A server needs a name.";
  else if (takenNames.includes(form.name)) out.name = `A server named "${form.name}" already exists.`;
  if (form.transport === "stdio") {
    if (!form.command.trim()) out.command = "A local server needs a command to run.";
  } else if (!/^https?:\/\/\S+$/i.test(form.url.trim()) && !form.url.startsWith("${")) {
    out.url = "The URL must start with http:// or https://.";
  }
  const dup = (list: Row[]) => list.map((r) => r.key).find((k, i, all) => k !== "" && all.indexOf(k) !== i);
  const envDup = dup(form.env);
  if (envDup) out.env = `"${envDup}" is set twice.`;
  if (form.env.some((r) => !r.key.trim() && r.value)) out.env = "Each variable needs a name.";
  const headerDup = dup(form.headers);
  if (headerDup) out.headers = `"${headerDup}" is set twice.`;
  return out;
}

/**
 * The form → the keys to set on the entry (null removes a key). Keys the
 * form does not know (other clients' settings) are not named, so they stay.
 * `secretRef` stores a secret row's value and returns its reference.
 */
export async function formToFields(
  form: EntryForm,
  secretRef: (field: "env" | "headers", key: string, value: string) => Promise<string>,
): Promise<Record<string, unknown>> {
  const map = async (field: "env" | "headers", list: Row[]) => {
    const out: Record<string, string> = {};
    for (const r of list.filter((r) => r.key.trim())) {
      out[r.key.trim()] = r.secret && !isSecretRef(r.value) ? await secretRef(field, r.key.trim(), r.value) : r.value;
    }
    return Object.keys(out).length ? out : null;
  };
  const local = form.transport === "stdio";
  return {
    type: local || form.transport === "auto" ? null : form.transport,
    command: local ? form.command.trim() : null,
    args: local && form.args.length ? form.args : null,
    env: local ? await map("env", form.env) : null,
    cwd: local && form.cwd.trim() ? form.cwd.trim() : null,
    url: local ? null : form.url.trim(),
    serverUrl: null,
    headers: local ? null : await map("headers", form.headers),
    description: form.description.trim() || null,
    disabled: form.disabled ? true : null,
    enabled: null,
    protocolVersion: form.protocol === "auto" ? null : form.protocol,
  };
}
