//! MCP Apps in the window: each open App gets its own origin,
//! `mcpapp://<id>`, served by this URI scheme — the sandbox proxy at `/`
//! (ours: it relays messages between the window and the App's frame) and
//! the App's HTML at `/view` under the CSP its resource declared (a header,
//! which the App cannot take back), with the host's probe first in its head
//! (CSP violations and console errors reported to the App panel). Nothing
//! here listens on a port; the window's own origin never serves an App.

use tauri::http::{Request, Response, StatusCode, header};
pub use workbench_app::apps::{Apps, OpenApp};

/// The scheme Apps are served on.
pub const SCHEME: &str = "mcpapp";

const PROXY_HTML: &str = r#"<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}iframe{border:0;display:block;width:100%;height:100%}</style><script src="/proxy.js"></script></head><body></body></html>"#;

/// The sandbox proxy: loads the App's frame when the window says so and
/// relays every message between the two, except the `sandbox-` ones.
const PROXY_JS: &str = r#"(() => {
  "use strict";
  const host = window.parent;
  let view = null;
  const reserved = (m) => m && typeof m.method === "string" && m.method.startsWith("ui/notifications/sandbox-");
  addEventListener("message", (e) => {
    const m = e.data;
    if (e.source === host) {
      if (m && m.method === "ui/notifications/sandbox-resource-ready") {
        const p = m.params || {};
        if (view) view.remove();
        view = document.createElement("iframe");
        view.setAttribute("sandbox", typeof p.sandbox === "string" ? p.sandbox : "allow-scripts allow-same-origin allow-forms");
        if (typeof p.allow === "string" && p.allow) view.setAttribute("allow", p.allow);
        view.setAttribute("title", "MCP App");
        view.src = "/view";
        document.body.appendChild(view);
        return;
      }
      if (view && view.contentWindow && !reserved(m)) view.contentWindow.postMessage(m, "*");
    } else if (view && e.source === view.contentWindow && !reserved(m)) {
      host.postMessage(m, "*");
    }
  });
  host.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, "*");
})();
"#;

/// First in the App's head: what its CSP blocked and what it logged as an
/// error, told to the window (App panel), never to the server; and, once,
/// that the person used the App (a press, a key, a value changed: a
/// slider, a field), so the chat keeps it alive however that happened —
/// the window cannot see inside the frame, nor always its focus.
const PROBE_JS: &str = r#"(() => {
  "use strict";
  const say = (method, params) => { try { parent.postMessage({ jsonrpc: "2.0", method, params }, "*"); } catch (_) {} };
  let used = false;
  const use = (e) => { if (used || !e.isTrusted) return; used = true; say("x-mcpwb/used", {}); };
  for (const kind of ["pointerdown", "keydown", "input", "change"]) addEventListener(kind, use, true);
  addEventListener("securitypolicyviolation", (e) => say("x-mcpwb/csp-violation", {
    directive: e.effectiveDirective || e.violatedDirective || "", blocked: e.blockedURI || "",
    source: e.sourceFile || "", line: e.lineNumber || 0 }));
  addEventListener("error", (e) => say("x-mcpwb/console", { level: "error",
    text: String((e && e.message) || e), source: (e && e.filename) || "", line: (e && e.lineno) || 0 }));
  addEventListener("unhandledrejection", (e) => say("x-mcpwb/console", { level: "error",
    text: "unhandled rejection: " + String(e && e.reason) }));
  for (const level of ["error", "warn"]) {
    const original = console[level];
    console[level] = function (...args) {
      say("x-mcpwb/console", { level, text: args.map((a) => { try { return typeof a === "string" ? a : JSON.stringify(a); } catch (_) { return String(a); } }).join(" ") });
      return original.apply(this, args);
    };
  }
})();
"#;

/// The proxy's own policy: its script, its frame, nothing else.
const PROXY_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; frame-src 'self'; base-uri 'none'; form-action 'none'";

fn respond(status: StatusCode, kind: &str, csp: &str, body: Vec<u8>) -> Response<Vec<u8>> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, kind)
        .header("Content-Security-Policy", csp)
        .header(header::CACHE_CONTROL, "no-store")
        .header("X-Content-Type-Options", "nosniff")
        .body(body)
        .unwrap_or_else(|_| Response::new(Vec::new()))
}

/// The scheme's answer to one request of an App's frame.
pub fn serve(apps: &Apps, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    let uri = request.uri();
    let id = uri.host().unwrap_or_default();
    let none = "default-src 'none'";
    let Some(app) = apps.get(id) else {
        return respond(
            StatusCode::NOT_FOUND,
            "text/plain",
            none,
            b"no such App (closed, or reloaded under a new origin)".to_vec(),
        );
    };
    let js = "text/javascript; charset=utf-8";
    match uri.path() {
        "/" | "/index.html" => respond(
            StatusCode::OK,
            "text/html; charset=utf-8",
            PROXY_CSP,
            PROXY_HTML.into(),
        ),
        "/proxy.js" => respond(StatusCode::OK, js, none, PROXY_JS.into()),
        "/probe.js" => respond(StatusCode::OK, js, none, PROBE_JS.into()),
        "/view" => {
            let html = workbench_core::apps::inject_first(
                &app.resource.html,
                r#"<script src="/probe.js"></script>"#,
            );
            respond(
                StatusCode::OK,
                "text/html; charset=utf-8",
                &app.resource.policy.csp,
                html.into_bytes(),
            )
        }
        _ => respond(StatusCode::NOT_FOUND, "text/plain", none, Vec::new()),
    }
}
