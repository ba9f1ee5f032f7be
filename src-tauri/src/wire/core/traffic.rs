#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, specta::Type)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
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
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TrafficEntry {
    /// Increasing across all servers: the order things happened in.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub time_ms: f64,
    pub server: String,
    pub direction: Direction,
    pub kind: MessageKind,
    pub method: Option<String>,
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
/// Which entries, and which window of them.
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct TrafficQuery {
    /// One server's entries, or all servers' merged in order.
    #[serde(default)]
    pub server: Option<String>,
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Case-insensitive text in the method or the message.
    #[serde(default)]
    pub text: Option<String>,
    /// Exactly this method (e.g. `tools/call`).
    #[serde(default)]
    pub method: Option<String>,
    /// Exactly this JSON-RPC id, as JSON text (`7`, `"abc"`): a request and
    /// its response.
    #[serde(default)]
    pub id: Option<String>,
    /// Only entries with a sequence number in `[from, to]` (a call's rows).
    #[serde(default)]
    pub seq_from: Option<u64>,
    #[serde(default)]
    pub seq_to: Option<u64>,
    /// The first entry wanted, counted from the oldest match (from the
    /// newest when `from_end`).
    #[serde(default)]
    pub offset: u32,
    pub limit: u32,
    #[serde(default)]
    pub from_end: bool,
}
/// A window of the matching entries, oldest first.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TrafficPage {
    /// How many entries match in all.
    pub total: u32,
    /// The index (among the matches, oldest first) of `entries[0]`.
    pub offset: u32,
    pub entries: Vec<TrafficEntry>,
    /// The newest entry's sequence number in the whole log.
    pub last_seq: u64,
}
impl From<TrafficQuery> for workbench_core::traffic::TrafficQuery {
    fn from(v: TrafficQuery) -> Self {
        let TrafficQuery {
            server,
            direction,
            text,
            method,
            id,
            seq_from,
            seq_to,
            offset,
            limit,
            from_end,
        } = v;
        workbench_core::traffic::TrafficQuery {
            server,
            direction: direction.map(|v| v.into()),
            text,
            method,
            id,
            seq_from,
            seq_to,
            offset,
            limit,
            from_end,
        }
    }
}
impl From<Direction> for workbench_core::traffic::Direction {
    fn from(v: Direction) -> Self {
        match v {
            Direction::Outgoing => workbench_core::traffic::Direction::Outgoing,
            Direction::Incoming => workbench_core::traffic::Direction::Incoming,
            Direction::Stderr => workbench_core::traffic::Direction::Stderr,
            Direction::Note => workbench_core::traffic::Direction::Note,
            Direction::FromApp => workbench_core::traffic::Direction::FromApp,
            Direction::ToApp => workbench_core::traffic::Direction::ToApp,
        }
    }
}
crate::wire::to_wire!(workbench_core::traffic::TrafficPage => TrafficPage);
impl From<workbench_core::traffic::TrafficPage> for TrafficPage {
    fn from(v: workbench_core::traffic::TrafficPage) -> Self {
        let workbench_core::traffic::TrafficPage {
            total,
            offset,
            entries,
            last_seq,
        } = v;
        Self {
            total,
            offset,
            entries: entries.into_iter().map(|v| v.into()).collect(),
            last_seq,
        }
    }
}
crate::wire::to_wire!(workbench_core::traffic::TrafficEntry => TrafficEntry);
impl From<workbench_core::traffic::TrafficEntry> for TrafficEntry {
    fn from(v: workbench_core::traffic::TrafficEntry) -> Self {
        let workbench_core::traffic::TrafficEntry {
            seq,
            time_ms,
            server,
            direction,
            kind,
            method,
            id,
            size,
            latency_ms,
            body,
            truncated,
        } = v;
        Self {
            seq,
            time_ms,
            server: server.to_string(),
            direction: direction.into(),
            kind: kind.into(),
            method: method.map(|m| m.to_string()),
            id,
            size,
            latency_ms,
            body,
            truncated,
        }
    }
}
crate::wire::to_wire!(workbench_core::traffic::Direction => Direction);
impl From<workbench_core::traffic::Direction> for Direction {
    fn from(v: workbench_core::traffic::Direction) -> Self {
        match v {
            workbench_core::traffic::Direction::Outgoing => Self::Outgoing,
            workbench_core::traffic::Direction::Incoming => Self::Incoming,
            workbench_core::traffic::Direction::Stderr => Self::Stderr,
            workbench_core::traffic::Direction::Note => Self::Note,
            workbench_core::traffic::Direction::FromApp => Self::FromApp,
            workbench_core::traffic::Direction::ToApp => Self::ToApp,
        }
    }
}
crate::wire::to_wire!(workbench_core::traffic::MessageKind => MessageKind);
impl From<workbench_core::traffic::MessageKind> for MessageKind {
    fn from(v: workbench_core::traffic::MessageKind) -> Self {
        match v {
            workbench_core::traffic::MessageKind::Request => Self::Request,
            workbench_core::traffic::MessageKind::Response => Self::Response,
            workbench_core::traffic::MessageKind::Error => Self::Error,
            workbench_core::traffic::MessageKind::Notification => Self::Notification,
            workbench_core::traffic::MessageKind::Invalid => Self::Invalid,
            workbench_core::traffic::MessageKind::Log => Self::Log,
        }
    }
}
