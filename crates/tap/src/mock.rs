//! A kept session served as a stand-in server: the host's requests are
//! matched to recorded ones and answered as the server answered then, in
//! the era it spoke. Volatile fields are not compared (`_meta`, ids,
//! progress tokens; `initialize` by its method alone); several matches are
//! taken in recorded order. The server's notifications between a request
//! and its answer are replayed before the answer. A request with no match
//! gets a JSON-RPC error naming the nearest recorded one.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use workbench_store::TapMessage;

use crate::session::Session;

/// How requests are matched to recorded ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Match {
    /// Method and parameters (less volatile fields).
    #[default]
    Exact,
    /// Tools and prompts by name, resources by URI; the rest exactly.
    Name,
}

/// A recorded request and what the server sent for it.
struct Recorded {
    method: String,
    params: Value,
    /// Notifications the server sent while it worked, then its answer.
    replies: Vec<Value>,
    answer: Option<Value>,
    used: bool,
}

/// The recorded session as requests and their answers.
pub struct Mock {
    recorded: Vec<Recorded>,
    how: Match,
    /// Requests answered, and not matched.
    pub answered: usize,
    pub unmatched: usize,
}

fn parsed(m: &TapMessage) -> Option<Value> {
    if m.cut {
        return None;
    }
    serde_json::from_str(&m.text).ok()
}

impl Mock {
    /// The requests of `session`, matched `how`.
    pub fn new(session: &Session, how: Match) -> Mock {
        let messages: Vec<(String, Option<Value>)> = session
            .messages
            .iter()
            .map(|m| (m.direction.clone(), parsed(m)))
            .collect();
        let mut recorded = Vec::new();
        for (i, (dir, v)) in messages.iter().enumerate() {
            let Some(v) = v else { continue };
            let (Some(method), Some(id)) = (v["method"].as_str(), v.get("id")) else {
                continue;
            };
            if dir != "host" {
                continue;
            }
            let mut replies = Vec::new();
            let mut answer = None;
            for (dir, later) in &messages[i + 1..] {
                let Some(later) = later else { continue };
                if dir != "server" {
                    continue;
                }
                if later.get("id") == Some(id) && later.get("method").is_none() {
                    answer = Some(later.clone());
                    break;
                }
                if later.get("method").is_some() && later.get("id").is_none() {
                    replies.push(later.clone());
                }
            }
            recorded.push(Recorded {
                method: method.to_string(),
                params: v.get("params").cloned().unwrap_or(Value::Null),
                replies,
                answer,
                used: false,
            });
        }
        Mock {
            recorded,
            how,
            answered: 0,
            unmatched: 0,
        }
    }

    fn key(&self, method: &str, params: &Value) -> Value {
        if method == "initialize" {
            return Value::Null;
        }
        if self.how == Match::Name {
            match method {
                "tools/call" | "prompts/get" => return params["name"].clone(),
                "resources/read" | "resources/subscribe" => return params["uri"].clone(),
                _ => {}
            }
        }
        let mut p = params.clone();
        if let Some(o) = p.as_object_mut() {
            o.remove("_meta");
        }
        p
    }

    /// What to send for one message of the host (nothing for its
    /// notifications and answers).
    pub fn answer(&mut self, incoming: &Value) -> Vec<Value> {
        let (Some(method), Some(id)) = (incoming["method"].as_str(), incoming.get("id")) else {
            return Vec::new();
        };
        let wanted = self.key(method, incoming.get("params").unwrap_or(&Value::Null));
        let found = self.recorded.iter().position(|r| {
            !r.used && r.method == method && self.key(&r.method, &r.params) == wanted
        });
        // A request asked again once every recording of it was used is
        // answered with the last one (a host that lists twice).
        let found = found.or_else(|| {
            self.recorded
                .iter()
                .rposition(|r| r.method == method && self.key(&r.method, &r.params) == wanted)
        });
        let Some(at) = found else {
            self.unmatched += 1;
            return vec![self.no_match(method, id, &wanted)];
        };
        let r = &mut self.recorded[at];
        r.used = true;
        let mut out = r.replies.clone();
        match &r.answer {
            Some(answer) => {
                let mut answer = answer.clone();
                answer["id"] = id.clone();
                out.push(answer);
                self.answered += 1;
            }
            None => {
                self.unmatched += 1;
                out.push(json!({ "jsonrpc": "2.0", "id": id, "error": {
                    "code": -32603,
                    "message": format!("the recorded {method} got no answer in the session (the server never answered it)") } }));
            }
        }
        out
    }

