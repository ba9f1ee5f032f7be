// Why a list of what servers offer (tools, resources, prompts) is empty, and
// what to do: servers waiting for trust or failing say so (their page says
// what they run, or why they stopped).
import type { ServerStatus_Serialize as ServerStatus } from "../bindings";
import { plural } from "../design";

const READY_SAYS = {
  tools: "No tools yet: they appear when a server is ready.",
  resources: "No resources: servers that offer some list them here once ready.",
  prompts: "No prompts: servers that offer some list them here once ready.",
} as const;

export function noneYet(statuses: ServerStatus[], what: keyof typeof READY_SAYS): string {
  const count = (states: string[]) => statuses.filter((s) => states.includes(s.state)).length;
  const waiting = count(["untrusted"]);
  const failing = count(["failed", "restarting"]);
  const said: string[] = [];
  if (waiting > 0) said.push(`${plural(waiting, "server")} ${waiting === 1 ? "waits" : "wait"} for your trust: open ${waiting === 1 ? "it" : "one"} in the list to read what it runs.`);
  if (failing > 0) said.push(`${plural(failing, "server")} could not start: ${failing === 1 ? "its page says" : "their pages say"} why.`);
  return said.length > 0 ? said.join(" ") : READY_SAYS[what];
}
