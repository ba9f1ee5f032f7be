//! The legacy HTTP+SSE transport (protocol 2024-11-05), which rmcp no longer
//! has: GET the event stream, wait for the `endpoint` event, POST each message
//! there; answers arrive as `message` events. Messages are recorded in the
//! traffic log as the exact bytes sent and received.

use std::time::Duration;

use futures::StreamExt;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::traffic::{Direction, TrafficLog};

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SseError(String);

pub struct SseTransport {
    client: reqwest::Client,
    endpoint: String,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    server: String,
    traffic: TrafficLog,
    /// Tells the supervisor the POST side failed (the session is gone).
    broken: mpsc::UnboundedSender<String>,
    _reader: DropGuard,
}

/// One parsed server-sent event.
#[derive(Debug, Default, PartialEq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Incremental parser for `text/event-stream`, in bytes (a character split
/// across chunks stays whole), linear in what it is fed, and bounded: an
/// event (or a line still without its end) over `max` bytes is an error,
/// whatever the server sends.
pub struct SseParser {
    /// Bytes of the line not yet ended.
    partial: Vec<u8>,
    event: String,
    data: Vec<String>,
    data_len: usize,
    max: usize,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::with_max(super::DEFAULT_MAX_MESSAGE)
    }
}

impl SseParser {
    pub fn with_max(max: usize) -> SseParser {
        SseParser {
            partial: Vec::new(),
            event: String::new(),
            data: Vec::new(),
            data_len: 0,
            max,
        }
    }

    fn too_big(&self) -> String {
        format!(
            "the server sent an event of more than {} bytes (the entry's maxMessageSize); closing the stream. To accept it, raise \"maxMessageSize\" (bytes) in the entry",
            self.max
        )
    }

    /// Feed bytes; returns the events completed by them.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, String> {
        let mut out = Vec::new();
        let mut rest = chunk;
        while let Some(pos) = memchr::memchr(b'\n', rest) {
            let line = if self.partial.is_empty() {
                self.line(&rest[..pos], &mut out)
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(&rest[..pos]);
                self.line(&whole, &mut out)
            };
            line?;
            rest = &rest[pos + 1..];
        }
        self.partial.extend_from_slice(rest);
        if self.partial.len() + self.data_len > self.max {
            return Err(self.too_big());
        }
        Ok(out)
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), String> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            if !self.data.is_empty() || !self.event.is_empty() {
                let event = if self.event.is_empty() {
                    "message".to_string()
                } else {
                    std::mem::take(&mut self.event)
                };
                out.push(SseEvent {
                    event,
                    data: std::mem::take(&mut self.data).join("\n"),
                });
                self.data_len = 0;
            }
            return Ok(());
        }
        if line.starts_with(b":") {
            return Ok(());
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(i) => (&line[..i], &line[i + 1..]),
            None => (line, &b""[..]),
        };
        let value = value.strip_prefix(b" ").unwrap_or(value);
        match field {
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"data" => {
                self.data_len += value.len() + 1;
                if self.data_len > self.max {
                    return Err(self.too_big());
                }
                self.data.push(String::from_utf8_lossy(value).into_owned());
            }
            _ => {}
        }
        Ok(())
    }
}

/// Resolve the endpoint the server named against the stream's URL. It must
/// be on the stream's origin: messages (and the entry's headers, its
/// credentials) go there.
fn resolve(base: &str, endpoint: &str) -> Result<String, String> {
    let base = reqwest::Url::parse(base).map_err(|e| format!("bad URL {base}: {e}"))?;
    let url = base
        .join(endpoint)
        .map_err(|e| format!("the server's endpoint \"{endpoint}\" is not a URL: {e}"))?;
    if url.origin() != base.origin() {
        return Err(format!(
            "the server's endpoint event points to another origin ({}); messages and the \
             entry's headers are sent only to the stream's origin ({})",
            url.origin().ascii_serialization(),
            base.origin().ascii_serialization()
        ));
    }
    Ok(url.to_string())
}

