//! An answer's body on its way to the host: passed chunk by chunk as it
//! came, its messages kept as they pass (each SSE event's data, a JSON
//! body's messages, an error page's first bytes on its exchange), and the
//! exchange's head kept when it ends or the host goes. A legacy SSE
//! stream's `endpoint` event is given the token's path segment.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Bytes;
use futures::Stream;
use serde_json::json;
use workbench_store::now_ms;

use super::{Head, Kept, Tap, messages_of};
use crate::Direction;
use crate::record::{KEEP_BYTES, Recorder};

/// How much of an error answer's body is kept on its exchange.
const ERROR_BYTES: usize = 64 * 1024;

/// How an answer's body is read for its messages.
pub(super) enum Kind {
    /// Server-Sent Events: each event's data is a message.
    Sse(Sse),
    /// A JSON body, collected (its first [`KEEP_BYTES`]) and its size.
    Json(Vec<u8>, usize),
    /// An answer that is not a success: its first [`ERROR_BYTES`] kept on
    /// the exchange's head, not as messages.
    Error(Vec<u8>),
    /// Anything else (a 202's empty body): not a message.
    Other,
}

/// An SSE stream read line by line.
#[derive(Default)]
pub(super) struct Sse {
    line: Vec<u8>,
    line_size: usize,
    event: String,
    data: Vec<u8>,
    data_size: usize,
    has_data: bool,
}

/// What one SSE event was.
enum Event {
    Message(Vec<u8>, usize),
    Other(String, String),
}

impl Sse {
    fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Event>) {
        while let Some(at) = bytes.iter().position(|b| *b == b'\n') {
            self.take(&bytes[..at]);
            self.line_end(out);
            bytes = &bytes[at + 1..];
        }
        self.take(bytes);
    }

    fn take(&mut self, part: &[u8]) {
        self.line_size += part.len();
        let room = (KEEP_BYTES + 16).saturating_sub(self.line.len());
        self.line.extend_from_slice(&part[..part.len().min(room)]);
    }

    fn line_end(&mut self, out: &mut Vec<Event>) {
        let mut line = std::mem::take(&mut self.line);
        let mut size = std::mem::take(&mut self.line_size);
        if line.last() == Some(&b'\r') {
            line.pop();
            size -= 1;
        }
        if size == 0 {
            if self.has_data {
                let data = std::mem::take(&mut self.data);
                let data_size = std::mem::take(&mut self.data_size);
                let event = std::mem::take(&mut self.event);
                if event.is_empty() || event == "message" {
                    out.push(Event::Message(data, data_size));
                } else {
                    out.push(Event::Other(
                        event,
                        String::from_utf8_lossy(&data).into_owned(),
                    ));
                }
            }
            self.has_data = false;
            self.event.clear();
            return;
        }
        let (field, value, value_size) = match line.iter().position(|b| *b == b':') {
            Some(0) => return, // a comment
            Some(at) => {
                let mut v = &line[at + 1..];
                let mut vs = size - at - 1;
                if v.first() == Some(&b' ') {
                    v = &v[1..];
                    vs -= 1;
                }
                (&line[..at], v, vs)
            }
            None => (&line[..], &[][..], 0),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                    self.data_size += 1;
                }
                self.has_data = true;
                let room = KEEP_BYTES.saturating_sub(self.data.len());
                self.data.extend_from_slice(&value[..value.len().min(room)]);
                self.data_size += value_size;
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            _ => {}
        }
    }
}

/// The longest first event of a legacy SSE stream held for its rewrite:
/// past it the stream passes as it came (an endpoint event is a short
/// line; a first event that never ends is not held, nor read again).
const MAX_FIRST_EVENT: usize = 64 * 1024;

/// Where an SSE event ends in `bytes` (after its blank line), if it does.
fn event_end(bytes: &[u8]) -> Option<usize> {
    let lf = bytes.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    let crlf = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4);
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A legacy SSE stream's `endpoint` event given the token's path segment.
pub(super) struct Rewrite {
    pub(super) pending: Vec<u8>,
    pub(super) prefix: String,
    pub(super) server_origin: String,
    pub(super) tap_origin: String,
}

impl Rewrite {
    /// Bytes to pass now; None while the first event is not whole. Only
    /// the new bytes are looked at (with the three before them); past
    /// [`MAX_FIRST_EVENT`] what is held passes unchanged.
    fn feed(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        let from = self.pending.len().saturating_sub(3);
        self.pending.extend_from_slice(bytes);
        let Some(end) = event_end(&self.pending[from..]).map(|e| e + from) else {
            if self.pending.len() > MAX_FIRST_EVENT {
                tracing::warn!(
                    "tap: the legacy SSE stream's first event passed {MAX_FIRST_EVENT} bytes without ending; passed unchanged (the host's messages may not come back through the tap)"
                );
                return Some(std::mem::take(&mut self.pending));
            }
            return None;
        };
        let (event, rest) = self.pending.split_at(end);
        let (event, rest) = (String::from_utf8_lossy(event), rest.to_vec());
        let mut out = String::new();
        let is_endpoint = event
            .lines()
            .any(|l| l.trim_end() == "event: endpoint" || l.trim_end() == "event:endpoint");
        for line in event.split_inclusive('\n') {
            let rewritten = match line.strip_prefix("data:") {
                Some(data) if is_endpoint => {
                    let data = data.strip_prefix(' ').unwrap_or(data);
                    let (value, ending) = match data.find(['\r', '\n']) {
                        Some(i) => data.split_at(i),
                        None => (data, ""),
                    };
                    let value = if let Some(p) = value.strip_prefix(&self.server_origin) {
                        format!("{}{}{p}", self.tap_origin, self.prefix)
                    } else if value.starts_with('/') {
                        format!("{}{value}", self.prefix)
                    } else {
                        value.to_string()
                    };
                    format!("data: {value}{ending}")
                }
                _ => line.to_string(),
            };
            out.push_str(&rewritten);
        }
        let mut out = out.into_bytes();
        out.extend_from_slice(&rest);
        self.pending.clear();
        Some(out)
    }
}

