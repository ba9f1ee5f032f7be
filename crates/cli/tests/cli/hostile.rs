//! What a file from elsewhere may try through `mcpwb`, played for real:
//! nothing it names runs, and nothing it names is sent, before the person
//! trusts it (the table of attacks: `tests/hostile/README.md`).

use std::net::TcpListener;
use std::path::Path;

use serde_json::json;

use super::{demo_server, mcpwb_as_found, stderr};

/// A loopback port that records whether anyone connected.
struct Watched(TcpListener);

impl Watched {
    fn new() -> Watched {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        Watched(l)
    }
    fn url(&self) -> String {
        format!("http://{}/mcp", self.0.local_addr().unwrap())
    }
    fn reached(&self) -> bool {
        self.0.accept().is_ok()
    }
}

fn config(dir: &Path, name: &str, servers: serde_json::Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn an_untrusted_entry_does_not_sign_in_and_its_addresses_hear_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (server, token) = (Watched::new(), Watched::new());
    let project = dir.path().join("proj");
    std::fs::create_dir(&project).unwrap();
    let user = config(dir.path(), "mcp.json", json!({}));
    std::fs::write(
        project.join(".mcp.json"),
        json!({ "mcpServers": { "team": {
            "url": server.url(),
            // (Reading another entry's secret is refused by the owner rule
            // even once trusted: core's hostile tests.)
            "oauth": { "clientId": "x", "clientMetadataUrl": token.url() }
        } } })
        .to_string(),
    )
    .unwrap();
    let out = mcpwb_as_found(&[
        "--config",
        &user,
        "--project",
        &project.display().to_string(),
        "--timeout",
        "3",
        "auth",
        "login",
        "team",
        "--no-browser",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not trusted"), "{}", stderr(&out));
    assert!(!server.reached() && !token.reached(), "a request went out");
}

#[test]
fn a_file_named_with_config_runs_nothing_until_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("pwned");
    // A cloned repository's file, pointed at with --config.
    let cloned = config(
        dir.path(),
        "repo-mcp.json",
        json!({ "planted": { "command": "sh", "args": ["-c", format!("touch {}", marker.display())] } }),
    );
    let out = mcpwb_as_found(&["--config", &cloned, "--timeout", "3", "servers"]);
    assert!(
        stdout_of(&out).contains("not trusted"),
        "{}",
        stdout_of(&out)
    );
    let out = mcpwb_as_found(&[
        "--config",
        &cloned,
        "--timeout",
        "3",
        "call",
        "planted",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(!marker.exists(), "the file's command ran unasked");
    // Trusted by the person, it runs.
    let user = config(
        dir.path(),
        "mine.json",
        json!({ "demo": { "command": demo_server(), "args": ["--name", "demo"] } }),
    );
    let out = mcpwb_as_found(&["--config", &user, "config", "trust", "demo"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mcpwb_as_found(&[
        "--config",
        &user,
        "call",
        "demo",
        "echo",
        "--args",
        r#"{"message":"ok"}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `config trust --dry-run` says what it runs and its fingerprint; the
/// file changed before `config trust --shown` is not trusted.
#[test]
fn trust_as_shown_refuses_an_entry_changed_since_it_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let cfg = config(
        dir.path(),
        "shown.json",
        json!({ "demo": { "command": demo_server(), "args": ["--name", "demo"] } }),
    );
    let read = mcpwb_as_found(&[
        "--config",
        &cfg,
        "--json",
        "config",
        "trust",
        "demo",
        "--dry-run",
    ]);
    assert!(read.status.success(), "{}", stderr(&read));
    let asked: serde_json::Value = serde_json::from_slice(&read.stdout).unwrap();
    let fingerprint = asked["fingerprint"].as_str().unwrap().to_string();
    // Something else by the time the person says yes.
    config(
        dir.path(),
        "shown.json",
        json!({ "demo": { "command": "sh", "args": ["-c", format!("touch {}", marker.display())] } }),
    );
    let refused = mcpwb_as_found(&[
        "--config",
        &cfg,
        "config",
        "trust",
        "demo",
        "--shown",
        &fingerprint,
    ]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("changed since it was shown"),
        "{}",
        stderr(&refused)
    );
    let out = mcpwb_as_found(&["--config", &cfg, "--timeout", "3", "call", "demo", "x"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(!marker.exists(), "the changed entry ran");
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Found on a real config: an env value `true` masked every `true` in the
/// output, and `mcpwb --json tools` printed invalid JSON.
#[test]
fn a_short_env_value_masks_nothing_and_json_output_stays_json() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        "mcp.json",
        json!({ "demo": { "command": demo_server(), "args": ["--name", "demo"],
                          "env": { "DISABLE_THOUGHT_LOGGING": "true", "LEVEL": "debug" } } }),
    );
    let out = super::mcpwb(&["--config", &cfg, "--json", "tools", "demo"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("mcpwb --json tools prints JSON");
    let text = v.to_string();
    assert!(text.contains(r#""readOnlyHint":true"#), "{text}");
    assert!(!text.contains('•'), "nothing was a secret: {text}");
}

/// `serve --attach URL` sends the bridge's token: only to this machine
/// (played: it went to whatever URL was given). Refused before the token is
/// even read.
#[test]
fn attach_sends_the_token_only_to_this_machine() {
    for url in [
        "http://10.255.255.1:9/mcp",
        "https://example.com/mcp",
        "http://127.0.0.1.example.com/mcp",
    ] {
        let out = mcpwb_as_found(&["serve", &format!("--attach={url}")]);
        assert!(!out.status.success(), "{url}");
        assert!(
            stderr(&out).contains("only to this machine"),
            "{url}: {}",
            stderr(&out)
        );
    }
}
