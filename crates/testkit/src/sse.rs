//! The demo server over the legacy HTTP+SSE transport (2024-11-05): `GET /sse`
//! opens an event stream whose first event names the endpoint to POST to.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio_util::sync::CancellationToken;

use crate::demo::{DemoOptions, DemoServer};

type Sessions = Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<DuplexStream>>>>>;

#[derive(Clone)]
struct App {
    options: DemoOptions,
    sessions: Sessions,
    next: Arc<std::sync::atomic::AtomicU64>,
}

async fn open_stream(State(app): State<App>) -> Response {
    let id = format!(
        "s{}",
        app.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    );
    let (rmcp_read, to_rmcp) = tokio::io::duplex(1 << 20);
    let (from_rmcp, rmcp_write) = tokio::io::duplex(1 << 20);
    app.sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id.clone(), Arc::new(tokio::sync::Mutex::new(to_rmcp)));
    let server = DemoServer::new(app.options.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve((rmcp_read, rmcp_write)).await {
            let _ = running.waiting().await;
        }
    });
    let first = Event::default()
        .event("endpoint")
        .data(format!("/messages?sessionId={id}"));
    let lines = BufReader::new(from_rmcp).lines();
    let messages = futures::stream::unfold(lines, |mut lines| async move {
        match lines.next_line().await {
            Ok(Some(line)) => Some((
                Ok::<_, Infallible>(Event::default().event("message").data(line)),
                lines,
            )),
            _ => None,
        }
    });
    let stream =
        futures::StreamExt::chain(futures::stream::once(async move { Ok(first) }), messages);
    Sse::new(stream).into_response()
}

async fn post_message(
    State(app): State<App>,
    Query(q): Query<HashMap<String, String>>,
    body: String,
) -> Response {
    let Some(id) = q.get("sessionId") else {
        return (StatusCode::BAD_REQUEST, "sessionId is required").into_response();
    };
    let pipe = app
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(id)
        .cloned();
    let Some(pipe) = pipe else {
        return (StatusCode::NOT_FOUND, "no such session").into_response();
    };
    let mut pipe = pipe.lock().await;
    let line = body.replace('\n', " ");
    if pipe
        .write_all(format!("{line}\n").as_bytes())
        .await
        .is_err()
    {
        return (StatusCode::GONE, "session closed").into_response();
    }
    StatusCode::ACCEPTED.into_response()
}

/// Listen on `addr` until `ct` is cancelled.
pub async fn serve(
    addr: SocketAddr,
    options: DemoOptions,
    port_file: Option<PathBuf>,
    ct: CancellationToken,
) -> std::io::Result<()> {
    let app = App {
        options,
        sessions: Sessions::default(),
        next: Arc::default(),
    };
    let router = axum::Router::new()
        .route("/sse", get(open_stream))
        .route("/messages", post(post_message))
        .with_state(app);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    eprintln!("demo server: SSE on http://{bound}/sse");
    if let Some(path) = port_file {
        std::fs::write(path, bound.to_string())?;
    }
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { ct.cancelled().await })
        .await
}
