// mcp.json: the files read and saved whole, an entry edited, tried before saving, secrets to the keychain, other clients' configs imported, the example server added.
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { commands, type ConfigText, type Found_Serialize as FoundConfig, type Merged, type Scope, type EditOp as ServerEdit, type Trial_Serialize as TrialReport, type ErrorInfo } from "../bindings";

type JsonArg = Parameters<typeof commands.getPrompt>[2];

export interface ConfigBackend {
  /** The user's file, or the project's `.mcp.json` when `scope` is "project". */
  readConfig(scope?: Scope): Promise<ConfigText>;
  /** Save the whole text; refused if the file no longer holds `base`. */
  saveConfig(text: string, base: string, scope?: Scope): Promise<void>;
  /** Edit a server in the file it lives in; a new one goes to `scope` (default: the user's file). */
  editServer(edit: ServerEdit, scope?: Scope): Promise<void>;
  /** The entry as written (references unexpanded). */
  serverEntry(name: string): Promise<Record<string, unknown>>;
  /** Connect to an unsaved entry and report what it offers or why not. */
  tryServer(name: string, fields: Record<string, unknown>): Promise<TrialReport>;
  /** Keep a secret in the OS keychain; returns the reference to write. */
  /** Keep a secret in the keychain under the entry's own id (its name and file's scope). */
  storeSecret(server: string, field: "env" | "headers", key: string, value: string, scope?: Scope): Promise<string>;
  /** Other clients' configs on this machine. */
  discoverConfigs(): Promise<FoundConfig[]>;
  importConfig(path: string, dialect: string, only: string[], replace: boolean): Promise<Merged>;
  /** Add a working example server to the user's file; resolves to its name. */
  addExampleServer(): Promise<string>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriConfigBackend(unwrap: Unwrap): ConfigBackend {
  return {
    readConfig: async (scope) => unwrap(await commands.readConfig(scope ?? null)),
    saveConfig: async (text, base, scope) => {
      unwrap(await commands.saveConfig(text, base, scope ?? null));
    },
    editServer: async (edit, scope) => {
      unwrap(await commands.editServer(edit, scope ?? null));
    },
    serverEntry: async (name) => unwrap(await commands.serverEntry(name)) as Record<string, unknown>,
    tryServer: async (name, fields) => unwrap(await commands.tryServer(name, fields as Record<string, JsonArg>)),
    storeSecret: async (server, field, key, value, scope) => unwrap(await commands.storeSecret(server, field, key, value, scope ?? null)),
    discoverConfigs: async () => unwrap(await commands.discoverConfigs()),
    importConfig: async (path, dialect, only, replace) => unwrap(await commands.importConfig(path, dialect, only, replace)),
    addExampleServer: async () => unwrap(await commands.addExampleServer()),
  };
}
