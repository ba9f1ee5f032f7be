//! `mcpwb serve` as other clients launch it: over stdio (an rmcp client and
//! the official Python SDK's client) and over loopback HTTP with the
//! install's token (the Python SDK), in front of two demo servers.

use std::process::{Command, Stdio};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::service::NotificationContext;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;

use super::{BIN, demo_server, python};

fn two_demos(dir: &std::path::Path, extra: &[(&str, &[&str])]) -> String {
    let mut servers = serde_json::Map::new();
    for name in ["alpha", "beta"] {
        servers.insert(
            name.into(),
            json!({ "command": demo_server(), "args": ["--name", name] }),
        );
    }
    for (name, args) in extra {
        servers.insert(
            name.to_string(),
            json!({ "command": demo_server(), "args": args }),
        );
    }
    let path = dir.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path.display().to_string()
}

/// `mcpwb ARGS` kept away from the user's config and keychain.
fn mcpwb(home: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env_remove("MCPWB_CONFIG")
        .env("HOME", home)
        .env("MCPWB_KEYCHAIN", "keyutils");
    c
}

#[derive(Clone)]
struct Watcher(tokio::sync::mpsc::UnboundedSender<()>);

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

async fn call(
    client: &rmcp::service::RunningService<RoleClient, Watcher>,
    name: &str,
    args: serde_json::Value,
) -> Result<serde_json::Value, rmcp::ServiceError> {
    let params = CallToolRequestParams::new(name.to_string())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    Ok(serde_json::to_value(client.call_tool(params).await?).unwrap())
}

/// What a client configured with `mcpwb serve` sees: every server's tools
/// under qualified names (only those `--tools` lets through), calls routed,
/// resources and prompts, the fields servers send that no library models,
/// a change told, and a crashed server's error while the others serve.
#[tokio::test]
async fn an_rmcp_client_uses_every_server_through_mcpwb_serve() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = two_demos(dir.path(), &[("crashy", &["--fault", "crash-on-call"])]);
    let home = dir.path().to_path_buf();
    let cmd = tokio::process::Command::from(mcpwb(
        &home,
        &[
            "--config", &cfg, "--trust", "serve", "--tools", "*echo*", "--tools", "beta__*",
        ],
    ));
    let (tx, mut changed) = tokio::sync::mpsc::unbounded_channel();
    let client = Watcher(tx)
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert!(
        names.contains(&"alpha__echo".into()) && names.contains(&"beta__add".into()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"alpha__add".into()),
        "--tools filters: {names:?}"
    );
    let echoed = call(
        &client,
        "alpha__echo",
        json!({ "message": "through serve" }),
    )
    .await
    .unwrap();
    assert_eq!(echoed["content"][0]["text"], "through serve");
    let added = call(&client, "beta__add", json!({ "a": 1, "b": 2 }))
        .await
        .unwrap();
    assert!(added.to_string().contains('3'), "{added}");
    let refused = call(&client, "alpha__add", json!({ "a": 1, "b": 2 })).await;
    assert!(refused.is_err(), "a filtered tool is not there");
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "mcpwb://alpha/demo://readme",
        ))
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&read)
            .unwrap()
            .contains("demo server")
    );
    let prompts = client.list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "beta__greet"));
    // A crashed server: a clear error naming it; the others go on.
    let crashed = call(&client, "crashy__echo", json!({ "message": "x" })).await;
    let e = crashed.expect_err("it crashed").to_string();
    assert!(e.contains("crashy"), "{e}");
    assert!(
        call(&client, "beta__echo", json!({ "message": "on" }))
            .await
            .is_ok()
    );
    // A server's tools change: the client is told.
    while changed.try_recv().is_ok() {}
    call(&client, "beta__toggle_extra_tool", json!({}))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), changed.recv())
        .await
        .expect("tools/list_changed through mcpwb serve");
    client.cancel().await.unwrap();
}

fn script() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/bridge/python_client.py"
    )
    .to_string()
}

