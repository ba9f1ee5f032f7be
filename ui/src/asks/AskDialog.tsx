// What a server asks a person: an elicitation (a form from the requested
// schema: accept, decline or cancel) or a sampling request (Sampling.tsx:
// edit the request, ask the model or write the answer, edit it, send or
// refuse). One at a time, oldest first.
import { useEffect, useState } from "react";
import type { PendingAsk } from "../ipc";
import { SchemaForm } from "../schema/SchemaForm";
import { Sampling } from "./Sampling";
import { initialValue, problems, type Json, type Schema } from "../schema/model";
import { Button } from "../design";
import type { AgentBackend, AsksBackend, ServersBackend } from "../ipc";

type Params = Record<string, unknown>;

function Elicitation({
  ask,
  answer,
  openUrl,
}: {
  ask: PendingAsk;
  answer: (result: unknown) => void;
  openUrl: () => Promise<void>;
}) {
  const params = ask.params as Params;
  const schema = (params.requestedSchema ?? { type: "object", properties: {} }) as Schema;
  const [value, setValue] = useState<Json | undefined>(() => initialValue(schema, schema));
  const [opening, setOpening] = useState(false);
  const [blocked, setBlocked] = useState<string[] | null>(null);
  const accept = (anyway: boolean) => {
    const wrong = anyway ? [] : problems(schema, value ?? {}, schema);
    if (wrong.length > 0) setBlocked(wrong);
    else answer({ action: "accept", content: value ?? {} });
  };
  const url = typeof params.url === "string" ? params.url : null;
  // URL mode: nothing opens until the person chooses to; opening accepts.
  const openAndAccept = () => {
    setOpening(true);
    openUrl()
      .then(() => answer({ action: "accept" }))
      .catch(() => undefined)
      .finally(() => setOpening(false));
  };
  return (
    <>
      <p className="ask-message">{String(params.message ?? "")}</p>
      {url ? (
        <div className="ask-url">
          <p>The server asks you to open this address in your browser:</p>
          <code>{url}</code>
          <p className="muted">Open it only if you trust this server and the address. Nothing opens unless you choose to.</p>
          <Button variant="secondary" onClick={() => void navigator.clipboard.writeText(url).catch(() => undefined)}>
            Copy address
          </Button>
        </div>
      ) : (
        <SchemaForm schema={schema} value={value} onChange={setValue} />
      )}
      {blocked && (
        <div className="callout tone-warn run-problems" role="alert">
          <div>
            <p>The answer does not fit what the server asked for:</p>
            <ul>
              {blocked.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
          <Button variant="secondary" onClick={() => accept(true)}>
            Send anyway
          </Button>
        </div>
      )}
      <div className="dialog-buttons">
        {url ? (
          <>
            <Button variant="primary" disabled={opening} onClick={openAndAccept}>
              Open in browser
            </Button>
            <Button variant="secondary" onClick={() => answer({ action: "accept" })}>
              Accept without opening
            </Button>
          </>
        ) : (
          <Button variant="primary" onClick={() => accept(false)}>
            Accept
          </Button>
        )}
        <Button variant="secondary" onClick={() => answer({ action: "decline" })}>
          Decline
        </Button>
        <Button variant="secondary" onClick={() => answer({ action: "cancel" })}>
          Cancel
        </Button>
      </div>
    </>
  );
}

export function AskDialog({ backend }: { backend: AsksBackend & ServersBackend & AgentBackend }) {
  const [asks, setAsks] = useState<PendingAsk[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    let unlisten: (() => void) | undefined;
    void backend
      .onAsks(
        (ask) => setAsks((old) => (old.some((a) => a.id === ask.id) ? old : [...old, ask])),
        (id) => setAsks((old) => old.filter((a) => a.id !== id)),
      )
      .then((u) => {
        if (cancelled) u();
        else unlisten = u;
      });
    void backend
      .pendingAsks()
      .then((list) => !cancelled && setAsks((old) => [...list.filter((a) => !old.some((o) => o.id === a.id)), ...old]))
      .catch(() => undefined);
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }, [backend]);
  const ask = asks[0];
  if (!ask) return null;
  const done = () => setAsks((old) => old.filter((a) => a.id !== ask.id));
  const send = (result: unknown, refusal?: string) => {
    setError(null);
    backend
      .answerAsk(ask.id, result, refusal)
      .then(done)
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };
  const title = ask.kind === "elicitation" ? "asks you for input" : "asks for an LLM answer (sampling)";
  return (
    <div className="dialog-backdrop">
      <div className="dialog" role="dialog" aria-modal="true" aria-label={`${ask.server} ${title}`}>
        <h2>
          {ask.server} {title}
        </h2>
        {asks.length > 1 && <p className="muted">{asks.length - 1} more waiting</p>}
        {ask.kind === "elicitation" ? (
          <Elicitation
            key={ask.id}
            ask={ask}
            answer={(r) => send(r)}
            openUrl={() =>
              backend.openAskUrl(ask.id).catch((e: unknown) => {
                setError(e instanceof Error ? e.message : String(e));
                throw e;
              })
            }
          />
        ) : (
          <Sampling key={ask.id} backend={backend} ask={ask} answer={(r) => send(r)} refuse={() => send(null, "refused by the user")} />
        )}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-server-actions">
          <Button
            variant="ghost"
            onClick={() => {
              setError(null);
              backend
                .declineServerAsks(ask.server)
                .then(() => setAsks((old) => old.filter((a) => a.server !== ask.server)))
                .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
            }}
          >
            Decline all from {ask.server}
          </Button>
          <Button
            variant="ghost"
            onClick={() => {
              setError(null);
              const server = ask.server;
              backend
                .declineServerAsks(server)
                .then(() => backend.stopServer(server))
                .then(() => setAsks((old) => old.filter((a) => a.server !== server)))
                .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
            }}
          >
            Stop {ask.server}
          </Button>
        </div>
      </div>
    </div>
  );
}
