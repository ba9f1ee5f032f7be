//! What one row of the traffic log is, as the window and exports see it.

use std::sync::Arc;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Client → server.
    Outgoing,
    /// Server → client.
    Incoming,
    /// A line the server wrote to stderr.
    Stderr,
    /// The workbench's own note about the server (a refusal, a fallback, a
    /// message it cut): kept beside its traffic, never passed off as the
    /// server's stderr.
    Note,
    /// An MCP App (its frame) → the workbench, over the App's postMessage
    /// bridge: kept under the App's server, marked as App traffic.
    FromApp,
    /// The workbench → an MCP App's frame.
    ToApp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    Request,
    Response,
    Error,
    Notification,
    /// Not a JSON-RPC message (e.g. a log line on stdout).
    Invalid,
    Log,
}

#[derive(Debug, Clone, Serialize)]
pub struct TrafficEntry {
    /// Increasing across all servers: the order things happened in.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub time_ms: f64,
    // Shared by all of a server's entries (one name, not one per message).
    #[serde(serialize_with = "as_str")]
    pub server: Arc<str>,
    pub direction: Direction,
    pub kind: MessageKind,
    // Interned per server: a method name is stored once, not per message.
    #[serde(serialize_with = "as_opt_str")]
    pub method: Option<Arc<str>>,
    /// The JSON-RPC id, as JSON text (`7`, `"abc"`).
    pub id: Option<String>,
    /// Bytes on the wire.
    pub size: u32,
    /// For a response: milliseconds since its request.
    pub latency_ms: Option<f64>,
    /// The message text (masked; truncated to the body limit).
    pub body: String,
    pub truncated: bool,
}

fn as_str<S: serde::Serializer>(v: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v)
}

fn as_opt_str<S: serde::Serializer>(v: &Option<Arc<str>>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_some(&**v),
        None => s.serialize_none(),
    }
}
