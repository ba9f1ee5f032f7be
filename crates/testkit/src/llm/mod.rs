//! A scripted LLM server: the one stand-in the tests use, because no real
//! model runs here. It speaks the providers' real wire formats — OpenAI chat
//! completions (streamed `tool_calls` deltas, parallel calls), Anthropic
//! messages (`tool_use`, `input_json_delta`), Gemini `generateContent` /
//! `streamGenerateContent` (`functionCall`) and Ollama `/api/chat` (NDJSON) —
//! streamed or whole, as the request asks, and lists models for each.
//!
//! What it answers is a script of turns, each taken by the next request
//! that fits (`when`: a text the request must contain; `model`: the model
//! it asks for). A turn is text,
//! reasoning, tool calls and usage, or a fault: an HTTP status (401, 429
//! with Retry-After, 500), a malformed chunk, a stream cut midway, a
//! stream that hangs, slow tokens. Every request is recorded for the test
//! to check what the client sent (tool results, tools offered).
//!
//! Binds where it is told (127.0.0.1 in every test).

mod wire;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::{CancellationToken, DropGuard};

/// One tool call a turn makes.
#[derive(Debug, Clone, Deserialize)]
pub struct ScriptedCall {
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
    /// The call's id (default: `call_<turn>_<n>`).
    #[serde(default)]
    pub id: Option<String>,
}

/// Tokens a turn reports.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct ScriptedUsage {
    pub input: u32,
    pub output: u32,
    #[serde(default)]
    pub cached: u32,
}

/// What goes wrong instead of (or in the middle of) an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// 401 with the provider's error body.
    Unauthorized,
    /// 429 with `Retry-After: retry_after` seconds.
    RateLimited,
    /// 500.
    ServerError,
    /// A chunk that is not JSON after the first text.
    Malformed,
    /// The connection closes after the first text, with no end.
    Cut,
    /// The first text, then nothing, never ending (until the client goes).
    Hang,
}

/// One scripted answer.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Turn {
    /// Only a request containing this text takes the turn.
    #[serde(default)]
    pub when: Option<String>,
    /// Only a request for this model takes the turn (evals play several
    /// models at once from one script).
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub reasoning: String,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedCall>,
    #[serde(default)]
    pub usage: Option<ScriptedUsage>,
    #[serde(default)]
    pub fault: Option<Fault>,
    /// Seconds for 429's Retry-After (default 1).
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// A pause before each streamed chunk (slow tokens).
    #[serde(default)]
    pub delay_ms: u64,
    /// The stream stops partway until a file exists: a test sees what the
    /// client shows mid-answer, then lets the model go on.
    #[serde(default)]
    pub hold: Option<Hold>,
}

/// Where a streamed answer waits, and for what.
#[derive(Debug, Clone, Deserialize)]
pub struct Hold {
    /// Chunks sent before the wait.
    pub after: usize,
    /// The file whose arrival ends the wait.
    pub until: std::path::PathBuf,
}

impl Turn {
    pub fn text(text: &str) -> Turn {
        Turn {
            text: text.into(),
            ..Default::default()
        }
    }

    pub fn calls(calls: &[(&str, Value)]) -> Turn {
        Turn {
            tool_calls: calls
                .iter()
                .map(|(name, arguments)| ScriptedCall {
                    name: name.to_string(),
                    arguments: arguments.clone(),
                    id: None,
                })
                .collect(),
            ..Default::default()
        }
    }

    pub fn fault(fault: Fault) -> Turn {
        Turn {
            fault: Some(fault),
            text: "partial answer".into(),
            ..Default::default()
        }
    }

    pub fn when(mut self, text: &str) -> Turn {
        self.when = Some(text.into());
        self
    }

