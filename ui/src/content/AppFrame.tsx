// An MCP App where a tool's result shows (tool panel, chat, History): the
// App's HTML on its own origin (mcpapp://<id>/, behind the sandbox proxy,
// under the CSP its resource declared), its bridge served by `AppHost`, what
// it asks of the person (a call's approval, a link, a message for the chat)
// asked here, and the App panel beside it for seeing why an App misbehaves.
import { useEffect, useMemo, useRef, useState } from "react";
import { ExternalLink, Maximize2, Minimize2, PictureInPicture2 } from "lucide-react";
import type { AppOpened } from "../ipc/apps";
import type { Approval } from "../ipc/agent";
import { ApprovalCard } from "../chat/ApprovalCard";
import { Button, Modal, useTheme, useToast } from "../design";
import { AppHost, type DisplayMode, type HostContext } from "./appHost";
import { AppPanel, type Overrides } from "./AppPanel";
import { styleVariables } from "./appStyles";
import "./apps.css";
import type { AgentBackend, AppsBackend } from "../ipc";

export interface AppFrameProps {
  backend: AppsBackend & AgentBackend;
  server: string;
  /** The tool's definition (its `_meta.ui.resourceUri` names the App). */
  tool: Record<string, unknown>;
  args: unknown;
  /** The call's result; undefined while it runs. */
  result?: unknown;
  /** Why the call ended without a result (stopped, failed). */
  cancelled?: string;
  /** The model is still writing the arguments: `args` are partial. */
  writing?: boolean;
  /** The chat takes an App's `ui/message`: resolves whether the person sent it. */
  onMessage?: (text: string) => Promise<boolean>;
  /** `ui/message` outside a chat: offered to start one. */
  onStartChat?: (text: string) => void;
  /** `ui/update-model-context`: kept for the agent's next turn. */
  onModelContext?: (text: string) => void;
  /** Unload it while far out of view (a long chat's many Apps); never one
   * the person has used. Off: it lives as long as its view (a tool panel). */
  park?: boolean;
}

/** The text of a `ui/message` or `ui/update-model-context`'s content. */
export function contentText(params: unknown): string {
  const p = (params ?? {}) as { content?: unknown; structuredContent?: unknown };
  const blocks = Array.isArray(p.content) ? p.content : p.content ? [p.content] : [];
  const text = blocks
    .map((b) => (b && typeof b === "object" && (b as { type?: string }).type === "text" ? String((b as { text?: unknown }).text ?? "") : ""))
    .filter(Boolean)
    .join("\n");
  if (text) return text;
  return p.structuredContent !== undefined ? JSON.stringify(p.structuredContent) : "";
}

const FRAME_SANDBOX = "allow-scripts allow-same-origin allow-forms";

/** When anything in the window last scrolled. */
let lastScroll = 0;
if (typeof document !== "undefined") {
  document.addEventListener(
    "scroll",
    () => {
      lastScroll = performance.now();
    },
    { capture: true, passive: true },
  );
}

