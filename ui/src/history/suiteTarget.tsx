// Where Save to suite writes (a call's case or a chat's prompt case): an
// existing suite that can be read, or a new file in the suite folder; and
// the save itself — the suites listed again, a toast with the name the case
// got, the dialog closed, or the reason it was not saved.
import { useEffect, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { HistoryBackend, SuiteInfo } from "../ipc/history";
import { Field, Input, Select, plural, useToast } from "../design";
import { keys } from "../queries";

const NEW = "__new__";

export function useSuiteTarget(backend: HistoryBackend, open: boolean, likely: (s: SuiteInfo) => boolean) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const suites = useQuery({ queryKey: keys.suites(), queryFn: () => backend.suites(), enabled: open });
  const folder = useQuery({ queryKey: keys.suiteFolder(), queryFn: () => backend.suiteFolder(), enabled: open });
  const usable = (suites.data ?? []).filter((s) => !s.broken);
  const [target, setTarget] = useState(NEW);
  const [newName, setNewName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // An existing suite of the same server is the likely home.
  const preferred = usable.find(likely)?.path;
  useEffect(() => setTarget(preferred ?? NEW), [preferred]);

  /** The file to write, or null (the reason is shown) when the new name is not one. */
  const path = (): string | null => {
    if (target !== NEW) return target;
    const name = newName.trim().replace(/\.json$/, "");
    if (!/^[\w.-]+$/.test(name)) {
      setError("A suite's file name uses letters, digits, '-', '_' and '.'");
      return null;
    }
    return `${folder.data ?? ""}/${name}.json`;
  };

  /** Write with `write` (it returns the case's name) and close with `onClose`. */
  const save = async (file: string, write: () => Promise<string>, onClose: () => void) => {
    setSaving(true);
    setError(null);
    try {
      const got = await write();
      void queryClient.invalidateQueries({ queryKey: keys.suites() });
      toast(`Saved as "${got}"`, { description: file });
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  };

  return { usable, folder: folder.data, target, setTarget, newName, setNewName, error, setError, saving, path, save, isNew: target === NEW };
}

/** The suite picker and, for a new suite, its file name. */
export function SuiteTargetFields({ t, newHint }: { t: ReturnType<typeof useSuiteTarget>; newHint?: string }) {
  return (
    <>
      <Field label="Suite">
        <Select value={t.target} onChange={(v) => t.setTarget(v)}>
          {t.usable.map((s) => (
            <option key={s.path} value={s.path}>
              {s.name} ({s.scope}, {plural(s.cases.length + s.prompts.length, "case")})
            </option>
          ))}
          <option value={NEW}>New suite…</option>
        </Select>
      </Field>
      {t.isNew && (
        <Field label="New suite's file name" hint={t.folder ? `In ${t.folder}${newHint ? `; ${newHint}` : ""}` : undefined}>
          <Input value={t.newName} onChange={(e) => t.setNewName(e.target.value)} spellCheck={false} />
        </Field>
      )}
    </>
  );
}