impl SseTransport {
    /// Open the event stream and wait for the `endpoint` event.
    pub(crate) async fn connect(
        url: &str,
        client: reqwest::Client,
        entry: &crate::config::ServerEntry,
        traffic: TrafficLog,
        broken: mpsc::UnboundedSender<String>,
    ) -> Result<SseTransport, String> {
        let response = client
            .get(url)
            .header("accept", "text/event-stream")
            .send()
            .await
            .map_err(|e| format!("cannot reach {url}: {e}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!(
                "GET {url} answered HTTP {status}: not an SSE endpoint"
            ));
        }
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !content_type.starts_with("text/event-stream") {
            return Err(format!(
                "GET {url} answered {content_type}, not text/event-stream"
            ));
        }
        let mut stream = response.bytes_stream();
        let server = entry.name.as_str();
        let mut parser = SseParser::with_max(entry.max_message());
        let mut pending = Vec::new();
        let endpoint = 'found: loop {
            let chunk = tokio::time::timeout(Duration::from_secs(30), stream.next())
                .await
                .map_err(|_| "no endpoint event within 30 s".to_string())?
                .ok_or("the event stream ended before the endpoint event")?
                .map_err(|e| format!("reading the event stream: {e}"))?;
            for event in parser.feed(&chunk)? {
                if event.event == "endpoint" {
                    break 'found resolve(url, event.data.trim())?;
                }
                pending.push(event);
            }
        };
        let (tx, incoming) = mpsc::channel(256);
        let ct = CancellationToken::new();
        let (t, n, stop) = (traffic.clone(), server.to_string(), ct.clone());
        let gone = broken.clone();
        tokio::spawn(async move {
            let deliver = |event: SseEvent| {
                if event.event != "message" {
                    return None;
                }
                t.record_message(&n, Direction::Incoming, event.data.as_bytes());
                serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&event.data).ok()
            };
            for event in pending {
                if let Some(m) = deliver(event)
                    && tx.send(m).await.is_err()
                {
                    return;
                }
            }
            loop {
                let chunk = tokio::select! {
                    _ = stop.cancelled() => return,
                    c = stream.next() => c,
                };
                let Some(Ok(chunk)) = chunk else { return };
                let events = match parser.feed(&chunk) {
                    Ok(events) => events,
                    Err(why) => {
                        t.record_note(&n, &why);
                        let _ = gone.send(why);
                        return;
                    }
                };
                for event in events {
                    if let Some(m) = deliver(event)
                        && tx.send(m).await.is_err()
                    {
                        return;
                    }
                }
            }
        });
        Ok(SseTransport {
            client,
            endpoint,
            incoming,
            server: server.to_string(),
            traffic,
            broken,
            _reader: ct.drop_guard(),
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let body = serde_json::to_vec(&item).unwrap_or_default();
        self.traffic
            .record_message(&self.server, Direction::Outgoing, &body);
        let request = self
            .client
            .post(&self.endpoint)
            .header("content-type", "application/json")
            .body(body);
        let broken = self.broken.clone();
        let (traffic, server) = (self.traffic.clone(), self.server.clone());
        let method = match &item {
            rmcp::model::ClientJsonRpcMessage::Request(r) => Some(r.request.method().to_string()),
            _ => None,
        };
        async move {
            let fail = |why: String| {
                let _ = broken.send(why.clone());
                Err(SseError(why))
            };
            match request.send().await {
                Ok(r) if r.status().is_success() => Ok(()),
                Ok(r) => {
                    let status = r.status().as_u16();
                    let challenge = r
                        .headers()
                        .get("www-authenticate")
                        .and_then(|v| v.to_str().ok());
                    // A 401 even without a challenge; a 403 with one.
                    let header = match (status, challenge) {
                        (401, h) => Some(h.unwrap_or_default()),
                        (403, Some(h)) => Some(h),
                        _ => None,
                    };
                    if let Some(header) = header {
                        let refusal = crate::challenge::Refusal::new(status, method, header);
                        traffic.note_refusal(&server, refusal);
                    }
                    fail(format!("POST answered HTTP {status}"))
                }
                Err(e) => fail(format!("POST failed: {e}")),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_events_split_across_chunks_with_multiline_data() {
        let mut p = SseParser::default();
        assert!(
            p.feed(b"event: endpoint\r\ndata: /messages?session")
                .unwrap()
                .is_empty()
        );
        let e = p
            .feed(b"Id=1\r\n\r\n: a comment\n\ndata: {\"a\":\ndata: 1}\n\n")
            .unwrap();
        assert_eq!(
            e,
            [
                SseEvent {
                    event: "endpoint".into(),
                    data: "/messages?sessionId=1".into()
                },
                SseEvent {
                    event: "message".into(),
                    data: "{\"a\":\n1}".into()
                },
            ]
        );
    }

    #[test]
    fn endpoints_resolve_against_the_stream_url() {
        assert_eq!(
            resolve("http://h:1/sse", "/messages?s=1").unwrap(),
            "http://h:1/messages?s=1"
        );
        assert_eq!(
            resolve("http://h:1/a/sse", "msg").unwrap(),
            "http://h:1/a/msg"
        );
        assert_eq!(
            resolve("http://h:1/sse", "http://h:1/x").unwrap(),
            "http://h:1/x"
        );
        for foreign in [
            "http://other/x",
            "https://h:1/x",
            "http://h:2/x",
            "//evil/x",
        ] {
            let e = resolve("http://h:1/sse", foreign).unwrap_err();
            assert!(e.contains("another origin"), "{foreign}: {e}");
        }
    }

    #[test]
    fn a_character_split_across_chunks_stays_whole() {
        let mut p = SseParser::default();
        let text = "data: é\n\n".as_bytes();
        assert!(p.feed(&text[..7]).unwrap().is_empty());
        let e = p.feed(&text[7..]).unwrap();
        assert_eq!(e[0].data, "é");
    }

    #[test]
    fn an_event_that_never_ends_is_refused_at_the_limit() {
        let mut p = SseParser::with_max(1000);
        // One endless line.
        assert!(p.feed(&[b'x'; 600]).unwrap().is_empty());
        assert!(
            p.feed(&[b'x'; 600])
                .unwrap_err()
                .contains("more than 1000 bytes")
        );
        // Many short data lines that never end the event.
        let mut p = SseParser::with_max(1000);
        let mut fed = Ok(Vec::new());
        for _ in 0..200 {
            fed = p.feed(b"data: 0123456789\n");
            if fed.is_err() {
                break;
            }
        }
        assert!(fed.unwrap_err().contains("maxMessageSize"));
    }

    #[test]
    fn many_lines_in_one_chunk_parse_in_linear_time() {
        let mut p = SseParser::default();
        // 1.8 MB of short events at once: draining the buffer line by line
        // moved it whole for each (minutes); now it is read once.
        let chunk = "data: x\n\n".repeat(200_000);
        assert_eq!(p.feed(chunk.as_bytes()).unwrap().len(), 200_000);
    }
}
