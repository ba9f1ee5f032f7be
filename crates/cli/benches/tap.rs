//! The tap against going direct: echo calls per second from a bare rmcp
//! client to the demo server straight, and through `mcpwb tap` (recording
//! on, into a throwaway store), over stdio in both protocol eras and over
//! Streamable HTTP (`mcpwb tap --to`), sequential and 64 in flight. Prints figures and the ratio tap/direct
//! (the target: at least 0.9); asserts nothing. `cargo xtask bench`.
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
use tokio::io::AsyncBufReadExt;

const MCPWB: &str = env!("CARGO_BIN_EXE_mcpwb");
const BATCHES: usize = 10;
const SEQ: usize = 300;
const CONC: usize = 1_500;

#[path = "echo/mod.rs"]
mod calls;
use calls::{Client, batch as timed, echo as call};

fn message(i: usize) -> String {
    format!("m{i}")
}

async fn echo(c: &Client, i: usize) {
    call(c, "echo", message, i).await
}

async fn batch(c: &Arc<Client>, n: usize, concurrent: bool) -> Duration {
    timed(c, "echo", message, n, concurrent).await
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let demo = workbench_testkit::demo_server_path();
    println!(
        "echo through mcpwb tap (recording) vs straight to the demo server (target: ratio >= 0.9)"
    );
    for (label, mode) in [
        ("stdio 2025", ClientLifecycleMode::Initialize),
        (
            "stdio 2026",
            ClientLifecycleMode::Discover {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            },
        ),
    ] {
        let mut direct = tokio::process::Command::new(&demo);
        direct.stderr(Stdio::null());
        let direct = Arc::new(
            serve_client_with_lifecycle((), TokioChildProcess::new(direct).unwrap(), mode.clone())
                .await
                .unwrap(),
        );
        let mut tapped = tokio::process::Command::new(MCPWB);
        tapped
            .arg("tap")
            .arg("--")
            .arg(&demo)
            .env("HOME", dir.path())
            .env("MCPWB_DATA_DIR", dir.path().join("data"))
            .stderr(Stdio::null());
        let tapped = Arc::new(
            serve_client_with_lifecycle((), TokioChildProcess::new(tapped).unwrap(), mode)
                .await
                .unwrap(),
        );
        compare(label, &direct, &tapped).await;
    }
    // Streamable HTTP: the demo server on a loopback port, `mcpwb tap --to`
    // in front of it.
    let port_file = dir.path().join("demo-addr");
    let mut demo_http = tokio::process::Command::new(&demo)
        .args(["--http", "127.0.0.1:0", "--port-file"])
        .arg(&port_file)
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut addr = String::new();
    for _ in 0..400 {
        addr = std::fs::read_to_string(&port_file).unwrap_or_default();
        if !addr.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let url = format!("http://{addr}/mcp");
    let mut tap = tokio::process::Command::new(MCPWB)
        .args(["--json", "tap", "--to", &url])
        .env("HOME", dir.path())
        .env("MCPWB_DATA_DIR", dir.path().join("data"))
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-bench-tap-{}", std::process::id()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut first = String::new();
    tokio::io::BufReader::new(tap.stdout.take().unwrap())
        .read_line(&mut first)
        .await
        .unwrap();
    let said: serde_json::Value = serde_json::from_str(&first).unwrap();
    let tapped_url = said["url"].as_str().unwrap().to_string();
    let http = |u: &str| {
        ().serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(u.to_string()),
        ))
    };
    let direct = Arc::new(http(&url).await.unwrap());
    let tapped = Arc::new(http(&tapped_url).await.unwrap());
    compare("HTTP", &direct, &tapped).await;
    let _ = demo_http.kill().await;
    let _ = tap.kill().await;
}

/// Batches on both clients in turns; the figures and the median ratio.
async fn compare(label: &str, direct: &Arc<Client>, tapped: &Arc<Client>) {
    for i in 0..100 {
        echo(direct, i).await;
        echo(tapped, i).await;
    }
    for (what, concurrent) in [("sequential", false), ("64 in flight", true)] {
        let n = if concurrent { CONC } else { SEQ };
        let mut ratios = Vec::new();
        let (mut td, mut tt) = (Duration::ZERO, Duration::ZERO);
        for b in 0..BATCHES {
            let (d, t) = if b % 2 == 0 {
                let d = batch(direct, n, concurrent).await;
                (d, batch(tapped, n, concurrent).await)
            } else {
                let t = batch(tapped, n, concurrent).await;
                (batch(direct, n, concurrent).await, t)
            };
            ratios.push(d.as_secs_f64() / t.as_secs_f64());
            td += d;
            tt += t;
        }
        ratios.sort_by(f64::total_cmp);
        let calls = (BATCHES * n) as f64;
        println!(
            "{label:<10} {what:<13} direct {:>8.0} calls/s   through the tap {:>8.0} calls/s   ratio {:.2} (median of {BATCHES} batches)",
            calls / td.as_secs_f64(),
            calls / tt.as_secs_f64(),
            ratios[BATCHES / 2]
        );
    }
}
