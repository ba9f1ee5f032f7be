//! A kept session as a file to share: JSON Lines, a header first
//! (`{"mcpwbSession": 1, "server", "command", "host", "hostVersion",
//! "protocol", "startedAt", "endedAt"}`), then one message a line
//! (`{"at", "from": "host"|"server", "size", "message"}`; a message that is
//! not JSON, or was kept cut, is its text with `"cut": true` where cut).

use serde_json::{Value, json};
use workbench_codes::{ErrorCode, ErrorInfo};
use workbench_store::{Store, TapMessage, TapRow};

/// The format's version in the header.
pub const VERSION: u64 = 1;

/// Why a kept session could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// No session has this id.
    NotFound(i64),
    /// The store failed.
    Store(String),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::NotFound(id) => {
                write!(f, "no tapped session {id} (mcpwb session list shows them)")
            }
            SessionError::Store(e) => write!(f, "the sessions' store: {e}"),
        }
    }
}

/// A session read from a file or the store.
#[derive(Debug, Clone)]
pub struct Session {
    pub header: Value,
    pub messages: Vec<TapMessage>,
}

impl Session {
    /// A session of these messages (direction, JSON), for tests.
    #[cfg(test)]
    pub(crate) fn of(lines: &[(&str, Value)]) -> Session {
        Session {
            header: json!({ "mcpwbSession": VERSION }),
            messages: lines
                .iter()
                .enumerate()
                .map(|(i, (d, v))| TapMessage {
                    seq: i as i64,
                    at_ms: 0,
                    direction: d.to_string(),
                    size: 0,
                    text: v.to_string(),
                    cut: false,
                })
                .collect(),
        }
    }

    /// The session kept in `store` as `id`.
    pub fn from_store(store: &Store, id: i64) -> Result<Session, SessionError> {
        let failed = |e: workbench_store::Error| SessionError::Store(e.to_string());
        let row = store
            .tap(id)
            .map_err(failed)?
            .ok_or(SessionError::NotFound(id))?;
        let messages = store.tap_messages(id).map_err(failed)?;
        Ok(Session {
            header: header(&row),
            messages,
        })
    }

    /// The same session with its credentials masked, through the one
    /// masker (they are kept as they were only by `mcpwb tap --unmasked`):
    /// the credential headers' values of its HTTP exchanges, and those
    /// values wherever they reappear (a server echoing its caller's
    /// Authorization); the credentials its server's URL and each exchange's
    /// path carry (`?api_key=`), in the header's command and everywhere else.
    pub fn masked(mut self) -> Session {
        let mut secrets = workbench_mask::Secrets::default();
        let command = self.header["command"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        for s in workbench_mask::url_secrets(&command) {
            secrets.add(&s);
        }
        let mut marks = Vec::new();
        for (i, m) in self.messages.iter().enumerate() {
            if m.direction != "tap" {
                continue;
            }
            let Ok(v) = serde_json::from_str::<Value>(&m.text) else {
                continue;
            };
            for side in ["requestHeaders", "responseHeaders"] {
                if let Some(h) = v["http"][side].as_object() {
                    for (name, value) in h {
                        for s in
                            workbench_mask::header_secrets(name, value.as_str().unwrap_or_default())
                        {
                            secrets.add(&s);
                        }
                    }
                }
            }
            if let Some(path) = v["http"]["path"].as_str() {
                for s in workbench_mask::url_secrets(path) {
                    secrets.add(&s);
                }
            }
            marks.push((i, v));
        }
        for (i, mut v) in marks {
            for side in ["requestHeaders", "responseHeaders"] {
                if let Some(h) = v["http"][side].as_object_mut() {
                    for (name, value) in h.iter_mut() {
                        if workbench_mask::secret_header(name) {
                            *value = Value::String(workbench_mask::MASK.into());
                        }
                    }
                }
            }
            if let Some(path) = v["http"]["path"].as_str() {
                v["http"]["path"] = Value::String(workbench_mask::mask_url(path));
            }
            self.messages[i].text = v.to_string();
        }
        for m in &mut self.messages {
            let json = !m.cut && m.text.trim_start().starts_with(['{', '[']);
            if let std::borrow::Cow::Owned(masked) = secrets.message(&m.text, json) {
                m.text = masked;
            }
        }
        let command = secrets
            .text(&workbench_mask::mask_url(&command))
            .into_owned();
        self.header["command"] = Value::String(command);
        self
    }

    /// The file's text.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        out.push_str(&self.header.to_string());
        out.push('\n');
        for m in &self.messages {
            let mut line = json!({ "at": m.at_ms, "from": m.direction, "size": m.size });
            match serde_json::from_str::<Value>(&m.text) {
                Ok(v) if !m.cut => line["message"] = v,
                _ => {
                    line["text"] = Value::String(m.text.clone());
                    if m.cut {
                        line["cut"] = Value::Bool(true);
                    }
                }
            }
            out.push_str(&line.to_string());
            out.push('\n');
        }
        out
    }

    /// Read a file's text back; line numbers in what it says.
    pub fn from_jsonl(text: &str) -> Result<Session, ErrorInfo> {
        Self::read_jsonl(text).map_err(|m| ErrorInfo::new(ErrorCode::Invalid, m))
    }

