//! Connections to servers: transports (stdio with a byte-level tap,
//! Streamable HTTP), the MCP session on top, and the per-server supervisor
//! that owns it ([`supervisor`]).

mod client;
mod discover;
pub mod door;
mod era;
pub mod httptap;
pub mod keep;
pub mod life;
pub mod lines;
pub mod own_bridge;
pub mod resolve;
pub mod sse;
mod sselimit;
pub mod stdio;
pub mod streams;
pub mod supervisor;
mod tap;
pub mod tapio;
mod unread;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use workbench_codes::reach::Unreached;

use rmcp::service::{RunningService, RunningServiceCancellationToken};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientCacheConfig, Peer, RoleClient};
use tokio::sync::{broadcast, oneshot};

pub use client::{WorkbenchClient, client_config};
pub(crate) use supervisor::Live;
pub use supervisor::{ServerHandle, SupervisorOptions};

use crate::config::{ServerEntry, Transport, TransportKind};
use crate::events::Event;
use crate::traffic::TrafficLog;

pub use crate::status::{Failure, FailureCode, ServerInfo, ServerState, ServerStatus};

/// A live MCP session and what it runs on.
pub struct Session {
    pub peer: Peer<RoleClient>,
    pub info: ServerInfo,
    stop: Option<RunningServiceCancellationToken>,
    /// Fires with a reason when the session ends by itself.
    ended: oneshot::Receiver<String>,
    /// Fires when the transport reports it cannot send any more.
    broken: Option<tokio::sync::mpsc::UnboundedReceiver<String>>,
    child: Option<stdio::StdioChild>,
}

pub(crate) struct Context<'a> {
    pub base_dir: &'a Path,
    pub traffic: &'a TrafficLog,
    pub events: &'a broadcast::Sender<Event>,
    pub asks: Option<&'a crate::asks::Asks>,
}

fn server_info(peer: &Peer<RoleClient>, transport: TransportKind) -> ServerInfo {
    let v = peer
        .peer_info()
        .map(|i| serde_json::to_value(&*i).unwrap_or_default())
        .unwrap_or_default();
    let s = |key: &str| v["serverInfo"][key].as_str().map(str::to_string);
    ServerInfo {
        protocol_version: v["protocolVersion"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        name: s("name").unwrap_or_default(),
        title: s("title"),
        version: s("version").unwrap_or_default(),
        instructions: v["instructions"].as_str().map(str::to_string),
        capabilities: v["capabilities"].clone(),
        transport,
    }
}

/// The capabilities rmcp's types do not model (a 2025-11-25 server's
/// `tasks`, anything newer), read from the handshake's answer as it was
/// recorded.
fn add_raw_capabilities(capabilities: &mut serde_json::Value, traffic: &TrafficLog, server: &str) {
    let entries = traffic.entries(Some(server));
    let Some(answer) = entries.iter().rev().find(|e| {
        e.direction == crate::traffic::Direction::Incoming
            && e.kind == crate::traffic::MessageKind::Response
            && matches!(e.method.as_deref(), Some("initialize" | "server/discover"))
    }) else {
        return;
    };
    let Ok(mut message) = serde_json::from_str::<serde_json::Value>(&answer.body) else {
        return;
    };
    let serde_json::Value::Object(raw) = message["result"]["capabilities"].take() else {
        return;
    };
    if !capabilities.is_object() {
        *capabilities = serde_json::json!({});
    }
    for (key, value) in raw {
        if capabilities.get(&key).is_none() {
            capabilities[&key] = value;
        }
    }
}

/// Whether a handshake's error is the connection ending (the process
/// exited, or closed its output) rather than rmcp refusing what it read.
fn ended_the_handshake(e: &rmcp::service::ClientInitializeError) -> bool {
    use rmcp::service::ClientInitializeError as E;
    match e {
        E::ConnectionClosed(_) | E::TransportError { .. } => true,
        E::LegacyFallbackFailed { fallback, .. } => ended_the_handshake(fallback),
        _ => false,
    }
}

async fn start<T, E, A>(
    transport: T,
    handler: WorkbenchClient,
    kind: TransportKind,
    child: Option<stdio::StdioChild>,
    broken: Option<tokio::sync::mpsc::UnboundedReceiver<String>>,
) -> Result<Session, Failure>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut child = child;
    let mode = era::lifecycle(handler.protocol);
    let (handler_traffic, handler_server) = (handler.traffic.clone(), handler.server.clone());
    let service: RunningService<RoleClient, WorkbenchClient> =
        match rmcp::serve_client_with_lifecycle(handler, transport, mode).await {
            Ok(service) => service,
            Err(e) => {
                let mut failure = Failure {
                    modern_only: era::refused_as_legacy(&e),
                    ..Failure::new(
                        FailureCode::Handshake,
                        format!("the MCP handshake failed: {}", error_chain(&e)),
                    )
                };
                // Say how the process ended, if it did: that is what the user
                // can act on. When its output ended (or a write to it failed)
                // the exit is the cause; otherwise rmcp gave up on what the
                // server said, and the server then ended when its input closed:
                // the handshake's error is the cause, the exit beside it.
                if let Some(c) = child.as_mut()
                    && let Ok(exit) =
                        tokio::time::timeout(Duration::from_millis(300), c.wait()).await
                {
                    failure = if ended_the_handshake(&e) {
                        Failure::new(
                            FailureCode::Exited,
                            format!("the server {} during the handshake", exit.description),
                        )
                    } else {
                        Failure {
                            reason: format!(
                                "the MCP handshake failed: {} (the server then {})",
                                error_chain(&e),
                                exit.description
                            ),
                            ..failure
                        }
                    };
                }
                if let Some(c) = child {
                    c.shutdown(Duration::from_millis(200)).await;
                }
                return Err(failure);
            }
        };
    let peer = service.peer().clone();
    // A debugging tool shows what the server says now, never a cached answer.
    peer.set_response_cache_config(ClientCacheConfig::disabled())
        .await;
    let mut info = server_info(&peer, kind);
    add_raw_capabilities(&mut info.capabilities, &handler_traffic, &handler_server);
    let stop = service.cancellation_token();
    let (tx, ended) = oneshot::channel();
    tokio::spawn(async move {
        let why = match service.waiting().await {
            Ok(rmcp::service::QuitReason::Cancelled) => "closed by the workbench".to_string(),
            Ok(_) => "the connection closed".to_string(),
            Err(e) => format!("the session task failed: {e}"),
        };
        let _ = tx.send(why);
    });
    Ok(Session {
        peer,
        info,
        stop: Some(stop),
        ended,
        broken,
        child,
    })
}

