// Places inside rooms that something outside them opens (the sidebar's
// doctor badge, the command palette): a server's Doctor, a tool's Load, the
// Sessions room's Hosts. The request is kept until the place's component
// takes it when it mounts (or, mounted, hears it).
import { useEffect, useRef } from "react";

export type Place = "doctor" | "load" | "hosts";

const EVENT = "mcpwb:open-place";
const KEY = "mcpwb.open-place";

/** Ask the component of `place` for `target` (a server, a tool) to open. */
export function openPlace(place: Place, target = "") {
  const request = JSON.stringify({ place, target });
  try {
    sessionStorage.setItem(KEY, request);
  } catch {
    // Storage off: the event still says it.
  }
  window.dispatchEvent(new CustomEvent(EVENT, { detail: request }));
}

/** Whether `place` for `target` was asked to open (the request is taken). */
export function takePlace(place: Place, target = ""): boolean {
  try {
    if (sessionStorage.getItem(KEY) !== JSON.stringify({ place, target })) return false;
    sessionStorage.removeItem(KEY);
    return true;
  } catch {
    return false;
  }
}

/** Call `open` when `place` for `target` is asked for, now or later. */
export function usePlace(place: Place, target: string, open: () => void) {
  const latest = useRef(open);
  latest.current = open;
  useEffect(() => {
    const take = () => {
      if (takePlace(place, target)) latest.current();
    };
    take();
    window.addEventListener(EVENT, take);
    return () => window.removeEventListener(EVENT, take);
  }, [place, target]);
}
