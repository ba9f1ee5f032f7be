// What an edit of mcp.json made elsewhere did to the servers, in words for
// the notice: a server added or changed that waits for trust, or is
// disabled, did not start and is not said to have.
import type { ConfigChanged } from "../bindings";

export function configNews(change: Pick<ConfigChanged, "added" | "changed" | "removed" | "untrusted" | "disabled">): string[] {
  const held = new Set([...change.untrusted, ...change.disabled]);
  const runs = (names: string[]) => names.filter((n) => !held.has(n));
  const said = (verb: string, names: string[]) => (names.length ? `${verb} ${names.join(", ")}` : "");
  return [
    said("started", runs(change.added)),
    said("restarted", runs(change.changed)),
    said("stopped", change.removed),
    change.untrusted.length ? `${change.untrusted.join(", ")} ${change.untrusted.length === 1 ? "waits" : "wait"} for your trust` : "",
    change.disabled.length ? `${change.disabled.join(", ")} ${change.disabled.length === 1 ? "is" : "are"} disabled` : "",
  ].filter(Boolean);
}
