// Resources and prompts: the lists, a read, a subscription and its updates, a prompt got, completions.
// Its half of the door to the Rust side; `Backend` (backend.ts) includes it.
import { commands, events, type PromptRow, type ResourceRow, type ErrorInfo } from "./bindings";

type JsonArg = Parameters<typeof commands.getPrompt>[2];

export interface ResourcesBackend {
  listResources(): Promise<ResourceRow[]>;
  listPrompts(): Promise<PromptRow[]>;
  readResource(server: string, uri: string): Promise<unknown>;
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
    readResource: async (server, uri) => unwrap(await commands.readResource(server, uri)),
    subscribeResource: async (server, uri, subscribe) => {
      unwrap(await commands.subscribeResource(server, uri, subscribe));
    },
    onResourceUpdated: (listener) => events.resourceUpdated.listen((e) => listener(e.payload.server, e.payload.uri)),
    getPrompt: async (server, name, args) => unwrap(await commands.getPrompt(server, name, args as JsonArg)),
    complete: async (server, reference, argument, value, context) =>
      unwrap(await commands.complete(server, reference as JsonArg, argument, value, (context ?? null) as Parameters<typeof commands.complete>[4])),
  };
}
