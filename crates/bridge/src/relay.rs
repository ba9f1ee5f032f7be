//! Over HTTP, answers as the upstream server wrote them. rmcp's Streamable
//! HTTP service wants a typed handler, and its types drop the fields they do
//! not model and refuse content kinds they do not know. So the handler
//! keeps the upstream JSON here under a fresh key and answers with a typed
//! placeholder marked with that key (`_meta[MARK]`); a layer over the HTTP
//! answers (JSON bodies and SSE events alike) puts the kept JSON in the
//! placeholder's place. The era's own fields (`resultType`, cache hints)
//! are taken from the placeholder, which rmcp wrote for the caller's era.
//! (Over stdio the session's service sends raw JSON itself: `raw.rs`.)

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::response::Response;
use futures::StreamExt;
use serde_json::Value;

/// The `_meta` key a placeholder carries its kept answer's key under.
pub(crate) const MARK: &str = "x-mcpwb/relay";
/// Answers kept at most (ones whose caller left are dropped oldest first).
const KEPT_MAX: usize = 1024;
/// Fields of a result that belong to the caller's era, not the upstream's.
const ERA_FIELDS: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

#[derive(Default)]
struct Kept {
    answers: HashMap<String, Value>,
    order: VecDeque<String>,
    next: u64,
}

#[derive(Clone, Default)]
pub(crate) struct Relay(Arc<Mutex<Kept>>);

impl Relay {
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keep `answer`; the key its placeholder carries.
    pub(crate) fn keep(&self, answer: Value) -> String {
        let mut kept = self.lock();
        kept.next += 1;
        let key = format!("r{}", kept.next);
        kept.answers.insert(key.clone(), answer);
        kept.order.push_back(key.clone());
        while kept.order.len() > KEPT_MAX {
            if let Some(old) = kept.order.pop_front() {
                kept.answers.remove(&old);
            }
        }
        key
    }

    pub(crate) fn take(&self, key: &str) -> Option<Value> {
        let mut kept = self.lock();
        kept.order.retain(|k| k != key);
        kept.answers.remove(key)
    }

    /// A message with a marked placeholder replaced by its kept answer.
    pub(crate) fn patch<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !text.contains(MARK) {
            return Cow::Borrowed(text);
        }
        let Ok(mut message) = serde_json::from_str::<Value>(text) else {
            return Cow::Borrowed(text);
        };
        let Some(key) = message["result"]["_meta"][MARK]
            .as_str()
            .map(str::to_string)
        else {
            return Cow::Borrowed(text);
        };
        let Some(mut answer) = self.take(&key) else {
            return Cow::Borrowed(text);
        };
        let placeholder = message["result"].take();
        if let Some(obj) = answer.as_object_mut() {
            // A result that is not the final answer (input required, a
            // task: its `ttlMs` is the task's) says so itself.
            let unfinished = obj
                .get("resultType")
                .and_then(Value::as_str)
                .is_some_and(|t| t != "complete");
            for field in ERA_FIELDS.iter().filter(|_| !unfinished) {
                match placeholder.get(*field) {
                    Some(v) => obj.insert(field.to_string(), v.clone()),
                    None => obj.remove(*field),
                };
            }
        }
        message["result"] = answer;
        Cow::Owned(message.to_string())
    }

    /// An HTTP answer with its placeholders replaced: a JSON body whole, an
    /// SSE stream line by line (a line split across chunks waits for its end).
    pub(crate) async fn patch_response(&self, response: Response) -> Response {
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let (mut parts, body) = response.into_parts();
        if content_type.starts_with("application/json") {
            let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
                return Response::from_parts(parts, axum::body::Body::empty());
            };
            let text = String::from_utf8_lossy(&bytes);
            let patched = self.patch(&text).into_owned();
            parts.headers.remove("content-length");
            return Response::from_parts(parts, axum::body::Body::from(patched));
        }
        if !content_type.starts_with("text/event-stream") {
            return Response::from_parts(parts, body);
        }
        let relay = self.clone();
        let mut pending = String::new();
        let stream = body.into_data_stream().map(move |chunk| {
            let chunk = chunk?;
            pending.push_str(&String::from_utf8_lossy(&chunk));
            let Some(end) = pending.rfind('\n') else {
                return Ok::<_, axum::Error>(bytes::Bytes::new());
            };
            let whole: String = pending.drain(..=end).collect();
            let mut out = String::with_capacity(whole.len());
            for line in whole.split_inclusive('\n') {
                match line.strip_prefix("data:") {
                    Some(data) if data.contains(MARK) => {
                        let ending = if data.ends_with("\r\n") { "\r\n" } else { "\n" };
                        out.push_str("data: ");
                        out.push_str(&relay.patch(data.trim()));
                        out.push_str(ending);
                    }
                    _ => out.push_str(line),
                }
            }
            Ok(bytes::Bytes::from(out))
        });
        parts.headers.remove("content-length");
        Response::from_parts(parts, axum::body::Body::from_stream(stream))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_placeholder_becomes_the_kept_answer_with_the_callers_era_fields() {
        let relay = Relay::default();
        let upstream = json!({
            "content": [{ "type": "hologram", "frames": 3 }],
            "x-vendor": { "cost": 3 },
            "resultType": "complete"
        });
        let key = relay.keep(upstream);
        // rmcp wrote the placeholder for a 2025-11-25 caller: no resultType.
        let sent = json!({ "jsonrpc": "2.0", "id": 4, "result": { "content": [], "_meta": { MARK: key } } }).to_string();
        let patched: Value = serde_json::from_str(&relay.patch(&sent)).unwrap();
        assert_eq!(patched["id"], 4);
        assert_eq!(patched["result"]["content"][0]["type"], "hologram");
        assert_eq!(patched["result"]["x-vendor"]["cost"], 3);
        assert!(patched["result"].get("resultType").is_none());
        assert!(patched["result"].get("_meta").is_none());
        // Taken once; anything else passes as it is.
        assert!(relay.take(&key).is_none());
        let other = r#"{"jsonrpc":"2.0","id":5,"result":{}}"#;
        assert!(matches!(relay.patch(other), Cow::Borrowed(_)));
    }
}
