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

/// A new random token (32 bytes, base64url).
pub fn new_token() -> String {
    use base64::Engine;
    let mut buf = [0u8; 32];
    getrandom::fill(&mut buf).expect("the OS gives random bytes");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
}

/// Equal in time independent of where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[derive(Clone)]
struct Guard {
    token: Option<std::sync::Arc<str>>,
    port: u16,
}

fn loopback_host(host: &str, port: u16) -> bool {
    let (name, p) = match host.rsplit_once(':') {
        Some((n, p)) if !n.ends_with(']') || host.starts_with('[') => (n, p.parse::<u16>().ok()),
        _ => (host, None),
    };
    let name = if host.starts_with('[') && !host.contains("]:") {
        host
    } else {
        name
    };
    matches!(name, "127.0.0.1" | "localhost" | "[::1]") && p.is_none_or(|p| p == port)
}

async fn guard(State(g): State<Guard>, request: Request, next: Next) -> Response {
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
    let own_origin = |o: &str| {
        o.strip_prefix("http://")
            .is_some_and(|hostport| loopback_host(hostport, g.port) && hostport.contains(':'))
    };
    if let Some(origin) = request
        .headers()
        .get(header::ORIGIN)
        .filter(|o| !o.to_str().is_ok_and(own_origin))
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
    next.run(request).await
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
    let ct = stop.clone();
    let done = tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { ct.cancelled().await })
            .await;
    });
    Ok(Listening { addr, stop, done })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_on_our_port_pass() {
        assert!(loopback_host("127.0.0.1:8767", 8767));
        assert!(loopback_host("localhost:8767", 8767));
        assert!(loopback_host("localhost", 8767));
        assert!(loopback_host("[::1]:8767", 8767));
        assert!(!loopback_host("127.0.0.1:9999", 8767));
        assert!(!loopback_host("evil.example:8767", 8767));
        assert!(!loopback_host("127.0.0.1.evil.example", 8767));
        assert!(!loopback_host("", 8767));
        assert!(same(b"abc", b"abc") && !same(b"abc", b"abd") && !same(b"ab", b"abc"));
    }
}
