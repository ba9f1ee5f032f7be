// Save to suite from a chat: the person's message and what the model did
// become a prompt case — its calls proposed as assertions (tick which, and
// whether their arguments must be the same), the steps it took as a limit,
// runs and the share that must pass. A new suite gets the chat's model.
import { useEffect, useState } from "react";
import { Save } from "lucide-react";
import type { HistoryBackend, TurnCase } from "../ipc/history";
import { Button, Checkbox, Field, Input, Modal, Textarea, plural } from "../design";
import { SuiteTargetFields, useSuiteTarget } from "../history/suiteTarget";

export interface Choices {
  name: string;
  prompt: string;
  /** Per call of the turn: kept as an assertion, and with its arguments. */
  calls: { keep: boolean; withArguments: boolean }[];
  inOrder: boolean;
  maxSteps: boolean;
  answerContains: string;
  runs: number;
  passRate: number;
}

export function defaultChoices(turn: TurnCase): Choices {
  const words = turn.prompt.split(/\s+/).filter(Boolean).slice(0, 6).join(" ");
  return {
    name: words.length > 0 ? words : "prompt",
    prompt: turn.prompt,
    calls: turn.calls.map(() => ({ keep: true, withArguments: true })),
    inOrder: false,
    maxSteps: true,
    answerContains: "",
    runs: 3,
    passRate: 1,
  };
}

/** The prompt case a suite holds, from the turn and the person's choices. */
export function promptCaseOf(turn: TurnCase, c: Choices): Record<string, unknown> {
  const calls = turn.calls.flatMap((call, i) => {
    const choice = c.calls[i];
    if (!choice?.keep) return [];
    const entry: Record<string, unknown> = { tool: call.tool };
    const args = call.arguments;
    if (choice.withArguments && args && typeof args === "object" && !Array.isArray(args)) {
      const matchers: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
        // A JSON pointer's "~" and "/" are escaped.
        matchers[`/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`] = { equals: v };
      }
      if (Object.keys(matchers).length > 0) entry.arguments = matchers;
    }
    return [entry];
  });
  const expect: Record<string, unknown> = {};
  if (calls.length > 0) expect.calls = calls;
  if (c.inOrder && calls.length > 1) expect.inOrder = true;
  if (c.answerContains.trim()) expect.answer = { contains: c.answerContains.trim() };
  if (c.maxSteps && turn.steps > 0) expect.maxSteps = turn.steps;
  const out: Record<string, unknown> = { name: c.name.trim(), prompt: c.prompt, servers: turn.servers, expect };
  if (c.runs !== 1) out.runs = c.runs;
  if (c.passRate !== 1) out.passRate = c.passRate;
  return out;
}

export function SavePromptCase({ backend, turn, onClose }: { backend: HistoryBackend; turn: TurnCase | null; onClose: () => void }) {
  const t = useSuiteTarget(backend, turn !== null, (s) => Boolean(turn && s.server && turn.servers.includes(s.server)));
  const { setNewName, setError } = t;
  const [choices, setChoices] = useState<Choices | null>(null);
  useEffect(() => {
    if (turn) setChoices(defaultChoices(turn));
    setNewName("evals");
    setError(null);
  }, [turn, setNewName, setError]);
  const set = (change: Partial<Choices>) => setChoices((c) => (c ? { ...c, ...change } : c));

  const save = async () => {
    if (!turn || !choices) return;
    const path = t.path();
    if (path === null) return;
    if (!choices.name.trim() || !choices.prompt.trim()) {
      t.setError("The case needs a name and a prompt");
      return;
    }
    if (turn.servers.length === 0) {
      t.setError("This chat used no server's tools: a prompt case needs the servers its model may use");
      return;
    }
    await t.save(path, () => backend.savePromptCase(path, promptCaseOf(turn, choices), [turn.model]), onClose);
  };

  return (
    <Modal
      open={turn !== null}
      onOpenChange={(open) => !open && onClose()}
      title="Save to suite as a prompt case"
      description="The message becomes a prompt case: each of the suite's models gets it, and its calls and answer are checked. The Suites room and mcpwb test run it."
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="primary" icon={Save} onClick={() => void save()} disabled={t.saving || !choices}>
            {t.saving ? "Saving…" : "Save case"}
          </Button>
        </>
      }
    >
      {turn && choices && (
        <div className="save-suite">
          <SuiteTargetFields t={t} newHint={`its models: ${turn.model}`} />
          <Field label="Case name">
            <Input value={choices.name} onChange={(e) => set({ name: e.target.value })} />
          </Field>
          <Field label="Prompt">
            <Textarea value={choices.prompt} rows={3} onChange={(e) => set({ prompt: e.target.value })} />
          </Field>
          <fieldset className="proposals">
            <legend>What the model must do ({turn.servers.length > 0 ? `tools of ${turn.servers.join(", ")}` : "no server's tools"})</legend>
            {turn.calls.length === 0 && <p className="muted">The model called no tool in this turn.</p>}
            {turn.calls.map((call, i) => (
              <div key={i} className="proposal-group">
                <label className="proposal">
                  <Checkbox
                    checked={choices.calls[i]?.keep ?? false}
                    onChange={(e) => set({ calls: choices.calls.map((c, j) => (j === i ? { ...c, keep: e.target.checked } : c)) })}
                  />
                  <span>
                    calls <code>{call.tool}</code>
                  </span>
                </label>
                <label className="proposal proposal-sub">
                  <Checkbox
                    checked={choices.calls[i]?.withArguments ?? false}
                    disabled={!choices.calls[i]?.keep}
                    onChange={(e) => set({ calls: choices.calls.map((c, j) => (j === i ? { ...c, withArguments: e.target.checked } : c)) })}
                  />
                  <span>
                    with <code>{JSON.stringify(call.arguments)}</code>
                  </span>
                </label>
              </div>
            ))}
            {turn.calls.length > 1 && (
              <label className="proposal">
                <Checkbox checked={choices.inOrder} onChange={(e) => set({ inOrder: e.target.checked })} />
                <span>in this order</span>
              </label>
            )}
            <label className="proposal">
              <Checkbox checked={choices.maxSteps} onChange={(e) => set({ maxSteps: e.target.checked })} />
              <span>within {plural(turn.steps, "step")} (as this turn took)</span>
            </label>
          </fieldset>
          <Field label="The answer contains (optional)" hint={turn.answer ? `This turn's answer: ${turn.answer.slice(0, 160)}` : undefined}>
            <Input value={choices.answerContains} onChange={(e) => set({ answerContains: e.target.value })} />
          </Field>
          <div className="save-suite-row">
            <Field label="Runs per model">
              <Input type="number" min={1} max={100} value={choices.runs} onChange={(e) => set({ runs: Math.max(1, Math.min(100, Number(e.target.value) || 1)) })} />
            </Field>
            <Field label="Share that must pass">
              <Input type="number" min={0} max={1} step={0.1} value={choices.passRate} onChange={(e) => set({ passRate: Math.max(0, Math.min(1, Number(e.target.value))) })} />
            </Field>
          </div>
          {t.error && (
            <p className="field-error" role="alert">
              {t.error}
            </p>
          )}
        </div>
      )}
    </Modal>
  );
}
