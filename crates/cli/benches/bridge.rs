//! The bridge against going direct: echo calls per second from a bare rmcp
//! client to the demo server straight, and through `mcpwb serve` (client →
//! bridge → demo server), over stdio (real process pipes) and over loopback
//! HTTP (the bridge with its token, the demo server's own HTTP mode).
//! Over stdio once per protocol era (every hop in that era). Sequential
//! calls and 64 in flight. Prints figures and the ratio
//! bridge/direct (the target: at least 0.5); asserts nothing.
//! `cargo xtask bench` (release builds).
//!
//! Both clients are connected at once and take turns batch by batch (the
//! order flipping each batch), so drift in the machine's load falls on both.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::{ClientLifecycleMode, serve_client_with_lifecycle};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::json;

const MCPWB: &str = env!("CARGO_BIN_EXE_mcpwb");
const BATCHES: usize = 10;
const SEQ: usize = 200;
const CONC: usize = 1_000;

fn demo() -> std::path::PathBuf {
    workbench_testkit::demo_server_path()
}

#[path = "echo/mod.rs"]
mod calls;
use calls::{Client, batch as timed, echo as call};

fn message(i: usize) -> String {
    format!("m{i}")
}

/// Through the bridge the tool is `s__echo`.
fn tool(bridged: bool) -> &'static str {
    if bridged { "s__echo" } else { "echo" }
}

async fn echo(c: &Client, bridged: bool, i: usize) {
    call(c, tool(bridged), message, i).await
}

async fn batch(c: &Arc<Client>, bridged: bool, n: usize, concurrent: bool) -> Duration {
    timed(c, tool(bridged), message, n, concurrent).await
}

async fn compare(direct: &Arc<Client>, bridge: &Arc<Client>, concurrent: bool) -> (f64, f64) {
    let n = if concurrent { CONC } else { SEQ };
    let (mut td, mut tb) = (Duration::ZERO, Duration::ZERO);
    for b in 0..BATCHES {
        if b % 2 == 0 {
            td += batch(direct, false, n, concurrent).await;
            tb += batch(bridge, true, n, concurrent).await;
        } else {
            tb += batch(bridge, true, n, concurrent).await;
            td += batch(direct, false, n, concurrent).await;
        }
    }
    let calls = (BATCHES * n) as f64;
    (calls / td.as_secs_f64(), calls / tb.as_secs_f64())
}

fn serve_cmd(cfg: &str, home: &std::path::Path, http: bool) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(MCPWB);
    c.args(["--config", cfg, "--trust", "serve"]);
    if http {
        c.args(["--http", "0"]);
    }
    c.env_remove("MCPWB_CONFIG")
        .env("HOME", home)
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-bench-{}", std::process::id()),
        );
    c
}

async fn http_client(url: &str, token: Option<&str>) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(t) = token {
        config = config.auth_header(t);
    }
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

/// The URL and token `mcpwb serve --http` says on stderr.
async fn url_and_token(child: &mut tokio::process::Child) -> (String, String) {
    use tokio::io::AsyncBufReadExt;
    let stderr = child.stderr.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let (mut url, mut token) = (None, None);
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(u) = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
        {
            url = Some(u.to_string());
        }
        if line.contains("token (send as") {
            token = line.rsplit(": ").next().map(|t| t.trim().to_string());
            break;
        }
    }
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (url.expect("the URL"), token.expect("the token"))
}

async fn row(label: &str, direct: Arc<Client>, bridge: Arc<Client>) {
    for _ in 0..100 {
        echo(&direct, false, 0).await;
        echo(&bridge, true, 0).await;
    }
    for (mode, concurrent) in [("sequential", false), ("64 in flight", true)] {
        let (d, b) = compare(&direct, &bridge, concurrent).await;
        println!(
            "{label:<10} {mode:<13} direct {d:>8.0} calls/s   through the bridge {b:>8.0} calls/s   ratio {:.2}",
            b / d
        );
    }
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(
        &cfg,
        json!({ "mcpServers": { "s": { "command": demo() } } }).to_string(),
    )
    .unwrap();
    let cfg = cfg.display().to_string();
    // The same server pinned to 2025-11-25: each hop then speaks one era.
    let cfg_2025 = dir.path().join("mcp-2025.json");
    std::fs::write(
        &cfg_2025,
        json!({ "mcpServers": { "s": { "command": demo(), "protocolVersion": "2025-11-25" } } })
            .to_string(),
    )
    .unwrap();
    let cfg_2025 = cfg_2025.display().to_string();
    println!("echo through mcpwb serve vs straight to the demo server (target: ratio >= 0.5)");

    // stdio: the demo server as a child of the client, or of mcpwb serve;
    // every hop in one protocol era (2026-07-28 requests carry the client's
    // metadata, 2025-11-25 ones do not).
    for (label, config, mode) in [
        ("stdio 2025", &cfg_2025, ClientLifecycleMode::Initialize),
        (
            "stdio 2026",
            &cfg,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            },
        ),
    ] {
        let mut direct = tokio::process::Command::new(demo());
        direct.stderr(Stdio::null());
        let direct =
            serve_client_with_lifecycle((), TokioChildProcess::new(direct).unwrap(), mode.clone())
                .await
                .unwrap();
        let mut bridged = serve_cmd(config, dir.path(), false);
        bridged.stderr(Stdio::null());
        let bridged =
            serve_client_with_lifecycle((), TokioChildProcess::new(bridged).unwrap(), mode)
                .await
                .unwrap();
        row(label, Arc::new(direct), Arc::new(bridged)).await;
    }

    // HTTP: the demo server's own listener, and the bridge's (with its token).
    let (mut demo_http, addr) = workbench_testkit::demo_over_http(&demo(), dir.path(), &[]).await;
    let direct = http_client(&format!("http://{addr}/mcp"), None).await;
    let mut serve = serve_cmd(&cfg, dir.path(), true);
    serve.stderr(Stdio::piped()).kill_on_drop(true);
    let mut serve = serve.spawn().unwrap();
    let (url, token) = url_and_token(&mut serve).await;
    let bridged = http_client(&url, Some(&token)).await;
    row("http", Arc::new(direct), Arc::new(bridged)).await;
    let _ = demo_http.kill().await;
    let _ = serve.kill().await;
}