/// The official Python SDK's client through `mcpwb serve`, over stdio and
/// over HTTP, in both protocol eras: tools of both servers, a call on each,
/// a resource, a prompt, progress, a long call cancelled (the server says it
/// stopped), and (2025) a change told.
#[test]
fn the_python_sdk_client_uses_the_bridge_over_stdio_and_http() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = two_demos(dir.path(), &[]);
    let home = dir.path().display().to_string();
    let keychain = format!("mcpwb-serve-test-{}", std::process::id());
    for mode in ["legacy", "auto"] {
        let out = Command::new(&python)
            .args([&script(), "stdio", BIN, &cfg, &home, mode])
            .env("MCPWB_KEYCHAIN_SERVICE", &keychain)
            .output()
            .unwrap();
        let (o, e) = (super::stdout(&out), super::stderr(&out));
        assert!(out.status.success(), "stdio {mode}: {o}{e}");
        assert!(o.contains("\"ok\": true"), "stdio {mode}: {o}");
        assert!(
            e.contains("[alpha] demo server: long_task cancelled"),
            "stdio {mode}: {e}"
        );
    }
    let port_file = dir.path().join("serve.err");
    let mut server = mcpwb(
        &home,
        &["--config", &cfg, "--trust", "serve", "--http", "0"],
    )
    .env("MCPWB_KEYCHAIN_SERVICE", &keychain)
    .stderr(std::fs::File::create(&port_file).unwrap())
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let mut said = String::new();
    for _ in 0..200 {
        said = std::fs::read_to_string(&port_file).unwrap_or_default();
        if said.contains("token") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = said
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("{said}"))
        .to_string();
    let token = said.rsplit(": ").next().unwrap().trim().to_string();
    for mode in ["legacy", "auto"] {
        let out = Command::new(&python)
            .args([&script(), "http", &url, &token, mode])
            .output()
            .unwrap();
        let o = super::stdout(&out);
        assert!(
            out.status.success(),
            "http {mode}: {o}{}",
            super::stderr(&out)
        );
        assert!(o.contains("\"ok\": true"), "http {mode}: {o}");
    }
    // Without the token: refused.
    let out = Command::new(&python)
        .args([&script(), "http", &url, "not-the-token", "legacy"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let _ = server.kill();
    let _ = server.wait();
    let log = std::fs::read_to_string(&port_file).unwrap();
    assert_eq!(log.matches("long_task cancelled").count(), 2, "{log}");
}

/// `mcpwb serve --attach`: a client that launches `mcpwb serve` is relayed
/// to a bridge already running (the app's), with the install's token from
/// the keychain; no second set of servers is started.
#[tokio::test]
async fn serve_attach_relays_to_a_running_bridge() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = two_demos(dir.path(), &[]);
    let home = dir.path().to_path_buf();
    let keychain = format!("mcpwb-attach-test-{}", std::process::id());
    let said = dir.path().join("serve.err");
    let mut running = mcpwb(
        &home,
        &["--config", &cfg, "--trust", "serve", "--http", "0"],
    )
    .env("MCPWB_KEYCHAIN_SERVICE", &keychain)
    .stderr(std::fs::File::create(&said).unwrap())
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let mut url = None;
    for _ in 0..200 {
        let text = std::fs::read_to_string(&said).unwrap_or_default();
        url = text
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .map(str::to_string);
        if url.is_some() && text.contains("token") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let url = url.expect("the bridge said where it listens");
    let attach = format!("--attach={url}");
    let mut cmd = mcpwb(&home, &["serve", &attach]);
    cmd.env("MCPWB_KEYCHAIN_SERVICE", &keychain);
    let cmd = tokio::process::Command::from(cmd);
    let (tx, _changed) = tokio::sync::mpsc::unbounded_channel();
    let client = Watcher(tx)
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"beta__echo".into()), "{names:?}");
    let echoed = call(&client, "beta__echo", json!({ "message": "attached" }))
        .await
        .unwrap();
    assert_eq!(echoed["content"][0]["text"], "attached");
    client.cancel().await.unwrap();
    let _ = running.kill();
    let _ = running.wait();
}

