// Beside each App: why it misbehaves. Every bridge message both ways with
// its time, the CSP it runs under (and what of its declaration was not
// taken), each request the CSP blocked with what to declare, its console
// errors and log messages, its resource's `_meta` as sent; Reload, and the
// host context switched (light/dark, locale, narrow/wide, display mode) to
// see how the App reacts.
import { useState } from "react";
import { RotateCw, type LucideIcon } from "lucide-react";
import type { AppOpened } from "../ipc/apps";
import { Badge, Button, Disclosure, Segmented } from "../design";
import type { AppHost, DisplayMode } from "./appHost";

export interface Overrides {
  theme?: "light" | "dark";
  locale?: string;
  width?: "narrow" | "wide";
}

type Tab = "messages" | "csp" | "console" | "meta" | "context";

const LOCALES = ["window", "en-US", "de-DE", "ja-JP", "ar-EG"];

export function AppPanel({
  readyMs,
  app,
  host,
  overrides,
  onOverrides,
  mode,
  onMode,
  onReload,
}: {
  /** From the result to the App's initialized, in ms. */
  readyMs: number | null;
  app: AppOpened;
  host: AppHost;
  overrides: Overrides;
  onOverrides: (o: Overrides) => void;
  mode: DisplayMode;
  onMode: (m: DisplayMode) => void;
  onReload: () => void;
  icon?: LucideIcon;
}) {
  const [tab, setTab] = useState<Tab>("messages");
  const trouble = host.violations.length + host.console.filter((c) => c.level === "error").length;
  return (
    <Disclosure
      title="App panel"
      count={host.log.length}
      defaultOpen={false}
      className="app-panel"
      actions={
        <>
          {!host.initialized && <Badge tone="warn">not initialized</Badge>}
          {readyMs !== null && <Badge tone="neutral">ready in {readyMs} ms</Badge>}
          {host.violations.length > 0 && <Badge tone="danger">{host.violations.length} blocked</Badge>}
          <Button size="sm" variant="ghost" icon={RotateCw} onClick={onReload}>
            Reload
          </Button>
        </>
      }
    >
      <Segmented<Tab>
        label="App panel section"
        value={tab}
        onChange={setTab}
        options={[
          { value: "messages", label: `Messages (${host.log.length})` },
          { value: "csp", label: `CSP${host.violations.length ? ` (${host.violations.length})` : ""}` },
          { value: "console", label: `Console${trouble ? ` (${host.console.length + host.appLog.length})` : ""}` },
          { value: "meta", label: "_meta" },
          { value: "context", label: "Host context" },
        ]}
      />
      {tab === "messages" && (
        <ol className="app-log" aria-label="The App's messages">
          {host.log.length === 0 && <li className="muted">Nothing yet: the App has not said anything.</li>}
          {host.log.map((l) => (
            <li key={l.n} className={`app-log-line ${l.dir}`}>
              {/* The row itself opens the message (no "message" line under each). */}
              <details>
                <summary>
                  <span className="app-log-time">{(l.at / 1000).toFixed(3)} s</span>
                  <span className="app-log-dir">{l.dir === "from-app" ? "App →" : "→ App"}</span>
                  <code className="app-log-method">{l.method}</code>
                  {l.tookMs !== undefined && <span className="muted">{l.tookMs} ms</span>}
                </summary>
                <pre>{JSON.stringify(l.message, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
      {tab === "csp" && (
        <div className="app-csp">
          <h4>Effective policy</h4>
          <pre className="app-csp-policy">{app.policy.csp.split("; ").join(";\n")}</pre>
          {app.policy.allow && (
            <p>
              Permissions: <code>{app.policy.allow}</code>
            </p>
          )}
          {app.policy.refused.length > 0 && (
            <>
              <h4>Declared but not taken</h4>
              <ul>
                {app.policy.refused.map((r, i) => (
                  <li key={i}>
                    <code>
                      {r.field}: {r.value}
                    </code>{" "}
                    — {r.why}
                  </li>
                ))}
              </ul>
            </>
          )}
          <h4>Blocked</h4>
          {host.violations.length === 0 ? (
            <p className="muted">Nothing blocked so far.</p>
          ) : (
            <ul className="app-violations" aria-label="Blocked by the CSP">
              {host.violations.map((v, i) => (
                <li key={i}>
                  <code>{v.blocked || "(inline)"}</code> by <code>{v.directive}</code>
                  {v.declare && (
                    <>
                      {" "}
                      — declare <code>{v.declare}</code> in the resource&apos;s <code>_meta.ui.csp</code>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {tab === "console" && (
        <ul className="app-console" aria-label="The App's console">
          {host.console.length + host.appLog.length === 0 && <li className="muted">No errors and no log messages.</li>}
          {host.console.map((c, i) => (
            <li key={`c${i}`} className={`tone-${c.level === "error" ? "danger" : "warn"}`}>
              <Badge tone={c.level === "error" ? "danger" : "warn"}>{c.level}</Badge> <code>{c.text}</code>
            </li>
          ))}
          {host.appLog.map((m, i) => (
            <li key={`l${i}`}>
              <Badge tone="neutral">log</Badge> <code>{JSON.stringify(m)}</code>
            </li>
          ))}
        </ul>
      )}
      {tab === "meta" && (
        <div>
          <p className="muted">
            {app.uri} · {app.size.toLocaleString()} bytes of HTML · served on <code>{app.url}</code>
          </p>
          <pre>{JSON.stringify(app.meta ?? null, null, 2)}</pre>
        </div>
      )}
      {tab === "context" && (
        <div className="app-context">
          <div className="context-row">
            <span className="field-label" aria-hidden>Theme</span>
            <Segmented<"window" | "light" | "dark">
              label="Theme the App sees"
              value={overrides.theme ?? "window"}
              onChange={(v) => onOverrides({ ...overrides, theme: v === "window" ? undefined : v })}
              options={[
                { value: "window", label: "The window's" },
                { value: "light", label: "Light" },
                { value: "dark", label: "Dark" },
              ]}
            />
          </div>
          <div className="context-row">
            <span className="field-label" aria-hidden>Width</span>
            <Segmented<"wide" | "narrow">
              label="Width the App gets"
              value={overrides.width ?? "wide"}
              onChange={(v) => onOverrides({ ...overrides, width: v })}
              options={[
                { value: "wide", label: "Wide" },
                { value: "narrow", label: "Narrow (360 px)" },
              ]}
            />
          </div>
          <div className="context-row">
            <span className="field-label" aria-hidden>Display mode</span>
            <Segmented<DisplayMode>
              label="Display mode"
              value={mode}
              onChange={onMode}
              options={[
                { value: "inline", label: "Inline" },
                { value: "fullscreen", label: "Fullscreen" },
                { value: "pip", label: "Picture in picture" },
              ]}
            />
          </div>
          <div className="context-row">
            <span className="field-label" aria-hidden>Locale</span>
            <Segmented<string>
              label="Locale the App sees"
              value={overrides.locale ?? "window"}
              onChange={(v) => onOverrides({ ...overrides, locale: v === "window" ? undefined : v })}
              options={LOCALES.map((l) => ({ value: l, label: l === "window" ? "The window's" : l }))}
            />
          </div>
        </div>
      )}
    </Disclosure>
  );
}
