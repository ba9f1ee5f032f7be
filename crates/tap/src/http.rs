//! The tap over HTTP: `mcpwb tap --listen 127.0.0.1:PORT --to URL`, a
//! reverse proxy for Streamable HTTP and legacy SSE. Each request is passed
//! to the server with its method, path, query, headers (Authorization,
//! `Mcp-Session-Id`, `Mcp-Method`, `Last-Event-ID`, …) and body unchanged;
//! the answer comes back with its status, headers and body as they come
//! (SSE streams chunk by chunk, 401 challenges and redirects not followed).
//! Only the hop-by-hop headers (RFC 9110 §7.6.1) and the tap's own token are
//! not passed on.
//!
//! It listens on 127.0.0.1 and answers a loopback `Host` only, refuses web
//! pages of other origins, and wants its token: as the URL's first path
//! segment (`http://127.0.0.1:PORT/TOKEN/mcp`, for hosts that take only a
//! URL) or in the `Mcp-Workbench-Token` header. With the token in the path,
//! a legacy SSE `endpoint` event naming a path on the server is given the
//! same first segment, so the host's POSTs come back through the tap: the
//! one change the tap makes, and only there.
//!
//! Each MCP session (`Mcp-Session-Id`) is a session in the store; requests
//! without one (a stateless server, the 2026 era) share one. Every JSON-RPC
//! message of a body or an SSE event is kept, and each exchange's head
//! (method, path, status, headers masked) as a `tap` mark, for HAR.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use workbench_store::{Store, now_ms};

use crate::Direction;
use crate::record::{self, KEEP_BYTES, Recorder, Writer};

/// The header a host can carry the token in instead of the URL.
pub const TOKEN_HEADER: &str = "mcp-workbench-token";

/// How much of an error answer's body is kept on its exchange.
const ERROR_BYTES: usize = 64 * 1024;

/// The largest request body passed (a host's 50 MB message passes).
const MAX_BODY: usize = 512 * 1024 * 1024;

/// What to keep of the traffic.
#[derive(Clone)]
pub struct Keep {
    pub store: Store,
    /// The person's secrets, masked in what is kept.
    pub secrets: Vec<String>,
    /// Keep headers such as Authorization as they were (masked otherwise).
    pub unmasked: bool,
}

/// How the tap runs.
pub struct Options {
    /// 127.0.0.1's port (0: any free one).
    pub port: u16,
    /// The server's URL (`https://host/mcp`, or a legacy SSE `…/sse`).
    pub to: String,
    /// The token a host must carry.
    pub token: String,
    /// The name sessions are kept under.
    pub server: String,
    /// None: pass only (`--no-record`).
    pub keep: Option<Keep>,
}

/// A running tap.
pub struct Listening {
    pub addr: SocketAddr,
    /// The URL a host's config names: the token, then the server's path.
    pub url: String,
    pub stop: CancellationToken,
    pub done: tokio::task::JoinHandle<()>,
}

/// One kept session and its writer.
struct Kept {
    recorder: Recorder,
    writer: Mutex<Option<Writer>>,
}

impl Kept {
    fn finish(&self) -> Option<Writer> {
        self.writer.lock().expect("not poisoned").take()
    }
}

struct Tap {
    port: u16,
    token: String,
    /// `scheme://host[:port]` of the server.
    origin: String,
    server: String,
    command: String,
    keep: Option<Keep>,
    client: reqwest::Client,
    sessions: Mutex<Sessions>,
}

#[derive(Default)]
struct Sessions {
    by_id: HashMap<String, Arc<Kept>>,
    /// Legacy SSE: the endpoint a GET stream named (path and query, as the
    /// server wrote it) → that stream's session.
    by_endpoint: HashMap<String, Arc<Kept>>,
    /// Requests that carry no session id.
    sessionless: Option<Arc<Kept>>,
    ended: Vec<Writer>,
    /// Every session begun here (finished at the stop, bound or not).
    begun: Vec<Arc<Kept>>,
}

