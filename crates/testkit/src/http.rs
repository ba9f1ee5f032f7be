//! Serving the demo server over Streamable HTTP on a loopback address, with
//! an optional bearer token and the HTTP-only faults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::demo::{DemoOptions, DemoServer};
use crate::fault::Fault;

/// Sessions that answered a tool call under `Fault::DropSession`: the server
/// "forgets" them (404), as after a restart; new sessions work.
static DROPPED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

pub fn drop_session(id: String) {
    DROPPED.lock().unwrap_or_else(|e| e.into_inner()).push(id);
}

fn is_dropped(id: &str) -> bool {
    DROPPED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .any(|d| d == id)
}

#[derive(Clone)]
struct Gate {
    token: Option<Arc<str>>,
    /// `--oauth`: only tokens this server issued are taken.
    oauth: Option<crate::oauth::Issued>,
    /// `--oauth-call-scope`: tools/call needs a token granted this scope.
    call_scope: Option<Arc<str>>,
    fault: Option<Fault>,
    legacy: bool,
    json: bool,
    requests_log: Option<Arc<PathBuf>>,
}

/// How the demo server listens over HTTP.
#[derive(Debug, Clone, Default)]
pub struct HttpOptions {
    /// Require `Authorization: Bearer TOKEN`.
    pub token: Option<String>,
    /// Be its own OAuth authorization server and take only its tokens.
    pub oauth: bool,
    /// With `oauth`: tools/call needs a token granted this scope (others
    /// get 403 insufficient_scope naming it: step-up).
    pub call_scope: Option<String>,
    /// Write the bound address here once listening (bind port 0 in tests).
    pub port_file: Option<PathBuf>,
    /// Answer requests with one JSON body instead of an SSE stream, adding a
    /// field no SDK knows (`x-demo-trace`) to each message, as extensions do.
    pub json_response: bool,
    /// Serve HTTPS with a fresh certificate; its CA is written to this file.
    pub tls_ca_out: Option<PathBuf>,
    /// Leave Nagle's algorithm on (as many servers do).
    pub nagle: bool,
    /// Append each request's method and `Mcp-Session-Id` here, a line each
    /// (what a client sent: a DELETE when it ends its session).
    pub requests_log: Option<PathBuf>,
}

/// Add `x-demo-trace` to a JSON-RPC message in a JSON body, and to its
/// result (a field no library's result type models).
async fn with_trace(response: Response) -> Response {
    let is_json = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 512 * 1024 * 1024).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let body = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(serde_json::Value::Object(mut message)) => {
            let trace = serde_json::json!({ "served_by": "demo" });
            if let Some(serde_json::Value::Object(result)) = message.get_mut("result") {
                result.insert("x-demo-trace".into(), trace.clone());
            }
            message.insert("x-demo-trace".into(), trace);
            serde_json::to_vec(&message).unwrap_or_default()
        }
        _ => bytes.to_vec(),
    };
    parts.headers.remove("content-length");
    Response::from_parts(parts, axum::body::Body::from(body))
}

async fn gate(State(gate): State<Gate>, request: Request, next: Next) -> Response {
    if let Some(issued) = &gate.oauth {
        let ok = request
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|t| issued.accepts(t));
        if !ok {
            return crate::oauth::challenge(request.headers());
        }
        if let Some(scope) = &gate.call_scope {
            let token = request
                .headers()
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .unwrap_or("")
                .to_string();
            let (parts, body) = request.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024 * 1024).await else {
                return (StatusCode::BAD_REQUEST, "unreadable body").into_response();
            };
            let parsed: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
            if parsed["method"] == "tools/call" && !issued.has_scope(&token, scope) {
                return crate::oauth::insufficient(&parts.headers, scope);
            }
            let request = Request::from_parts(parts, axum::body::Body::from(bytes));
            return Box::pin(gate_rest(gate, request, next)).await;
        }
    }
    gate_rest(gate, request, next).await
}

async fn gate_rest(gate: Gate, request: Request, next: Next) -> Response {
    if let Some(log) = &gate.requests_log {
        let session = request
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-");
        let line = format!("{} {session}\n", request.method());
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&**log)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
    if let Some(token) = &gate.token {
        let ok = request
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.strip_prefix("Bearer ").is_some_and(|t| t == &**token));
        if !ok {
            return (StatusCode::UNAUTHORIZED, "missing or wrong bearer token").into_response();
        }
    }
    let request = if gate.legacy && request.method() == axum::http::Method::POST {
        let (parts, body) = request.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024 * 1024).await else {
            return (StatusCode::BAD_REQUEST, "unreadable body").into_response();
        };
        let parsed: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        if parsed["method"] == "server/discover" {
            let answer = serde_json::json!({
                "jsonrpc": "2.0", "id": parsed["id"],
                "error": { "code": -32601, "message": "Method not found: server/discover" }
            });
            return ([("content-type", "application/json")], answer.to_string()).into_response();
        }
        Request::from_parts(parts, axum::body::Body::from(bytes))
    } else {
        request
    };
    match gate.fault {
        Some(Fault::NoInitialize) => std::future::pending().await,
        Some(Fault::DropSession)
            if request
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .is_some_and(is_dropped) =>
        {
            return (StatusCode::NOT_FOUND, "session not found").into_response();
        }
        _ => {}
    }
    let response = crate::wire::patch_response(next.run(request).await).await;
    if gate.json {
        with_trace(response).await
    } else {
        response
    }
}

/// Listen on `addr` (127.0.0.1 only is sensible) until `ct` is cancelled.
pub async fn serve(
    addr: SocketAddr,
    options: DemoOptions,
    http: HttpOptions,
    ct: CancellationToken,
) -> std::io::Result<()> {
    let fault = options.fault;
    let legacy = options.legacy;
    let service = StreamableHttpService::new(
        move || Ok(DemoServer::new(options.clone())),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default()
            .with_cancellation_token(ct.child_token())
            .with_json_response(http.json_response),
    );
    let issued = http.oauth.then(crate::oauth::Issued::default);
    let router =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn_with_state(
                Gate {
                    token: http.token.map(Arc::from),
                    oauth: issued.clone(),
                    call_scope: http.call_scope.map(Arc::from),
                    fault,
                    legacy,
                    json: http.json_response,
                    requests_log: http.requests_log.map(Arc::new),
                },
                gate,
            ));
    let router = match issued {
        Some(issued) => router.merge(crate::oauth::routes(issued)),
        None => router,
    };
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let scheme = if http.tls_ca_out.is_some() {
        "https"
    } else {
        "http"
    };
    eprintln!("demo server: listening on {scheme}://{bound}/mcp");
    let shutdown = async move { ct.cancelled().await };
    if let Some(ca_out) = &http.tls_ca_out {
        let acceptor = crate::tls::acceptor(ca_out)?;
        if let Some(path) = http.port_file {
            std::fs::write(path, bound.to_string())?;
        }
        let tls = crate::tls::TlsListener {
            tcp: listener,
            acceptor,
        };
        return axum::serve(tls, router)
            .with_graceful_shutdown(shutdown)
            .await;
    }
    if let Some(path) = http.port_file {
        std::fs::write(path, bound.to_string())?;
    }
    // Each write goes out at once: with Nagle's algorithm on, an SSE answer
    // (the priming event, then the message: two writes) waited for the
    // client's delayed ACK — 40 ms a call on a kept-alive connection, for
    // every client (measured: 23 calls/s with wrk and with the workbench).
    use axum::serve::ListenerExt;
    let nagle = http.nagle;
    let listener = listener.tap_io(move |tcp| {
        let _ = tcp.set_nodelay(!nagle);
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}
