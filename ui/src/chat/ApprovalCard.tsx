// Asking before a call runs: the server, the tool, what the server says
// about it (hints, not promises), what changed since it was allowed, and
// the model's arguments — editable as a form or JSON — then allow once,
// for this chat, always (written to mcp.json), or refuse with a reason.
import { useState } from "react";
import { Check, CheckCheck, ShieldCheck, X } from "lucide-react";
import type { AgentBackend } from "../ipc";
import type { Approval, Decision } from "../ipc/agent";
import { Badge, Button, Input, Segmented, Textarea, useToast } from "../design";
import { SchemaForm } from "../schema/SchemaForm";
import { problems, type Json, type Schema } from "../schema/model";
import { annotationList } from "../tools/annotations";

function decide(backend: AgentBackend, id: number, decision: Decision, toast: ReturnType<typeof useToast>) {
  backend.decideCall(id, decision).catch((e: unknown) => toast("The decision was not taken", { tone: "danger", description: e instanceof Error ? e.message : String(e) }));
}

const allow = (remember: Decision["remember"], args: Json | undefined): Decision => ({ approve: true, arguments: (args ?? null) as Decision["arguments"], remember, reason: null });

export function ApprovalCard({ backend, approval }: { backend: AgentBackend; approval: Approval }) {
  const toast = useToast();
  const def = (approval.definition ?? {}) as Record<string, unknown>;
  const schema = (def.inputSchema ?? { type: "object" }) as Schema;
  const [args, setArgs] = useState<Json | undefined>(approval.arguments as Json);
  const [mode, setMode] = useState<"form" | "json">("form");
  const [jsonText, setJsonText] = useState(() => JSON.stringify(approval.arguments ?? {}, null, 2));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const edited = JSON.stringify(args) !== JSON.stringify(approval.arguments);
  // An App's call (its session is the App's): "for this chat" is "while the App is open".
  const fromApp = approval.session.startsWith("app:");
  // A tool that takes nothing, called with nothing: no empty box to look at.
  const props = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  const given = approval.arguments && typeof approval.arguments === "object" ? Object.keys(approval.arguments) : [];
  const noArguments = Object.keys(props).length === 0 && given.length === 0;
  // The same whole-schema check as the tool panel's, on what would run.
  const wrong = jsonError ? [] : problems(schema, args ?? {}, schema);
  return (
    <div className="approval" role="group" aria-label={`Approve ${approval.server} ${approval.tool}`}>
      <div className="approval-head">
        <ShieldCheck aria-hidden size={16} />
        <strong>
          Run <code>{approval.tool}</code> on {approval.server}?
        </strong>
        {annotationList(def.annotations).map((h) => (
          <Badge key={h.label} tone={h.tone as "ok"} icon={h.icon} title="A hint from the server, not a guarantee">
            {h.label}
          </Badge>
        ))}
      </div>
      {typeof def.description === "string" && <p className="approval-description">{def.description}</p>}
      {approval.changed && (
        <div className="approval-changed" role="note">
          <p>
            <strong>This tool changed since you allowed it.</strong> What differs:
          </p>
          <pre className="diff">
            {approval.changed
              .filter((l) => l.op !== " ")
              .map((l, i) => (
                <span key={i} className={l.op === "+" ? "diff-add" : "diff-del"}>
                  {l.op} {l.text.trim()}
                  {"\n"}
                </span>
              ))}
          </pre>
        </div>
      )}
      {noArguments ? (
        <p className="muted approval-no-args">No arguments.</p>
      ) : (
        <div className="approval-args">
          <div className="toolbar">
            <span className="field-label">Arguments{edited && " (edited)"}</span>
            <Segmented
              label="Edit arguments as"
              value={mode}
              onChange={(m) => {
                if (m === "json") setJsonText(JSON.stringify(args ?? {}, null, 2));
                setMode(m);
              }}
              options={[
                { value: "form", label: "Form" },
                { value: "json", label: "JSON" },
              ]}
            />
          </div>
          {mode === "form" ? (
            <SchemaForm schema={schema} value={args} onChange={setArgs} />
          ) : (
            <>
              <Textarea
                aria-label="Arguments as JSON"
                className="json-field"
                spellCheck={false}
                value={jsonText}
                onChange={(e) => {
                  setJsonText(e.target.value);
                  try {
                    setArgs(JSON.parse(e.target.value) as Json);
                    setJsonError(null);
                  } catch (err) {
                    setJsonError(err instanceof Error ? err.message : String(err));
                  }
                }}
              />
              {jsonError && <p className="field-error">Not JSON: {jsonError}</p>}
            </>
          )}
        </div>
      )}
      {wrong.length > 0 && (
        <div className="callout tone-warn run-problems" role="alert">
          <div>
            <p>{edited ? "The edited arguments" : "The model's arguments"} do not fit the tool&apos;s schema; allowing sends them as they are.</p>
            <ul>
              {wrong.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
        </div>
      )}
      <div className="approval-actions">
        <Button variant="primary" icon={Check} disabled={!!jsonError} onClick={() => decide(backend, approval.id, allow("once", edited ? args : undefined), toast)}>
          Allow once
        </Button>
        <Button icon={CheckCheck} disabled={!!jsonError} onClick={() => decide(backend, approval.id, allow("chat", edited ? args : undefined), toast)}>
          {fromApp ? "Allow while this App is open" : "Allow in this chat"}
        </Button>
        <Button variant="ghost" disabled={!!jsonError} onClick={() => decide(backend, approval.id, allow("always", edited ? args : undefined), toast)}>
          Always allow
        </Button>
        <span className="run-bar-spacer" />
        <Input aria-label="Reason for refusing (told to the model)" placeholder="Why not? (optional)" value={reason} onChange={(e) => setReason(e.target.value)} />
        <Button variant="danger" icon={X} onClick={() => decide(backend, approval.id, { approve: false, arguments: null, remember: "once", reason: reason || null }, toast)}>
          Deny
        </Button>
      </div>
    </div>
  );
}

/** Several calls asked together: decide them all at once. */
export function ApprovalBatch({ backend, approvals }: { backend: AgentBackend; approvals: Approval[] }) {
  const toast = useToast();
  return (
    <div className="approval-batch" role="group" aria-label="Calls waiting together">
      <span>{approvals.length} calls are waiting for you.</span>
      <Button size="sm" variant="primary" icon={CheckCheck} onClick={() => approvals.forEach((a) => decide(backend, a.id, allow("once", undefined), toast))}>
        Allow all once
      </Button>
      <Button size="sm" variant="danger" icon={X} onClick={() => approvals.forEach((a) => decide(backend, a.id, { approve: false, arguments: null, remember: "once", reason: null }, toast))}>
        Deny all
      </Button>
    </div>
  );
}
