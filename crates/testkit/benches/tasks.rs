//! What waiting for a task costs the workbench: its process's CPU time while
//! a call waits on a task its server polls at 50 ms, against the same time
//! with the same servers connected and nothing running (the baseline, in the
//! same run). In both forms: the 2026-07-28 extension (the demo server) and
//! 2025-11-25 (the hand-written server, which also sends a status
//! notification on each change). Target: under 1% of one core. Prints
//! figures; asserts nothing. `cargo xtask bench`.

use std::time::{Duration, Instant};

use serde_json::json;
use workbench_core::config::ConfigFile;
use workbench_core::testing::RawCalls;
use workbench_core::{CallOptions, Workbench, WorkbenchOptions};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");
/// How long each measurement waits.
const WAIT: Duration = Duration::from_secs(8);
const POLL_MS: u64 = 50;

/// This process's CPU time so far (user + system, every thread).
fn cpu() -> Duration {
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_SELF).unwrap();
    let tv =
        |t: nix::sys::time::TimeVal| Duration::new(t.tv_sec() as u64, t.tv_usec() as u32 * 1000);
    tv(usage.user_time()) + tv(usage.system_time())
}

/// CPU used over `f`, as a share of one core of its wall time.
async fn share<F: std::future::Future>(f: F) -> (f64, F::Output) {
    let (c0, t0) = (cpu(), Instant::now());
    let out = f.await;
    let (c, t) = (cpu() - c0, t0.elapsed());
    (c.as_secs_f64() / t.as_secs_f64() * 100.0, out)
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let config = json!({ "mcpServers": {
        "ext": { "command": BIN, "args": ["--name", "ext"] },
        "v2025": { "command": BIN, "args": ["--tasks-2025"] },
    }});
    std::fs::write(&path, config.to_string()).unwrap();
    let wb = Workbench::start(
        &ConfigFile::load(&path).unwrap(),
        WorkbenchOptions::default(),
    );
    wb.settle(Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (idle, _) = share(tokio::time::sleep(WAIT)).await;
    println!(
        "waiting on a task polled every {POLL_MS} ms, {} s each, CPU of the workbench's process as a share of one core:",
        WAIT.as_secs()
    );
    println!("  baseline (the same servers connected, nothing running): {idle:.2}%");
    for (server, form) in [("ext", "2026-07-28 extension"), ("v2025", "2025-11-25")] {
        let args = json!({ "steps": 1, "step_ms": WAIT.as_millis() as u64, "poll_ms": POLL_MS });
        let (used, out) = share(Box::pin(wb.call_tool(
            server,
            "task_batch",
            args,
            CallOptions::default(),
        )))
        .await;
        let out = out.unwrap();
        let polls = wb
            .traffic()
            .entries(Some(server))
            .iter()
            .filter(|e| e.method.as_deref() == Some("tasks/get") && e.latency_ms.is_none())
            .count();
        println!(
            "  {form}: {used:.2}% ({:.2} points over the baseline; target < 1%), {polls} tasks/get sent, task {}",
            used - idle,
            out.task.map(|t| t.status).unwrap_or_default()
        );
    }
    wb.shutdown().await;
}
