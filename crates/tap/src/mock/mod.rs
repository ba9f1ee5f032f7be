//! A kept session served as a stand-in server: the host's requests are
//! matched to recorded ones and answered as the server answered then, in
//! the era it spoke. Volatile fields are not compared (`_meta`, ids,
//! progress tokens; `initialize` by its method alone); several matches are
//! taken in recorded order (a task polled with `tasks/get` goes through its
//! recorded states; a 2026 call retried with its `inputResponses` gets the
//! recorded retry's answer). What the server sent between a request and
//! its answer is replayed before the answer: its notifications, and its
//! own requests (2025 elicitation and sampling), after each of which the
//! mock waits for the host's answer before going on. A request with no
//! match gets a JSON-RPC error naming the nearest recorded one.
//!
//! A session file is someone else's input: each message is parsed and kept
//! once (a request's replies are places in that one list, never copies),
//! at most [`MAX_REPLIES`] a request and [`MAX_MESSAGES`] a session.

use serde_json::{Value, json};
use workbench_store::TapMessage;

use crate::session::Session;

mod serve;
pub use serve::{Listening, serve_http, serve_stdio};

/// How requests are matched to recorded ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Match {
    /// Method and parameters (less volatile fields).
    #[default]
    Exact,
    /// Tools and prompts by name, resources by URI; the rest exactly.
    Name,
}

/// The most replies (notifications, requests of the server) kept for one
/// request: a request never answered would otherwise take every later
/// message of the session.
pub const MAX_REPLIES: usize = 1_000;

/// The most messages of a session the mock reads (the rest are left out).
pub const MAX_MESSAGES: usize = 500_000;

/// A recorded request and what the server sent for it, as places in the
/// session's messages.
struct Recorded {
    method: String,
    params: Value,
    /// Notifications the server sent while it worked (at most
    /// [`MAX_REPLIES`]), then its answer.
    replies: Vec<usize>,
    answer: Option<usize>,
    used: bool,
}

