// The window's side of an MCP App's bridge (the extension's JSON-RPC over
// postMessage, spec 2026-01-26), with no React in it: what each message the
// App sends gets, what the window tells the App and when (nothing before its
// `ui/notifications/initialized`), and a log of every message both ways with
// its time, for the App panel. What needs a person or the backend (a call,
// a link, a message to the chat) is the caller's, through `HostDeps`.

export const APPS_PROTOCOL = "2026-01-26";

export type DisplayMode = "inline" | "fullscreen" | "pip";
export type Json = unknown;

export interface HostContext {
  theme: "light" | "dark";
  styles: { variables: Record<string, string> };
  displayMode: DisplayMode;
  availableDisplayModes: DisplayMode[];
  containerDimensions: { maxHeight?: number; width?: number; maxWidth?: number };
  locale: string;
  timeZone: string;
  platform: "desktop";
  userAgent: string;
  toolInfo?: { tool: Json };
  deviceCapabilities: { touch: boolean; hover: boolean };
}

/** One line of the App panel's message log. */
export interface LogLine {
  n: number;
  /** Milliseconds since the App was opened. */
  at: number;
  dir: "from-app" | "to-app";
  method: string;
  message: Json;
  /** For a response: milliseconds since its request. */
  tookMs?: number;
}

export interface Violation {
  directive: string;
  blocked: string;
  /** What the App would have to declare for it to load. */
  declare: string | null;
}

export interface ConsoleLine {
  level: string;
  text: string;
}

export interface HostDeps {
  /** Post a message to the App's frame (through the sandbox proxy). */
  post(message: Json): void;
  /** The Permission Policy the proxy puts on the App's frame. */
  allow: string;
  context(): HostContext;
  callTool(name: string, args: Json): Promise<Json>;
  readResource(uri: string): Promise<Json>;
  /** Show the address to the person; resolves whether it was opened. */
  openLink(url: string): Promise<boolean>;
  /** A message for the chat (`ui/message`); resolves whether it was taken. */
  message(params: Json): Promise<boolean>;
  modelContext(params: Json): void;
  /** The mode asked for; resolves the mode the App is shown in now. */
  displayMode(mode: DisplayMode): DisplayMode;
  size(width: number | undefined, height: number | undefined): void;
  /** Something in the log, the violations or the console changed. */
  changed(): void;
  /** Keep a message in the traffic log (App traffic). */
  traffic(toApp: boolean, message: Json): void;
  /** The App said it is initialized (the first time). */
  ready?(): void;
  /** The person used the App (the probe in its frame saw a press, a key or an input). */
  used?(): void;
}

type Message = { jsonrpc?: string; id?: string | number; method?: string; params?: Record<string, unknown>; result?: Json; error?: Json };

