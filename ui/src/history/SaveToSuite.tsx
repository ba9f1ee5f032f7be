// Save to suite: a call becomes a case of a suite file in the project (or
// the user's folder), with assertions proposed from its result — the
// person ticks which to keep. The file is edited, not rewritten.
import { useEffect, useState } from "react";
import { Save } from "lucide-react";
import type { HistoryBackend } from "../ipc";
import { Button, Checkbox, Field, Input, Modal } from "../design";
import { expectOf, propose, type Proposal } from "./propose";
import { SuiteTargetFields, useSuiteTarget } from "./suiteTarget";

export type Saving = {
  server: string;
  tool: string;
  definition: unknown;
  arguments: unknown;
  result: unknown;
  durationMs: number;
  /** The key of the call's row in the history (kept from pruning once saved). */
  historyKey: string | null;
};

export function SaveToSuite({ backend, call, onClose }: { backend: HistoryBackend; call: Saving | null; onClose: () => void }) {
  const t = useSuiteTarget(backend, call !== null, (s) => s.server === call?.server);
  const { setNewName, setError } = t;
  const [caseName, setCaseName] = useState("");
  const [proposals, setProposals] = useState<Proposal[]>([]);
  useEffect(() => {
    if (!call) return;
    setCaseName(call.tool);
    setNewName(call.server);
    setProposals(propose(call.result, call.definition, call.durationMs));
    setError(null);
  }, [call, setNewName, setError]);

  const save = async () => {
    if (!call) return;
    const path = t.path();
    if (path === null) return;
    if (!caseName.trim()) {
      t.setError("The case needs a name");
      return;
    }
    await t.save(
      path,
      () =>
        backend.saveToSuite(
          path,
          call.server,
          { name: caseName.trim(), tool: call.tool, arguments: call.arguments ?? {}, expect: expectOf(proposals) },
          call.historyKey,
        ),
      onClose,
    );
  };

  return (
    <Modal
      open={call !== null}
      onOpenChange={(open) => !open && onClose()}
      title="Save to suite"
      description="The call becomes a case that mcpwb test and the Suites room run; tick what its result must be."
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="primary" icon={Save} onClick={() => void save()} disabled={t.saving}>
            {t.saving ? "Saving…" : "Save case"}
          </Button>
        </>
      }
    >
      <div className="save-suite">
        <SuiteTargetFields t={t} />
        <Field label="Case name">
          <Input value={caseName} onChange={(e) => setCaseName(e.target.value)} />
        </Field>
        <fieldset className="proposals">
          <legend>What the result must be</legend>
          {proposals.map((p, i) => (
            <label key={p.id} className="proposal">
              <Checkbox
               
                checked={p.checked}
                onChange={(e) => setProposals((all) => all.map((q, j) => (j === i ? { ...q, checked: e.target.checked } : q)))}
              />
              <span>{p.label}</span>
            </label>
          ))}
        </fieldset>
        {t.error && (
          <p className="field-error" role="alert">
            {t.error}
          </p>
        )}
      </div>
    </Modal>
  );
}