export function AppFrame({ backend, server, tool, args, result, cancelled, writing = false, onMessage, onStartChat, onModelContext, park = false }: AppFrameProps) {
  const toast = useToast();
  const windowTheme = useTheme();
  const toolName = String(tool.name ?? "");
  const frame = useRef<HTMLIFrameElement>(null);
  const host = useRef<AppHost | null>(null);
  const [opened, setOpened] = useState<AppOpened | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const [, setTick] = useState(0);
  const [height, setHeight] = useState(160);
  const [mode, setMode] = useState<DisplayMode>("inline");
  const [overrides, setOverrides] = useState<Overrides>({});
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [link, setLink] = useState<{ url: string; answer: (open: boolean) => void } | null>(null);
  const [offer, setOffer] = useState<{ text: string; answer: (taken: boolean) => void } | null>(null);
  const theme = overrides.theme ?? windowTheme;
  // The width the App has (the window resized, a pane dragged): told to it.
  const [width, setWidth] = useState<number | null>(null);
  const dimensions = () =>
    overrides.width === "narrow" ? { width: 360, maxHeight: 2000 } : width ? { maxWidth: width, maxHeight: 2000 } : { maxHeight: 2000 };
  // From the result's arrival (this frame's start) to the App's initialized.
  const [readyMs, setReadyMs] = useState<number | null>(null);
  // Far out of view (a long chat), the App is unloaded; back in view, opened again.
  const section = useRef<HTMLElement>(null);
  const [parked, setParked] = useState(false);
  // The person used the App — the probe in its frame saw a press, a key or
  // an input (a slider moved), or its frame took the focus (seen when the
  // window blurs, and looked for twice a second, for a webview that does
  // not blur: what happens in a frame the App embeds), or it asked
  // something of the host (a call, a message, the model's context): its
  // state is theirs, and it is never unloaded while its chat is open.
  const touched = useRef(false);
  const touch = () => {
    touched.current = true;
  };
  useEffect(() => {
    const onBlur = () => {
      if (frame.current && document.activeElement === frame.current) touch();
    };
    window.addEventListener("blur", onBlur);
    const look = setInterval(() => {
      if (frame.current && document.activeElement === frame.current) touch();
    }, 500);
    return () => {
      window.removeEventListener("blur", onBlur);
      clearInterval(look);
    };
  }, []);
  useEffect(() => {
    const el = section.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Opened again once the scrolling stops: loading a frame mid-scroll
    // is what made a long chat stutter.
    const open = () => {
      if (performance.now() - lastScroll < 250) timer = setTimeout(open, 120);
      else setParked(false);
    };
    const seen = new IntersectionObserver(
      ([entry]) => {
        clearTimeout(timer);
        if (entry?.isIntersecting) open();
        else if (park && !touched.current) timer = setTimeout(() => setParked(true), 1000);
      },
      { rootMargin: "800px 0px" },
    );
    seen.observe(el);
    let sized: ReturnType<typeof setTimeout> | undefined;
    const resized =
      typeof ResizeObserver === "undefined"
        ? null
        : new ResizeObserver(([entry]) => {
            clearTimeout(sized);
            const w = Math.round(entry?.contentRect.width ?? 0);
            sized = setTimeout(() => setWidth((old) => (w > 0 && w !== old ? w : old)), 150);
          });
    resized?.observe(el);
    return () => {
      clearTimeout(timer);
      clearTimeout(sized);
      seen.disconnect();
      resized?.disconnect();
    };
  }, [park]);
  const context = useRef<() => HostContext>(() => ({}) as HostContext);
  context.current = () => ({
    theme,
    styles: { variables: styleVariables(theme) },
    displayMode: mode,
    availableDisplayModes: ["inline", "fullscreen", "pip"],
    containerDimensions: dimensions(),
    locale: overrides.locale ?? navigator.language ?? "en-US",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "desktop",
    userAgent: "MCP Workbench",
    toolInfo: { tool },
    deviceCapabilities: { touch: false, hover: true },
  });
  const modeRef = useRef(mode);
  modeRef.current = mode;

  // Open (and on Reload, open again on a new origin); torn down when it goes.
  useEffect(() => {
    let gone = false;
    let id: string | null = null;
    setOpened(null);
    setError(null);
    if (parked) return;
    const started = performance.now();
    setReadyMs(null);
    setInitialized(false);
    backend.openApp(server, toolName).then(
      (app) => {
        if (gone) {
          void backend.closeApp(app.id);
          return;
        }
        id = app.id;
        host.current = new AppHost({
          post: (m) => frame.current?.contentWindow?.postMessage(m, "*"),
          allow: app.policy.allow,
          context: () => context.current(),
          callTool: async (name, a) => {
            touch();
            const poll = setInterval(() => {
              backend.appApprovals(app.id).then(setApprovals, () => undefined);
            }, 200);
            try {
              return await backend.appCallTool(app.id, name, a);
            } finally {
              clearInterval(poll);
              setApprovals([]);
            }
          },
          readResource: (uri) => backend.appReadResource(app.id, uri),
          used: touch,
          openLink: (url) => (touch(), new Promise((answer) => setLink({ url, answer }))),
          message: (params) => {
            touch();
            const text = contentText(params);
            if (!text) return Promise.resolve(false);
            if (onMessage) return onMessage(text);
            return new Promise((answer) => setOffer({ text, answer }));
          },
          modelContext: (params) => {
            touch();
            return onModelContext?.(contentText(params));
          },
          displayMode: (asked) => {
            setMode(asked);
            return asked;
          },
          size: (_w, h) => {
            if (h !== undefined) setHeight(Math.max(40, Math.min(2000, Math.ceil(h))));
          },
          changed: () => setTick((t) => t + 1),
          ready: () => {
            setReadyMs(Math.round(performance.now() - started));
            setInitialized(true);
          },
          traffic: (toApp, m) => void backend.appTraffic(app.id, toApp, JSON.stringify(m)).catch(() => undefined),
        });
        setOpened(app);
      },
      (e: unknown) => !gone && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      gone = true;
      const h = host.current;
      host.current = null;
      if (id) {
        const closing = id;
        void (h ? h.teardown("closed") : Promise.resolve()).finally(() => void backend.closeApp(closing).catch(() => undefined));
      }
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [backend, server, toolName, reloads, parked]);

  // Only what comes from the App's frame, and only from it.
  useEffect(() => {
    const listen = (e: MessageEvent) => {
      if (frame.current && e.source === frame.current.contentWindow) void host.current?.receive(e.data);
    };
    window.addEventListener("message", listen);
    return () => window.removeEventListener("message", listen);
  }, []);

  const [initialized, setInitialized] = useState(false);
  useEffect(() => {
    if (!opened || !host.current) return;
    if (writing) {
      if (initialized) host.current.setPartial(args ?? {});
      return;
    }
    host.current.setInput(args ?? {});
    if (result !== undefined) host.current.setResult(result);
    else if (cancelled) host.current.setCancelled(cancelled);
  }, [opened, args, result, cancelled, writing, initialized]);

  const variables = useMemo(() => styleVariables(theme), [theme]);
  useEffect(() => {
    host.current?.contextChanged({ theme, styles: { variables } });
  }, [theme, variables]);
  useEffect(() => {
    host.current?.contextChanged({ displayMode: mode });
  }, [mode]);
  useEffect(() => {
    host.current?.contextChanged({
      locale: overrides.locale ?? navigator.language,
      containerDimensions: dimensions(),
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [overrides.locale, overrides.width, width]);

  // Esc takes a fullscreen or floating App back inline (keys typed inside
  // the App stay the App's).
  useEffect(() => {
    if (mode === "inline") return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !document.querySelector("[role=dialog]")) setMode("inline");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [mode]);

  if (error) {
    return (
      <div className="callout tone-danger app-error" role="alert">
        The App of {toolName} did not open: <span className="error-message">{error}</span>
      </div>
    );
  }
  const bordered = opened?.prefersBorder !== false;
  return (
    <section ref={section} className={`app-host app-mode-${mode}`} aria-label={`App of ${toolName}`} data-ready-ms={readyMs ?? undefined}>
      {approvals.length > 0 && (
        <p className="callout tone-warn app-waiting" role="status">
          The App waits for you: it asks to call {approvals.map((a) => a.tool).join(", ")}.{" "}
          <Button size="sm" variant="ghost" onClick={() => section.current?.querySelector(".app-approval")?.scrollIntoView({ block: "nearest" })}>
            Answer below
          </Button>
        </p>
      )}
      <div className={`app-stage${bordered ? " app-bordered" : ""}${overrides.width === "narrow" ? " app-narrow" : ""}`}>
        {mode !== "inline" && (
          <div className="app-mode-bar">
            <span>
              {toolName} · {mode === "fullscreen" ? "fullscreen" : "picture in picture"}
            </span>
            <Button size="sm" variant="ghost" icon={mode === "fullscreen" ? Minimize2 : PictureInPicture2} onClick={() => setMode("inline")} title="Esc">
              Back inline
            </Button>
          </div>
        )}
        {parked ? (
          <p className="muted app-loading" style={{ height }}>
            The App was unloaded while out of view; it opens again when shown.
          </p>
        ) : opened ? (
          <iframe
            ref={frame}
            className="app-frame"
            title={`App: ${opened.uri}`}
            src={opened.url}
            sandbox={FRAME_SANDBOX}
            style={{ height: mode === "inline" ? height : undefined }}
          />
        ) : (
          <p className="muted app-loading">Opening the App…</p>
        )}
      </div>
      {approvals.map((a) => (
        <div key={a.id} className="app-approval">
          <p className="muted">The App asks to call a tool of {server}:</p>
          <ApprovalCard backend={backend} approval={a} />
        </div>
      ))}
      {offer && (
        <div className="callout tone-info app-offer" role="group" aria-label="The App's message">
          <p>
            The App wrote a message for a chat: <q>{offer.text}</q>
          </p>
          <div className="toolbar">
            {onStartChat && (
              <Button
                size="sm"
                onClick={() => {
                  onStartChat(offer.text);
                  offer.answer(true);
                  setOffer(null);
                }}
              >
                Start a chat with it
              </Button>
            )}
            <Button
              size="sm"
              variant="ghost"
              onClick={() => {
                offer.answer(false);
                setOffer(null);
              }}
            >
              Dismiss
            </Button>
          </div>
        </div>
      )}
      {opened && host.current && (
        <AppPanel
          readyMs={readyMs}
          app={opened}
          host={host.current}
          overrides={overrides}
          onOverrides={setOverrides}
          mode={mode}
          onMode={setMode}
          onReload={() => setReloads((n) => n + 1)}
          icon={mode === "fullscreen" ? Minimize2 : Maximize2}
        />
      )}
      <Modal
        open={link !== null}
        onOpenChange={(o) => {
          if (!o && link) {
            link.answer(false);
            setLink(null);
          }
        }}
        title="The App wants to open a link"
        description="It opens in your browser. Check the whole address first."
        footer={
          <>
            <Button
              onClick={() => {
                link?.answer(false);
                setLink(null);
              }}
              variant="ghost"
            >
              Cancel
            </Button>
            <Button
              variant="primary"
              icon={ExternalLink}
              onClick={() => {
                const asked = link;
                setLink(null);
                if (!asked) return;
                backend.appOpenLink(asked.url).then(
                  () => asked.answer(true),
                  (e: unknown) => {
                    asked.answer(false);
                    toast("The link was not opened", { tone: "danger", description: e instanceof Error ? e.message : String(e) });
                  },
                );
              }}
            >
              Open in browser
            </Button>
          </>
        }
      >
        <code className="app-link-url">{link?.url}</code>
      </Modal>
    </section>
  );
}
