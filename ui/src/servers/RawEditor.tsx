// The whole mcp.json in an editor (CodeMirror, JSON with comments). Saving
// is refused while the text does not load; the file is then untouched, and
// the error says where (line:column). A file changed elsewhere meanwhile is
// a conflict: nothing is written.
import { useEffect, useState } from "react";
import CodeMirror from "@uiw/react-codemirror";
import { json } from "@codemirror/lang-json";
import { editorTheme } from "../design/editorTheme";
import { BackendError, type Scope, type ConfigBackend } from "../ipc";
import { Button } from "../design";

export function RawEditor({
  backend,
  onClose,
  diskVersion,
  hasProject = false,
}: {
  backend: ConfigBackend;
  onClose: () => void;
  diskVersion: number;
  /** A project folder is open: its `.mcp.json` can be edited too. */
  hasProject?: boolean;
}) {
  const [scope, setScope] = useState<Scope>("user");
  const [base, setBase] = useState<string | null>(null);
  const [text, setText] = useState("");
  const [path, setPath] = useState("");
  const [error, setError] = useState<{ code: string; message: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const load = () => {
    setError(null);
    backend.readConfig(scope).then(
      (c) => {
        setBase(c.text);
        setText(c.text || '{\n  "mcpServers": {}\n}\n');
        setPath(c.path);
      },
      (e: unknown) => setError({ code: e instanceof BackendError ? e.code : "internal", message: e instanceof Error ? e.message : String(e) }),
    );
  };
  useEffect(load, [backend, scope]);
  // The file changed on disk while open: reload if nothing is unsaved, else say so.
  const [changedOnDisk, setChangedOnDisk] = useState(false);
  const [seenVersion, setSeenVersion] = useState(diskVersion);
  if (diskVersion !== seenVersion) {
    setSeenVersion(diskVersion);
    if (base !== null && text !== base) setChangedOnDisk(true);
    else load();
  }
  const save = () => {
    if (base === null) return;
    setSaved(false);
    backend.saveConfig(text, base, scope).then(
      () => {
        setBase(text);
        setError(null);
        setSaved(true);
      },
      (e: unknown) => setError({ code: e instanceof BackendError ? e.code : "internal", message: e instanceof Error ? e.message : String(e) }),
    );
  };
  const dirty = base !== null && text !== base;
  return (
    <div
      className="raw-editor"
      onKeyDown={(e) => {
        if (e.key === "s" && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          save();
        }
      }}
    >
      <div className="toolbar">
        {hasProject && (
          <div className="segmented" role="group" aria-label="File">
            {(["user", "project"] as const).map((s) => (
              <Button variant="secondary"
                key={s}
                aria-pressed={scope === s}
                disabled={dirty && scope !== s}
                title={dirty && scope !== s ? "Save or reload first: the unsaved text would be lost" : undefined}
                onClick={() => {
                  if (s === scope) return;
                  setBase(null);
                  setSaved(false);
                  setScope(s);
                }}
              >
                {s === "user" ? "User file" : "Project file"}
              </Button>
            ))}
          </div>
        )}
        <strong>{path}</strong>
        <Button variant="primary" disabled={!dirty} onClick={save} title="Ctrl+S">
          Save
        </Button>
        <Button variant="secondary" onClick={load}>
          Reload from disk
        </Button>
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
        {dirty && <span className="muted">unsaved changes</span>}
        {saved && !dirty && <span role="status">saved; servers follow the file</span>}
      </div>
      {changedOnDisk && (
        <div className="notice" role="alert">
          <p>mcp.json changed on disk while you were editing. Saving now would be refused; copy your edit, then reload.</p>
          <Button variant="secondary"
            onClick={() => {
              setChangedOnDisk(false);
              load();
            }}
          >
            Reload from disk (drops your unsaved text)
          </Button>
        </div>
      )}
      {error && (
        <div className="error-banner" role="alert" data-code={error.code}>
          <p className="error-message">{error.message}</p>
          <p className="error-hint">
            {error.code === "config_conflict"
              ? "Reload from disk to see the other change (copy your edit first), then save again."
              : "Nothing was written; the file on disk is as it was."}
          </p>
        </div>
      )}
      {base !== null && <CodeMirror value={text} height="calc(100vh - 210px)" theme="none" extensions={[json(), ...editorTheme(`${path || "mcp.json"} text`)]} onChange={setText} />}
    </div>
  );
}
