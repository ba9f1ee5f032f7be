//! The bridge against going direct: echo calls per second from a bare rmcp
//! client to the demo server straight, and through `mcpwb serve` (client →
//! bridge → demo server), over stdio (real process pipes) and over loopback
//! HTTP (the bridge with its token, the demo server's own HTTP mode).
//! Over stdio once per protocol era (every hop in that era). Sequential
//! calls and 64 in flight. Beside them a bare relay that only passes bytes
//! (`echo/relay.rs`): the floor of any hop, so what is ours in the bridge's
//! cost shows apart from what a second hop costs. Prints figures and the
//! ratios (the target: the bridge at least 0.8 of straight); asserts
//! nothing. `cargo xtask bench` (release builds).
//!
//! The clients are connected at once and take turns batch by batch (the
//! order rotating each batch), so drift in the machine's load falls on all.

use std::process::Stdio;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::service::ClientLifecycleMode;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

const MCPWB: &str = env!("CARGO_BIN_EXE_mcpwb");

fn demo() -> std::path::PathBuf {
    workbench_testkit::demo_server_path()
}

#[path = "echo/mod.rs"]
mod calls;
#[path = "echo/race.rs"]
mod race;
#[path = "echo/relay.rs"]
mod relay;
use calls::Client;
use race::{Path, Via, over_stdio, race};

const SEQ: usize = 200;
const CONC: usize = 1_000;
const TARGET: f64 = 0.8;

/// Going straight, through a bare relay, through the bridge asleep between
/// messages (`MCPWB_SPIN_US=0`) and as it runs (where the tool is
/// `s__echo`): echo's paths.
fn paths(direct: Via, relayed: Via, asleep: Via, bridged: Via) -> Vec<Path> {
    let path = |name, (client, pid): Via, tool| Path {
        name,
        client: Arc::new(client),
        tool,
        pid,
    };
    vec![
        path("straight", direct, "echo"),
        path("bare relay", relayed, "echo"),
        path("bridge asleep", asleep, "s__echo"),
        path("the bridge", bridged, "s__echo"),
    ]
}

/// `mcpwb serve` on `cfg`; `awake`: waiting for the next message awake
/// while messages pass, as it does unless told not to.
fn serve_cmd(
    cfg: &str,
    home: &std::path::Path,
    http: bool,
    awake: bool,
) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(MCPWB);
    c.args(["--config", cfg, "--trust", "serve"]);
    if http {
        c.args(["--http", "0"]);
    }
    if !awake {
        c.env("MCPWB_SPIN_US", "0");
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
    ().serve(StreamableHttpClientTransport::with_client(
        workbench_http::client().unwrap(),
        config,
    ))
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

fn main() {
    relay::run_if_asked();
    bench()
}

#[tokio::main]
async fn bench() {
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
    println!(
        "echo through mcpwb serve vs straight to the demo server and through a bare relay (target: the bridge >= {TARGET} of straight)"
    );

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
        let direct = over_stdio(tokio::process::Command::new(demo()), &mode).await;
        let relayed = over_stdio(relay::stdio_command(&demo()), &mode).await;
        let asleep = over_stdio(serve_cmd(config, dir.path(), false, false), &mode).await;
        let bridged = over_stdio(serve_cmd(config, dir.path(), false, true), &mode).await;
        let all = paths(direct, relayed, asleep, bridged);
        race(label, &all, (SEQ, CONC), TARGET).await;
    }

    // HTTP: the demo server's own listener, and the bridge's (with its token).
    let (mut demo_http, addr) = workbench_testkit::demo_over_http(&demo(), dir.path(), &[]).await;
    let direct = (http_client(&format!("http://{addr}/mcp"), None).await, None);
    let (relay, relayed_url) = relay::http_relay(&format!("http://{addr}/mcp"), "/mcp").await;
    let relayed = (http_client(&relayed_url, None).await, relay.id());
    let (mut served, mut served_children) = (Vec::new(), Vec::new());
    for awake in [false, true] {
        let mut serve = serve_cmd(&cfg, dir.path(), true, awake);
        serve.stderr(Stdio::piped()).kill_on_drop(true);
        let mut serve = serve.spawn().unwrap();
        let (url, token) = url_and_token(&mut serve).await;
        served.push((http_client(&url, Some(&token)).await, serve.id()));
        served_children.push(serve);
    }
    let bridged = served.pop().unwrap();
    let asleep = served.pop().unwrap();
    race(
        "http",
        &paths(direct, relayed, asleep, bridged),
        (SEQ, CONC),
        TARGET,
    )
    .await;
    let _ = demo_http.kill().await;
    for mut serve in served_children {
        let _ = serve.kill().await;
    }
}
