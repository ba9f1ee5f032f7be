//! What every listener of the workbench checks before it answers (the
//! bridge's `/mcp`, the HTTP tap): it listens on 127.0.0.1 only, answers
//! only a loopback `Host` on its own port (DNS rebinding: a page on
//! some.site resolved to 127.0.0.1 sends `Host: some.site`), refuses web
//! pages of other origins, and wants a random token compared in constant
//! time.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// A new random token (32 bytes, base64url).
pub fn new_token() -> String {
    use base64::Engine;
    let mut buf = [0u8; 32];
    getrandom::fill(&mut buf).expect("the OS gives random bytes");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
}

/// Equal, in a time independent of where they differ.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `host` (a `Host` header) names the loopback interface, on `port` when it
/// names a port at all.
pub fn loopback_host(host: &str, port: u16) -> bool {
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

/// `origin` (an `Origin` header) is a page served from the loopback
/// interface on `port` (the listener's own: it serves no pages, so no script
/// can have it).
pub fn own_origin(origin: &str, port: u16) -> bool {
    origin
        .strip_prefix("http://")
        .is_some_and(|hostport| loopback_host(hostport, port) && hostport.contains(':'))
}

/// `origin` is a page served from this machine (any port): a local tool's
/// web UI, not a site on the internet.
pub fn local_origin(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let port = rest
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse::<u16>().ok())
        .unwrap_or(80);
    loopback_host(rest, port)
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
        assert!(own_origin("http://127.0.0.1:8767", 8767));
        assert!(!own_origin("http://127.0.0.1:80", 8767));
        assert!(local_origin("http://localhost:6274"));
        assert!(local_origin("http://127.0.0.1"));
        assert!(!local_origin("http://localhost.evil.example:6274"));
        assert!(!local_origin("https://evil.example"));
        assert!(!local_origin("null"));
        assert_ne!(new_token(), new_token());
    }
}
