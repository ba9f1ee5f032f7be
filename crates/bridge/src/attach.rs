//! `mcpwb serve --attach`: a client that launches `mcpwb serve` over stdio
//! is relayed to the running app's bridge instead of a second set of server
//! processes: each message from stdin goes to the bridge over Streamable
//! HTTP (with the token), each message from the bridge to stdout.

use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, Transport};
use rmcp::{RoleClient, RoleServer};

/// Relay stdin/stdout to the bridge at `url` until either side ends.
/// Whether `url` is the bridge on this machine: plain http to 127.0.0.1,
/// ::1 or localhost (the token goes nowhere else).
pub fn on_this_machine(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| {
        u.scheme() == "http"
            && matches!(
                u.host(),
                Some(url::Host::Ipv4(ip)) if ip.is_loopback()
            )
            || matches!(u.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
            || u.host_str() == Some("localhost")
    })
}

/// Why `url` may not be attached to (the token would leave the machine).
pub fn refuse(url: &str) -> Option<String> {
    (!on_this_machine(url)).then(|| format!(
        "--attach sends the bridge's token, so it goes only to this machine (http://127.0.0.1, ::1 or localhost); {url} is not"
    ))
}

pub async fn relay(url: &str, token: Option<String>) -> Result<(), String> {
    if let Some(why) = refuse(url) {
        return Err(why);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(t) = token {
        config = config.auth_header(t);
    }
    let mut upstream = StreamableHttpClientTransport::from_config(config);
    let mut local = rmcp::transport::async_rw::AsyncRwTransport::<RoleServer, _, _>::new_server(
        tokio::io::stdin(),
        tokio::io::stdout(),
    );
    loop {
        tokio::select! {
            m = Transport::<RoleServer>::receive(&mut local) => match m {
                Some(m) => Transport::<RoleClient>::send(&mut upstream, m)
                    .await
                    .map_err(|e| format!(
                        "cannot reach the bridge at {url}: {} (is the window's bridge on? Bridge → On; or give its address with --attach=URL)",
                        workbench_core::connect::error_chain(&e)
                    ))?,
                None => return Ok(()),
            },
            m = Transport::<RoleClient>::receive(&mut upstream) => match m {
                Some(m) => Transport::<RoleServer>::send(&mut local, m)
                    .await
                    .map_err(|e| format!("stdout: {e}"))?,
                None => return Err(format!("the bridge at {url} closed the connection")),
            },
        }
    }
}
