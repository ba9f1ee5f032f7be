//! The window's own bridge on this machine, which `mcpwb serve --attach`
//! relays a client to. Not a server of the config (so not through the
//! door): the workbench's own endpoint, and its token goes only to this
//! machine — plain http to 127.0.0.1, ::1 or localhost.

use rmcp::RoleClient;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, Transport};

/// Whether `url` is on this machine: plain http to a loopback address or
/// `localhost`.
pub fn on_this_machine(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| {
        u.scheme() == "http"
            && (matches!(u.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
                || matches!(u.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
                || u.host_str() == Some("localhost"))
    })
}

/// Why `url` may not be attached to (the token would leave the machine).
pub fn refuse(url: &str) -> Option<String> {
    (!on_this_machine(url)).then(|| format!(
        "--attach sends the bridge's token, so it goes only to this machine (http://127.0.0.1, ::1 or localhost); {url} is not"
    ))
}

/// A client transport to the bridge at `url` with its `token`; refused
/// (with the reason) when `url` is not on this machine.
pub fn transport(
    url: &str,
    token: Option<String>,
) -> Result<impl Transport<RoleClient>, crate::ErrorInfo> {
    if let Some(why) = refuse(url) {
        return Err(crate::ErrorInfo::new(crate::ErrorCode::Refused, why));
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(t) = token {
        config = config.auth_header(t);
    }
    let client = workbench_http::client().map_err(|e| {
        crate::ErrorInfo::new(
            crate::ErrorCode::Transport,
            format!("the HTTP client could not be set up: {e}"),
        )
    })?;
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_token_goes_only_to_this_machine() {
        for near in [
            "http://127.0.0.1:8767/mcp",
            "http://[::1]:8767/mcp",
            "http://localhost:8767/mcp",
        ] {
            assert!(super::refuse(near).is_none(), "{near}");
        }
        for far in [
            "https://127.0.0.1:8767/mcp",
            "http://10.0.0.2:8767/mcp",
            "http://example.com/mcp",
            "http://localhost.example.com/mcp",
        ] {
            assert!(super::transport(far, Some("t".into())).is_err(), "{far}");
        }
    }
}
