//! Streamable HTTP against peers on the same server: the official Python
//! SDK's client, and `wrk` (a C client: one keep-alive connection, the same
//! JSON-RPC POST over and over, nothing parsed) — the server's own ceiling
//! for one caller at a time. All three speak 2025-11-25 (`wrk` replays one
//! POST, which needs a session the bench opens for it), to two servers: the
//! demo in `--legacy` mode (Rust: little time of its own, so the clients'
//! costs show most), and the official `server-everything` (Node, from
//! `target/third-party`) — a third-party server, as the goal is stated. Five rounds, the clients taking turns in each; the
//! figures are the medians of the per-round ratios. A peer that is not
//! installed is said and skipped (`cargo xtask bench` installs both).

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::{BIN, Client, Mode, batch, core_client, median};

const ROUNDS: usize = 5;
/// Calls the core and the Python client make each round.
const CALLS: usize = 600;
/// How long `wrk` runs each round.
const WRK_SECONDS: u32 = 2;

const ECHO: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m1"}}}"#;

/// A 2025-11-25 session opened by hand, for `wrk` to replay a call in.
async fn session(url: &str) -> String {
    let http = workbench_http::client().unwrap();
    let post = |body: String, sid: Option<&str>| {
        let mut r = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(sid) = sid {
            r = r
                .header("mcp-session-id", sid)
                .header("mcp-protocol-version", "2025-11-25");
        }
        r.send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wrk", "version": "4"}}});
    let answer = post(init.to_string(), None).await.expect("initialize");
    let sid = answer.headers()["mcp-session-id"]
        .to_str()
        .expect("a session id")
        .to_string();
    let _ = answer.text().await;
    post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        Some(&sid),
    )
    .await
    .expect("initialized");
    // The POST wrk replays answers with the echo, not an error (which
    // would come back as 200 too, and be counted as done).
    let body = post(ECHO.into(), Some(&sid))
        .await
        .expect("a call")
        .text()
        .await
        .unwrap();
    assert!(
        body.contains("\"result\"") && body.contains("m1"),
        "the replayed call answers: {body}"
    );
    sid
}

