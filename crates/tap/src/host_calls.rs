//! What a host did through the tap, read from the messages as they are
//! kept: its name, version and protocol from the handshake, and its tool
//! calls, each kept in the History once answered (origin `host`: seen, not
//! made by the workbench).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
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
        let batch = m.text.trim_start().starts_with('[');
        let all = if batch {
            serde_json::from_str::<Vec<Message<'_>>>(&m.text).unwrap_or_default()
        } else {
            serde_json::from_str::<Message<'_>>(&m.text)
                .map(|one| vec![one])
                .unwrap_or_default()
        };
        let mut out = Vec::new();
        for v in all {
            let Some(id) = v.id.map(|id| id.get().to_string()) else {
                continue;
            };
            if m.direction == "host" {
                if v.method.as_deref() == Some("tools/call")
                    && let Some(params) = v.params
                {
                    let call: Call<'_> = serde_json::from_str(params.get()).unwrap_or_default();
                    let args = call.arguments.map_or_else(|| "{}".to_string(), compact);
                    self.open
                        .insert(id, (call.name.into_owned(), args, m.at_ms));
                }
                continue;
            }
            if v.method.is_some() {
                continue;
            }
            let Some((tool, arguments, started_at)) = self.open.remove(&id) else {
                continue;
            };
            let (status, result, error) = match (v.result, v.error) {
                (Some(r), _) => {
                    let flagged = serde_json::from_str::<Outcome>(r.get())
                        .is_ok_and(|o| o.is_error == Some(true));
                    let status = if flagged {
                        CallStatus::Error
                    } else {
                        CallStatus::Ok
                    };
                    (status, Some(compact(r)), None)
                }
                (_, Some(e)) => {
                    let said = serde_json::from_str::<Failure<'_>>(e.get())
                        .ok()
                        .and_then(|f| f.message)
                        .map_or_else(|| compact(e), Cow::into_owned);
                    (CallStatus::Failed, None, Some(said))
                }
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

/// A JSON-RPC message as far as the History reads it: its parts left as
/// they came, nothing built of what is not read (a message passes here once
/// for each one the tap keeps).
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// A `tools/call`'s params.
#[derive(Deserialize, Default)]
struct Call<'a> {
    #[serde(borrow, default)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// Whether a result says the tool failed.
#[derive(Deserialize)]
struct Outcome {
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
}

/// A JSON-RPC error's message.
#[derive(Deserialize)]
struct Failure<'a> {
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

/// JSON text without the whitespace between its tokens (as the window and
/// `mcpwb` store every call's arguments and result), strings untouched.
fn compact(raw: &RawValue) -> String {
    let text = raw.get();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !c.is_ascii_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    fn message(direction: &str, at_ms: i64, text: &str) -> TapMessage {
        TapMessage {
            seq: 0,
            at_ms,
            direction: direction.into(),
            size: text.len() as i64,
            text: text.into(),
            cut: false,
        }
    }

    #[test]
    fn a_hosts_calls_are_read_from_what_passes_each_with_its_outcome() {
        let mut calls = HostCalls::default();
        let host = |text: &str| message("host", 100, text);
        let server = |text: &str| message("server", 130, text);
        // A call, its arguments kept without the whitespace between
        // tokens (a string's own spaces stay).
        let asked = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments": {"message": "a  b\"  c"}}}"#;
        assert!(calls.read(&host(asked), "demo").is_empty());
        let said =
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a  b"}]}}"#;
        let done = calls.read(&server(said), "demo");
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].tool, "echo");
        assert_eq!(done[0].arguments, r#"{"message":"a  b\"  c"}"#);
        assert_eq!(done[0].status, Some(CallStatus::Ok));
        assert_eq!(
            done[0].result.as_deref(),
            Some(r#"{"content":[{"type":"text","text":"a  b"}]}"#)
        );
        assert_eq!(done[0].duration_ms, Some(30.0));
        // A batch: a tool's own failure, and a protocol error by its message.
        let asked = r#"[{"id":"x","method":"tools/call","params":{"name":"boom"}},{"id":"y","method":"tools/call","params":{"name":"nope","arguments":{}}},{"method":"notifications/progress"}]"#;
        assert!(calls.read(&host(asked), "demo").is_empty());
        let said = r#"[{"id":"x","result":{"isError":true,"content":[]}},{"id":"y","error":{"code":-32602,"message":"unknown tool: nope"}}]"#;
        let done = calls.read(&server(said), "demo");
        assert_eq!(done.len(), 2);
        assert_eq!(
            (done[0].tool.as_str(), done[0].status),
            ("boom", Some(CallStatus::Error))
        );
        assert_eq!(done[0].arguments, "{}");
        assert_eq!(done[1].status, Some(CallStatus::Failed));
        assert_eq!(done[1].error.as_deref(), Some("unknown tool: nope"));
        // An answer to no call of the host's, a server's request, and what
        // is not JSON are not calls.
        assert!(
            calls
                .read(&server(r#"{"id":9,"result":{}}"#), "demo")
                .is_empty()
        );
        assert!(
            calls
                .read(&server(r#"{"id":2,"method":"roots/list"}"#), "demo")
                .is_empty()
        );
        assert!(calls.read(&server("not json"), "demo").is_empty());
    }
}