    pub fn for_model(mut self, model: &str) -> Turn {
        self.model = Some(model.into());
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub body: Value,
    /// The credential it carried (Authorization, x-api-key or x-goog-api-key).
    pub credential: Option<String>,
    /// When it arrived (for benchmarks: the client's time between requests).
    pub arrived: std::time::Instant,
}

/// A streamed frame as it left the server (for benchmarks).
#[derive(Debug, Clone, Copy)]
pub struct Sent {
    /// Which turn (1 = the first taken).
    pub turn: usize,
    pub at: std::time::Instant,
    /// The stream's last frame.
    pub last: bool,
}

#[derive(Default)]
struct Shared {
    turns: Mutex<(VecDeque<Turn>, usize)>,
    requests: Mutex<Vec<Recorded>>,
    sent: Mutex<Vec<Sent>>,
}

/// A running scripted server; dropping it stops it.
pub struct ScriptedLlm {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    _stop: DropGuard,
}

impl ScriptedLlm {
    /// Serve `turns` on `addr` (e.g. `127.0.0.1:0`).
    pub async fn start(addr: &str, turns: Vec<Turn>) -> std::io::Result<ScriptedLlm> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        shared.turns.lock().unwrap_or_else(|e| e.into_inner()).0 = turns.into();
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(shared.clone());
        let stop = CancellationToken::new();
        let until = stop.clone();
        tokio::spawn(async move {
            // No Nagle delay on the last frame: real providers answer without one.
            use axum::serve::ListenerExt;
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move { until.cancelled().await })
                .await;
        });
        Ok(ScriptedLlm {
            addr,
            shared,
            _stop: stop.drop_guard(),
        })
    }

    /// The base URL of each provider kind on this server.
    pub fn url(&self, kind: &str) -> String {
        let base = format!("http://{}", self.addr);
        match kind {
            "gemini" => format!("{base}/v1beta/"),
            "ollama" => format!("{base}/"),
            _ => format!("{base}/v1/"),
        }
    }

    /// Add turns to the end of the script.
    pub fn push(&self, turns: impl IntoIterator<Item = Turn>) {
        self.shared
            .turns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .extend(turns);
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The chat requests so far (not model lists).
    pub fn chats(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST")
            .collect()
    }

    /// Every streamed frame as it was written, in order.
    pub fn sent(&self) -> Vec<Sent> {
        self.shared
            .sent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Turns not yet taken.
    pub fn remaining(&self) -> usize {
        self.shared
            .turns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .len()
    }
}

/// Which API a request speaks, from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    OpenAi,
    Anthropic,
    Gemini,
    Ollama,
}

fn api_of(path: &str) -> Option<Api> {
    if path.ends_with("/chat/completions") {
        Some(Api::OpenAi)
    } else if path.ends_with("/messages") {
        Some(Api::Anthropic)
    } else if path.contains(":streamGenerateContent") || path.contains(":generateContent") {
        Some(Api::Gemini)
    } else if path.ends_with("/api/chat") {
        Some(Api::Ollama)
    } else {
        None
    }
}

fn credential(headers: &HeaderMap) -> Option<String> {
    ["authorization", "x-api-key", "x-goog-api-key"]
        .iter()
        .find_map(|h| {
            headers
                .get(*h)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        })
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let arrived = std::time::Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let headers = request.headers().clone();
    let bytes = axum::body::to_bytes(request.into_body(), 64 << 20)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    shared
        .requests
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Recorded {
            method: method.to_string(),
            path: path.clone(),
            body: body.clone(),
            credential: credential(&headers),
            arrived,
        });
    if method == Method::GET {
        return models(&path);
    }
    let Some(api) = api_of(&path) else {
        return (
            StatusCode::NOT_FOUND,
            format!("the scripted LLM does not serve {path}"),
        )
            .into_response();
    };
    let model = body["model"]
        .as_str()
        .map(str::to_string)
        .or_else(|| {
            path.rsplit('/')
                .next()
                .and_then(|p| p.split(':').next())
                .map(str::to_string)
        })
        .unwrap_or_else(|| "scripted-model".into());
    let text = bytes_text(&bytes);
    let (turn, index) = {
        let mut guard = shared.turns.lock().unwrap_or_else(|e| e.into_inner());
        let (turns, taken) = &mut *guard;
        let found = turns.iter().position(|t| {
            t.when.as_ref().is_none_or(|w| text.contains(w.as_str()))
                && t.model.as_ref().is_none_or(|m| *m == model)
        });
        match found.and_then(|i| turns.remove(i)) {
            Some(t) => {
                *taken += 1;
                (t, *taken)
            }
            None => {
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    axum::Json(json!({"error": {"message": "the scripted LLM has no turn left for this request"}})),
                )
                    .into_response();
            }
        }
    };
    let stream = match api {
        Api::Gemini => path.contains(":streamGenerateContent"),
        _ => body["stream"].as_bool() == Some(true),
    };
    respond(api, turn, index, &model, stream, shared.clone())
}

