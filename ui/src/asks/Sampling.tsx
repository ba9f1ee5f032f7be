// A server's request for an LLM answer (sampling): the person sees the
// request — system prompt, messages, limit — and may edit it; asks the
// configured model (or writes the answer by hand); sees the reply and may
// edit it; then sends it, or refuses. "Always" lets the model answer this
// server's requests without asking (Settings can take it back).
import { useEffect, useState } from "react";
import { Bot, Send, X } from "lucide-react";
import type { PendingAsk } from "../ipc";
import { Button, Field, Input, Switch, Textarea, useToast } from "../design";
import type { AgentBackend } from "../ipc";

type Params = Record<string, unknown>;
type Message = { role: string; content: unknown };

const textOf = (content: unknown): string | null => {
  const c = content as Params | Params[];
  if (Array.isArray(c)) return c.every((b) => b.type === "text") ? c.map((b) => String(b.text ?? "")).join("\n") : null;
  return c && c.type === "text" ? String(c.text ?? "") : null;
};

export function Sampling({ backend, ask, answer, refuse }: { backend: AgentBackend; ask: PendingAsk; answer: (result: unknown) => void; refuse: () => void }) {
  const toast = useToast();
  const params = ask.params as Params;
  const [system, setSystem] = useState(typeof params.systemPrompt === "string" ? params.systemPrompt : "");
  const [messages, setMessages] = useState<Message[]>(() => (Array.isArray(params.messages) ? (params.messages as Message[]) : []));
  const [maxTokens, setMaxTokens] = useState(typeof params.maxTokens === "number" ? params.maxTokens : 512);
  const [reply, setReply] = useState<{ text: string; model: string; raw: Params | null }>({ text: "", model: "written by hand", raw: null });
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [always, setAlways] = useState(false);
  // Which configured model answers, by the request's modelPreferences, and why.
  const [chosen, setChosen] = useState<{ provider: string; model: string; why: string } | null>(null);
  useEffect(() => {
    let live = true;
    backend.samplingModel(params).then(
      (c) => live && setChosen(c),
      () => live && setChosen(null),
    );
    return () => {
      live = false;
    };
  }, [backend, params]);
  const edited = (): Params => ({ ...params, systemPrompt: system || undefined, messages, maxTokens });
  const askModel = () => {
    setAsking(true);
    setProblem(null);
    backend
      .sampleWithModel(edited())
      .then((r) => {
        const result = r as Params;
        const text = textOf(result.content);
        setReply({ text: text ?? JSON.stringify(result.content, null, 2), model: String(result.model ?? "model"), raw: text === null ? result : null });
      })
      .catch((e: unknown) => setProblem(e instanceof Error ? e.message : String(e)))
      .finally(() => setAsking(false));
  };
  const send = () => {
    if (always) {
      backend
        .updateAgentSettings({ default_provider: null, max_steps: null, deferred_threshold: null, session_max_idle_days: null, tool_policy: null, trusted: null, auto_sampling: [ask.server, true] })
        .then(() => toast(`The model answers ${ask.server}'s sampling requests from now on`, { description: "Change it in Settings." }), () => undefined);
    }
    if (reply.raw) {
      answer(reply.raw);
      return;
    }
    answer({ role: "assistant", content: { type: "text", text: reply.text }, model: reply.model, stopReason: "endTurn" });
  };
  return (
    <>
      <Field label="System prompt">
        <Textarea value={system} onChange={(e) => setSystem(e.target.value)} rows={2} />
      </Field>
      <ol className="ask-messages">
        {messages.map((m, i) => {
          const text = textOf(m.content);
          return (
            <li key={i}>
              <strong>{m.role}:</strong>{" "}
              {text === null ? (
                <code>{JSON.stringify(m.content)}</code>
              ) : (
                <Textarea
                  aria-label={`Message ${i + 1} (${m.role})`}
                  value={text}
                  rows={Math.min(6, text.split("\n").length + 1)}
                  onChange={(e) => setMessages((old) => old.map((o, j) => (j === i ? { ...o, content: { type: "text", text: e.target.value } } : o)))}
                />
              )}
            </li>
          );
        })}
      </ol>
      {typeof params.modelPreferences === "object" && params.modelPreferences !== null && (
        <p className="muted model-preferences">The server prefers: {describePreferences(params.modelPreferences as Params)}.</p>
      )}
      {chosen && (
        <p className="muted sampling-model">
          Ask the model uses <code>{`${chosen.provider}:${chosen.model}`}</code>: {chosen.why}. Its name is reported back.
        </p>
      )}
      <Field label="Up to (tokens)">
        <Input type="number" min={1} value={maxTokens} onChange={(e) => setMaxTokens(Math.max(1, Number(e.target.value) || 1))} />
      </Field>
      <div className="dialog-buttons">
        <Button icon={Bot} disabled={asking} onClick={askModel}>
          {asking ? "Asking the model…" : "Ask the model"}
        </Button>
      </div>
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      <Field label={reply.raw ? "Reply (the model's content, as JSON)" : "Reply"} hint="Edit it before it goes back, or write one yourself.">
        <Textarea aria-label="Answer" value={reply.text} rows={5} onChange={(e) => setReply((r) => ({ ...r, text: e.target.value, raw: r.raw ? safeJson(e.target.value, r.raw) : null }))} />
      </Field>
      <Field label="Model name reported">
        <Input value={reply.model} onChange={(e) => setReply((r) => ({ ...r, model: e.target.value }))} />
      </Field>
      <Switch label={`Let the model answer ${ask.server} without asking`} checked={always} onChange={setAlways} />
      <div className="dialog-buttons">
        <Button variant="primary" icon={Send} onClick={send} disabled={!reply.text.trim()}>
          Send answer
        </Button>
        <Button icon={X} onClick={refuse}>
          Refuse
        </Button>
      </div>
    </>
  );
}

/** A server's model preferences in words: hints, and what it values. */
function describePreferences(p: Params): string {
  const hints = Array.isArray(p.hints) ? (p.hints as Params[]).map((h) => String(h.name ?? "")).filter(Boolean) : [];
  const values = (["cost", "speed", "intelligence"] as const)
    .map((k) => [k, p[`${k}Priority`]] as const)
    .filter(([, v]) => typeof v === "number")
    .map(([k, v]) => `${k} ${Number(v).toFixed(1)}`);
  return [hints.length ? `models like ${hints.join(", ")}` : "", values.length ? `priorities ${values.join(", ")}` : ""].filter(Boolean).join("; ") || "no particular model";
}

/** The raw result with its content replaced by the edited JSON (kept when it does not parse). */
function safeJson(text: string, raw: Params): Params {
  try {
    return { ...raw, content: JSON.parse(text) as unknown };
  } catch {
    return raw;
  }
}
