//! The bridge over Streamable HTTP, on 127.0.0.1 only. Every request must
//! carry the install's bearer token (unless it was turned off for a test
//! client, loopback still), name a loopback `Host` (DNS rebinding: a page
//! on some.site resolved to 127.0.0.1 sends `Host: some.site`) and carry no
//! `Origin` (browsers send one; no CORS is offered either). Refusals say why.

use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

use crate::Bridge;

/// Put the kept upstream answers in their placeholders' place.
async fn relay_answers(
    axum::extract::State(relay): axum::extract::State<crate::relay::Relay>,
    request: axum::extract::Request,
    next: Next,
) -> Response {
    relay.patch_response(next.run(request).await).await
}

pub use workbench_loopback::new_token;
use workbench_loopback::{loopback_host, own_origin, same};

#[derive(Clone)]
struct Guard {
    token: Option<std::sync::Arc<str>>,
    port: u16,
}

async fn guard(State(g): State<Guard>, request: Request, next: Next) -> Response {
    // A runtime of its own waits for the next message awake; a call's
    // request and answer are one flight (a standing GET stream is none).
    let flight = if request.method() == axum::http::Method::POST {
        Some(workbench_awake::flight())
    } else {
        workbench_awake::passed();
        None
    };
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !loopback_host(host, g.port) {
        return (
            StatusCode::FORBIDDEN,
            format!(
                "the bridge answers only to a loopback Host (127.0.0.1:{}), not \"{host}\"",
                g.port
            ),
        )
            .into_response();
    }
    // A page's origin: only the bridge's own (it serves no pages, so no
    // script can have it); any other web page is refused.
    if let Some(origin) = request
        .headers()
        .get(header::ORIGIN)
        .filter(|o| !o.to_str().is_ok_and(|o| own_origin(o, g.port)))
    {
        return (
            StatusCode::FORBIDDEN,
            format!(
                "the bridge does not answer web pages (Origin: {})",
                origin.to_str().unwrap_or("?")
            ),
        )
            .into_response();
    }
    if let Some(token) = &g.token {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !same(given.as_bytes(), token.as_bytes()) {
            let why = if given.is_empty() {
                "the bridge needs its token: Authorization: Bearer TOKEN (the Bridge panel or `mcpwb serve --http` shows it)"
            } else {
                "wrong token for the bridge"
            };
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer realm=\"mcp-workbench\"")],
                why,
            )
                .into_response();
        }
    }
    let response = next.run(request).await;
    match flight {
        None => response,
        // The flight ends with the answer's last byte.
        Some(flight) => {
            use futures::StreamExt;
            let (parts, body) = response.into_parts();
            let body = body.into_data_stream().map(move |chunk| {
                let _flying = &flight;
                chunk
            });
            Response::from_parts(parts, axum::body::Body::from_stream(body))
        }
    }
}

/// A running listener.
pub struct Listening {
    pub addr: SocketAddr,
    pub stop: CancellationToken,
    pub done: tokio::task::JoinHandle<()>,
}

impl Listening {
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

/// Listen on 127.0.0.1:`port` (0: any free port) until `stop`.
pub async fn serve(bridge: Bridge, port: u16, token: Option<String>) -> std::io::Result<Listening> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    let stop = CancellationToken::new();
    // Answers relayed as the upstream servers sent them (`relay.rs`).
    let relay = crate::relay::Relay::default();
    let relaying = relay.clone();
    let service = StreamableHttpService::new(
        move || {
            let mut handler = bridge.handler("http");
            handler.relay = Some(relaying.clone());
            Ok(handler)
        },
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default()
            .with_cancellation_token(stop.child_token())
            .with_allowed_hosts([
                format!("127.0.0.1:{}", addr.port()),
                format!("localhost:{}", addr.port()),
                "127.0.0.1".to_string(),
                "localhost".to_string(),
            ]),
    );
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn_with_state(relay, relay_answers))
        .layer(middleware::from_fn_with_state(
            Guard {
                token: token.map(Into::into),
                port: addr.port(),
            },
            guard,
        ));
    // Each write goes out at once (as the tap's listener does): with Nagle's
    // algorithm on, an answer sent over SSE (a priming event, then the
    // message) waited for the client's delayed ACK, 40 ms a call on a
    // kept-alive connection.
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    // `mcpwb serve --http` (a runtime of its own) waits for the next
    // message awake while messages pass; the app's runtime sleeps.
    workbench_awake::keep_runtime_awake();
    let ct = stop.clone();
    let done = tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { ct.cancelled().await })
            .await;
    });
    Ok(Listening { addr, stop, done })
}
