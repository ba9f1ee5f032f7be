// The MCP Registry: search, a server's versions, one shown with the entry it becomes, added to mcp.json.
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { getCurrentWebview } from "@tauri-apps/api/webview";
import {
  commands,
  type ErrorInfo,
  type RegistryAdd_Deserialize as RegistryAdd,
  type RegistryAdded,
  type RegistryPage_Serialize as RegistryPage,
  type RegistryPreview,
  type RegistryServer_Serialize as RegistryServer,
  type RegistryShown_Serialize as RegistryShown,
  type PickedBundle_Serialize as PickedBundle,
  type Installed_Serialize as InstalledBundle,
  type Scope,
  type HostFile_Serialize as HostFile,
} from "../bindings";

export type { InstalledBundle, PickedBundle, RegistryAdd, RegistryAdded, RegistryPage, RegistryPreview, RegistryServer, RegistryShown };

export interface RegistryBackend {
  /** A page of servers whose name or description holds `search` (each one's latest unless `allVersions`). */
  registrySearch(search: string | null, cursor: string | null, allVersions: boolean, refresh: boolean): Promise<RegistryPage>;
  /** Every version of a server, newest first. */
  registryVersions(name: string): Promise<RegistryPage>;
  /** A version (null: the latest) and the entry it becomes, run from package `pkg` or remote `remote` (from 0). */
  registryShow(name: string, version: string | null, pkg: number | null, remote: number | null): Promise<RegistryShown>;
  /** Add it to mcp.json, trusted as written; its answers go to the keychain. */
  registryAdd(add: RegistryAdd): Promise<RegistryAdded>;
  /** Ask for a .mcpb file and say what it is (null: cancelled). */
  pickBundle(): Promise<PickedBundle | null>;
  /** A file (or, with `folder`, a folder) the person picks for a value; null: cancelled. */
  pickPath(folder: boolean): Promise<string | null>;
  /** Install the bundle at `path` with the answers to what it asks (KEY, value). */
  /** `shown`: the SHA-256 of the bundle as shown; a file changed since is not installed. */
  installBundle(path: string, shown: string, answers: [string, string][], asName: string | null, scope: Scope): Promise<InstalledBundle>;
  /** The other hosts' config files found here (a server can be added into one). */
  hostFiles(): Promise<HostFile[]>;
  /** Say what the bundle at `path` (dropped on the window) is; only read. */
  showBundle(path: string): Promise<PickedBundle>;
  /** Files dropped on the window from the desktop (their paths); resolves to the way to stop listening. */
  onFilesDropped(listener: (paths: string[]) => void): Promise<() => void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriRegistryBackend(unwrap: Unwrap): RegistryBackend {
  return {
    registrySearch: async (search, cursor, allVersions, refresh) => unwrap(await commands.registrySearch(search, cursor, allVersions, refresh)),
    registryVersions: async (name) => unwrap(await commands.registryVersions(name)),
    registryShow: async (name, version, pkg, remote) => unwrap(await commands.registryShow(name, version, pkg, remote)),
    registryAdd: async (add) => unwrap(await commands.registryAdd(add)),
    pickBundle: async () => unwrap(await commands.pickBundle()),
    pickPath: async (folder) => unwrap(await commands.pickPath(folder)),
    installBundle: async (path, shown, answers, asName, scope) => unwrap(await commands.installBundle(path, shown, answers, asName, scope)),
    hostFiles: async () => unwrap(await commands.hostFiles()),
    showBundle: async (path) => unwrap(await commands.showBundle(path)),
    // async: a window with no webview (tests) refuses, never throws.
    onFilesDropped: async (listener) =>
      getCurrentWebview().onDragDropEvent((e) => {
        if (e.payload.type === "drop") listener(e.payload.paths);
      }),
  };
}
