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

/// Incremental parser for `text/event-stream`.
#[derive(Default)]
pub struct SseParser {
    buffer: String,
    event: String,
    data: Vec<String>,
}

impl SseParser {
    /// Feed bytes; returns the events completed by them.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buffer.push_str(&String::from_utf8_lossy(chunk));
        let mut out = Vec::new();
        while let Some(pos) = self.buffer.find('\n') {
            let line: String = self.buffer.drain(..=pos).collect();
            let line = line.trim_end_matches(['\n', '\r']);
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
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => self.event = value.to_string(),
                "data" => self.data.push(value.to_string()),
                _ => {}
            }
        }
        out
    }
}

/// Resolve the endpoint the server named against the stream's URL.
fn resolve(base: &str, endpoint: &str) -> Result<String, String> {
    let base = reqwest::Url::parse(base).map_err(|e| format!("bad URL {base}: {e}"))?;
    base.join(endpoint)
        .map(|u| u.to_string())
        .map_err(|e| format!("the server's endpoint \"{endpoint}\" is not a URL: {e}"))
}

impl SseTransport {
    /// Open the event stream and wait for the `endpoint` event.
    pub async fn connect(
        url: &str,
        client: reqwest::Client,
        server: &str,
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
        let mut parser = SseParser::default();
        let mut pending = Vec::new();
        let endpoint = 'found: loop {
            let chunk = tokio::time::timeout(Duration::from_secs(30), stream.next())
                .await
                .map_err(|_| "no endpoint event within 30 s".to_string())?
                .ok_or("the event stream ended before the endpoint event")?
                .map_err(|e| format!("reading the event stream: {e}"))?;
            for event in parser.feed(&chunk) {
                if event.event == "endpoint" {
                    pending.extend(parser.feed(&[]));
                    break 'found resolve(url, event.data.trim())?;
                }
                pending.push(event);
            }
        };
        let (tx, incoming) = mpsc::channel(256);
        let ct = CancellationToken::new();
        let (t, n, stop) = (traffic.clone(), server.to_string(), ct.clone());
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
                for event in parser.feed(&chunk) {
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
        async move {
            let fail = |why: String| {
                let _ = broken.send(why.clone());
                Err(SseError(why))
            };
            match request.send().await {
                Ok(r) if r.status().is_success() => Ok(()),
                Ok(r) => fail(format!("POST answered HTTP {}", r.status())),
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
                .is_empty()
        );
        let e = p.feed(b"Id=1\r\n\r\n: a comment\n\ndata: {\"a\":\ndata: 1}\n\n");
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
            resolve("http://h:1/sse", "http://other/x").unwrap(),
            "http://other/x"
        );
    }
}
