// MCP Apps' half of the door to the Rust side: open a tool's App (served on
// its own origin), and what the App may ask — a call of its own server's
// tools (decided by the rules, its approvals listed here), a resource read,
// a link opened once the person agreed — each message kept as App traffic.
// `Backend` (index.ts) includes it.
import { commands, type AppOpened_Serialize as AppOpened, type Approval_Serialize as Approval, type ErrorInfo } from "../bindings";

export type { AppOpened };

export interface AppsBackend {
  /** Read and resolve the App of a tool (`_meta.ui.resourceUri`). */
  openApp(server: string, tool: string): Promise<AppOpened>;
  closeApp(app: string): Promise<void>;
  /** Read a tool's App ahead of its result (cached until the server changes). */
  prefetchApp(server: string, tool: string): Promise<boolean>;
  /** The App's `tools/call`: its own server's tools, as the rules decide. */
  appCallTool(app: string, name: string, args: unknown): Promise<unknown>;
  /** The App's calls waiting for the person. */
  appApprovals(app: string): Promise<Approval[]>;
  appReadResource(app: string, uri: string): Promise<unknown>;
  /** Open an http(s) address in the system browser (after the person agreed). */
  appOpenLink(url: string): Promise<void>;
  /** Keep one bridge message in the traffic log. */
  appTraffic(app: string, toApp: boolean, message: string): Promise<void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriAppsBackend(unwrap: Unwrap): AppsBackend {
  return {
    openApp: async (server, tool) => unwrap(await commands.openApp(server, tool)),
    prefetchApp: async (server, tool) => unwrap(await commands.prefetchApp(server, tool)),
    closeApp: async (app) => {
      unwrap(await commands.closeApp(app));
    },
    appCallTool: async (app, name, args) => unwrap(await commands.appCallTool(app, name, (args ?? {}) as Parameters<typeof commands.appCallTool>[2])),
    appApprovals: async (app) => unwrap(await commands.appApprovals(app)),
    appReadResource: async (app, uri) => unwrap(await commands.appReadResource(app, uri)),
    appOpenLink: async (url) => {
      unwrap(await commands.appOpenLink(url));
    },
    appTraffic: async (app, toApp, message) => {
      unwrap(await commands.appTraffic(app, toApp, message));
    },
  };
}
