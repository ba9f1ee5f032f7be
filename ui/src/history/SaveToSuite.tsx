// Save to suite: a call becomes a case of a suite file in the project (or
// the user's folder), with assertions proposed from its result — the
// person ticks which to keep. The file is edited, not rewritten.
import { useEffect, useMemo, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Save } from "lucide-react";
import type { HistoryBackend } from "../backend";
import { Button, Checkbox, Field, Input, Modal, Select, useToast, plural } from "../design";
import { expectOf, propose, type Proposal } from "./propose";
import { keys } from "../queries";

export type Saving = {
  server: string;
  tool: string;
  definition: unknown;
  arguments: unknown;
  result: unknown;
  durationMs: number;
  /** The call's row in the history (kept from pruning once saved). */
  historyId: number | null;
};

const NEW = "__new__";

export function SaveToSuite({ backend, call, onClose }: { backend: HistoryBackend; call: Saving | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const suites = useQuery({ queryKey: keys.suites(), queryFn: () => backend.suites(), enabled: call !== null });
  const folder = useQuery({ queryKey: keys.suiteFolder(), queryFn: () => backend.suiteFolder(), enabled: call !== null });
  const usable = (suites.data ?? []).filter((s) => !s.broken);
  const [target, setTarget] = useState(NEW);
  const [newName, setNewName] = useState("");
  const [caseName, setCaseName] = useState("");
  const [proposals, setProposals] = useState<Proposal[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (!call) return;
    setCaseName(call.tool);
    setNewName(call.server);
    setProposals(propose(call.result, call.definition, call.durationMs));
    setError(null);
  }, [call]);
  // An existing suite of this server is the likely home.
  const preferred = useMemo(() => usable.find((s) => s.server === call?.server)?.path, [usable, call]);
  useEffect(() => setTarget(preferred ?? NEW), [preferred]);

  const save = async () => {
    if (!call) return;
    const name = newName.trim().replace(/\.json$/, "");
    if (target === NEW && !/^[\w.-]+$/.test(name)) {
      setError("A suite's file name uses letters, digits, '-', '_' and '.'");
      return;
    }
    if (!caseName.trim()) {
      setError("The case needs a name");
      return;
    }
    const path = target === NEW ? `${folder.data ?? ""}/${name}.json` : target;
    setSaving(true);
    setError(null);
    try {
      const got = await backend.saveToSuite(path, call.server, {
        name: caseName.trim(),
        tool: call.tool,
        arguments: call.arguments ?? {},
        expect: expectOf(proposals),
      }, call.historyId);
      void queryClient.invalidateQueries({ queryKey: keys.suites() });
      toast(`Saved as "${got}"`, { description: path });
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
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
          <Button variant="primary" icon={Save} onClick={() => void save()} disabled={saving}>
            {saving ? "Saving…" : "Save case"}
          </Button>
        </>
      }
    >
      <div className="save-suite">
        <Field label="Suite">
          <Select value={target} onChange={(v) => setTarget(v)}>
            {usable.map((s) => (
              <option key={s.path} value={s.path}>
                {s.name} ({s.scope}, {plural(s.cases.length, "case")})
              </option>
            ))}
            <option value={NEW}>New suite…</option>
          </Select>
        </Field>
        {target === NEW && (
          <Field label="New suite's file name" hint={folder.data ? `In ${folder.data}` : undefined}>
            <Input value={newName} onChange={(e) => setNewName(e.target.value)} spellCheck={false} />
          </Field>
        )}
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
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </div>
    </Modal>
  );
}