pub use crate::error::{error_chain, plain_error};

pub use crate::config::DEFAULT_MAX_MESSAGE;

/// Whether `url`'s host is this machine.
fn is_loopback(url: &reqwest::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Credentials in clear text over the network: refused unless the entry
/// says `"allowInsecure": true` (loopback is this machine: allowed).
fn check_insecure(
    entry: &ServerEntry,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<(), String> {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return Ok(());
    };
    let credential = headers.keys().any(|k| {
        k.eq_ignore_ascii_case("authorization") || k.eq_ignore_ascii_case("proxy-authorization")
    });
    if parsed.scheme() == "http" && credential && !is_loopback(&parsed) && !entry.allow_insecure {
        return Err(format!(
            "refusing to send the Authorization header over plain http to {}: anyone on the \
             way could read it. Use https, or set \"allowInsecure\": true in the entry",
            parsed.host_str().unwrap_or("the server")
        ));
    }
    Ok(())
}

/// Redirects are followed only on the same origin and only when they keep
/// the method and body (307, 308): the entry's headers (its credentials)
/// never go to another origin.
fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        let keeps = matches!(attempt.status().as_u16(), 307 | 308);
        if !same {
            let to = attempt.url().origin().ascii_serialization();
            attempt.error(format!("the server redirected to another origin ({to}); not followed, so the entry's headers stay with the server they were meant for"))
        } else if !keeps || attempt.previous().len() >= 5 {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

/// The client for an entry's remote server: its headers on every request,
/// sent only where they were meant to go (see [`check_insecure`] and
/// [`redirect_policy`]).
fn http_client(
    entry: &ServerEntry,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<reqwest::Client, String> {
    check_insecure(entry, url, headers)?;
    let mut map = http::HeaderMap::new();
    for (k, v) in headers {
        let name = http::HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| format!("header name \"{k}\" is not valid"))?;
        let value = http::HeaderValue::from_str(v)
            .map_err(|_| format!("the value of header \"{k}\" is not valid"))?;
        map.insert(name, value);
    }
    workbench_http::builder()
        .default_headers(map)
        .redirect(redirect_policy())
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}

async fn connect_streamable(
    entry: &ServerEntry,
    url: &str,
    client: reqwest::Client,
    handler: WorkbenchClient,
    cx: &Context<'_>,
    dpop: Option<Arc<crate::auth::dpop::Binding>>,
) -> Result<Session, Failure> {
    let (broken_tx, broken_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.max_sse_event_size = entry.max_message();
    config.max_json_response_size = entry.max_message();
    let failure = std::sync::Arc::new(std::sync::Mutex::new(None));
    let client = httptap::TapClient {
        http: client,
        server: entry.name.as_str().into(),
        traffic: cx.traffic.clone(),
        max_body: entry.max_message(),
        failure: failure.clone(),
        kept: keep::Kept::default(),
        dpop,
        standing: httptap::Standing::default(),
    };
    let kept = client.kept.clone();
    let standing = client.standing.clone();
    let transport = discover::DiscoverGuard::new(
        tap::BreakWatch {
            inner: keep::KeepRaw {
                inner: StreamableHttpClientTransport::with_client(client, config),
                kept,
            },
            broken: broken_tx,
        },
        &entry.name,
        cx.traffic,
    );
    let result = start(
        transport,
        handler,
        TransportKind::StreamableHttp,
        None,
        Some(broken_rx),
    )
    .await;
    // The session's standing stream open before the session is used: a
    // server's message on it is lost before then (`httptap::Standing`).
    // 2026-07-28 has no sessions, nor their GET stream (a server may still
    // name a session: the conformance suite's do, and no GET came).
    let sessions = result.as_ref().is_ok_and(|s| {
        *s.info.protocol_version < *rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
    });
    if sessions && !standing.opened(STANDING_WAIT).await {
        cx.traffic.record_note(
            &entry.name,
            &format!(
                "the server had not answered the session's GET stream {} s after the handshake: what it sends on that stream before it opens is lost",
                STANDING_WAIT.as_secs()
            ),
        );
    }
    let detail = failure.lock().unwrap_or_else(|p| p.into_inner()).take();
    match (result, detail) {
        (Err(f), Some(detail)) => Err(Failure::new(
            f.code,
            format!("the MCP handshake failed: {detail}"),
        )),
        (result, _) => result,
    }
}

/// How long a new session waits for its standing stream to open.
const STANDING_WAIT: Duration = Duration::from_secs(2);

async fn connect_sse(
    entry: &ServerEntry,
    url: &str,
    client: reqwest::Client,
    handler: WorkbenchClient,
    cx: &Context<'_>,
) -> Result<Session, Failure> {
    let (broken_tx, broken_rx) = tokio::sync::mpsc::unbounded_channel();
    let transport =
        sse::SseTransport::connect(url, client, entry, cx.traffic.clone(), broken_tx).await?;
    let transport = discover::DiscoverGuard::new(transport, &entry.name, cx.traffic);
    start(
        transport,
        handler,
        TransportKind::Sse,
        None,
        Some(broken_rx),
    )
    .await
}

/// Open a session to an entry let through the door (no timeout here: the
/// supervisor bounds it).
///
/// The era trap: under `auto`, rmcp waits 10 s for the `server/discover`
/// probe, then sends `initialize` on the same connection. A server that
/// speaks 2026-07-28 only and is slow to start the first time (uvx or npx
/// fetching it) answers the probe late and refuses `initialize` (-32022,
/// naming the versions it speaks). It is then started again, asked
/// `server/discover` alone, and the traffic log says why.
pub(crate) async fn connect(
    admitted: &door::Admitted,
    cx: Context<'_>,
) -> Result<Session, Failure> {
    let entry = admitted.entry();
    match connect_as(admitted, &cx, entry.protocol).await {
        Err(f) => match era::again(entry.protocol, &f) {
            Some((pin, why)) => {
                cx.traffic.record_note(&entry.name, why);
                connect_as(admitted, &cx, pin).await
            }
            None => Err(f),
        },
        session => session,
    }
}

/// [`connect`] speaking the era `protocol` says.
async fn connect_as(
    admitted: &door::Admitted,
    cx: &Context<'_>,
    protocol: crate::config::ProtocolPin,
) -> Result<Session, Failure> {
    let entry = admitted.entry();
    let dpop = admitted.dpop();
    let handler = WorkbenchClient {
        server: entry.name.clone(),
        events: cx.events.clone(),
        asks: cx.asks.cloned(),
        protocol,
        traffic: cx.traffic.clone(),
    };
    match &entry.transport {
        Transport::Stdio { .. } => {
            let (child, pipes) = admitted
                .spawn(&entry.name, cx.base_dir, cx.traffic)
                .unwrap_or_else(|| Err("not a stdio entry".into()))
                .map_err(|e| Failure::new(FailureCode::Spawn, e))?;
            // The tap bounds a line (the entry's maxMessageSize).
            let transport = discover::DiscoverGuard::new(
                lines::Lines::new(pipes.read, pipes.write, lines::KeepCallResults::default()),
                &entry.name,
                cx.traffic,
            );
            start(transport, handler, TransportKind::Stdio, Some(child), None).await
        }
        Transport::StreamableHttp { url, headers } => {
            let result = connect_streamable(
                entry,
                url,
                http_client(entry, url, headers)?,
                handler,
                cx,
                dpop,
            )
            .await;
            explain_unreachable(url, result).await
        }
        Transport::Sse { url, headers } => {
            let result =
                connect_sse(entry, url, http_client(entry, url, headers)?, handler, cx).await;
            explain_unreachable(url, result).await
        }
        Transport::RemoteAuto { url, headers } => {
            // No "type": Streamable HTTP first, then the legacy SSE transport.
            let client = http_client(entry, url, headers)?;
            let result =
                match connect_streamable(entry, url, client.clone(), handler.clone(), cx, dpop)
                    .await
                {
                    Ok(session) => Ok(session),
                    // It spoke MCP over Streamable HTTP: not an SSE server.
                    Err(http_error) if http_error.modern_only => Err(http_error),
                    Err(http_error) => match connect_sse(entry, url, client, handler, cx).await {
                        Ok(session) => Ok(session),
                        Err(sse_error) => Err(Failure::new(
                            http_error.code,
                            format!(
                                "neither transport worked. Streamable HTTP: {}. SSE: {}",
                                http_error.reason, sse_error.reason
                            ),
                        )),
                    },
                };
            explain_unreachable(url, result).await
        }
    }
}

/// When a remote handshake fails, say first whether anything listens at
/// all: "connection refused", or a name that does not resolve, is what a
/// person can act on, and rmcp's text ("error sending request") leaves it out.
async fn explain_unreachable(
    url: &str,
    result: Result<Session, Failure>,
) -> Result<Session, Failure> {
    let Err(failure) = result else { return result };
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return Err(failure);
    };
    let (Some(host), Some(port)) = (parsed.host_str(), parsed.port_or_known_default()) else {
        return Err(failure);
    };
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    match tokio::time::timeout(
        Duration::from_secs(3),
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    {
        Ok(Ok(_)) => Err(failure),
        Ok(Err(e)) => Err(Failure::new(
            FailureCode::Unreachable,
            Unreached::of(&e).said(&host, port).unwrap_or_else(|| {
                format!("cannot connect to {host}:{port} ({e}): is the server running?")
            }),
        )),
        Err(_) => Err(Failure::new(
            FailureCode::Unreachable,
            Unreached::TimedOut.said(&host, port).unwrap_or_default(),
        )),
    }
}

impl Session {
    /// Resolves when the session ends by itself (crash, EOF, HTTP session gone).
    pub async fn ended(&mut self) -> String {
        let broken = async {
            match self.broken.as_mut() {
                Some(rx) => match rx.recv().await {
                    Some(why) => why,
                    None => std::future::pending().await,
                },
                None => std::future::pending().await,
            }
        };
        let why = tokio::select! {
            why = &mut self.ended => why.unwrap_or_else(|_| "the connection closed".to_string()),
            why = broken => return format!("the connection broke: {why}"),
        };
        match &mut self.child {
            Some(child) => {
                let exit = tokio::time::timeout(Duration::from_millis(500), child.wait()).await;
                match exit {
                    Ok(exit) => format!("the server {}", exit.description),
                    Err(_) => why,
                }
            }
            None => why,
        }
    }

    /// End the session and everything it started, within about 3 × `grace`.
    pub async fn shutdown(mut self, grace: Duration) {
        if let Some(stop) = self.stop.take() {
            stop.cancel();
        }
        if let Some(child) = self.child.take() {
            child.shutdown(grace).await;
        }
    }

    /// The process group of a stdio server.
    pub fn pgid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.pgid)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_error_drops_rust_type_names() {
        let raw = "Transport send error: Transport [a::b::Tapped<c::D<e::F>>] error: Session expired (HTTP 404)";
        assert_eq!(super::plain_error(raw), "Session expired (HTTP 404)");
    }

    #[test]
    fn error_chain_includes_each_new_cause_once() {
        #[derive(Debug)]
        struct E(&'static str, Option<Box<E>>);
        impl std::fmt::Display for E {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0)
            }
        }
        impl std::error::Error for E {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                self.1.as_deref().map(|e| e as _)
            }
        }
        let inner = E("Connection refused (os error 111)", None);
        let e = E(
            "error sending request",
            Some(Box::new(E("sending request", Some(Box::new(inner))))),
        );
        assert_eq!(
            super::error_chain(&e),
            "error sending request: Connection refused (os error 111)"
        );
    }
}
