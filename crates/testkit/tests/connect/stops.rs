//! How a server is stopped and restarted: no process of its group left
//! behind, where the next process begins in its stderr, a stop that
//! needed a signal said there, and no broken-pipe traceback from a server
//! whose last writes meet the closed pipe.

use std::time::Duration;

use serde_json::json;

use super::faults::with_healthy;
use super::*;
use workbench_core::testing::RawCalls;

#[tokio::test]
async fn no_process_of_the_group_outlives_a_stop_or_a_restart() {
    let (wb, _dir) = with_healthy(stdio("parent", &["--fault", "grandchild"])).await;
    ready(&wb, "parent").await;
    let h = wb.server("parent").unwrap();
    let pgid = h.pgid().expect("stdio server has a group");
    assert!(group_members(pgid).len() >= 2, "server and its grandchild");
    h.restart().await.unwrap();
    h.wait_for(Duration::from_secs(5), |s| !is_ready(s)).await;
    ready(&wb, "parent").await;
    assert!(
        group_members(pgid).is_empty(),
        "restart left {:?}",
        group_members(pgid)
    );
    let pgid2 = h.pgid().unwrap();
    wb.shutdown().await;
    assert!(
        group_members(pgid2).is_empty(),
        "stop left {:?}",
        group_members(pgid2)
    );
    let healthy_gone = wb.server("healthy").unwrap().pgid().is_none();
    assert!(healthy_gone);
}

#[tokio::test]
async fn dropping_the_workbench_ends_every_process() {
    let (wb, _dir) = start(&[stdio("a", &["--fault", "grandchild"]), stdio("b", &[])]).await;
    ready(&wb, "a").await;
    ready(&wb, "b").await;
    let groups: Vec<u32> = wb.servers().iter().filter_map(|s| s.pgid()).collect();
    assert_eq!(groups.len(), 2);
    drop(wb);
    let mut left = Vec::new();
    for _ in 0..60 {
        left = groups.iter().flat_map(|g| group_members(*g)).collect();
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A server that answers a call after a while and writes once more when its
/// stdin ends (the Python SDK does both as it shuts down); it says on stderr
/// when a write meets a closed pipe.
const WRITES_LATE: &str = r#"
import json, sys, time
def say(m):
    try:
        print(json.dumps(m), flush=True)
    except BrokenPipeError:
        print("BROKEN PIPE", file=sys.stderr, flush=True)
        sys.exit(1)
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m = msg.get("method")
    if m == "initialize":
        r = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "x", "version": "1"}}
    elif m == "tools/list":
        r = {"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}
    elif m == "tools/call":
        time.sleep(0.15)
        r = {"content": [{"type": "text", "text": "late"}]}
    else:
        r = {}
    say({"jsonrpc": "2.0", "id": msg["id"], "result": r})
say({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "bye"}})
"#;

#[tokio::test]
async fn a_restart_marks_in_stderr_where_the_next_process_begins_and_breaks_no_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("server.py");
    std::fs::write(&script, WRITES_LATE).unwrap();
    let entry = json!({ "command": "python3", "args": [script] });
    let cfg = config(dir.path(), &[("py".to_string(), entry)]);
    let wb = Workbench::start(&cfg, fast());
    ready(&wb, "py").await;
    wb.traffic().record_stderr("py", "first process's own line");
    let h = wb.server("py").unwrap();
    let markers = |wb: &Workbench| {
        wb.traffic()
            .last_stderr("py", 50)
            .iter()
            .filter(|l| l.contains("──── restarted: process"))
            .count()
    };
    for n in 1..=2 {
        // A call under way when the reload comes (Re-run on reload, the
        // window reading the lists): its answer meets the old pipe.
        let wb2 = wb.clone();
        let call = tokio::spawn(async move {
            wb2.call_tool("py", "slow", json!({}), Default::default())
                .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        h.restart().await.unwrap();
        let _ = call.await;
        for _ in 0..100 {
            if markers(&wb) >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ready(&wb, "py").await;
    }
    // Let the old processes' last writes and stderr arrive.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let stderr = wb.traffic().last_stderr("py", 50).join("\n");
    assert!(!stderr.contains("BROKEN PIPE"), "{stderr}");
    assert_eq!(
        stderr.matches("──── restarted: process").count(),
        2,
        "{stderr}"
    );
    wb.shutdown().await;
}

/// A server that stays up past its stdin's end.
const OUTLIVES_STDIN: &str = include_str!("../../../../tests/fixtures/outlives_stdin.py");

/// A restart of a server that outlives its stdin's close says, in its
/// stderr, that a signal had to end it: each restart waited on it.
#[tokio::test]
async fn a_stop_that_needed_a_signal_is_said_in_the_servers_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("server.py");
    std::fs::write(&script, OUTLIVES_STDIN).unwrap();
    let entry = json!({ "command": "python3", "args": [script] });
    let cfg = config(dir.path(), &[("lingers".to_string(), entry)]);
    let wb = Workbench::start(&cfg, fast());
    ready(&wb, "lingers").await;
    wb.server("lingers").unwrap().restart().await.unwrap();
    let said = "──── stopped: still running 0.3 s after its stdin closed; SIGTERM ended it ────";
    let mut stderr = String::new();
    for _ in 0..100 {
        stderr = wb.traffic().last_stderr("lingers", 50).join("\n");
        if stderr.contains(said) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(stderr.contains(said), "{stderr}");
    wb.shutdown().await;
}

/// The same on the official Python SDK (`MCPWB_PYTHON`, set by `cargo xtask
/// test`), which printed a 50-line BrokenPipeError traceback into stderr at
/// each reload when its last writes met a closed pipe.
#[tokio::test]
async fn the_python_sdk_restarted_under_a_call_prints_no_traceback() {
    let dir = tempfile::tempdir().unwrap();
    let script = include_str!("../../../../tests/fixtures/sdk_tools_from_file.py");
    let Some(entry) = python_sdk_server(dir.path(), script, json!({})) else {
        return;
    };
    std::fs::write(dir.path().join("tools.json"), r#"[{"name": "hello"}]"#).unwrap();
    let cfg = config(dir.path(), &[("py".to_string(), entry)]);
    let wb = Workbench::start(&cfg, fast());
    ready(&wb, "py").await;
    wb.traffic().record_stderr("py", "first process's own line");
    let h = wb.server("py").unwrap();
    for n in 1..=3 {
        let wb2 = wb.clone();
        let call = tokio::spawn(async move {
            wb2.call_tool("py", "hello", json!({}), Default::default())
                .await
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        h.restart().await.unwrap();
        let _ = call.await;
        // The new process has begun (its separator is written) before the
        // next restart: on a loaded machine Python starts slower than a
        // fixed wait, and a restart of a server still starting is one.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while wb
            .traffic()
            .last_stderr("py", 500)
            .join("\n")
            .matches("──── restarted: process")
            .count()
            < n
            && std::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ready(&wb, "py").await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let stderr = wb.traffic().last_stderr("py", 500).join("\n");
    assert!(
        !stderr.contains("Traceback") && !stderr.contains("BrokenPipe"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("──── restarted: process").count(),
        3,
        "{stderr}"
    );
    wb.shutdown().await;
}
