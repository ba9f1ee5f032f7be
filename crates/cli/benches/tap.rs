//! The tap against going direct: echo calls per second from a bare rmcp
//! client to the demo server straight, and through `mcpwb tap` (recording
//! on, into a throwaway store), over stdio in both protocol eras,
//! sequential and 64 in flight. Prints figures and the ratio tap/direct
//! (the target: at least 0.9); asserts nothing. `cargo xtask bench`.
//!
//! Both clients are connected at once and take turns batch by batch (the
//! order flipping each batch), so drift in the machine's load falls on both.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{ClientLifecycleMode, RunningService, serve_client_with_lifecycle};
use rmcp::transport::TokioChildProcess;
use serde_json::json;

const MCPWB: &str = env!("CARGO_BIN_EXE_mcpwb");
const BATCHES: usize = 10;
const SEQ: usize = 300;
const CONC: usize = 1_500;
const IN_FLIGHT: usize = 64;

type Client = RunningService<RoleClient, ()>;

async fn echo(c: &Client, i: usize) {
    let params = CallToolRequestParams::new("echo").with_arguments(
        json!({ "message": format!("m{i}") })
            .as_object()
            .cloned()
            .unwrap(),
    );
    c.call_tool(params).await.unwrap();
}

async fn batch(c: &Arc<Client>, n: usize, concurrent: bool) -> Duration {
    let started = Instant::now();
    if concurrent {
        let sem = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
        let mut tasks = Vec::with_capacity(n);
        for i in 0..n {
            let permit = sem.clone().acquire_owned().await.unwrap();
            let c = c.clone();
            tasks.push(tokio::spawn(async move {
                echo(&c, i).await;
                drop(permit);
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    } else {
        for i in 0..n {
            echo(c, i).await
        }
    }
    started.elapsed()
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
        for i in 0..100 {
            echo(&direct, i).await;
            echo(&tapped, i).await;
        }
        for (what, concurrent) in [("sequential", false), ("64 in flight", true)] {
            let n = if concurrent { CONC } else { SEQ };
            let mut ratios = Vec::new();
            let (mut td, mut tt) = (Duration::ZERO, Duration::ZERO);
            for b in 0..BATCHES {
                let (d, t) = if b % 2 == 0 {
                    let d = batch(&direct, n, concurrent).await;
                    (d, batch(&tapped, n, concurrent).await)
                } else {
                    let t = batch(&tapped, n, concurrent).await;
                    (batch(&direct, n, concurrent).await, t)
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
}