/// Listen on 127.0.0.1:`port` and pass everything to `to` until `stop`.
pub async fn serve(options: Options) -> std::io::Result<Listening> {
    let to = reqwest::Url::parse(&options.to)
        .map_err(|e| std::io::Error::other(format!("--to {}: {e}", options.to)))?;
    if !matches!(to.scheme(), "http" | "https") || to.host_str().is_none() {
        return Err(std::io::Error::other(format!(
            "--to {}: an http:// or https:// URL",
            options.to
        )));
    }
    let origin = to.origin().ascii_serialization();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", options.port)).await?;
    let addr = listener.local_addr()?;
    let mut path = to.path().to_string();
    if let Some(q) = to.query() {
        path.push('?');
        path.push_str(q);
    }
    let url = format!("http://{addr}/{}{path}", options.token);
    // A plain-HTTP server (a local one, mostly) gets a new connection per
    // request: a kept one meets the server's Nagle wait against our delayed
    // ACK (measured: 44 ms a call on a reused connection to an rmcp server,
    // 3 ms on a new one). Over TLS a handshake costs more: connections kept.
    let idle = if to.scheme() == "https" {
        usize::MAX
    } else {
        0
    };
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(idle)
        // The host's Accept-Encoding passes; nothing is added or undone.
        .no_gzip()
        .no_brotli()
        .no_zstd()
        .no_deflate()
        .build()
        .map_err(std::io::Error::other)?;
    let tap = Arc::new(Tap {
        port: addr.port(),
        token: options.token,
        origin,
        command: options.to.clone(),
        server: options.server,
        keep: options.keep,
        client,
        sessions: Mutex::new(Sessions::default()),
    });
    let stop = CancellationToken::new();
    let router = axum::Router::new().fallback(proxy).with_state(tap.clone());
    let ct = stop.clone();
    let done = tokio::spawn(async move {
        // Each message at once (no Nagle wait on small writes).
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let served = axum::serve(listener, router).with_graceful_shutdown({
            let ct = ct.clone();
            async move { ct.cancelled().await }
        });
        // Open SSE streams do not end by themselves: a second after the
        // stop they are cut.
        tokio::select! {
            _ = served => {}
            _ = async { ct.cancelled().await; tokio::time::sleep(std::time::Duration::from_secs(1)).await } => {}
        }
        let writers: Vec<Writer> = {
            let mut s = tap.sessions.lock().expect("not poisoned");
            let mut all = std::mem::take(&mut s.ended);
            all.extend(s.by_id.drain().filter_map(|(_, k)| k.finish()));
            all.extend(s.by_endpoint.drain().filter_map(|(_, k)| k.finish()));
            all.extend(s.begun.drain(..).filter_map(|k| k.finish()));
            all.extend(s.sessionless.take().and_then(|k| k.finish()));
            all
        };
        let _ =
            tokio::task::spawn_blocking(move || writers.into_iter().for_each(Writer::finish)).await;
    });
    Ok(Listening {
        addr,
        url,
        stop,
        done,
    })
}

pub(crate) fn refuse(status: StatusCode, why: String) -> Response {
    (status, why).into_response()
}

/// Why a request is not passed: its status and the sentence said.
pub(crate) struct Refused(pub StatusCode, pub String);

/// Refused unless the request is from this machine, no foreign web
/// page, with the token; else the path (token taken off) and whether
/// the token came in it.
pub(crate) fn admit(
    parts: &axum::http::request::Parts,
    port: u16,
    token: &str,
) -> Result<(String, bool), Refused> {
    let headers = &parts.headers;
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !workbench_loopback::loopback_host(host, port) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            format!(
                "the workbench answers only to a loopback Host (127.0.0.1:{}), not \"{host}\"",
                port
            ),
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let o = origin.to_str().unwrap_or("?");
        if !workbench_loopback::local_origin(o) {
            return Err(Refused(
                StatusCode::FORBIDDEN,
                format!("the workbench does not answer web pages of other sites (Origin: {o})"),
            ));
        }
    }
    let path_and_query = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let prefix = format!("/{}", token);
    if let Some(rest) = path_and_query.strip_prefix(&prefix)
        && (rest.is_empty() || rest.starts_with('/') || rest.starts_with('?'))
    {
        let rest = if rest.starts_with('/') {
            rest.to_string()
        } else {
            format!("/{rest}")
        };
        return Ok((rest, true));
    }
    let given = headers
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !given.is_empty() && workbench_loopback::same(given.as_bytes(), token.as_bytes()) {
        return Ok((path_and_query.to_string(), false));
    }
    // 403, not 401: a 401 would send the host into OAuth with the server.
    Err(Refused(
        StatusCode::FORBIDDEN,
        if given.is_empty() {
            "this needs its token: as the URL's first path segment (the URL `mcpwb` printed) or in the Mcp-Workbench-Token header".into()
        } else {
            "wrong token".into()
        },
    ))
}

