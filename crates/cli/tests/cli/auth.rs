//! `mcpwb auth ...` where sign-in cannot happen: each says why, naming the
//! step. (The whole flow runs against the conformance suite's authorization
//! servers and the test kit's; see tests/conformance and connect/auth.rs.)

use std::process::Command;

use serde_json::json;

use super::{BIN, demo_server, stderr, stdout};

fn run(home: &std::path::Path, cfg: &str, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(["--config", cfg, "--timeout", "5"])
        .args(args)
        .env_remove("MCPWB_CONFIG")
        .env("HOME", home)
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-cli-auth-{}", std::process::id()),
        )
        .output()
        .unwrap()
}

#[test]
fn sign_in_says_why_it_cannot_happen() {
    let dir = tempfile::tempdir().unwrap();
    let server = super::http_demo(dir.path(), &[]);
    let addr = &server.addr;
    let cfg = dir.path().join("mcp.json");
    std::fs::write(
        &cfg,
        json!({ "mcpServers": {
            "open": { "type": "http", "url": format!("http://{addr}/mcp") },
            "local": { "command": demo_server() }
        } })
        .to_string(),
    )
    .unwrap();
    let c = cfg.to_str().unwrap();
    let out = run(dir.path(), c, &["auth", "login", "open", "--no-browser"]);
    drop(server);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("discovery: the server answered 200"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("does not ask for sign-in"),
        "{}",
        stderr(&out)
    );
    let out = run(dir.path(), c, &["auth", "login", "local"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("only remote servers sign in"),
        "{}",
        stderr(&out)
    );
    let out = run(dir.path(), c, &["auth", "status", "open"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "open: signed out");
    let out = run(dir.path(), c, &["auth", "refresh", "open"]);
    assert!(
        stderr(&out).contains("is not signed in: mcpwb auth login open"),
        "{}",
        stderr(&out)
    );
}
