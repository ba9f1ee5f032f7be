//! What a host did through the tap, read from the messages as they are
//! kept: its name, version and protocol from the handshake, and its tool
//! calls, each kept in the History once answered (origin `host`: seen, not
//! made by the workbench).

use std::collections::HashMap;

use serde_json::Value;
use workbench_store::{CallStatus, NewCall, TapMessage};

/// The host's tool calls, kept in the History (origin `host`, the host's
/// name as the caller) once answered: seen, not made by the workbench.
#[derive(Default)]
pub(crate) struct HostCalls {
    /// Open calls by their id: tool, arguments (JSON text), when asked.
    open: HashMap<String, (String, String, i64)>,
    host: String,
    protocol: Option<String>,
}

impl HostCalls {
    pub(crate) fn learn(
        &mut self,
        host: Option<String>,
        version: Option<String>,
        protocol: Option<String>,
    ) {
        if let Some(h) = host {
            self.host = match version {
                Some(v) => format!("{h} {v}"),
                None => h,
            };
        }
        if protocol.is_some() {
            self.protocol = protocol;
        }
    }

    pub(crate) fn read(&mut self, m: &TapMessage, server: &str) -> Vec<NewCall> {
        if m.cut || !(m.direction == "host" || m.direction == "server") {
            return Vec::new();
        }
        let Ok(v) = serde_json::from_str::<Value>(&m.text) else {
            return Vec::new();
        };
        let all = match v {
            Value::Array(batch) => batch,
            one => vec![one],
        };
        let mut out = Vec::new();
        for v in all {
            let Some(id) = v.get("id").map(Value::to_string) else {
                continue;
            };
            if m.direction == "host" {
                if v["method"] == "tools/call" {
                    let tool = v["params"]["name"].as_str().unwrap_or_default().to_string();
                    let args = v["params"]
                        .get("arguments")
                        .map_or_else(|| "{}".to_string(), Value::to_string);
                    self.open.insert(id, (tool, args, m.at_ms));
                }
                continue;
            }
            if v.get("method").is_some() {
                continue;
            }
            let Some((tool, arguments, started_at)) = self.open.remove(&id) else {
                continue;
            };
            let (status, result, error) = match (v.get("result"), v.get("error")) {
                (Some(r), _) if r["isError"] == true => {
                    (CallStatus::Error, Some(r.to_string()), None)
                }
                (Some(r), _) => (CallStatus::Ok, Some(r.to_string()), None),
                (_, Some(e)) => (
                    CallStatus::Failed,
                    None,
                    Some(
                        e["message"]
                            .as_str()
                            .map_or_else(|| e.to_string(), str::to_string),
                    ),
                ),
                _ => (
                    CallStatus::Failed,
                    None,
                    Some("an answer of neither result nor error".into()),
                ),
            };
            out.push(NewCall {
                // `session` names a chat; the tapped session is found by
                // its host and time.
                origin: "host".into(),
                call_id: self.host.clone(),
                server: server.to_string(),
                tool,
                arguments,
                result,
                error,
                status: Some(status),
                duration_ms: Some((m.at_ms - started_at) as f64),
                started_at,
                protocol: self.protocol.clone(),
                ..NewCall::default()
            });
        }
        out
    }
}

/// What the host and the server say of themselves in `initialize`.
#[derive(Default)]
pub(crate) struct Handshake {
    initialize_id: Option<Value>,
    done: bool,
}

/// Learned from one message: the host's name and version, or the protocol.
type Learned = (Option<String>, Option<String>, Option<String>);

impl Handshake {
    pub(crate) fn read(&mut self, m: &TapMessage) -> Option<Learned> {
        if self.done || m.cut {
            return None;
        }
        let v = serde_json::from_str::<Value>(&m.text).ok()?;
        let text = |v: &Value| v.as_str().map(str::to_string);
        // 2025-11-25 and before: `initialize`; 2026-07-28: `server/discover`,
        // the client's metadata in each request's `_meta`.
        if m.direction == "host"
            && (v["method"] == "initialize" || v["method"] == "server/discover")
        {
            self.initialize_id = Some(v["id"].clone());
            let params = &v["params"];
            let info = if params["clientInfo"].is_object() {
                &params["clientInfo"]
            } else {
                &params["_meta"]["io.modelcontextprotocol/clientInfo"]
            };
            return Some((text(&info["name"]), text(&info["version"]), None));
        }
        if m.direction == "server"
            && self.initialize_id.as_ref() == Some(&v["id"])
            && v.get("result").is_some()
        {
            self.done = true;
            let result = &v["result"];
            // server/discover lists what it supports; the newest is spoken.
            let protocol = text(&result["protocolVersion"]).or_else(|| {
                result["supportedVersions"]
                    .as_array()
                    .and_then(|all| all.iter().filter_map(Value::as_str).max())
                    .map(str::to_string)
            });
            return Some((None, None, protocol));
        }
        None
    }
}
