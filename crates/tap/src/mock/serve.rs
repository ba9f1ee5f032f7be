//! A mock served: over stdio (`mcpwb mock SESSION`) or Streamable HTTP on
//! 127.0.0.1 with the tap's token rules (`mcpwb mock SESSION --http`).

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use super::Mock;
use crate::http::{Refused, admit, messages_of, refuse};

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

/// A mock listening on 127.0.0.1.
pub struct Listening {
    pub addr: std::net::SocketAddr,
    /// The URL a client names (the token its first path segment).
    pub url: String,
    pub stop: tokio_util::sync::CancellationToken,
    /// Ends with the mock (its summary read from it).
    pub done: tokio::task::JoinHandle<Mock>,
}

struct Shared {
    mock: tokio::sync::Mutex<Mock>,
    /// Streams of calls whose server asked the host something, by the id
    /// of that request: the rest goes there once the host answers.
    streams: std::sync::Mutex<HashMap<String, mpsc::UnboundedSender<Value>>>,
    port: u16,
    token: String,
    sessions: std::sync::atomic::AtomicU64,
}

/// Serve `mock` over Streamable HTTP on 127.0.0.1:`port` (0: any) at
/// `/TOKEN/mcp` (or with the Mcp-Workbench-Token header), until `stop`.
/// A call's answer is JSON, or an SSE stream when the recording has more
/// than the answer (progress, the server's own requests).
pub async fn serve_http(mock: Mock, port: u16, token: String) -> std::io::Result<Listening> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    let url = format!("http://{addr}/{token}/mcp");
    let state = Arc::new(Shared {
        mock: tokio::sync::Mutex::new(mock),
        streams: std::sync::Mutex::new(HashMap::new()),
        port: addr.port(),
        token,
        sessions: std::sync::atomic::AtomicU64::new(0),
    });
    let stop = tokio_util::sync::CancellationToken::new();
    let router = axum::Router::new()
        .fallback(answer)
        .with_state(state.clone());
    let ct = stop.clone();
    let done = tokio::spawn(async move {
        crate::http::serve_until(listener, router, ct).await;
        state.streams.lock().expect("not poisoned").clear();
        // What it answered and what was never asked, for the summary.
        std::mem::take(&mut *state.mock.lock().await)
    });
    Ok(Listening {
        addr,
        url,
        stop,
        done,
    })
}

fn sse(rx: mpsc::UnboundedReceiver<Value>) -> Body {
    let events = futures::stream::unfold(rx, |mut rx| async move {
        let m = rx.recv().await?;
        let event = format!("data: {m}\n\n");
        Some((Ok::<_, std::io::Error>(Bytes::from(event)), rx))
    });
    Body::from_stream(events)
}

async fn answer(State(state): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(Refused(status, why)) = admit(&parts, state.port, &state.token) {
        return refuse(status, why);
    }
    match parts.method {
        Method::POST => {}
        Method::DELETE => return StatusCode::OK.into_response(),
        _ => {
            return refuse(
                StatusCode::METHOD_NOT_ALLOWED,
                "the mock offers no stream of its own: POST requests".into(),
            );
        }
    }
    let Ok(body) = axum::body::to_bytes(body, 512 * 1024 * 1024).await else {
        return refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the body is too large".into(),
        );
    };
    let mut out = Vec::new();
    let mut opens = false;
    {
        let mut mock = state.mock.lock().await;
        for m in messages_of(&body) {
            let Ok(incoming) = serde_json::from_slice::<Value>(m) else {
                return refuse(StatusCode::BAD_REQUEST, "the body is not JSON".into());
            };
            opens |= incoming["method"] == "initialize";
            let sent = mock.answer(&incoming);
            // The host's answer to the server's question: the rest of that
            // call goes on its stream.
            if incoming.get("method").is_none()
                && let Some(id) = incoming.get("id")
            {
                let stream = state
                    .streams
                    .lock()
                    .expect("not poisoned")
                    .remove(&id.to_string());
                if let Some(tx) = stream {
                    register(&state, &sent, &tx);
                    for s in sent {
                        let _ = tx.send(s);
                    }
                }
                continue;
            }
            out.extend(sent);
        }
    }
    let mut response = Response::builder();
    if opens {
        let n = state
            .sessions
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        response = response.header("mcp-session-id", format!("mock-{n}"));
    }
    let asks = out
        .last()
        .is_some_and(|m| m.get("method").is_some() && m.get("id").is_some());
    let body = match out.len() {
        0 => return StatusCode::ACCEPTED.into_response(),
        1 if !asks => {
            response = response.header(header::CONTENT_TYPE, "application/json");
            Body::from(out[0].to_string())
        }
        _ => {
            let (tx, rx) = mpsc::unbounded_channel();
            register(&state, &out, &tx);
            for m in out {
                let _ = tx.send(m);
            }
            response = response
                .header(header::CONTENT_TYPE, "text/event-stream")
                .header(header::CACHE_CONTROL, "no-cache");
            sse(rx)
        }
    };
    response
        .status(StatusCode::OK)
        .body(body)
        .unwrap_or_else(|e| refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// A stream that ends with the server's question stays open for the rest.
fn register(state: &Shared, sent: &[Value], tx: &mpsc::UnboundedSender<Value>) {
    if let Some(asked) = sent
        .last()
        .filter(|m| m.get("method").is_some() && m.get("id").is_some())
    {
        state
            .streams
            .lock()
            .expect("not poisoned")
            .insert(asked["id"].to_string(), tx.clone());
    }
}
