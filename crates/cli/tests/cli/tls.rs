//! `mcpwb` and a server over HTTPS: connected when the server's CA is
//! trusted (`SSL_CERT_FILE`), and one line saying why not otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use super::{BIN, HttpDemo, http_demo, stderr, stdout};

/// The demo server over HTTPS on a free loopback port, with its own CA.
struct TlsDemo {
    _demo: HttpDemo,
    url: String,
    ca: PathBuf,
}

fn tls_demo(dir: &Path) -> TlsDemo {
    let ca = dir.join("ca.pem");
    let demo = http_demo(dir, &["--tls-ca-out", ca.to_str().unwrap()]);
    TlsDemo {
        url: format!("https://{}/mcp", demo.addr),
        _demo: demo,
        ca,
    }
}

#[test]
fn https_servers_connect_when_their_ca_is_trusted_and_say_why_not_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let server = tls_demo(dir.path());
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        json!({ "mcpServers": { "secure": { "type": "http", "url": server.url } } }).to_string(),
    )
    .unwrap();
    let call = |trust: bool| {
        let mut cmd = Command::new(BIN);
        cmd.args([
            "--trust",
            "--config",
            config.to_str().unwrap(),
            "call",
            "secure",
            "echo",
        ])
        .args(["--args", r#"{"message":"over tls"}"#])
        .env_remove("MCPWB_CONFIG")
        .env_remove("SSL_CERT_DIR")
        .env("HOME", dir.path());
        if trust {
            cmd.env("SSL_CERT_FILE", &server.ca);
        } else {
            cmd.env_remove("SSL_CERT_FILE");
        }
        cmd.output().unwrap()
    };
    let trusted = call(true);
    assert_eq!(trusted.status.code(), Some(0), "{}", stderr(&trusted));
    assert!(stdout(&trusted).contains("over tls"));

    let untrusted = call(false);
    assert_eq!(untrusted.status.code(), Some(4), "{}", stdout(&untrusted));
    let err = stderr(&untrusted);
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(err.contains("certificate"), "{err}");
    assert!(err.contains("SSL_CERT_FILE"), "{err}");
}
