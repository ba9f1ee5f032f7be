//! `mcpwb auth ...` where sign-in cannot happen: each says why, naming the
//! step. (The whole flow runs against the conformance suite's authorization
//! servers and the test kit's; see tests/conformance and connect/auth.rs.)

use std::process::Command;

use serde_json::json;

use super::{BIN, demo_server, stderr, stdout};

fn run(home: &std::path::Path, cfg: &str, args: &[&str]) -> std::process::Output {
    run_with(home, cfg, args, &[])
}

fn run_with(
    home: &std::path::Path,
    cfg: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    Command::new(BIN)
        .envs(env.iter().copied())
        .args(["--trust", "--config", cfg, "--timeout", "5"])
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
        stderr(&out).contains("discovery: the server answered initialize and tools/list (200 OK)"),
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

/// `--sign-in`: a server that asks for sign-in, then for a wider scope on
/// tools/call, is answered by signing in twice — the second time asking for
/// what was granted plus what the 403 names — and the call goes through.
/// The browser is a stand-in that follows the redirect back.
#[test]
fn sign_in_on_demand_answers_a_401_then_steps_up_on_a_403() {
    let dir = tempfile::tempdir().unwrap();
    let server = super::http_demo(dir.path(), &["--oauth", "--oauth-call-scope", "demo:write"]);
    let addr = &server.addr;
    let cfg = dir.path().join("mcp.json");
    std::fs::write(
        &cfg,
        json!({ "mcpServers": { "guarded": { "type": "http", "url": format!("http://{addr}/mcp") } } })
            .to_string(),
    )
    .unwrap();
    let browser = dir.path().join("stand-in-browser");
    std::fs::write(
        &browser,
        "#!/usr/bin/env python3
import sys, urllib.request, urllib.error
class Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k): return None
try:
    urllib.request.build_opener(Stay).open(sys.argv[1])
except urllib.error.HTTPError as e:
    urllib.request.urlopen(e.headers['Location']).read()
",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let c = cfg.to_str().unwrap();
    let b = browser.to_str().unwrap();
    let call = [
        "call",
        "guarded",
        "echo",
        "--args",
        r#"{"message":"stepped up"}"#,
    ];
    // Without --sign-in: refused, saying how to sign in.
    let out = run_with(dir.path(), c, &call, &[("BROWSER", b)]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("asks for sign-in"),
        "{}",
        stderr(&out)
    );
    let mut args = vec!["--sign-in"];
    args.extend(call);
    let out = run_with(dir.path(), c, &args, &[("BROWSER", b)]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(stdout(&out).contains("stepped up"), "{}", stdout(&out));
    assert!(err.contains("asks for sign-in"), "{err}");
    assert!(
        err.contains("the token lacks a scope (scope \"demo:write\")"),
        "{err}"
    );
    assert_eq!(
        err.matches("Open this address to sign in").count(),
        2,
        "{err}"
    );
    let out = run(dir.path(), c, &["auth", "status", "guarded"]);
    assert!(
        stdout(&out).contains("scopes: demo:read demo:write"),
        "{}",
        stdout(&out)
    );
    // Signed in with the wide grant: no more sign-ins.
    let out = run_with(dir.path(), c, &args, &[("BROWSER", b)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("Open this address"),
        "{}",
        stderr(&out)
    );
    run(dir.path(), c, &["auth", "logout", "guarded"]);
    drop(server);
}
