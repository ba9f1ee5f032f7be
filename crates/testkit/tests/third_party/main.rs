//! The core against real third-party servers from the registries, over
//! stdio, legacy SSE and Streamable HTTP. `cargo xtask test` installs them
//! into `target/third-party` and sets MCPWB_THIRD_PARTY; without it the
//! tests say so and do nothing (nothing can be installed on the fly here).

mod skills;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use workbench_core::config::ConfigFile;
use workbench_core::connect::ServerState;
use workbench_core::testing::RawCalls;
use workbench_core::{CallOptions, Workbench, WorkbenchOptions};

fn everything() -> Option<PathBuf> {
    let dir = std::env::var_os("MCPWB_THIRD_PARTY").map(PathBuf::from)?;
    let bin = dir.join("node_modules/.bin/mcp-server-everything");
    if bin.exists() {
        Some(bin)
    } else {
        eprintln!("MCPWB_THIRD_PARTY is set but {} is missing", bin.display());
        None
    }
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Start server-everything in an HTTP mode on a loopback port.
async fn serve(bin: &Path, mode: &str) -> (Killed, u16) {
    let port = free_port();
    let preload = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/third_party/loopback.cjs"
    );
    let child = Command::new(bin)
        .arg(mode)
        .env("PORT", port.to_string())
        .env("NODE_OPTIONS", format!("--require {preload}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child = Killed(child);
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (child, port);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("server-everything {mode} did not listen on {port}");
}

#[tokio::test]
async fn server_everything_over_stdio_sse_and_streamable_http() {
    let Some(bin) = everything() else {
        eprintln!(
            "skipped: @modelcontextprotocol/server-everything is not installed (run `cargo xtask test`)"
        );
        return;
    };
    let (_sse, sse_port) = serve(&bin, "sse").await;
    let (_http, http_port) = serve(&bin, "streamableHttp").await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let config = json!({ "mcpServers": {
        "stdio": { "command": bin },
        "sse": { "type": "sse", "url": format!("http://127.0.0.1:{sse_port}/sse") },
        "auto-sse": { "url": format!("http://127.0.0.1:{sse_port}/sse") },
        "http": { "type": "http", "url": format!("http://127.0.0.1:{http_port}/mcp") },
    }});
    std::fs::write(&path, config.to_string()).unwrap();
    let wb = Workbench::start(
        &ConfigFile::load(&path).unwrap(),
        WorkbenchOptions::default(),
    );
    let statuses = wb.settle(Duration::from_secs(60)).await;
    for s in &statuses {
        assert_eq!(s.state, ServerState::Ready, "{}: {:?}", s.name, s.state);
        let info = s.info.as_ref().unwrap();
        assert!(info.name.contains("everything"), "{}", info.name);
        assert!(!info.protocol_version.is_empty());
    }
    let transport = |n: &str| wb.server(n).unwrap().status().info.unwrap().transport;
    assert_eq!(
        serde_json::to_value(transport("auto-sse")).unwrap(),
        "sse",
        "a url with no type found its transport"
    );
    for name in ["stdio", "sse", "auto-sse", "http"] {
        let out = wb
            .call_tool(
                name,
                "echo",
                json!({ "message": name }),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(out.result["content"][0]["text"], format!("Echo: {name}"));
        let sum = wb
            .call_tool(
                name,
                "get-sum",
                json!({ "a": 2, "b": 40 }),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert!(
            sum.result["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("42"),
            "{}",
            sum.result
        );
        let read = wb
            .request(name, "resources/list", json!({}), CallOptions::default())
            .await
            .unwrap();
        assert!(
            read.result["resources"]
                .as_array()
                .is_some_and(|r| !r.is_empty())
        );
        let entries = wb.traffic().entries(Some(name));
        assert!(
            entries.iter().any(|e| e.latency_ms.is_some()),
            "{name}: traffic is paired"
        );
    }
    wb.shutdown().await;
    let _ = Value::Null;
}

/// server-everything's `simulate-research-query` requires a task in the
/// 2025-11-25 form (the TypeScript SDK's): asked with `params.task`, polled,
/// its clarification asked through `tasks/result`, over stdio and HTTP.
#[tokio::test]
async fn server_everythings_research_task_runs_in_the_2025_form() {
    let Some(bin) = everything() else {
        eprintln!(
            "skipped: @modelcontextprotocol/server-everything is not installed (run `cargo xtask test`)"
        );
        return;
    };
    let (_http, http_port) = serve(&bin, "streamableHttp").await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let config = json!({ "mcpServers": {
        "stdio": { "command": bin },
        "http": { "type": "http", "url": format!("http://127.0.0.1:{http_port}/mcp") },
    }});
    std::fs::write(&path, config.to_string()).unwrap();
    let options = WorkbenchOptions {
        interactive: true,
        ..WorkbenchOptions::default()
    };
    let wb = Workbench::start(&ConfigFile::load(&path).unwrap(), options);
    wb.settle(Duration::from_secs(60)).await;
    for name in ["stdio", "http"] {
        for _ in 0..200 {
            if wb.catalog().tool(name, "simulate-research-query").is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // A person answers the clarification the ambiguous query asks for.
        let mut events = wb.subscribe();
        let wb2 = wb.clone();
        let answering = tokio::spawn(async move {
            loop {
                if let Ok(workbench_core::events::Event::Ask { ask }) = events.recv().await {
                    let first = ask.params["requestedSchema"]["properties"]["interpretation"]["oneOf"][0]["const"].clone();
                    let answer =
                        json!({ "action": "accept", "content": { "interpretation": first } });
                    wb2.asks()
                        .answer(ask.id, workbench_core::asks::Answer::Result(answer))
                        .unwrap();
                    return first;
                }
            }
        });
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<workbench_core::TaskState>();
        let options = CallOptions {
            sink: Some(std::sync::Arc::new(tx)),
            ..CallOptions::default()
        };
        let args = json!({ "topic": "rust", "ambiguous": true });
        let out = wb
            .call_tool(name, "simulate-research-query", args, options)
            .await
            .unwrap();
        let chosen = answering.await.unwrap();
        let text = out.result["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("Research Report: rust"), "{name}: {text}");
        assert!(
            text.contains(chosen.as_str().unwrap()),
            "{name}: the answer reached the task: {text}"
        );
        let task = out.task.expect("ran as a task");
        assert_eq!(task.form, workbench_core::TaskForm::V2025);
        let mut seen = Vec::new();
        while let Ok(s) = rx.try_recv() {
            seen.push(s.status);
        }
        assert!(
            seen.contains(&"input_required".to_string()),
            "{name}: {seen:?}"
        );
        assert_eq!(
            seen.last().map(String::as_str),
            Some("completed"),
            "{name}: {seen:?}"
        );
    }
    wb.shutdown().await;
}