/// The recorded session as requests and their answers.
#[derive(Default)]
pub struct Mock {
    /// The session's messages, each parsed once (None: not JSON, or cut).
    messages: Vec<Option<Value>>,
    recorded: Vec<Recorded>,
    how: Match,
    /// What to send once the host answers the server's request of this id.
    waiting: std::collections::HashMap<String, Vec<Value>>,
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
        let taken = &session.messages[..session.messages.len().min(MAX_MESSAGES)];
        let from_server: Vec<bool> = taken.iter().map(|m| m.direction == "server").collect();
        let messages: Vec<Option<Value>> = taken.iter().map(parsed).collect();
        // Where the server answered each id, in order.
        let mut answers: std::collections::HashMap<String, Vec<usize>> =
            std::collections::HashMap::new();
        for (i, v) in messages.iter().enumerate() {
            if let Some(v) = v
                && from_server[i]
                && v.get("method").is_none()
                && let Some(id) = v.get("id")
            {
                answers.entry(id.to_string()).or_default().push(i);
            }
        }
        let mut recorded = Vec::new();
        for (i, v) in messages.iter().enumerate() {
            let Some(v) = v else { continue };
            let (Some(method), Some(id)) = (v["method"].as_str(), v.get("id")) else {
                continue;
            };
            if taken[i].direction != "host" {
                continue;
            }
            let answer = answers.get(&id.to_string()).and_then(|at| {
                let next = at.partition_point(|&a| a <= i);
                at.get(next).copied()
            });
            // Its notifications, and its own requests (elicitation,
            // sampling) that belong to this call: sent before the answer.
            let replies: Vec<usize> = (i + 1..answer.unwrap_or(messages.len()))
                .filter(|&j| {
                    from_server[j]
                        && messages[j]
                            .as_ref()
                            .is_some_and(|l| l.get("method").is_some())
                })
                .take(MAX_REPLIES)
                .collect();
            recorded.push(Recorded {
                method: method.to_string(),
                params: v.get("params").cloned().unwrap_or(Value::Null),
                replies,
                answer,
                used: false,
            });
        }
        Mock {
            messages,
            recorded,
            how,
            waiting: std::collections::HashMap::new(),
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

    /// Messages up to and including the first request of the server; the
    /// rest wait for the host's answer to it.
    fn until_asked(&mut self, mut out: Vec<Value>) -> Vec<Value> {
        if let Some(at) = out
            .iter()
            .position(|m| m.get("method").is_some() && m.get("id").is_some())
        {
            let rest = out.split_off(at + 1);
            if !rest.is_empty() {
                self.waiting.insert(out[at]["id"].to_string(), rest);
            }
        }
        out
    }

    /// Whether a server's request of the mock waits for the host's answer.
    pub fn is_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// What to send for one message of the host (nothing for its
    /// notifications; for its answer to the server's request, what was
    /// recorded after that request).
    pub fn answer(&mut self, incoming: &Value) -> Vec<Value> {
        if incoming.get("method").is_none()
            && let Some(id) = incoming.get("id")
        {
            return match self.waiting.remove(&id.to_string()) {
                Some(rest) => self.until_asked(rest),
                None => Vec::new(),
            };
        }
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
        self.recorded[at].used = true;
        let r = &self.recorded[at];
        let message = |i: usize| self.messages[i].clone().unwrap_or(Value::Null);
        let mut out: Vec<Value> = r.replies.iter().map(|&i| message(i)).collect();
        // Progress is told under the token this host gave.
        if let Some(token) = incoming["params"]["_meta"].get("progressToken") {
            for m in out
                .iter_mut()
                .filter(|m| m["method"] == "notifications/progress")
            {
                m["params"]["progressToken"] = token.clone();
            }
        }
        match r.answer {
            Some(answer) => {
                let mut answer = message(answer);
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
        self.until_asked(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[(&str, Value)]) -> Session {
        Session::of(lines)
    }

    /// The review's play: 1,500 host requests never answered, then 1,500
    /// server notifications of 1 KB (1.8 MB of file; 3.7 GB of copies
    /// before). Each request keeps places, at most MAX_REPLIES of them.
    #[test]
    fn unanswered_requests_keep_places_not_copies_and_few_of_them() {
        let mut lines = Vec::new();
        for i in 0..1_500 {
            lines.push(("host", json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"t","arguments":{"i":i}}})));
        }
        let text = "x".repeat(1024);
        for _ in 0..1_500 {
            lines.push(("server", json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":text}})));
        }
        let mut m = Mock::new(&session(&lines), Match::Exact);
        assert_eq!(m.messages.len(), 3_000, "each message kept once");
        assert!(m.recorded.iter().all(|r| r.replies.len() <= MAX_REPLIES));
        let first = m.answer(&json!({"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"t","arguments":{"i":0}}}));
        assert_eq!(
            first.len(),
            MAX_REPLIES + 1,
            "its notifications, then an error"
        );
        assert!(
            first.last().unwrap()["error"]["message"]
                .as_str()
                .unwrap()
                .contains("never answered")
        );
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

    #[test]
    fn input_rounds_and_task_polls_are_replayed_in_order() {
        let s = session(&[
            // 2025: the server asks the host mid-call, then answers.
            (
                "host",
                json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"order","arguments":{},"_meta":{"progressToken":"p1"}}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"size?"}}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"size":"L"}}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ordered L"}]}}),
            ),
            // A task polled until done.
            (
                "host",
                json!({"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"working"}}),
            ),
            (
                "host",
                json!({"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1"}}),
            ),
            (
                "server",
                json!({"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"completed"}}),
            ),
        ]);
        let mut m = Mock::new(&s, Match::Exact);
        let first = m.answer(&json!({"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"order","arguments":{},"_meta":{"progressToken":"mine"}}}));
        assert_eq!(first.len(), 2, "progress, then the question: {first:?}");
        assert_eq!(first[0]["params"]["progressToken"], "mine");
        assert_eq!(first[1]["method"], "elicitation/create");
        assert!(m.is_waiting());
        // The answer comes once the host has answered the question.
        let rest = m.answer(
            &json!({"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"size":"L"}}}),
        );
        assert_eq!(rest.len(), 1);
        assert_eq!(
            (&rest[0]["id"], &rest[0]["result"]["content"][0]["text"]),
            (&json!("a"), &json!("ordered L"))
        );
        assert!(!m.is_waiting());
        let poll = |m: &mut Mock, id: i64| {
            m.answer(
                &json!({"jsonrpc":"2.0","id":id,"method":"tasks/get","params":{"taskId":"t1"}}),
            )[0]["result"]["status"]
                .clone()
        };
        assert_eq!(poll(&mut m, 10), "working");
        assert_eq!(poll(&mut m, 11), "completed");
        assert_eq!(poll(&mut m, 12), "completed", "asked again: the last state");
    }
}
