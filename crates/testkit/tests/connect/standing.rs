//! A session's standing stream (the GET a 2025-11-25 client opens after the
//! handshake) is open before the session is used: a server that sends a
//! request on it during the first call must find it there. Played with a
//! server that takes its time to open the GET, as it does behind a tap.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use workbench_core::CallOptions;
use workbench_core::testing::RawCalls;

use super::hostile::serve;
use super::*;

/// What the server saw: whether its GET stream is open.
#[derive(Default)]
struct Seen {
    open: bool,
}

fn answer(id: &Value, result: Value, session: bool) -> Response {
    let body = json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string();
    let mut r = Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "application/json");
    if session {
        r = r.header("mcp-session-id", "standing-1");
    }
    r.body(Body::from(body)).unwrap()
}

/// A 2025-11-25 server with one tool whose GET stream opens `slow` after it
/// is asked for.
fn slow_get_server(seen: Arc<Mutex<Seen>>, slow: Duration) -> axum::Router {
    axum::Router::new().route(
        "/mcp",
        axum::routing::any(move |method: Method, body: axum::body::Bytes| {
            let seen = seen.clone();
            async move {
                if method == Method::GET {
                    tokio::time::sleep(slow).await;
                    seen.lock().unwrap().open = true;
                    return Response::builder()
                        .status(StatusCode::OK)
                        .header("content-type", "text/event-stream")
                        .body(Body::from_stream(futures::stream::pending::<
                            Result<axum::body::Bytes, std::io::Error>,
                        >()))
                        .unwrap();
                }
                if method == Method::DELETE {
                    return StatusCode::OK.into_response();
                }
                let message: Value = serde_json::from_slice(&body).unwrap_or_default();
                let id = &message["id"];
                match message["method"].as_str().unwrap_or_default() {
                    "initialize" => answer(
                        id,
                        json!({
                            "protocolVersion": "2025-11-25",
                            "capabilities": { "tools": {} },
                            "serverInfo": { "name": "slow-get", "version": "1" }
                        }),
                        true,
                    ),
                    "tools/list" => answer(
                        id,
                        json!({ "tools": [{ "name": "echo", "inputSchema": { "type": "object" } }] }),
                        false,
                    ),
                    "tools/call" => {
                        let open = seen.lock().unwrap().open;
                        answer(
                            id,
                            json!({ "content": [{ "type": "text", "text": format!("stream open: {open}") }] }),
                            false,
                        )
                    }
                    _ if id.is_null() => StatusCode::ACCEPTED.into_response(),
                    _ => answer(id, json!({}), false),
                }
            }
        }),
    )
}

/// The server as an entry `name` of a workbench, ready, and its first
/// call's answer (what the server saw of its GET stream when it came).
async fn first_call(name: &str, slow: Duration) -> (Workbench, tempfile::TempDir, String) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (addr, stop) = serve(slow_get_server(seen.clone(), slow)).await;
    let (wb, dir) = start(&[(
        name.to_string(),
        json!({ "type": "http", "url": format!("http://{addr}/mcp") }),
    )])
    .await;
    ready(&wb, name).await;
    let out = wb
        .call_tool(name, "echo", json!({}), CallOptions::default())
        .await
        .expect("the call is answered");
    drop(stop);
    let said = out.result["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    (wb, dir, said.to_string())
}

#[tokio::test]
async fn the_first_call_waits_for_the_sessions_get_stream_to_open() {
    let (wb, _dir, said) = first_call("slow", Duration::from_millis(600)).await;
    assert_eq!(
        said, "stream open: true",
        "the call reached the server before its GET stream was open"
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn a_get_stream_that_never_opens_holds_the_session_up_only_so_long() {
    let started = std::time::Instant::now();
    let (wb, _dir, said) = first_call("stuck", Duration::from_secs(3600)).await;
    assert_eq!(said, "stream open: false");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "held up {:?}",
        started.elapsed()
    );
    let notes = wb.traffic().last_notes("stuck", 10).join("\n");
    assert!(notes.contains("GET stream"), "{notes}");
    wb.shutdown().await;
}
