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
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::Response;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use workbench_store::{Store, now_ms};

use crate::Direction;
use crate::record::{self, Recorder, Writer};

mod admit;
mod body;
mod head;

pub(crate) use admit::{Refused, admit, refuse};

/// Serve `router` on `listener` until `stop`, each message at once (no
/// Nagle wait on small writes); open SSE streams, which do not end by
/// themselves, are cut a second after the stop.
pub(crate) async fn serve_until(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    stop: CancellationToken,
) {
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let served = axum::serve(listener, router).with_graceful_shutdown({
        let stop = stop.clone();
        async move { stop.cancelled().await }
    });
    tokio::select! {
        _ = served => {}
        _ = async {
            stop.cancelled().await;
            tokio::time::sleep(std::time::Duration::from_secs(1)).await
        } => {}
    }
}
use body::{Kind, Passing, Rewrite, Sse};
use head::Head;

/// How an answer's body is read as it passes: SSE events, an error, one
/// JSON message, or bytes only.
fn kind_of(status: StatusCode, headers: &HeaderMap) -> Kind {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if content_type.starts_with("text/event-stream") {
        Kind::Sse(Sse::default())
    } else if !status.is_success() {
        Kind::Error(Vec::new())
    } else if content_type.contains("json") {
        Kind::Json(Vec::new(), 0)
    } else {
        Kind::Other
    }
}

/// The headers passed on to the server: all but the hop-by-hop ones, the
/// host, the length (the client sets it) and the tap's own token.
fn forwarded(headers: &HeaderMap) -> HeaderMap {
    let mut forward = HeaderMap::new();
    for (name, value) in headers {
        let n = name.as_str();
        if hop_by_hop(n) || n == "host" || n == "content-length" || n == TOKEN_HEADER {
            continue;
        }
        forward.append(name.clone(), value.clone());
    }
    forward
}

/// The header a host can carry the token in instead of the URL.
pub const TOKEN_HEADER: &str = "mcp-workbench-token";

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
    /// The sessions kept take at most this many bytes (the oldest go).
    pub cap: i64,
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
    // Connections to the server are kept and reused, as a host's own are:
    // a new one per request cost the tap half its speed. A server that
    // leaves Nagle's algorithm on makes each answer wait for the delayed
    // ACK on a kept connection — for every client, the tap as the host
    // going straight; the doctor says so (`http.nagle-stall`).
    let client = workbench_http::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .tcp_nodelay(true)
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
    // `mcpwb tap --to` (a runtime of its own) waits for the next message
    // awake while messages pass; the app's runtime sleeps.
    workbench_awake::keep_runtime_awake();
    let stop = CancellationToken::new();
    let router = axum::Router::new().fallback(proxy).with_state(tap.clone());
    let ct = stop.clone();
    let done = tokio::spawn(async move {
        serve_until(listener, router, ct).await;
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
            workbench_mask::Secrets::new(&keep.secrets),
            keep.cap,
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

    /// A request as the session keeps it (when it is kept): the host's
    /// credentials learnt first, so they are masked wherever they reappear
    /// (a server that echoes its caller's Authorization), then each
    /// JSON-RPC message of its body, and its head for HAR (masked as it is
    /// written: the path's own credentials, `?api_key=`, as a URL's are).
    /// Nothing of it when nothing is kept (`--no-record`).
    fn keep_request(
        &self,
        kept: Option<&Kept>,
        parts: &axum::http::request::Parts,
        path: &str,
        messages: &[&[u8]],
        started: i64,
    ) -> Option<Head> {
        let k = kept?;
        let unmasked = self.keep.as_ref().is_some_and(|k| k.unmasked);
        if !unmasked {
            for (name, value) in &parts.headers {
                let value = String::from_utf8_lossy(value.as_bytes());
                for secret in workbench_mask::header_secrets(name.as_str(), &value) {
                    k.recorder.learn(&secret);
                }
            }
        }
        let request = messages
            .iter()
            .map(|m| k.recorder.keep_message(Direction::Host, m))
            .collect();
        Some(Head {
            method: parts.method.clone(),
            path: path.to_string(),
            // Shared, not copied: a header's value is reference-counted.
            request_headers: parts.headers.clone(),
            started_at: started,
            request,
            status: None,
            response_headers: None,
            error: None,
            response_body: None,
            response: None,
            ended_at: None,
            unmasked,
        })
    }

    /// The legacy `endpoint` event's path given the token's first segment,
    /// so a host's POSTs come back through the tap.
    fn rewrite(&self) -> Rewrite {
        Rewrite {
            pending: Vec::new(),
            prefix: format!("/{}", self.token),
            server_origin: self.origin.clone(),
            tap_origin: format!("http://127.0.0.1:{}", self.port),
        }
    }
}

/// Headers whose values are credentials (the one masker's rule).
pub use workbench_mask::secret_header;

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
    // A request and its answer are one flight; a standing GET stream is none.
    let flight = if parts.method == Method::POST {
        Some(workbench_awake::flight())
    } else {
        workbench_awake::passed();
        None
    };
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
    let mut head = tap.keep_request(kept.as_deref(), &parts, &path, &messages, started);
    let forward = forwarded(&parts.headers);
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
            if let (Some(k), Some(mut head)) = (&kept, head) {
                head.status = Some(502);
                head.error = Some(why.clone());
                head.ended_at = Some(now_ms());
                k.recorder.mark_later(head.holds(), move || head.text());
            }
            return refuse(StatusCode::BAD_GATEWAY, why);
        }
    };
    let status = answer.status();
    let headers = answer.headers().clone();
    if status.is_success() {
        // The session the server gave (an initialize that opened one), or
        // the one a DELETE ended.
        if opens
            && parts.method != Method::GET
            && let Some(k) = &kept
        {
            let answered = headers.get("mcp-session-id").and_then(|v| v.to_str().ok());
            tap.bind(answered, k);
        }
        if parts.method == Method::DELETE
            && let Some(id) = &session_id
        {
            tap.end(id);
        }
    }
    let kind = kind_of(status, &headers);
    // A legacy SSE stream opened through the token's path: its endpoint
    // event is given the same first segment.
    let rewrite = (via_path && parts.method == Method::GET && matches!(kind, Kind::Sse(_)))
        .then(|| tap.rewrite());
    let mut response = Response::builder().status(status);
    for (name, value) in &headers {
        if hop_by_hop(name.as_str()) || (rewrite.is_some() && name == header::CONTENT_LENGTH) {
            continue;
        }
        response = response.header(name, value);
    }
    if let Some(head) = &mut head {
        head.status = Some(status.as_u16());
        head.response_headers = Some(headers);
    }
    let legacy = (opens && parts.method == Method::GET)
        .then(|| kept.clone().map(|k| (tap.clone(), k)))
        .flatten();
    let stream = Passing {
        inner: Box::pin(answer.bytes_stream()),
        legacy,
        kept: kept.zip(head).map(|(k, head)| (k.recorder.clone(), head)),
        kind,
        response_seqs: Vec::new(),
        rewrite,
        _flight: flight,
    };
    response
        .body(Body::from_stream(stream))
        .unwrap_or_else(|e| refuse(StatusCode::BAD_GATEWAY, e.to_string()))
}