    fn read_jsonl(text: &str) -> Result<Session, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, first) = lines.next().ok_or("the file is empty")?;
        let header: Value =
            serde_json::from_str(first).map_err(|e| format!("line 1: not JSON: {e}"))?;
        if header["mcpwbSession"].as_u64() != Some(VERSION) {
            return Err(format!(
                "line 1: not a session file of this version (wants {{\"mcpwbSession\": {VERSION}, ...}})"
            ));
        }
        let mut messages = Vec::new();
        for (n, line) in lines {
            let v: Value =
                serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", n + 1))?;
            let direction = match v["from"].as_str() {
                Some(d @ ("host" | "server" | "tap")) => d.to_string(),
                _ => {
                    return Err(format!("line {}: \"from\" is host, server or tap", n + 1));
                }
            };
            let text = match (&v["message"], v["text"].as_str()) {
                (m, _) if !m.is_null() => m.to_string(),
                (_, Some(t)) => t.to_string(),
                _ => return Err(format!("line {}: no message", n + 1)),
            };
            messages.push(TapMessage {
                seq: messages.len() as i64,
                at_ms: v["at"].as_i64().unwrap_or_default(),
                direction,
                size: v["size"].as_i64().unwrap_or(text.len() as i64),
                text,
                cut: v["cut"].as_bool().unwrap_or(false),
            });
        }
        Ok(Session { header, messages })
    }

    /// Keep it in `store`, opened from the file `from`: its new id.
    pub fn import(&self, store: &Store, from: &std::path::Path) -> Result<i64, ErrorInfo> {
        let storage = |e: workbench_store::Error| ErrorInfo::new(ErrorCode::Storage, e.to_string());
        let h = &self.header;
        let s = |k: &str| h[k].as_str().map(str::to_string);
        let id = store
            .create_tap(
                &s("server").unwrap_or_default(),
                &s("command").unwrap_or_default(),
                h["startedAt"].as_i64().unwrap_or_default(),
            )
            .map_err(storage)?;
        store
            .set_tap_host(
                id,
                s("host").as_deref(),
                s("hostVersion").as_deref(),
                s("protocol").as_deref(),
            )
            .and_then(|()| store.set_tap_imported_from(id, &from.display().to_string()))
            .and_then(|()| store.append_tap_messages(id, &self.messages))
            .and_then(|()| {
                store.end_tap(
                    id,
                    h["endedAt"].as_i64().unwrap_or_default(),
                    h["dropped"].as_i64().unwrap_or_default(),
                )
            })
            .map_err(storage)?;
        Ok(id)
    }
}

/// What a session's snapshots leave out of their comparison: what a
/// `tools/call` result carries in one protocol era only (`_meta`,
/// 2026-07-28's `resultType`), and `isError`, which the case's own
/// expectation holds (absent and `false` mean the same).
const NOT_COMPARED: [&str; 3] = ["/_meta", "/resultType", "/isError"];

/// The header of a kept session.
pub fn header(row: &TapRow) -> Value {
    json!({
        "mcpwbSession": VERSION,
        "server": row.server,
        "command": row.command,
        "host": row.host,
        "hostVersion": row.host_version,
        "protocol": row.protocol,
        "startedAt": row.started_at,
        "endedAt": row.ended_at,
        "dropped": row.dropped,
    })
}

/// The tool calls of a session as suite cases, for `server`: the suite's
/// JSON and its snapshots' (by case name). Each case sends the arguments as
/// the host sent them (the suite writer keeps them as text: a `${` a host
/// or its model wrote is never read as a reference) and holds the result to its snapshot less what only one
/// protocol era adds (`_meta`, 2026-07-28's `resultType`), so a run in the
/// other era compares what the host saw; a tool's error result is expected
/// as one (`"isError": true`, held by the case, not the snapshot). Calls the server answered with a JSON-RPC
/// error are left out (counted in the third value).
pub fn to_suite(session: &Session, server: &str) -> (Value, Value, usize) {
    let parsed: Vec<(&str, Option<Value>)> = session
        .messages
        .iter()
        .map(|m| {
            let v = (!m.cut)
                .then(|| serde_json::from_str(&m.text).ok())
                .flatten();
            (m.direction.as_str(), v)
        })
        .collect();
    let mut cases = Vec::new();
    let mut snapshots = serde_json::Map::new();
    let mut left_out = 0;
    let mut taken: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, (dir, v)) in parsed.iter().enumerate() {
        let Some(v) = v else { continue };
        if *dir != "host" || v["method"] != "tools/call" {
            continue;
        }
        let Some(id) = v.get("id") else { continue };
        let answer = parsed[i + 1..].iter().find_map(|(d, a)| {
            a.as_ref()
                .filter(|a| *d == "server" && a.get("id") == Some(id) && a.get("method").is_none())
        });
        let Some(result) = answer.and_then(|a| a.get("result")) else {
            left_out += 1;
            continue;
        };
        let tool = v["params"]["name"].as_str().unwrap_or_default().to_string();
        let n = taken.entry(tool.clone()).or_insert(0);
        *n += 1;
        let name = if *n == 1 {
            tool.clone()
        } else {
            format!("{tool} ({n})")
        };
        let arguments = v["params"].get("arguments").cloned().unwrap_or(json!({}));
        let mut kept = result.clone();
        if let Some(o) = kept.as_object_mut() {
            for left_out in NOT_COMPARED {
                o.remove(&left_out[1..]);
            }
        }
        snapshots.insert(name.clone(), kept);
        let mut expect = json!({ "snapshot": { "ignore": NOT_COMPARED } });
        if result["isError"] == true {
            expect["isError"] = json!(true);
        }
        cases.push(json!({
            "name": name,
            "tool": tool,
            "arguments": arguments,
            "expect": expect,
        }));
    }
    (
        json!({ "server": server, "cases": cases }),
        Value::Object(snapshots),
        left_out,
    )
}
