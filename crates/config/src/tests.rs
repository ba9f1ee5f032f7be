use std::path::Path;

use super::*;
use crate::error::{Error, ErrorCode};

/// Run `f(0..n)` on `n` threads released at once (writers racing for one
/// file); what each returned, in order.
pub(crate) fn at_once<T: Send + 'static>(
    n: usize,
    f: impl Fn(usize) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let start = std::sync::Arc::new(std::sync::Barrier::new(n));
    let f = std::sync::Arc::new(f);
    let threads: Vec<_> = (0..n)
        .map(|i| {
            let (start, f) = (start.clone(), f.clone());
            std::thread::spawn(move || {
                start.wait();
                f(i)
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

fn parse(text: &str) -> Result<ConfigFile> {
    ConfigFile::parse(Path::new("/tmp/mcp.json"), text)
}

#[test]
fn reads_stdio_and_remote_entries_in_file_order() {
    let cfg = parse(
        r#"{
          // comments are allowed, as in VS Code
          "mcpServers": {
            "zeta": { "command": "npx", "args": ["-y", "@scope/server", "a b"], "env": {"TOKEN": "x"} },
            "alpha": { "type": "http", "url": "http://127.0.0.1:3000/mcp", "headers": {"Authorization": "Bearer s"} },
            "legacy": { "type": "sse", "url": "https://example.com/sse", "disabled": true },
            "auto": { "url": "https://example.com/mcp" },
          }
        }"#,
    )
    .expect("parses");
    let names: Vec<_> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["zeta", "alpha", "legacy", "auto"]);
    let s = cfg.summaries();
    assert_eq!(s[0].transport, TransportKind::Stdio);
    assert_eq!(s[0].target, "npx -y @scope/server 'a b'");
    assert_eq!(s[1].transport, TransportKind::StreamableHttp);
    assert_eq!(s[2].transport, TransportKind::Sse);
    assert!(s[2].disabled);
    assert_eq!(s[3].transport, TransportKind::RemoteAuto);
    assert!(cfg.problems.is_empty());
}

#[test]
fn transport_spellings_of_other_clients_are_understood() {
    for spelling in [
        "http",
        "streamable-http",
        "streamableHttp",
        "streamable_http",
    ] {
        let cfg = parse(&format!(
            r#"{{"mcpServers": {{"s": {{"type": "{spelling}", "url": "http://h/mcp"}}}}}}"#
        ))
        .unwrap();
        assert_eq!(
            cfg.servers[0].transport.kind(),
            TransportKind::StreamableHttp,
            "{spelling}"
        );
    }
    let windsurf = parse(r#"{"mcpServers": {"w": {"serverUrl": "https://h/mcp"}}}"#).unwrap();
    assert_eq!(
        windsurf.servers[0].transport.kind(),
        TransportKind::RemoteAuto
    );
    let vscode = parse(r#"{"servers": {"v": {"type": "stdio", "command": "x"}}}"#).unwrap();
    assert_eq!(vscode.servers[0].name, "v");
}

#[test]
fn syntax_error_reports_line_and_column() {
    let err = parse("{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" \n  }\n").unwrap_err();
    match &err {
        Error::ConfigSyntax { line, column, .. } => {
            assert!(*line >= 3, "line {line}");
            assert!(*column >= 1);
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
    assert_eq!(err.code(), ErrorCode::ConfigSyntax);
    assert!(err.to_string().starts_with("/tmp/mcp.json:"), "{err}");
}

#[test]
fn a_bad_entry_is_reported_at_its_key_and_the_others_still_load() {
    let cfg = parse(
        r#"{"mcpServers": {
            "ok": {"command": "srv"},
            "no-cmd": {"type": "stdio"},
            "bad-url": {"type": "http", "url": "ftp://x"},
            "bad-env": {"command": "x", "env": {"A": ["not", "a", "string"]}},
            "bad/type": {"type": "carrier-pigeon", "url": "http://x"}
        }}"#,
    )
    .unwrap();
    assert_eq!(cfg.servers.len(), 1);
    let pointers: Vec<_> = cfg.problems.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/mcpServers/no-cmd/command",
            "/mcpServers/bad-url/url",
            "/mcpServers/bad-env/env/A",
            "/mcpServers/bad~1type/type"
        ]
    );
    assert!(cfg.problems[3].message.contains("carrier-pigeon"));
}

#[test]
fn a_file_without_servers_or_not_an_object_is_invalid() {
    assert_eq!(parse("[]").unwrap_err().code(), ErrorCode::ConfigInvalid);
    assert_eq!(parse("{}").unwrap_err().code(), ErrorCode::ConfigInvalid);
    assert_eq!(parse("   ").unwrap_err().code(), ErrorCode::ConfigSyntax);
    assert_eq!(
        parse(r#"{"mcpServers": []}"#).unwrap_err().code(),
        ErrorCode::ConfigInvalid
    );
}

#[test]
fn load_distinguishes_missing_from_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let missing = ConfigFile::load(&dir.path().join("nope.json")).unwrap_err();
    assert_eq!(missing.code(), ErrorCode::ConfigNotFound);
    let as_dir = ConfigFile::load(dir.path()).unwrap_err();
    assert_eq!(as_dir.code(), ErrorCode::ConfigUnreadable);
}

#[test]
fn the_example_config_in_the_repository_loads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mcp.example.json");
    let cfg = ConfigFile::load(&path).expect("mcp.example.json must load");
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    let kinds: Vec<_> = cfg.servers.iter().map(|s| s.transport.kind()).collect();
    assert!(kinds.contains(&TransportKind::Stdio));
    assert!(kinds.contains(&TransportKind::StreamableHttp));
}

#[test]
fn target_never_shows_env_or_header_values() {
    let cfg = parse(
        r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "supersecret"}},
                            "b": {"url": "http://h", "headers": {"Authorization": "Bearer supersecret"}}}}"#,
    )
    .unwrap();
    for s in cfg.summaries() {
        assert!(!s.target.contains("supersecret"));
    }
}

