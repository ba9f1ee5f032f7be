// The open session's card: the host as it named itself, what it offered,
// declared and called (its fingerprint), compared with another session's
// host; Export (JSON Lines, HAR), Save as suite.
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Download, FileCode2, ListChecks, Trash2 } from "lucide-react";
import type { SessionsBackend, TapMessage, TapRow } from "../ipc/sessions";
import { Button, Field, Input, Modal, Select, plural, useToast } from "../design";
import { keys } from "../queries";

function when(ms: number) {
  return new Date(ms).toLocaleString();
}

export function hostOf(s: TapRow) {
  return s.host ? `${s.host}${s.host_version ? ` ${s.host_version}` : ""}` : "(no handshake yet)";
}

function list(items: string[]) {
  return items.length ? items.join(", ") : "none";
}

export function SessionCard({
  backend,
  session,
  others,
  messages,
  servers,
  onReview,
  onDeleted,
}: {
  backend: SessionsBackend;
  session: TapRow;
  others: TapRow[];
  messages: TapMessage[];
  /** The config's servers, for the suite's server. */
  servers: string[];
  /** Open the Suites room on the suite made, to read and trust it. */
  onReview?: (path: string) => void;
  /** The session was deleted. */
  onDeleted?: () => void;
}) {
  const [confirmDelete, setConfirmDelete] = useState(false);
  const toast = useToast();
  const queryClient = useQueryClient();
  const [suiteServer, setSuiteServer] = useState("");
  const [against, setAgainst] = useState("");
  const [suiteOpen, setSuiteOpen] = useState(false);
  const [suiteName, setSuiteName] = useState("");
  const [suiteError, setSuiteError] = useState<string | null>(null);
  const print = useQuery({
    queryKey: keys.sessionFingerprint(session.id, session.messages),
    queryFn: () => backend.sessionFingerprint(session.id),
  });
  const changes = useQuery({
    queryKey: keys.sessionCompare(Number(against), session.id),
    queryFn: () => backend.compareSessions(Number(against), session.id),
    enabled: against !== "",
  });
  const http = messages.some((m) => m.direction === "tap" && m.text.startsWith('{"http"'));
  const exportAs = async (har: boolean) => {
    try {
      const path = await backend.exportSession(session.id, har);
      if (path) toast("Session saved", { description: `${path} (credentials masked)` });
    } catch (e) {
      toast("The session was not saved", { description: e instanceof Error ? e.message : String(e), tone: "danger" });
    }
  };
  const makeSuite = async () => {
    setSuiteError(null);
    try {
      const made = await backend.sessionToSuite(session.id, suiteName.trim(), suiteServer || null);
      void queryClient.invalidateQueries({ queryKey: keys.suites() });
      toast(`${plural(made.cases, "case")} of ${made.server} saved as a suite — not trusted yet`, {
        description: `${made.path}${made.leftOut ? ` (${plural(made.leftOut, "call")} answered with an error left out)` : ""}. What the host sent runs once you have read and trusted it in Suites.`,
        action: onReview ? { label: "Review", onClick: () => onReview(made.path) } : undefined,
      });
      setSuiteOpen(false);
    } catch (e) {
      setSuiteError(e instanceof Error ? e.message : String(e));
    }
  };
  const remove = async () => {
    try {
      await backend.deleteSession(session.id);
      void queryClient.invalidateQueries({ queryKey: keys.sessions() });
      toast(`Session ${session.id} deleted`);
      onDeleted?.();
    } catch (e) {
      toast("The session was not deleted", { description: e instanceof Error ? e.message : String(e), tone: "danger" });
    } finally {
      setConfirmDelete(false);
    }
  };
  const f = print.data;
  return (
    <header className="session-card">
      <h2>{hostOf(session)}</h2>
      <dl>
        <dt>Server</dt>
        <dd>
          {session.server} <code>{session.command}</code>
        </dd>
        <dt>Protocol</dt>
        <dd>{session.protocol ?? "not negotiated"}</dd>
        {session.imported_from !== null && (
          <>
            <dt>Opened from</dt>
            <dd>
              <code>{session.imported_from}</code>
            </dd>
          </>
        )}
        <dt>When</dt>
        <dd>
          {when(session.started_at)} – {session.ended_at === null ? "still connected" : when(session.ended_at)}
        </dd>
        {session.dropped > 0 && (
          <>
            <dt>Not kept</dt>
            <dd>{plural(session.dropped, "message")} passed but were not kept (the recorder fell behind)</dd>
          </>
        )}
        {f && (
          <>
            <dt>Offered</dt>
            <dd>{list(f.protocolVersions)}</dd>
            <dt>Extensions</dt>
            <dd>{list(f.extensions)}</dd>
            <dt>Called</dt>
            <dd>{list(f.methods)}</dd>
            <dt>Apps</dt>
            <dd>{f.readAppResource ? "read an App's ui:// resource" : "read no ui:// resource"}</dd>
            {f.listedAgain.length > 0 && (
              <>
                <dt>list_changed</dt>
                <dd>{f.listedAgain.map((l) => `${l.kind}: ${l.again ? "listed again" : "not listed again"}`).join("; ")}</dd>
              </>
            )}
          </>
        )}
      </dl>
      <div className="session-actions">
        <Button size="sm" icon={Download} onClick={() => void exportAs(false)}>
          Export
        </Button>
        {http && (
          <Button size="sm" icon={FileCode2} onClick={() => void exportAs(true)}>
            Export HAR
          </Button>
        )}
        <Button
          size="sm"
          icon={ListChecks}
          onClick={() => {
            setSuiteName(`session-${session.id}`);
            setSuiteError(null);
            setSuiteServer("");
            setSuiteOpen(true);
            // The entry the session was with, when one matches.
            void backend
              .sessionServer(session.id)
              .then((s) => setSuiteServer((now) => now || s || ""))
              .catch(() => undefined);
          }}
        >
          Save as suite
        </Button>
        {confirmDelete ? (
          <>
            <span role="alert">Delete session {session.id} and its messages?</span>
            <Button size="sm" variant="danger" onClick={() => void remove()}>
              Delete
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setConfirmDelete(false)}>
              Keep it
            </Button>
          </>
        ) : (
          <Button size="sm" variant="ghost" icon={Trash2} onClick={() => setConfirmDelete(true)}>
            Delete…
          </Button>
        )}
        {others.length > 0 && (
          <Select value={against} onChange={setAgainst} aria-label="Compare the host with" placeholder="Compare the host with…">
            {others.map((o) => (
              <option key={o.id} value={String(o.id)}>
                {`${hostOf(o)} · session ${o.id}`}
              </option>
            ))}
          </Select>
        )}
      </div>
      {against !== "" && changes.data && (
        <section className="session-compare" aria-label="What changed">
          <h3>From session {against} to this one, the host</h3>
          {changes.data.length === 0 ? (
            <p className="muted">does the same.</p>
          ) : (
            <ul>
              {changes.data.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
          )}
        </section>
      )}
      <Modal
        open={suiteOpen}
        onOpenChange={setSuiteOpen}
        title="Save as suite"
        description="Each answered tools/call becomes a case: its arguments as the host sent them (kept as text), its result a snapshot, compared in either protocol era. The next version of the server is held to what the host saw. The suite runs once you have read and trusted it."
        footer={
          <>
            <Button variant="ghost" onClick={() => setSuiteOpen(false)}>
              Cancel
            </Button>
            <Button variant="primary" icon={ListChecks} onClick={() => void makeSuite()} disabled={!suiteName.trim() || !suiteServer}>
              Save
            </Button>
          </>
        }
      >
        <Field label="Suite name" error={suiteError ?? undefined}>
          <Input value={suiteName} onChange={(e) => setSuiteName(e.target.value)} />
        </Field>
        <Field label="Server the cases call" hint={`The session was with ${session.server}${session.command ? ` (${session.command})` : ""}.`}>
          <Select value={suiteServer} onChange={setSuiteServer} aria-label="Server the cases call" placeholder="Choose a server of your mcp.json…">
            {servers.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Field>
      </Modal>
    </header>
  );
}