/// The answer's body on its way to the host, its messages kept as they
/// pass; the exchange's head kept when it ends (or the host goes).
pub(super) struct Passing {
    pub(super) inner: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
    /// A legacy SSE stream's session, bound to the endpoint it names.
    pub(super) legacy: Option<(Arc<Tap>, Arc<Kept>)>,
    pub(super) kept: Option<(Recorder, Head)>,
    pub(super) kind: Kind,
    pub(super) response_seqs: Vec<i64>,
    pub(super) rewrite: Option<Rewrite>,
    /// Ends with the answer's last byte.
    pub(super) _flight: Option<workbench_awake::Flight>,
}

impl Passing {
    fn read(&mut self, bytes: &[u8]) {
        let Some((recorder, _)) = &self.kept else {
            return;
        };
        match &mut self.kind {
            Kind::Sse(sse) => {
                let mut events = Vec::new();
                sse.feed(bytes, &mut events);
                for e in events {
                    let seq = match e {
                        // An event with no data (rmcp's priming event, a
                        // keep-alive) is no message: the stream passed it,
                        // the session lists none.
                        Event::Message(data, _) if data.iter().all(u8::is_ascii_whitespace) => {
                            continue;
                        }
                        Event::Message(data, size) => {
                            recorder.keep_cut(Direction::Server, &data, size)
                        }
                        Event::Other(event, data) => {
                            if event == "endpoint"
                                && let Some((tap, kept)) = &self.legacy
                            {
                                let path = data.strip_prefix(&tap.origin).unwrap_or(&data);
                                tap.sessions
                                    .lock()
                                    .expect("not poisoned")
                                    .by_endpoint
                                    .insert(path.to_string(), kept.clone());
                            }
                            recorder.mark(&json!({ "sse": { "event": event, "data": data } }))
                        }
                    };
                    self.response_seqs.push(seq);
                }
            }
            Kind::Json(buf, size) => {
                *size += bytes.len();
                let room = KEEP_BYTES.saturating_sub(buf.len());
                buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
            Kind::Error(buf) => {
                let room = ERROR_BYTES.saturating_sub(buf.len());
                buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
            Kind::Other => {}
        }
    }
}

impl Stream for Passing {
    type Item = reqwest::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            return match self.inner.as_mut().poll_next(cx) {
                Poll::Ready(Some(Ok(bytes))) => {
                    workbench_awake::passed();
                    self.read(&bytes);
                    if let Some(r) = &mut self.rewrite {
                        match r.feed(&bytes) {
                            Some(out) => {
                                self.rewrite = None;
                                Poll::Ready(Some(Ok(Bytes::from(out))))
                            }
                            None => continue,
                        }
                    } else {
                        Poll::Ready(Some(Ok(bytes)))
                    }
                }
                Poll::Ready(None) => {
                    if let Some(r) = self.rewrite.take()
                        && !r.pending.is_empty()
                    {
                        return Poll::Ready(Some(Ok(Bytes::from(r.pending))));
                    }
                    Poll::Ready(None)
                }
                other => other,
            };
        }
    }
}

impl Drop for Passing {
    fn drop(&mut self) {
        let Some((recorder, mut head)) = self.kept.take() else {
            return;
        };
        let kind = std::mem::replace(&mut self.kind, Kind::Other);
        if let Kind::Error(body) = &kind {
            head.response_body = Some(String::from_utf8_lossy(body).into_owned());
        }
        if let Kind::Json(buf, size) = kind {
            if size > buf.len() {
                self.response_seqs
                    .push(recorder.keep_cut(Direction::Server, &buf, size));
            } else {
                for m in messages_of(&buf) {
                    self.response_seqs
                        .push(recorder.keep_message(Direction::Server, m));
                }
            }
        }
        head.response = Some(std::mem::take(&mut self.response_seqs));
        head.ended_at = Some(now_ms());
        recorder.mark_later(head.holds(), move || head.text());
    }
}

#[cfg(test)]
mod tests {
    use super::Rewrite;

    fn rewrite() -> Rewrite {
        Rewrite {
            pending: Vec::new(),
            prefix: "/TOKEN".into(),
            server_origin: "http://up".into(),
            tap_origin: "http://tap".into(),
        }
    }

    #[test]
    fn the_endpoint_event_is_rewritten_in_pieces_and_an_endless_one_is_not_held() {
        let mut r = rewrite();
        assert_eq!(r.feed(b"event: endpoint\nda"), None);
        let out = r.feed(b"ta: /messages?s=1\n\nid: 2\n").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "event: endpoint\ndata: /TOKEN/messages?s=1\n\nid: 2\n"
        );
        // The review's play: a first event that never ends, 1 MiB a chunk.
        let mut r = rewrite();
        assert_eq!(r.feed(b"event: endpoint\ndata: /messages?x="), None);
        let chunk = vec![b'a'; 1024 * 1024];
        let passed = r.feed(&chunk).expect("passed unchanged past the cap");
        assert_eq!(
            passed.len(),
            1024 * 1024 + b"event: endpoint\ndata: /messages?x=".len()
        );
        assert!(r.pending.is_empty(), "nothing is held");
    }
}