#[test]
fn lifecycle_and_timeouts_are_read_and_checked() {
    let cfg = parse(
        r#"{"mcpServers": {
            "t": {"command": "x", "lifecycle": "transient", "startupTimeout": 5, "callTimeout": 0.5},
            "bad": {"command": "x", "lifecycle": "sometimes"},
            "neg": {"command": "x", "callTimeout": -1}
        }}"#,
    )
    .unwrap();
    let t = &cfg.servers[0];
    assert_eq!(t.lifecycle, Lifecycle::Transient);
    assert_eq!(t.startup_timeout, Some(std::time::Duration::from_secs(5)));
    assert_eq!(t.call_timeout, Some(std::time::Duration::from_millis(500)));
    let pointers: Vec<_> = cfg.problems.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        ["/mcpServers/bad/lifecycle", "/mcpServers/neg/callTimeout"]
    );
}

#[test]
fn message_size_and_allow_insecure_are_read_and_checked() {
    let cfg = parse(
        r#"{"mcpServers": {
            "big": {"url": "http://h/mcp", "maxMessageSize": 67108864, "allowInsecure": true},
            "plain": {"command": "x"},
            "tiny": {"command": "x", "maxMessageSize": 10},
            "odd": {"url": "http://h/mcp", "allowInsecure": "yes"}
        }}"#,
    )
    .unwrap();
    let big = cfg.servers.iter().find(|s| s.name == "big").unwrap();
    assert_eq!(big.max_message(), 64 << 20);
    assert!(big.allow_insecure);
    let plain = cfg.servers.iter().find(|s| s.name == "plain").unwrap();
    assert_eq!(plain.max_message(), 16 << 20);
    assert!(!plain.allow_insecure);
    let pointers: Vec<_> = cfg.problems.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/mcpServers/tiny/maxMessageSize",
            "/mcpServers/odd/allowInsecure"
        ]
    );
}

#[test]
fn an_oauth_block_is_read_and_keeps_its_references() {
    let cfg = parse(
        r#"{"mcpServers": {
            "gh": {"url": "https://h/mcp", "oauth": {"clientId": "abc", "clientSecret": "${CLIENT_SECRET}", "scope": "repo read:org"}},
            "odd": {"url": "https://h/mcp", "oauth": "abc"},
            "odder": {"url": "https://h/mcp", "oauth": {"clientId": 7}}
        }}"#,
    )
    .unwrap();
    let gh = cfg.servers.iter().find(|s| s.name == "gh").unwrap();
    let o = gh.oauth.as_ref().unwrap();
    assert_eq!(o.client_id.as_deref(), Some("abc"));
    assert_eq!(
        o.client_secret.as_deref(),
        Some("${CLIENT_SECRET}"),
        "the file keeps the reference"
    );
    let pointers: Vec<_> = cfg.problems.iter().map(|p| p.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        ["/mcpServers/odd/oauth", "/mcpServers/odder/oauth/clientId"]
    );
}