/// `wrk` for `WRK_SECONDS` on one connection: requests per second.
fn wrk(url: &str, sid: &str, dir: &Path) -> f64 {
    let script = dir.join("echo.lua");
    std::fs::write(
        &script,
        format!(
            "wrk.method = \"POST\"\nwrk.body = '{ECHO}'\n\
             wrk.headers[\"Content-Type\"] = \"application/json\"\n\
             wrk.headers[\"Accept\"] = \"application/json, text/event-stream\"\n\
             wrk.headers[\"Mcp-Session-Id\"] = \"{sid}\"\n\
             wrk.headers[\"MCP-Protocol-Version\"] = \"2025-11-25\"\n"
        ),
    )
    .unwrap();
    let out = std::process::Command::new("wrk")
        .args(["-t1", "-c1", &format!("-d{WRK_SECONDS}s"), "-s"])
        .arg(&script)
        .arg(url)
        .output()
        .expect("wrk runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("Non-2xx"),
        "wrk's requests were refused:\n{text}"
    );
    text.lines()
        .find_map(|l| l.strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no Requests/sec in wrk's output:\n{text}"))
}

/// The Python SDK's client: `CALLS` echo calls after a warm-up, per second.
fn python(python: &str, url: &str, dir: &Path) -> f64 {
    let script = dir.join("echo.py");
    std::fs::write(&script, PYTHON).unwrap();
    let out = std::process::Command::new(python)
        .arg(&script)
        .args([url, &CALLS.to_string()])
        .output()
        .expect("python runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let seconds: f64 = text.trim().parse().unwrap_or_else(|_| {
        panic!(
            "the Python client failed:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    CALLS as f64 / seconds
}

const PYTHON: &str = r#"
import sys, time
import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

async def main():
    url, n = sys.argv[1], int(sys.argv[2])
    async with Client(streamable_http_client(url), mode="legacy") as c:
        for i in range(50):
            await c.call_tool("echo", {"message": f"m{i}"})
        started = time.perf_counter()
        for i in range(n):
            await c.call_tool("echo", {"message": f"m{i}"})
        print(time.perf_counter() - started)

anyio.run(main)
"#;

fn have_wrk() -> bool {
    std::process::Command::new("wrk")
        .arg("--version")
        .output()
        .is_ok()
}

/// The demo in `--legacy`, then `server-everything` in its Streamable HTTP
/// mode when it is installed (a Node server: the third-party case).
pub async fn against_peers() {
    let dir = tempfile::tempdir().unwrap();
    let (mut demo, addr) =
        workbench_testkit::demo_over_http(BIN.as_ref(), dir.path(), &["--legacy"]).await;
    one_server("the demo (Rust)", &format!("http://{addr}/mcp"), dir.path()).await;
    let _ = demo.kill().await;
    match super::stdio_peers::everything() {
        Some(bin) => {
            let (mut node, url) = everything_over_http(&bin).await;
            one_server("server-everything (Node, third-party)", &url, dir.path()).await;
            let _ = node.kill().await;
        }
        None => println!(
            "http, third-party: server-everything is not installed (MCPWB_THIRD_PARTY): skipped"
        ),
    }
}

/// `server-everything streamableHttp` on a free loopback port, once it listens.
async fn everything_over_http(bin: &Path) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = tokio::process::Command::new(bin)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("server-everything starts");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let listening = tokio::time::timeout(Duration::from_secs(20), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("listening on port") {
                return true;
            }
        }
        false
    })
    .await;
    assert!(
        matches!(listening, Ok(true)),
        "server-everything did not say it listens on {port}"
    );
    // Whatever else it writes to stderr is drained, not left to block it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

async fn one_server(label: &str, url: &str, dir: &Path) {
    let url = url.to_string();
    let wb = core_client(
        dir,
        json!({ "type": "http", "url": url, "protocolVersion": "2025-11-25" }),
    )
    .await;
    let core = Client::Core(wb.clone());
    batch(&core, Mode::OneTask, 200).await;
    let sid = session(&url).await;
    let wrk_there = have_wrk();
    let py = std::env::var("MCPWB_PYTHON").ok();
    if !wrk_there {
        println!(
            "  wrk: not installed (apt install wrk; `cargo xtask bench` does): its row is skipped"
        );
    }
    if py.is_none() {
        println!(
            "  the Python SDK: MCPWB_PYTHON is not set (`cargo xtask bench` sets it): its row is skipped"
        );
    }
    let (mut cores, mut wrks, mut pys) = (Vec::new(), Vec::new(), Vec::new());
    let (mut by_wrk, mut by_py) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let mut core_rate = 0.0;
        let dir = dir.to_path_buf();
        let mut wrk_rate = None;
        let mut py_rate = None;
        // Each round in another order, so drift falls on all alike.
        for turn in 0..3 {
            match (turn + round) % 3 {
                0 => {
                    let took: Duration = batch(&core, Mode::OneTask, CALLS).await;
                    core_rate = CALLS as f64 / took.as_secs_f64();
                }
                1 if wrk_there => {
                    let (u, s, d) = (url.clone(), sid.clone(), dir.clone());
                    wrk_rate = Some(
                        tokio::task::spawn_blocking(move || wrk(&u, &s, &d))
                            .await
                            .unwrap(),
                    );
                }
                2 if py.is_some() => {
                    let (p, u, d) = (py.clone().unwrap(), url.clone(), dir.clone());
                    py_rate = Some(
                        tokio::task::spawn_blocking(move || python(&p, &u, &d))
                            .await
                            .unwrap(),
                    );
                }
                _ => {}
            }
        }
        cores.push(core_rate);
        if let Some(w) = wrk_rate {
            wrks.push(w);
            by_wrk.push(core_rate / w);
        }
        if let Some(p) = py_rate {
            pys.push(p);
            by_py.push(core_rate / p);
        }
    }
    println!(
        "http 2025, {label}, one caller at a time (median of {ROUNDS} rounds): workbench core {:.0} calls/s",
        median(cores)
    );
    if !wrks.is_empty() {
        println!(
            "  wrk (C, one keep-alive connection, the same POST, nothing parsed) {:.0} requests/s: core / wrk {:.2}x (goal >= 0.95x: the server's ceiling)",
            median(wrks),
            median(by_wrk)
        );
    }
    if !pys.is_empty() {
        println!(
            "  the Python SDK's client {:.0} calls/s: core / Python SDK {:.2}x",
            median(pys),
            median(by_py)
        );
    }
    wb.shutdown().await;
}