fn bytes_text(bytes: &Bytes) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Model lists, in a shape every provider's reader accepts.
fn models(path: &str) -> Response {
    if path.ends_with("/api/tags") {
        return axum::Json(
            json!({"models": [{"name": "scripted-model", "model": "scripted-model"}]}),
        )
        .into_response();
    }
    axum::Json(json!({
        "object": "list",
        "data": [{"id": "scripted-model", "object": "model", "type": "model"}],
        "models": [{"name": "models/scripted-model"}],
        "has_more": false
    }))
    .into_response()
}

fn status_fault(api: Api, status: StatusCode, retry_after: Option<u64>) -> Response {
    let message = match status.as_u16() {
        401 => "invalid api key (scripted)",
        429 => "rate limit reached (scripted)",
        _ => "internal error (scripted)",
    };
    let body = match api {
        Api::Anthropic => {
            json!({"type": "error", "error": {"type": "scripted_error", "message": message}})
        }
        Api::Gemini => {
            json!({"error": {"code": status.as_u16(), "message": message, "status": "SCRIPTED"}})
        }
        Api::Ollama => json!({"error": message}),
        Api::OpenAi => json!({"error": {"message": message, "type": "scripted_error"}}),
    };
    let mut response = (status, axum::Json(body)).into_response();
    if let Some(secs) = retry_after {
        response
            .headers_mut()
            .insert("retry-after", secs.to_string().parse().expect("digits"));
    }
    response
}

fn respond(
    api: Api,
    turn: Turn,
    index: usize,
    model: &str,
    stream: bool,
    shared: Arc<Shared>,
) -> Response {
    match turn.fault {
        Some(Fault::Unauthorized) => return status_fault(api, StatusCode::UNAUTHORIZED, None),
        Some(Fault::RateLimited) => {
            return status_fault(
                api,
                StatusCode::TOO_MANY_REQUESTS,
                Some(turn.retry_after.unwrap_or(1)),
            );
        }
        Some(Fault::ServerError) => {
            return status_fault(api, StatusCode::INTERNAL_SERVER_ERROR, None);
        }
        _ => {}
    }
    let calls: Vec<(String, String, Value)> = turn
        .tool_calls
        .iter()
        .enumerate()
        .map(|(n, c)| {
            (
                c.id.clone().unwrap_or_else(|| format!("call_{index}_{n}")),
                c.name.clone(),
                if c.arguments.is_null() {
                    json!({})
                } else {
                    c.arguments.clone()
                },
            )
        })
        .collect();
    if !stream {
        return axum::Json(wire::whole(api, &turn, &calls, model)).into_response();
    }
    let frames = wire::frames(api, &turn, &calls, model);
    let (content_type, frames) = (wire::content_type(api), frames);
    let (tx, rx) = futures::channel::mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    let delay = Duration::from_millis(turn.delay_ms);
    let fault = turn.fault;
    let hold = turn.hold.clone();
    tokio::spawn(async move {
        use futures::SinkExt;
        let mut tx = tx;
        let count = frames.len();
        for (i, frame) in frames.into_iter().enumerate() {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            if let Some(hold) = hold.as_ref().filter(|h| h.after == i) {
                while !hold.until.exists() && !tx.is_closed() {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            // Faults strike after the first content frame.
            if i == 2 {
                match fault {
                    Some(Fault::Malformed) => {
                        let _ = tx.send(Ok(wire::malformed(api))).await;
                    }
                    Some(Fault::Cut) => return,
                    Some(Fault::Hang) => {
                        // Until the client goes away (the channel closes).
                        while !tx.is_closed() {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                        return;
                    }
                    _ => {}
                }
            }
            if tx.send(Ok(frame)).await.is_err() {
                return;
            }
            shared
                .sent
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(Sent {
                    turn: index,
                    at: std::time::Instant::now(),
                    last: i + 1 == count,
                });
        }
    });
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", content_type)
        .header("cache-control", "no-cache")
        .body(Body::from_stream(rx))
        .expect("static response parts")
}
