//! A session tapped over HTTP as a HAR 1.2 log (what browsers' and HTTP
//! tools' viewers open): one entry per exchange the tap kept the head of,
//! its request body the host's messages and its response body the server's
//! (an SSE stream as its events).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::session::Session;

/// The HAR log of `session`'s HTTP exchanges (none for a stdio session).
pub fn to_har(session: &Session) -> Value {
    let bodies = Bodies(
        session
            .messages
            .iter()
            .map(|m| (m.seq, m.text.as_str()))
            .collect(),
    );
    let origin = session.header["command"]
        .as_str()
        .and_then(|u| {
            let (scheme, rest) = u.split_once("://")?;
            let host = rest.split('/').next()?;
            Some(format!("{scheme}://{host}"))
        })
        .unwrap_or_default();
    let mut entries = Vec::new();
    for m in session.messages.iter().filter(|m| m.direction == "tap") {
        let Ok(v) = serde_json::from_str::<Value>(&m.text) else {
            continue;
        };
        let Some(h) = v.get("http") else { continue };
        let started = h["startedAt"].as_i64().unwrap_or(m.at_ms);
        let ended = h["endedAt"].as_i64().unwrap_or(started);
        let mut entry = json!({
            "startedDateTime": iso8601(started),
            "time": ended - started,
            "request": request(h, &origin, &bodies),
            "response": response(h, &bodies),
            "cache": {},
            "timings": { "send": 0, "wait": ended - started, "receive": 0 },
        });
        if let Some(e) = h["error"].as_str() {
            entry["comment"] = json!(e);
        }
        entries.push(entry);
    }
    json!({ "log": {
        "version": "1.2",
        "creator": { "name": "mcpwb", "version": env!("CARGO_PKG_VERSION") },
        "entries": entries,
    } })
}

/// The session's messages by number: an exchange names the messages its
/// bodies carried.
struct Bodies<'a>(HashMap<i64, &'a str>);

impl Bodies<'_> {
    fn texts(&self, seqs: &Value) -> Vec<&str> {
        seqs.as_array()
            .map(|all| {
                all.iter()
                    .filter_map(|s| s.as_i64().and_then(|s| self.0.get(&s).copied()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// An exchange's request: its URL and query, headers, and the body (one
/// message, or a batch of them).
fn request(h: &Value, origin: &str, bodies: &Bodies<'_>) -> Value {
    let sent = bodies.texts(&h["request"]);
    let text = match sent.len() {
        0 => None,
        1 => Some(sent[0].to_string()),
        _ => Some(format!("[{}]", sent.join(","))),
    };
    let path = h["path"].as_str().unwrap_or("/");
    let query: Vec<Value> = path
        .split_once('?')
        .map(|(_, q)| {
            q.split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (n, v) = p.split_once('=').unwrap_or((p, ""));
                    json!({ "name": n, "value": v })
                })
                .collect()
        })
        .unwrap_or_default();
    let mut req = json!({
        "method": h["method"],
        "url": format!("{origin}{path}"),
        "httpVersion": "HTTP/1.1",
        "headers": headers(&h["requestHeaders"]),
        "queryString": query,
        "cookies": [],
        "headersSize": -1,
        "bodySize": text.as_ref().map_or(0, |t| t.len()),
    });
    if let Some(text) = text {
        req["postData"] = json!({
            "mimeType": header_of(&h["requestHeaders"], "content-type").unwrap_or_default(),
            "text": text,
        });
    }
    req
}

/// An exchange's response: the body as it came (kept whole), else made
/// again from its messages (an event stream's events, a batch, one).
fn response(h: &Value, bodies: &Bodies<'_>) -> Value {
    let mime = header_of(&h["responseHeaders"], "content-type").unwrap_or_default();
    let answered = bodies.texts(&h["response"]);
    let text = if let Some(body) = h["responseBody"].as_str() {
        body.to_string()
    } else if mime.starts_with("text/event-stream") {
        answered.iter().map(|t| format!("data: {t}\n\n")).collect()
    } else if answered.len() > 1 {
        format!("[{}]", answered.join(","))
    } else {
        answered.concat()
    };
    json!({
        "status": h["status"].as_u64().unwrap_or(0),
        "statusText": "",
        "httpVersion": "HTTP/1.1",
        "headers": headers(&h["responseHeaders"]),
        "cookies": [],
        "content": {
            "size": text.len(),
            "mimeType": mime,
            "text": text,
        },
        "redirectURL": header_of(&h["responseHeaders"], "location").unwrap_or_default(),
        "headersSize": -1,
        "bodySize": -1,
    })
}

fn headers(kept: &Value) -> Vec<Value> {
    kept.as_object()
        .map(|o| {
            o.iter()
                .map(|(n, v)| json!({ "name": n, "value": v.as_str().unwrap_or_default() }))
                .collect()
        })
        .unwrap_or_default()
}

fn header_of(kept: &Value, name: &str) -> Option<String> {
    kept.as_object()?
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.as_str().map(str::to_string))
}

/// `ms` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso8601(ms: i64) -> String {
    let (year, month, day, rest) = workbench_store::civil(ms);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        ms.rem_euclid(1000)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use workbench_store::TapMessage;

    #[test]
    fn each_exchange_is_an_entry_with_its_bodies() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_795_762_203_502), "2026-11-27T06:50:03.502Z");
        let m = |seq, d: &str, text: String| TapMessage {
            seq,
            at_ms: 1000,
            direction: d.into(),
            size: text.len() as i64,
            text,
            cut: false,
        };
        let session = Session {
            header: json!({ "command": "http://up.example:8080/mcp" }),
            messages: vec![
                m(0, "host", r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into()),
                m(1, "server", r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#.into()),
                m(2, "tap", json!({ "http": {
                    "method": "POST", "path": "/mcp?a=1", "status": 200, "startedAt": 1000, "endedAt": 1012,
                    "requestHeaders": { "content-type": "application/json" },
                    "responseHeaders": { "content-type": "text/event-stream" },
                    "request": [0], "response": [1] } }).to_string()),
            ],
        };
        let har = to_har(&session);
        let e = &har["log"]["entries"][0];
        assert_eq!(e["request"]["url"], "http://up.example:8080/mcp?a=1");
        assert_eq!(e["request"]["queryString"][0]["name"], "a");
        assert_eq!(e["time"], 12);
        assert!(
            e["request"]["postData"]["text"]
                .as_str()
                .unwrap()
                .contains("tools/list")
        );
        assert_eq!(
            e["response"]["content"]["text"],
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\n"
        );
    }
}
