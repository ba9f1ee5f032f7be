//! Serving the demo server over Streamable HTTP on a loopback address, with
//! an optional bearer token and the HTTP-only faults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::demo::{DemoOptions, DemoServer};
use crate::fault::Fault;

/// Set once a tool call has been answered under `Fault::DropSession`.
pub static SESSIONS_DROPPED: AtomicBool = AtomicBool::new(false);

#[derive(Clone)]
struct Gate {
    token: Option<Arc<str>>,
    fault: Option<Fault>,
}

async fn gate(State(gate): State<Gate>, request: Request, next: Next) -> Response {
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
    match gate.fault {
        Some(Fault::NoInitialize) => std::future::pending().await,
        Some(Fault::DropSession)
            if SESSIONS_DROPPED.load(Ordering::SeqCst)
                && request.headers().contains_key("mcp-session-id") =>
        {
            return (StatusCode::NOT_FOUND, "session not found").into_response();
        }
        _ => {}
    }
    next.run(request).await
}

/// Listen on `addr` (127.0.0.1 only is sensible) until `ct` is cancelled.
/// Writes the bound address to `port_file` when given (bind port 0 in tests).
pub async fn serve(
    addr: SocketAddr,
    options: DemoOptions,
    token: Option<String>,
    port_file: Option<PathBuf>,
    ct: CancellationToken,
) -> std::io::Result<()> {
    let fault = options.fault;
    let service = StreamableHttpService::new(
        move || Ok(DemoServer::new(options.clone())),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default().with_cancellation_token(ct.child_token()),
    );
    let router =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn_with_state(
                Gate {
                    token: token.map(Arc::from),
                    fault,
                },
                gate,
            ));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    eprintln!("demo server: listening on http://{bound}/mcp");
    if let Some(path) = port_file {
        std::fs::write(path, bound.to_string())?;
    }
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { ct.cancelled().await })
        .await
}
