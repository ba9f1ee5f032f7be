// A bundle (.mcpb) the person opened: what it is — its publisher as the
// manifest names them, and what its signature says of that (checked: who
// signed, who vouches for them; a signature that does not hold blocks the
// install) — what it asks for (a secret masked, kept in the keychain; a
// required value marked), then installed as theirs.
import { useState } from "react";
import { ShieldAlert, ShieldCheck, ShieldX } from "lucide-react";
import { Badge, Button, Checkbox, Field, Input, useToast } from "../design";
import type { PickedBundle, RegistryBackend } from "../ipc";
import { PathInput } from "./PathInput";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function BundleInstall({
  backend,
  picked,
  existingNames,
  onInstalled,
}: {
  backend: RegistryBackend;
  picked: PickedBundle;
  existingNames: string[];
  onInstalled: (name: string) => void;
}) {
  const toast = useToast();
  const s = picked.shown;
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [name, setName] = useState(s.name);
  const [installing, setInstalling] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const taken = existingNames.includes(name.trim());
  const broken = s.signature.status === "broken";
  const missing = s.fields.filter((f) => f.required && f.default == null && !(answers[f.key] ?? "").trim());
  const install = () => {
    setInstalling(true);
    setError(null);
    const given = Object.entries(answers)
      .filter(([, v]) => v !== "")
      // Several values of a `multiple` one, one a line.
      .flatMap(([k, v]) => (s.fields.find((f) => f.key === k)?.multiple ? v.split("\n").filter(Boolean).map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]));
    // The file as shown: one changed since is refused, never installed unseen.
    backend.installBundle(picked.path, s.sha256, given, name.trim() || null, "user").then(
      (done) => {
        setInstalling(false);
        toast(`Installed ${done.name}`, { description: `Unpacked into ${done.folder}` });
        onInstalled(done.name);
      },
      (e: unknown) => {
        setInstalling(false);
        setError(message(e));
      },
    );
  };
  return (
    <div className="registry-server bundle-install">
      <h2>
        {s.displayName ?? s.name} <span className="muted">{s.version}</span>
      </h2>
      <p>{s.description}</p>
      <Signature shown={s} />
      <p className="muted">
        A {s.serverType} server · <code>{picked.path}</code>
        {s.tools.length > 0 && <> · tools it declares: {s.tools.join(", ")}</>}
      </p>
      {s.fields.length > 0 && <h3>What it asks for</h3>}
      {s.fields.map((f) => (
        <Field
          key={f.key}
          label={
            <>
              {f.title} {f.sensitive && <Badge tone="info">secret</Badge>}
            </>
          }
          required={f.required && f.default == null}
          hint={[f.description, f.sensitive ? "Kept in the OS keychain, never in mcp.json." : null, f.kind === "directory" || f.kind === "file" ? `A ${f.kind} path.` : null, f.multiple ? "One a line." : null, f.default != null ? `Default: ${String(f.default)}` : null].filter(Boolean)
            .map((t) => (/[.!?]$/.test(t as string) ? t : `${t as string}.`))
            .join(" ")}
        >
          {f.kind === "boolean" ? (
            <Checkbox aria-label={f.key} checked={(answers[f.key] ?? String(f.default ?? false)) === "true"} onChange={(e) => setAnswers({ ...answers, [f.key]: String(e.target.checked) })} />
          ) : (f.kind === "file" || f.kind === "directory") && !f.multiple ? (
            <PathInput backend={backend} folder={f.kind === "directory"} label={f.key} value={answers[f.key] ?? ""} onChange={(v) => setAnswers({ ...answers, [f.key]: v })} />
          ) : (
            <Input aria-label={f.key} type={f.sensitive ? "password" : f.kind === "number" ? "number" : "text"} autoComplete="off" value={answers[f.key] ?? ""} onChange={(e) => setAnswers({ ...answers, [f.key]: e.target.value })} />
          )}
        </Field>
      ))}
      <Field label="Name in mcp.json" error={taken ? "A server of this name exists: give another." : undefined}>
        <Input value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      {error && (
        <p role="alert" className="field-error">
          {error}
        </p>
      )}
      <Button onClick={install} disabled={installing || broken || taken || !name.trim() || missing.length > 0}>
        {installing ? "Installing…" : missing.length > 0 ? `Give ${missing.map((f) => f.title).join(", ")}` : "Install"}
      </Button>
    </div>
  );
}

/// Who says they published it, and what the signature says of that.
function Signature({ shown: s }: { shown: PickedBundle["shown"] }) {
  const sig = s.signature;
  const verified = sig.status === "verified";
  const broken = sig.status === "broken";
  const Icon = verified ? ShieldCheck : broken ? ShieldX : ShieldAlert;
  return (
    <div role={broken ? "alert" : "note"} className={`callout ${verified ? "tone-ok" : broken ? "tone-danger" : "tone-warn"} bundle-publisher`}>
      <div>
      <p>
        <Icon aria-hidden size={14} /> Published by <strong>{s.author}</strong>, its manifest says. Signature: {sig.said}.
        {!broken && " Installing lets it run on this machine as you."}
      </p>
      {sig.fingerprint && (
        <p className="muted">
          Certificate {sig.publisher ? `“${sig.publisher}”` : ""} from {sig.issuer ?? "?"}, valid to {sig.validTo?.slice(0, 10) ?? "?"} · SHA-256 <code>{sig.fingerprint}</code>
        </p>
      )}
      </div>
    </div>
  );
}