impl Tap {
    /// The session a request belongs to; a new one for a handshake without
    /// a session id, and for a stream opened without one (legacy SSE).
    fn session(&self, id: Option<&str>, path: &str, opens: bool) -> Option<Arc<Kept>> {
        let keep = self.keep.as_ref()?;
        let mut sessions = self.sessions.lock().expect("not poisoned");
        if id.is_none()
            && let Some(k) = sessions.by_endpoint.get(path)
        {
            return Some(k.clone());
        }
        if let Some(id) = id {
            if let Some(k) = sessions.by_id.get(id) {
                return Some(k.clone());
            }
        } else if !opens && let Some(k) = &sessions.sessionless {
            return Some(k.clone());
        }
        let (recorder, writer) = match record::start(
            keep.store.clone(),
            &self.server,
            &self.command,
            keep.secrets.clone(),
        ) {
            Ok(started) => started,
            Err(e) => {
                tracing::warn!("the tapped session is not kept: {e}");
                return None;
            }
        };
        let kept = Arc::new(Kept {
            recorder,
            writer: Mutex::new(Some(writer)),
        });
        sessions.begun.push(kept.clone());
        match id {
            // A session the tap did not see begin (the tap started later).
            Some(id) => {
                sessions.by_id.insert(id.to_string(), kept.clone());
            }
            None if !opens => sessions.sessionless = Some(kept.clone()),
            None => {}
        }
        Some(kept)
    }

    /// The server named the session `id` in its answer to a handshake.
    fn bind(&self, id: Option<&str>, kept: &Arc<Kept>) {
        let mut sessions = self.sessions.lock().expect("not poisoned");
        match id {
            Some(id) => {
                sessions.by_id.insert(id.to_string(), kept.clone());
            }
            // A stateless server: the handshake opens the shared session.
            None => {
                if let Some(old) = sessions.sessionless.replace(kept.clone())
                    && let Some(w) = old.finish()
                {
                    sessions.ended.push(w);
                }
            }
        }
    }

    /// The host ended the session `id` (DELETE).
    fn end(&self, id: &str) {
        let ended = self
            .sessions
            .lock()
            .expect("not poisoned")
            .by_id
            .remove(id)
            .and_then(|k| k.finish());
        if let Some(w) = ended {
            // The DELETE's own answer is still on its way to be kept.
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                let _ = tokio::task::spawn_blocking(move || w.finish()).await;
            });
        }
    }

    fn masked(&self, headers: &HeaderMap) -> Value {
        let unmasked = self.keep.as_ref().is_some_and(|k| k.unmasked);
        let mut out = serde_json::Map::new();
        for (name, value) in headers {
            if name.as_str() == TOKEN_HEADER {
                continue;
            }
            let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
            let text = if unmasked || !secret_header(name.as_str()) {
                text
            } else {
                "••••••".to_string()
            };
            match out.get_mut(name.as_str()) {
                Some(Value::String(prev)) => {
                    prev.push_str(", ");
                    prev.push_str(&text);
                }
                _ => {
                    out.insert(name.as_str().to_string(), Value::String(text));
                }
            }
        }
        Value::Object(out)
    }
}

/// Headers whose values are credentials.
pub fn secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
    ) || ["token", "secret", "api-key", "apikey", "password"]
        .iter()
        .any(|w| name.contains(w))
}

/// Hop-by-hop: the connection's, not the message's.
fn hop_by_hop(name: &str) -> bool {
    matches!(
        name,
        "connection"
            | "keep-alive"
            | "proxy-connection"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
    )
}

/// The messages of a JSON-RPC body: a batch's elements as their own text,
/// else the body whole.
pub(crate) fn messages_of(body: &[u8]) -> Vec<&[u8]> {
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
        && let Ok(all) = serde_json::from_slice::<Vec<&serde_json::value::RawValue>>(body)
    {
        return all.into_iter().map(|m| m.get().as_bytes()).collect();
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Vec::new();
    }
    vec![body]
}

fn opens_session(message: &[u8]) -> bool {
    // The method is near the start of a handshake; a 50 MB call is not.
    if message.len() > 1024 * 1024 {
        return false;
    }
    serde_json::from_slice::<Value>(message)
        .is_ok_and(|v| v["method"] == "initialize" || v["method"] == "server/discover")
}