#[test]
fn restart_policy_is_read_and_checked() {
    let cfg = parse(
        r#"{"mcpServers": {
            "off": {"command": "x", "restart": false},
            "tuned": {"command": "x", "restart": {"initialDelay": 0.5, "maxDelay": 10}},
            "bad": {"command": "x", "restart": {"maxDelay": "soon"}}
        }}"#,
    )
    .unwrap();
    assert_eq!(cfg.servers[0].restart.map(|r| r.enabled), Some(false));
    let tuned = cfg.servers[1].restart.unwrap();
    assert!(tuned.enabled);
    assert_eq!(
        tuned.initial_delay,
        Some(std::time::Duration::from_millis(500))
    );
    assert_eq!(tuned.max_delay, Some(std::time::Duration::from_secs(10)));
    assert_eq!(cfg.problems[0].pointer, "/mcpServers/bad/restart/maxDelay");
}

#[test]
fn tool_filters_and_approvals_read_every_dialects_keys() {
    let cfg = parse(
        r#"{ "mcpServers": {
            "a": { "command": "x", "includeTools": ["read"], "excludeTools": ["write"], "autoApprove": ["read"] },
            "roo": { "command": "x", "disabledTools": ["rm"], "alwaysAllow": ["ls"] },
            "gemini": { "command": "x", "trust": true }
        } }"#,
    )
    .unwrap();
    let a = &cfg.servers[0];
    assert!(a.offers_tool("read") && !a.offers_tool("write") && !a.offers_tool("other"));
    assert!(a.auto_approves("read") && !a.auto_approves("write"));
    let roo = &cfg.servers[1];
    assert!(roo.offers_tool("ls") && !roo.offers_tool("rm") && roo.auto_approves("ls"));
    assert!(cfg.servers[2].auto_approves("anything"));
}

#[test]
fn names_that_clash_once_sanitised_are_reported_at_the_second() {
    let cfg = parse(
        r#"{ "mcpServers": { "my server": { "command": "a" }, "my_server": { "command": "b" } } }"#,
    )
    .unwrap();
    assert_eq!(cfg.servers.len(), 1);
    assert_eq!(cfg.problems[0].pointer, "/mcpServers/my_server");
    assert!(
        cfg.problems[0]
            .message
            .contains("clashes with \"my server\"")
    );
}

#[test]
fn declared_inputs_are_read() {
    let cfg = parse(
        r#"{ "inputs": [ { "type": "promptString", "id": "key", "description": "API key", "password": true } ],
             "servers": { "s": { "command": "x", "env": { "K": "${input:key}" } } } }"#,
    )
    .unwrap();
    assert_eq!(cfg.inputs[0].id, "key");
    assert!(cfg.inputs[0].password);
    assert_eq!(cfg.inputs[0].description.as_deref(), Some("API key"));
}

#[test]
fn a_project_file_overrides_the_user_file_and_each_entry_knows_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user.json");
    let project = dir.path().join("proj");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(
        &user,
        r#"{ "mcpServers": { "shared": { "command": "user-cmd" }, "mine": { "command": "m" } } }"#,
    )
    .unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        r#"{ "mcpServers": { "shared": { "command": "./proj-cmd" }, "team": { "url": "https://t.example/mcp" } } }"#,
    )
    .unwrap();
    let cfg = ConfigFile::load_scoped(&user, Some(&project)).unwrap();
    let names: Vec<_> = cfg
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.scope))
        .collect();
    assert_eq!(
        names,
        [
            ("shared", Scope::Project),
            ("mine", Scope::User),
            ("team", Scope::Project)
        ]
    );
    assert_eq!(cfg.file_of(&cfg.servers[0]), project.join(".mcp.json"));
    assert_eq!(cfg.file_of(&cfg.servers[1]), user);
    assert_eq!(cfg.base_dir_of(&cfg.servers[0]), project);
    // No user file: the project alone is fine. Neither: not found.
    std::fs::remove_file(&user).unwrap();
    assert_eq!(
        ConfigFile::load_scoped(&user, Some(&project))
            .unwrap()
            .servers
            .len(),
        2
    );
    let e = ConfigFile::load_scoped(&user, Some(dir.path())).unwrap_err();
    assert_eq!(e.code(), ErrorCode::ConfigNotFound);
}
