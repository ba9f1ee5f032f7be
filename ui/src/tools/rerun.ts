// "Re-run on reload": when the open tool's server is reloaded because a
// watched file changed (dev.watch), run the tool's last call again once its
// lists are back, and say whether the result changed.
import { useEffect, useRef, useState } from "react";
import type { DoctorBackend, ToolsBackend } from "../ipc";

const key = (qualified: string) => `mcpwb.rerun.${qualified}`;

/** Whether re-running is on for this tool (remembered per tool). */
export function useRerunSetting(qualified: string): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => localStorage.getItem(key(qualified)) === "1");
  useEffect(() => setOn(localStorage.getItem(key(qualified)) === "1"), [qualified]);
  return [
    on,
    (next) => {
      setOn(next);
      try {
        localStorage.setItem(key(qualified), next ? "1" : "0");
      } catch {
        // Storage off: it holds for this view.
      }
    },
  ];
}

/** Calls `rerun` after each reload of `server` (once its lists are read again), while `on`. */
export function useRerunOnReload(backend: Pick<ToolsBackend, "onCatalogChanged"> & Pick<DoctorBackend, "onDevReloaded">, server: string, on: boolean, rerun: () => void) {
  const pending = useRef(false);
  const latest = useRef(rerun);
  latest.current = rerun;
  useEffect(() => {
    if (!on) return;
    let cancelled = false;
    const offs: (() => void)[] = [];
    void backend.onDevReloaded((s) => {
      if (s === server) pending.current = true;
    }).then((off) => (cancelled ? off() : offs.push(off)));
    void backend.onCatalogChanged((s) => {
      if (s === server && pending.current) {
        pending.current = false;
        latest.current();
      }
    }).then((off) => (cancelled ? off() : offs.push(off)));
    return () => {
      cancelled = true;
      offs.forEach((off) => off());
    };
  }, [backend, server, on]);
}

/** Whether two results are the same, ignoring key order. */
export function sameResult(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v as Record<string, unknown>)
              .sort()
              .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}
