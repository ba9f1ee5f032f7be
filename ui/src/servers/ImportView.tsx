// Import servers from the other MCP clients' configs found on this machine.
import { useEffect, useState } from "react";
import type { FoundConfig } from "../ipc";
import { Button, Checkbox } from "../design";
import { plural } from "../design/words";
import type { ConfigBackend } from "../ipc";

export function ImportView({ backend, ours, onDone }: { backend: ConfigBackend; ours: string[]; onDone: () => void }) {
  const [found, setFound] = useState<FoundConfig[] | null>(null);
  const [picked, setPicked] = useState<Record<string, string[]>>({});
  const [replace, setReplace] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  // Ticked at first: what we do not have yet (all of them to replace ours).
  const fresh = (f: FoundConfig) => (replace ? f.servers : f.servers.filter((s) => !ours.includes(s)));
  useEffect(() => {
    backend.discoverConfigs().then(setFound, (e: unknown) => setMessage(e instanceof Error ? e.message : String(e)));
  }, [backend]);
  const importFrom = (f: FoundConfig) => {
    const only = picked[f.path] ?? fresh(f);
    backend.importConfig(f.path, f.dialect, only, replace).then(
      (m) => {
        // Ticked again from what we have now: what was brought is ours.
        setPicked((all) => Object.fromEntries(Object.entries(all).filter(([path]) => path !== f.path)));
        setMessage(
          `Imported ${plural(m.added.length, "server")}${m.added.length ? `: ${m.added.join(", ")}` : ""}${m.kept.length ? `; kept ours for ${m.kept.join(", ")}` : ""}.${m.notes.map((n) => ` ${n}.`).join("")}`,
        );
      },
      (e: unknown) => setMessage(e instanceof Error ? e.message : String(e)),
    );
  };
  return (
    <div className="import-view">
      <h2>Import from other MCP clients</h2>
      <p className="muted">Each server shows what it would run or reach. Imported servers start once you trust them (from the server's page).</p>
      {found === null && <p className="muted">Looking for Claude, Codex, Cursor, Gemini CLI, VS Code, Windsurf, Zed, Cline, Roo, Goose, Continue, LM Studio and OpenCode configs…</p>}
      {found?.length === 0 && <p className="muted">No other client's MCP config was found in its usual place. `mcpwb config import PATH` takes any file.</p>}
      {found?.map((f) => {
        const chosen = picked[f.path] ?? fresh(f);
        return (
          <section key={f.path} className="panel-section import-source" aria-label={`${f.dialect} ${f.path}`}>
            <h3>
              {f.dialect} <code>{f.path}</code>
            </h3>
            {f.servers.map((s, i) => (
              <label key={s} className="field checkbox import-entry">
                <Checkbox
                 
                  checked={chosen.includes(s)}
                  onChange={(e) =>
                    setPicked({ ...picked, [f.path]: e.target.checked ? [...chosen, s] : chosen.filter((x) => x !== s) })
                  }
                />
                {s} {ours.includes(s) && <span className="badge">we have one</span>}
                {f.targets[i] && (
                  <code className="import-target truncate" title={f.targets[i]}>
                    {f.targets[i]}
                  </code>
                )}
              </label>
            ))}
            {f.error && (
              <p className="field-error">
                Cannot import this file: {f.error}
              </p>
            )}
            {f.notes.map((n) => (
              <p key={n} className="muted">
                {n}
              </p>
            ))}
            <Button variant="secondary" disabled={chosen.length === 0} onClick={() => importFrom(f)}>
              Import {plural(chosen.length, "server")}
            </Button>
          </section>
        );
      })}
      <label className="field checkbox">
        <Checkbox checked={replace} onChange={(e) => setReplace(e.target.checked)} /> Replace servers we already have
      </label>
      {message && <p role="status">{message}</p>}
      <Button variant="secondary" onClick={onDone}>
        Close
      </Button>
    </div>
  );
}