async fn proxy(State(tap): State<Arc<Tap>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let (path, via_path) = match admit(&parts, tap.port, &tap.token) {
        Ok(admitted) => admitted,
        Err(Refused(status, why)) => return refuse(status, why),
    };
    let body = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(e) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the tap could not read the request: {e}"),
            );
        }
    };
    let started = now_ms();
    let session_id = parts
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let messages = messages_of(&body);
    // A GET without a session opens a legacy SSE stream: its own session.
    let opens = session_id.is_none()
        && (messages.iter().any(|m| opens_session(m)) || parts.method == Method::GET);
    let kept = tap.session(session_id.as_deref(), &path, opens);
    let request_seqs: Vec<i64> = kept
        .as_ref()
        .map(|k| {
            messages
                .iter()
                .map(|m| k.recorder.keep_message(Direction::Host, m))
                .collect()
        })
        .unwrap_or_default();
    let mut head = json!({
        "method": parts.method.as_str(),
        "path": path,
        "requestHeaders": tap.masked(&parts.headers),
        "startedAt": started,
        "request": request_seqs,
    });

    let mut forward = HeaderMap::new();
    for (name, value) in &parts.headers {
        let n = name.as_str();
        if hop_by_hop(n) || n == "host" || n == "content-length" || n == TOKEN_HEADER {
            continue;
        }
        forward.append(name.clone(), value.clone());
    }
    let url = format!("{}{}", tap.origin, path);
    let sent = tap
        .client
        .request(parts.method.clone(), &url)
        .headers(forward)
        .body(body)
        .send()
        .await;
    let answer = match sent {
        Ok(a) => a,
        Err(e) => {
            let why = format!("the tap could not reach the server at {url}: {e}");
            if let Some(k) = &kept {
                head["status"] = json!(502);
                head["error"] = json!(why);
                head["endedAt"] = json!(now_ms());
                k.recorder.mark(&json!({ "http": head }));
            }
            return refuse(StatusCode::BAD_GATEWAY, why);
        }
    };
    let status = answer.status();
    let headers = answer.headers().clone();
    let answered_id = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if opens
        && parts.method != Method::GET
        && status.is_success()
        && let Some(k) = &kept
    {
        tap.bind(answered_id.as_deref(), k);
    }
    if parts.method == Method::DELETE
        && status.is_success()
        && let Some(id) = &session_id
    {
        tap.end(id);
    }
    head["status"] = json!(status.as_u16());
    head["responseHeaders"] = tap.masked(&headers);
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let kind = if content_type.starts_with("text/event-stream") {
        Kind::Sse(Sse::default())
    } else if !status.is_success() {
        Kind::Error(Vec::new())
    } else if content_type.contains("json") {
        Kind::Json(Vec::new(), 0)
    } else {
        Kind::Other
    };
    let rewrite =
        (via_path && parts.method == Method::GET && matches!(kind, Kind::Sse(_))).then(|| {
            Rewrite {
                pending: Vec::new(),
                prefix: format!("/{}", tap.token),
                server_origin: tap.origin.clone(),
                tap_origin: format!("http://127.0.0.1:{}", tap.port),
            }
        });
    let mut response = Response::builder().status(status);
    for (name, value) in &headers {
        if hop_by_hop(name.as_str()) || (rewrite.is_some() && name == header::CONTENT_LENGTH) {
            continue;
        }
        response = response.header(name, value);
    }
    let legacy = (opens && parts.method == Method::GET)
        .then(|| kept.clone().map(|k| (tap.clone(), k)))
        .flatten();
    let stream = Passing {
        inner: Box::pin(answer.bytes_stream()),
        legacy,
        kept: kept.map(|k| (k.recorder.clone(), head)),
        kind,
        response_seqs: Vec::new(),
        rewrite,
    };
    response
        .body(Body::from_stream(stream))
        .unwrap_or_else(|e| refuse(StatusCode::BAD_GATEWAY, e.to_string()))
}

/// How an answer's body is read for its messages.
enum Kind {
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
struct Sse {
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

/// A legacy SSE stream's `endpoint` event given the token's path segment.
struct Rewrite {
    pending: Vec<u8>,
    prefix: String,
    server_origin: String,
    tap_origin: String,
}

impl Rewrite {
    /// Bytes to pass now; None while the first event is not whole.
    fn feed(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        self.pending.extend_from_slice(bytes);
        let text = String::from_utf8_lossy(&self.pending);
        let end = text
            .find("\n\n")
            .map(|i| i + 2)
            .or_else(|| text.find("\r\n\r\n").map(|i| i + 4))?;
        let (event, rest) = text.split_at(end);
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
        out.push_str(rest);
        self.pending.clear();
        Some(out.into_bytes())
    }
}

/// The answer's body on its way to the host, its messages kept as they
/// pass; the exchange's head kept when it ends (or the host goes).
struct Passing {
    inner: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
    /// A legacy SSE stream's session, bound to the endpoint it names.
    legacy: Option<(Arc<Tap>, Arc<Kept>)>,
    kept: Option<(Recorder, Value)>,
    kind: Kind,
    response_seqs: Vec<i64>,
    rewrite: Option<Rewrite>,
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
            head["responseBody"] = json!(String::from_utf8_lossy(body));
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
        head["response"] = json!(self.response_seqs);
        head["endedAt"] = json!(now_ms());
        recorder.mark(&json!({ "http": head }));
    }
}
