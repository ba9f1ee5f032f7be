// Resources, prompts and skills: the lists, a read, a subscription and its updates, a prompt got, completions.
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { commands, events, type ListCache, type LoadedSkill, type PromptRow, type ResourceRow, type SkillFile, type SkillRow, type ErrorInfo } from "../bindings";

export type { ListCache, LoadedSkill, SkillRow };
/** One file of a skill, read and checked against its entry. */
export type SkillFileRead = SkillFile;

type JsonArg = Parameters<typeof commands.getPrompt>[2];

export interface ResourcesBackend {
  listResources(): Promise<ResourceRow[]>;
  listPrompts(): Promise<PromptRow[]>;
  /** Every server's skills (SEP-2640) as listed: nothing of them read yet. */
  listSkills(): Promise<SkillRow[]>;
  /** Load a skill: its SKILL.md read and checked against the listing. */
  loadSkill(server: string, name: string): Promise<LoadedSkill>;
  /** One file of a skill, read and checked. */
  skillFile(server: string, name: string, path: string): Promise<SkillFileRead>;
  readResource(server: string, uri: string): Promise<unknown>;
  /** What each server's lists said of their freshness (2026-07-28 ttlMs, cacheScope). */
  cacheHints(): Promise<ListCache[]>;
  /** Ask a server's lists again (every server's without one), fresh or not. */
  refreshLists(server?: string): Promise<number>;
  subscribeResource(server: string, uri: string, subscribe: boolean): Promise<void>;
  /** A subscribed resource changed. */
  onResourceUpdated(listener: (server: string, uri: string) => void): Promise<() => void>;
  getPrompt(server: string, name: string, args: Record<string, string>): Promise<unknown>;
  /** The server's completions for an argument; `context` holds the values already chosen. */
  complete(server: string, reference: unknown, argument: string, value: string, context?: Record<string, string>): Promise<string[]>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriResourcesBackend(unwrap: Unwrap): ResourcesBackend {
  return {
    listResources: async () => unwrap(await commands.listResources()),
    listPrompts: async () => unwrap(await commands.listPrompts()),
    listSkills: async () => unwrap(await commands.listSkills()),
    loadSkill: async (server, name) => unwrap(await commands.loadSkill(server, name)),
    skillFile: async (server, name, path) => unwrap(await commands.skillFile(server, name, path)),
    readResource: async (server, uri) => unwrap(await commands.readResource(server, uri)),
    cacheHints: async () => unwrap(await commands.cacheHints()),
    refreshLists: async (server) => unwrap(await commands.refreshLists(server ?? null)),
    subscribeResource: async (server, uri, subscribe) => {
      unwrap(await commands.subscribeResource(server, uri, subscribe));
    },
    onResourceUpdated: (listener) => events.resourceUpdated.listen((e) => listener(e.payload.server, e.payload.uri)),
    getPrompt: async (server, name, args) => unwrap(await commands.getPrompt(server, name, args as JsonArg)),
    complete: async (server, reference, argument, value, context) =>
      unwrap(await commands.complete(server, reference as JsonArg, argument, value, (context ?? null) as Parameters<typeof commands.complete>[4])),
  };
}