/// Over stdio a client gets what the upstream server wrote: fields and a
/// kind of content block no library models, in the list and in a call's
/// result (read here as raw JSON lines, as any client's parser would).
#[test]
fn serve_over_stdio_passes_on_fields_no_library_models() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    let cfg = two_demos(dir.path(), &[("future", &["--fault", "future-fields"])]);
    let mut child = mcpwb(
        dir.path(),
        &["--config", &cfg, "--trust", "serve", "--only", "future"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |id: u32, method: &str, params: serde_json::Value| -> serde_json::Value {
        let m = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        writeln!(stdin, "{m}").unwrap();
        if method == "initialize" {
            writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
            )
            .unwrap();
        }
        loop {
            let line = lines.next().expect("an answer").unwrap();
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    let init = json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": { "name": "raw", "version": "1" } });
    ask(1, "initialize", init);
    let listed = ask(2, "tools/list", json!({}));
    let tool = &listed["result"]["tools"][0];
    assert_eq!(tool["name"], "future__echo", "{listed}");
    assert_eq!(tool["x-vendor"]["rating"], 5, "{listed}");
    let called = ask(
        3,
        "tools/call",
        json!({ "name": "future__echo", "arguments": {} }),
    );
    let result = &called["result"];
    assert_eq!(result["x-vendor"]["cost"], 3, "{called}");
    assert_eq!(result["content"][0]["x-vendor"]["lang"], "en", "{called}");
    assert_eq!(result["content"][1]["type"], "hologram", "{called}");
    // A call whose params do not fit says why; a method the bridge does not
    // serve says so (rmcp alone answered both "method not found: tools/call").
    let misfit = ask(
        4,
        "tools/call",
        json!({ "name": "future__echo", "arguments": "oops" }),
    );
    let said = misfit["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(misfit["error"]["code"], -32602, "{misfit}");
    assert!(
        said.contains("tools/call: the params do not fit") && said.contains("invalid type"),
        "{misfit}"
    );
    let unknown = ask(5, "vendor/thing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("not a method the bridge serves"),
        "{unknown}"
    );
    drop(stdin);
    let _ = child.wait();
}

/// SIGTERM to `child`, and how it ended within ten seconds.
fn ended_by_sigterm(child: &mut std::process::Child) -> std::process::ExitStatus {
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    for _ in 0..100 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("still running 10 s after SIGTERM");
}

/// A host ending the bridge with SIGTERM (what most send on quit, and
/// `kill` by default) gets the shutdown Ctrl-C gets: the servers stopped,
/// the History written, and an exit of 0, not death by the signal. Over
/// stdio (its stdin still open) and over HTTP.
#[test]
fn sigterm_ends_the_bridge_as_ctrl_c_does() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    let cfg = two_demos(dir.path(), &[]);
    let mut child = mcpwb(dir.path(), &["--config", &cfg, "--trust", "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // stdin stays open: the host has not closed it.
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "raw", "version": "1" } } });
    writeln!(stdin, "{init}").unwrap();
    let answer = lines.next().expect("an answer").unwrap();
    assert!(answer.contains("\"id\":1"), "{answer}");
    let status = ended_by_sigterm(&mut child);
    assert!(status.success(), "over stdio: {status:?}");
    drop(stdin);

    let said = dir.path().join("serve.err");
    let mut child = mcpwb(
        dir.path(),
        &[
            "--config",
            &cfg,
            "--trust",
            "serve",
            "--http",
            "0",
            "--no-token",
        ],
    )
    .stdout(Stdio::null())
    .stderr(std::fs::File::create(&said).unwrap())
    .spawn()
    .unwrap();
    for _ in 0..200 {
        if std::fs::read_to_string(&said).is_ok_and(|s| s.contains("serving")) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = ended_by_sigterm(&mut child);
    assert!(status.success(), "over HTTP: {status:?}");
}

/// A host shows its servers' stderr: the bridge says there which servers'
/// tools it does not serve and why (a failed one with its stderr's end, an
/// untrusted one with the commands to read and trust it).
#[test]
fn the_bridge_says_on_stderr_which_servers_it_does_not_serve() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = two_demos(dir.path(), &[("broken", &["--fault", "exit-at-start"])]);
    let said = |trust: bool| {
        let mut args = vec!["--config", cfg.as_str(), "--timeout", "5"];
        if trust {
            args.push("--trust");
        }
        args.push("serve");
        let out = mcpwb(dir.path(), &args)
            .env("MCPWB_DATA_DIR", dir.path().join("data"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let err = said(true);
    assert!(
        err.contains("[mcpwb] broken: failed: the server exited with status 3 during the handshake; its tools are not served until it is ready"),
        "{err}"
    );
    assert!(
        err.contains("[mcpwb]     stderr│ demo server: exiting at start on purpose"),
        "{err}"
    );
    assert!(!err.contains("[mcpwb] alpha"), "{err}");

    // An entry added by hand since: not trusted, and said so by name.
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    file["mcpServers"]["newcomer"] = json!({ "command": demo_server() });
    std::fs::write(&cfg, file.to_string()).unwrap();
    let err = said(false);
    assert!(
        err.contains(&format!(
            "[mcpwb] newcomer: not trusted yet: read what it runs with `mcpwb --config {cfg} config trust newcomer --dry-run`"
        )),
        "{err}"
    );
    assert!(!err.contains("[mcpwb] alpha"), "{err}");
}
