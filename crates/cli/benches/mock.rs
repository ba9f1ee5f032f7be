//! The mock against the server it stands in for: echo calls per second from
//! a bare rmcp client to the demo server, and to `mcpwb mock` serving a
//! session kept by the tap of that same server (the call it answers was
//! recorded), over stdio, sequential and 64 in flight. Prints the figures
//! and the ratio mock/server (the target: at least 1.0); asserts nothing.
//! `cargo xtask bench`.
//!
//! Both clients are connected at once and take turns batch by batch (the
//! order flipping each batch), so drift in the machine's load falls on both.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;

const MCPWB: &str = env!("CARGO_BIN_EXE_mcpwb");
const BATCHES: usize = 10;
const SEQ: usize = 300;
const CONC: usize = 1_500;

#[path = "echo/mod.rs"]
mod calls;
use calls::{Client, batch as timed, echo as call};

/// The one call the session recorded, and the mock answers.
fn recorded(_: usize) -> String {
    "recorded".into()
}

async fn echo(c: &Client) {
    call(c, "echo", recorded, 0).await
}

async fn batch(c: &Arc<Client>, n: usize, concurrent: bool) -> Duration {
    timed(c, "echo", recorded, n, concurrent).await
}

fn mcpwb(home: &Path) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(MCPWB);
    c.env("HOME", home)
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-bench-mock-{}", std::process::id()),
        )
        .stderr(Stdio::null());
    c
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let demo = workbench_testkit::demo_server_path();
    println!(
        "echo through mcpwb mock (a kept session) vs the server it stands in for (target: ratio >= 1.0)"
    );
    // Record: the call, through the tap, kept in the store.
    let mut tapped = mcpwb(home);
    tapped.arg("tap").arg("--").arg(&demo);
    let recording = ().serve(TokioChildProcess::new(tapped).unwrap()).await.unwrap();
    echo(&recording).await;
    recording.cancel().await.unwrap();
    // The tap keeps the session's end as it stops.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let listed = mcpwb(home)
        .args(["--json", "session", "list"])
        .output()
        .await
        .unwrap();
    let sessions: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = sessions["sessions"][0]["id"].to_string();

    let mut direct = tokio::process::Command::new(&demo);
    direct.stderr(Stdio::null());
    let direct = Arc::new(
        ().serve(TokioChildProcess::new(direct).unwrap())
            .await
            .unwrap(),
    );
    let mut mock = mcpwb(home);
    mock.args(["mock", &id]);
    let mock = Arc::new(
        ().serve(TokioChildProcess::new(mock).unwrap())
            .await
            .unwrap(),
    );
    for _ in 0..100 {
        echo(&direct).await;
        echo(&mock).await;
    }
    for (what, concurrent) in [("sequential", false), ("64 in flight", true)] {
        let n = if concurrent { CONC } else { SEQ };
        let mut ratios = Vec::new();
        let (mut td, mut tm) = (Duration::ZERO, Duration::ZERO);
        for b in 0..BATCHES {
            let (d, m) = if b % 2 == 0 {
                let d = batch(&direct, n, concurrent).await;
                (d, batch(&mock, n, concurrent).await)
            } else {
                let m = batch(&mock, n, concurrent).await;
                (batch(&direct, n, concurrent).await, m)
            };
            ratios.push(d.as_secs_f64() / m.as_secs_f64());
            td += d;
            tm += m;
        }
        ratios.sort_by(f64::total_cmp);
        let calls = (BATCHES * n) as f64;
        println!(
            "stdio {what:<13} the server {:>8.0} calls/s   the mock {:>8.0} calls/s   ratio {:.2} (median of {BATCHES} batches)",
            calls / td.as_secs_f64(),
            calls / tm.as_secs_f64(),
            ratios[BATCHES / 2]
        );
    }
}