    fn no_match(&self, method: &str, id: &Value, wanted: &Value) -> Value {
        let cut = |v: &Value| {
            let t = v.to_string();
            if t.chars().count() > 200 {
                format!("{}…", t.chars().take(200).collect::<String>())
            } else {
                t
            }
        };
        let same: Vec<&Recorded> = self
            .recorded
            .iter()
            .filter(|r| r.method == method)
            .collect();
        let message = match same.first() {
            Some(nearest) => format!(
                "no recorded {method} matches {}; the nearest recorded: {}",
                cut(wanted),
                cut(&self.key(&nearest.method, &nearest.params))
            ),
            None => {
                let mut methods: Vec<&str> =
                    self.recorded.iter().map(|r| r.method.as_str()).collect();
                methods.sort();
                methods.dedup();
                format!(
                    "the session recorded no {method}; it has {}",
                    methods.join(", ")
                )
            }
        };
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": message } })
    }

    /// The recorded requests never asked (method and key).
    pub fn never_asked(&self) -> Vec<String> {
        self.recorded
            .iter()
            .filter(|r| !r.used)
            .map(|r| match self.key(&r.method, &r.params) {
                Value::Null => r.method.clone(),
                k => format!("{} {}", r.method, k),
            })
            .collect()
    }
}

/// Serve `mock` over this process's stdin and stdout until the host leaves.
pub async fn serve_stdio(mock: &mut Mock) -> std::io::Result<()> {
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    while let Some(line) = lines.next_line().await? {
        let Ok(incoming) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        for out in mock.answer(&incoming) {
            let mut text = out.to_string();
            text.push('\n');
            stdout.write_all(text.as_bytes()).await?;
        }
        stdout.flush().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[(&str, Value)]) -> Session {
        Session {
            header: json!({ "mcpwbSession": 1 }),
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

    #[test]
    fn requests_get_their_recorded_answers_under_their_own_ids() {
        let s = session(&[
            (
                "host",
                json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"a"}}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"},"_meta":{"progressToken":7}}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"m":"y"}}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"y"}]}}),
            ),
        ]);
        let mut m = Mock::new(&s, Match::Exact);
        // Another client: other clientInfo, other ids.
        let init = m.answer(&json!({"jsonrpc":"2.0","id":"a","method":"initialize","params":{"clientInfo":{"name":"b"}}}));
        assert_eq!(init[0]["id"], "a");
        assert_eq!(init[0]["result"]["protocolVersion"], "2025-11-25");
        let y = m.answer(&json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"m":"y"}}}));
        assert_eq!(
            (y.len(), &y[0]["result"]["content"][0]["text"]),
            (1, &json!("y"))
        );
        let x = m.answer(&json!({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"}}}));
        assert_eq!(x[0]["method"], "notifications/progress");
        assert_eq!(
            (
                x[1]["id"].clone(),
                x[1]["result"]["content"][0]["text"].clone()
            ),
            (json!(10), json!("x"))
        );
        let z = m.answer(&json!({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"m":"z"}}}));
        let said = z[0]["error"]["message"].as_str().unwrap();
        assert!(
            said.contains("no recorded tools/call matches") && said.contains("\"m\":\"x\""),
            "{said}"
        );
        assert_eq!((m.answered, m.unmatched), (3, 1));
        assert!(m.never_asked().is_empty());
        // By name: any arguments get the first recorded answer.
        let mut by_name = Mock::new(&s, Match::Name);
        let any = by_name.answer(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}));
        assert_eq!(any.last().unwrap()["result"]["content"][0]["text"], "x");
        assert_eq!(
            by_name.never_asked(),
            ["initialize".to_string(), "tools/call \"echo\"".to_string()]
        );
    }
}
