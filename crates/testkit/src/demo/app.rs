//! The demo's MCP App (`io.modelcontextprotocol/ui`): `counter_app` shows
//! the counter in an App (`ui://demo/counter`, its HTML in `app.html`) that
//! exercises the handshake, a call of the App-only tool `app_bump`, a link,
//! a message for the chat, the model context, a size change, a display-mode
//! request, escape attempts, a request its CSP does not allow, and a call of
//! `counter_peek`, which only the model may call.

use std::sync::atomic::Ordering;

use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};

use super::{COUNTER_URI, DemoServer, listen};

pub const URI: &str = "ui://demo/counter";
const HTML: &str = include_str!("app.html");
/// The one origin the App declares (so the CSP shows a declared domain).
pub const DECLARED: &str = "https://api.example.com";

pub fn tools() -> Vec<Value> {
    vec![
        json!({
            "name": "counter_app",
            "title": "Counter App",
            "description": "Shows the demo counter in an MCP App (text for hosts without Apps).",
            "inputSchema": { "type": "object", "properties": { "note": { "type": "string", "description": "Shown in the App" } } },
            "outputSchema": { "type": "object", "properties": { "count": { "type": "integer" } }, "required": ["count"] },
            "annotations": { "readOnlyHint": true },
            "_meta": { "ui": { "resourceUri": URI } }
        }),
        json!({
            "name": "app_bump",
            "title": "Bump the counter (from the App)",
            "description": "Adds to the counter; only the counter App calls it.",
            "inputSchema": { "type": "object", "properties": { "by": { "type": "integer", "minimum": 1, "default": 1 } } },
            "_meta": { "ui": { "resourceUri": URI, "visibility": ["app"] } }
        }),
        json!({
            "name": "counter_peek",
            "title": "Peek at the counter (the model only)",
            "description": "The count, for the model; an App may not call it.",
            "inputSchema": { "type": "object", "properties": {} },
            "annotations": { "readOnlyHint": true },
            "_meta": { "ui": { "visibility": ["model"] } }
        }),
    ]
}

pub fn resource() -> Value {
    json!({ "uri": URI, "name": "counter-app", "title": "Counter App", "description": "The counter_app tool's App",
        "mimeType": MIME })
}

pub const MIME: &str = "text/html;profile=mcp-app";

pub fn read(uri: &str) -> Option<Value> {
    (uri == URI).then(|| {
        json!({ "contents": [{ "uri": URI, "mimeType": MIME, "text": HTML,
            "_meta": { "ui": { "csp": { "connectDomains": [DECLARED] }, "prefersBorder": true } } }] })
    })
}

/// The count as both tools answer it.
pub fn result(count: i64) -> Value {
    json!({ "content": [{ "type": "text", "text": format!("The counter is {count}.") }],
        "structuredContent": { "count": count } })
}

impl DemoServer {
    /// The App's tools: the count, and `app_bump` adding to it (subscribers
    /// of the counter told).
    pub(super) async fn app_tool(
        &self,
        name: &str,
        args: &Value,
        peer: &Peer<RoleServer>,
    ) -> Value {
        if name != "app_bump" {
            return result(self.inner.counter.load(Ordering::SeqCst));
        }
        let by = args["by"].as_i64().unwrap_or(1).clamp(1, 1000);
        let value = self.inner.counter.fetch_add(by, Ordering::SeqCst) + by;
        let subscribed = self.inner.subscriptions.lock().await.contains(COUNTER_URI);
        listen::resource_updated(peer, COUNTER_URI, subscribed).await;
        result(value)
    }
}