/** What a blocked address would need declared, by the directive that blocked it. */
export function declarationFor(directive: string, blocked: string): string | null {
  let origin: string;
  try {
    origin = new URL(blocked).origin;
  } catch {
    return null;
  }
  // Only what a declaration can name (http(s), ws(s)); never the window's own IPC.
  if (!/^(https?|wss?):\/\//.test(origin) || /^\w+:\/\/(ipc|tauri|asset)\.localhost(:|$)/i.test(origin)) return null;
  const field = directive.startsWith("connect-src")
    ? "connectDomains"
    : directive.startsWith("frame-src") || directive.startsWith("child-src")
      ? "frameDomains"
      : directive.startsWith("base-uri")
        ? "baseUriDomains"
        : /^(img|script|style|font|media)-src/.test(directive)
          ? "resourceDomains"
          : null;
  return field ? `${field}: ["${origin}"]` : null;
}

/** Add `item`, dropping the oldest past `AppHost.KEEP` (a ring of records). */
function keepNewest<T>(list: T[], item: T) {
  list.push(item);
  if (list.length > AppHost.KEEP) list.splice(0, list.length - AppHost.KEEP);
}

export class AppHost {
  /** Each of the host's records keeps its newest entries only (an App may
   * talk, fail its CSP or log for as long as it is open). */
  static readonly KEEP = 500;
  readonly log: LogLine[] = [];
  private logged = 0;
  readonly violations: Violation[] = [];
  readonly console: ConsoleLine[] = [];
  /** The App's own log messages (`notifications/message`). */
  readonly appLog: Json[] = [];
  initialized = false;
  private readonly opened = Date.now();
  private readonly asked = new Map<string, number>();
  private readonly waiting = new Map<string | number, (m: Message) => void>();
  private nextId = 1;
  private input: Json | undefined;
  private outcome: { result: Json } | { cancelled: string } | undefined;
  private delivered = { input: false, outcome: false };
  /** Context changed after `ui/initialize` was answered, before the App said it is initialized. */
  private contextSinceAnswer: Partial<HostContext> | null = null;

  constructor(private readonly deps: HostDeps) {}

  private note(dir: LogLine["dir"], m: Message) {
    const key = `${dir}:${String(m.id)}`;
    let tookMs: number | undefined;
    let method = m.method ?? "";
    if (m.id !== undefined && m.method) {
      this.asked.set(key, Date.now());
      // Requests never answered are forgotten, oldest first.
      if (this.asked.size > AppHost.KEEP) this.asked.delete(this.asked.keys().next().value as string);
    }
    if (m.id !== undefined && !m.method) {
      const other = `${dir === "to-app" ? "from-app" : "to-app"}:${String(m.id)}`;
      const at = this.asked.get(other);
      if (at !== undefined) {
        tookMs = Date.now() - at;
        this.asked.delete(other);
      }
      method = m.error ? "error" : "result";
    }
    this.logged += 1;
    keepNewest(this.log, { n: this.logged, at: Date.now() - this.opened, dir, method, message: m, tookMs });
    this.deps.traffic(dir === "to-app", m);
    this.deps.changed();
  }

  private send(m: Message) {
    const out = { jsonrpc: "2.0", ...m };
    this.note("to-app", out);
    this.deps.post(out);
  }

  private notify(method: string, params: Json) {
    this.send({ method, params: params as Record<string, unknown> });
  }

  /** A message from the App's frame (the caller checked it came from there). */
  async receive(data: unknown): Promise<void> {
    if (!data || typeof data !== "object") return;
    const m = data as Message;
    if (m.method === "ui/notifications/sandbox-proxy-ready") {
      this.deps.post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: { allow: this.deps.allow } });
      return;
    }
    if (m.method === "x-mcpwb/csp-violation") {
      const p = m.params ?? {};
      const directive = String(p.directive ?? "");
      const blocked = String(p.blocked ?? "");
      keepNewest(this.violations, { directive, blocked, declare: declarationFor(directive, blocked) });
      this.deps.changed();
      return;
    }
    if (m.method === "x-mcpwb/used") {
      this.deps.used?.();
      return;
    }
    if (m.method === "x-mcpwb/console") {
      keepNewest(this.console, { level: String(m.params?.level ?? "error"), text: String(m.params?.text ?? "") });
      this.deps.changed();
      return;
    }
    this.note("from-app", m);
    if (!m.method) {
      if (m.id !== undefined) {
        this.waiting.get(m.id)?.(m);
        this.waiting.delete(m.id);
      }
      return;
    }
    if (m.id === undefined) {
      this.notification(m);
      return;
    }
    try {
      this.send({ id: m.id, result: await this.request(m) });
    } catch (e) {
      // A JSON-RPC error's code is a number: the window's own errors carry
      // a word (`refused`, `cancelled`), which an App's SDK cannot parse.
      const failure = e as { code?: unknown; message?: string };
      const code = typeof failure.code === "number" && Number.isInteger(failure.code) ? failure.code : -32000;
      this.send({ id: m.id, error: { code, message: failure.message ?? String(e) } });
    }
  }

  private notification(m: Message) {
    const p = m.params ?? {};
    switch (m.method) {
      case "ui/notifications/initialized":
        if (!this.initialized) {
          this.initialized = true;
          this.deps.ready?.();
          // What changed while the App was between its initialize and this (the
          // window resized, the theme switched) would otherwise never reach it.
          const since = this.contextSinceAnswer;
          this.contextSinceAnswer = null;
          if (since && Object.keys(since).length > 0) this.notify("ui/notifications/host-context-changed", since);
        }
        this.flush();
        return;
      case "ui/notifications/size-changed":
        this.deps.size(typeof p.width === "number" ? p.width : undefined, typeof p.height === "number" ? p.height : undefined);
        return;
      case "notifications/message":
        keepNewest(this.appLog, p);
        this.deps.changed();
        return;
      default:
        return;
    }
  }

  private async request(m: Message): Promise<Json> {
    const p = m.params ?? {};
    switch (m.method) {
      case "ui/initialize":
        this.contextSinceAnswer = {};
        return {
          protocolVersion: APPS_PROTOCOL,
          hostInfo: { name: "MCP Workbench", version: "0.1.0" },
          hostCapabilities: { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, updateModelContext: {}, message: {} },
          hostContext: this.deps.context(),
        };
      case "ping":
        return {};
      case "tools/call":
        if (typeof p.name !== "string") throw { code: -32602, message: "tools/call needs a tool name" };
        return await this.deps.callTool(p.name, p.arguments ?? {});
      case "resources/read":
        if (typeof p.uri !== "string") throw { code: -32602, message: "resources/read needs a uri" };
        return await this.deps.readResource(p.uri);
      case "ui/open-link": {
        const url = typeof p.url === "string" ? p.url : "";
        if (!/^https?:\/\//i.test(url)) throw { code: -32602, message: "Invalid URL (http and https only)" };
        if (!(await this.deps.openLink(url))) throw { code: -32000, message: "Link opening denied by user" };
        return {};
      }
      case "ui/message":
        if (!(await this.deps.message(p))) throw { code: -32000, message: "Message sending denied" };
        return {};
      case "ui/update-model-context":
        this.deps.modelContext(p);
        return {};
      case "ui/request-display-mode": {
        const mode = p.mode === "fullscreen" || p.mode === "pip" || p.mode === "inline" ? p.mode : "inline";
        return { mode: this.deps.displayMode(mode) };
      }
      default:
        throw { code: -32601, message: `Method not found: ${String(m.method)}` };
    }
  }

  private flush() {
    if (!this.initialized) return;
    if (this.input !== undefined && !this.delivered.input) {
      this.delivered.input = true;
      this.notify("ui/notifications/tool-input", { arguments: this.input });
    }
    if (this.outcome && this.delivered.input && !this.delivered.outcome) {
      this.delivered.outcome = true;
      if ("result" in this.outcome) this.notify("ui/notifications/tool-result", this.outcome.result);
      else this.notify("ui/notifications/tool-cancelled", { reason: this.outcome.cancelled });
    }
  }

  /** Arguments while the model is still writing them (best effort): sent as
   * `tool-input-partial` until the complete input goes. */
  setPartial(args: Json) {
    if (this.initialized && !this.delivered.input) this.notify("ui/notifications/tool-input-partial", { arguments: args ?? {} });
  }

  /** The call's complete arguments (sent once the App is initialized). */
  setInput(args: Json) {
    this.input = args ?? {};
    this.flush();
  }

  /** The call's result (after its input). */
  setResult(result: Json) {
    this.outcome = { result };
    this.flush();
  }

  setCancelled(reason: string) {
    this.outcome = { cancelled: reason };
    this.flush();
  }

  /** Tell the App what changed in its context (theme, size, mode ...). */
  contextChanged(partial: Partial<HostContext>) {
    if (this.initialized) this.notify("ui/notifications/host-context-changed", partial);
    else if (this.contextSinceAnswer) this.contextSinceAnswer = { ...this.contextSinceAnswer, ...partial };
  }

  /** `ui/resource-teardown`, waiting for the App's answer (1 s at most). */
  async teardown(reason: string): Promise<void> {
    if (!this.initialized) return;
    const id = `teardown-${this.nextId++}`;
    const answered = new Promise<void>((resolve) => {
      this.waiting.set(id, () => resolve());
      setTimeout(resolve, 1000);
    });
    this.send({ id, method: "ui/resource-teardown", params: { reason } });
    await answered;
  }
}
