//! A call is not lost to a restart the workbench can wait for: one made
//! while its server restarts waits and is answered; one in flight when its
//! server dies is sent again once only when the tool cannot act twice.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use workbench_core::connect::ServerState;
use workbench_core::workbench::CallSink;
use workbench_core::{CallOptions, ErrorCode};

use super::*;
use workbench_core::testing::RawCalls;

fn kill(pgid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    assert!(status.success());
}

#[derive(Default)]
struct Waits(Mutex<Vec<String>>);

impl CallSink for Waits {
    fn waiting(&self, server: &str, state: &str) {
        self.0.lock().unwrap().push(format!("{server}: {state}"));
    }
}

/// How many times `name` ended (a failure or a restart noted in its life).
fn deaths(wb: &Workbench, name: &str) -> usize {
    wb.server(name)
        .unwrap()
        .life()
        .iter()
        .filter(|e| e.state == "restarting")
        .count()
}

#[tokio::test]
async fn a_call_made_while_its_server_restarts_waits_for_it_and_is_answered() {
    let (wb, dir) = start(&[stdio("s", &[])]).await;
    ready(&wb, "s").await;
    let h = wb.server("s").unwrap();
    kill(h.pgid().unwrap());
    h.wait_for(Duration::from_secs(5), |s| {
        matches!(
            s,
            ServerState::Restarting { .. } | ServerState::Starting { .. }
        )
    })
    .await
    .expect("the death is seen");
    // Through the one call path, as the window's Run makes it: the
    // History row says what happened on the way.
    let calls = workbench_calls::Calls::new(
        wb.clone(),
        workbench_core::ToolCaller::for_tests(),
        workbench_calls::CallsOptions {
            settings: workbench_core::settings::SettingsFile::new(dir.path().join("settings.json")),
            store: Some(workbench_store::Store::open_in(dir.path()).unwrap()),
        },
    );
    let waits = Arc::new(Waits::default());
    let ran = calls
        .run(workbench_calls::Call {
            consent: None,
            origin: workbench_calls::Origin::Window,
            server: "s",
            tool: "add",
            arguments: json!({ "a": 2, "b": 3 }),
            definition: None,
            link: Default::default(),
            options: CallOptions {
                sink: Some(waits.clone()),
                ..Default::default()
            },
        })
        .await;
    // The answer names its row by the key made before the call; the row
    // itself is written off the answer's path.
    let key = ran.key.clone().expect("kept");
    let out = ran.outcome.expect("answered after the restart");
    assert_eq!(out.result["structuredContent"]["sum"], 5.0);
    let said = waits.0.lock().unwrap().clone();
    assert!(
        said.len() == 1 && (said[0].contains("restarting") || said[0].contains("starting")),
        "{said:?}"
    );
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("waited") && n.contains("s to restart")),
        "{:?}",
        out.notes
    );
    calls.flush().await;
    let row = workbench_store::Store::open_in(dir.path())
        .unwrap()
        .call_by_key(&key)
        .unwrap()
        .expect("the row has the key the answer named");
    assert_eq!((row.server.as_str(), row.tool.as_str()), ("s", "add"));
    assert_eq!(row.notes, out.notes, "the History row says it");
    wb.shutdown().await;
}

#[tokio::test]
async fn a_stopped_server_is_not_waited_for() {
    let (wb, _dir) = start(&[stdio("s", &[])]).await;
    ready(&wb, "s").await;
    wb.server("s").unwrap().stop().await;
    let started = std::time::Instant::now();
    let err = wb
        .call_tool(
            "s",
            "echo",
            json!({ "message": "x" }),
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::ServerNotReady, "{err}");
    assert!(started.elapsed() < Duration::from_secs(1));
    wb.shutdown().await;
}

#[tokio::test]
async fn a_call_in_flight_when_its_server_dies_is_sent_again_only_if_it_cannot_act_twice() {
    // The server exits on every tool call: a read-only tool's call is sent
    // again once (two deaths), another tool's never (one death).
    for (tool, arguments, expected) in [
        ("echo", json!({ "message": "x" }), 2),
        ("long_task", json!({ "steps": 1, "step_ms": 0 }), 1),
    ] {
        let (wb, _dir) = start(&[stdio("crashy", &["--fault", "crash-on-call"])]).await;
        ready(&wb, "crashy").await;
        // Its tools listed: what the annotations say is known.
        for _ in 0..100 {
            if wb.catalog().tool("crashy", tool).is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let err = wb
            .call_tool("crashy", tool, arguments, CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Transport, "{tool}: {err}");
        assert!(err.to_string().contains("in flight"), "{tool}: {err}");
        // Back after the last death, and nothing sent since.
        ready(&wb, "crashy").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(deaths(&wb, "crashy"), expected, "{tool}");
        wb.shutdown().await;
    }
}

/// A remote server restarted behind its address (a new process that knows
/// none of the old sessions) is back with no one's action: in the era with
/// sessions (2025-11-25, a 404 for the old one) and the sessionless one.
#[tokio::test]
async fn a_remote_server_restarted_behind_http_is_back_by_itself() {
    for era in [&["--legacy"][..], &[][..]] {
        let mut http = http_demo(era).await;
        let addr = http
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string();
        let (wb, _dir) = start(&[(
            "remote".to_string(),
            json!({ "type": "http", "url": http.url }),
        )])
        .await;
        ready(&wb, "remote").await;
        let echo = |m: &str| {
            let wb = wb.clone();
            let m = m.to_string();
            async move {
                wb.call_tool(
                    "remote",
                    "echo",
                    json!({ "message": m }),
                    CallOptions::default(),
                )
                .await
            }
        };
        echo("before").await.unwrap();
        http.child.kill().unwrap();
        http.child.wait().unwrap();
        // Time passes while a server restarts, and a client's runtime runs
        // meanwhile: its pooled keep-alive connection to the dead process is
        // seen closed. This test's runtime has one thread, blocked in the
        // waits above: without this yield the pool could hand out that
        // connection before it ever polled its close (one CI run failed so).
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut again = std::process::Command::new(BIN)
            .args(["--http", &addr])
            .args(era)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Listening again.
        for _ in 0..200 {
            if std::net::TcpStream::connect(&addr).is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let out = echo("after").await;
        let _ = again.kill();
        let _ = again.wait();
        let out =
            out.unwrap_or_else(|e| panic!("{era:?}: the first call after the restart failed: {e}"));
        assert_eq!(out.result["content"][0]["text"], "after", "{era:?}");
        wb.shutdown().await;
    }
}

/// A Streamable HTTP session the workbench ends — the server stopped, or
/// the workbench closed — is ended at the server too: a DELETE with its id,
/// so the server frees it at once instead of keeping it until it expires.
#[tokio::test]
async fn an_http_session_the_workbench_ends_is_deleted_at_the_server() {
    let logs = tempfile::tempdir().unwrap();
    for how in ["stop", "close"] {
        let log = logs.path().join(format!("{how}.log"));
        let http = http_demo(&["--legacy", "--requests-log", log.to_str().unwrap()]).await;
        let (wb, _dir) = start(&[(
            "remote".to_string(),
            json!({ "type": "http", "url": http.url }),
        )])
        .await;
        ready(&wb, "remote").await;
        wb.call_tool(
            "remote",
            "echo",
            json!({ "message": "x" }),
            CallOptions::default(),
        )
        .await
        .unwrap();
        let read = || std::fs::read_to_string(&log).unwrap_or_default();
        let session = read()
            .lines()
            .filter_map(|l| l.strip_prefix("POST "))
            .find(|id| *id != "-")
            .expect("the calls carried a session id")
            .to_string();
        assert!(!read().contains("DELETE"), "{}", read());
        if how == "stop" {
            wb.server("remote").unwrap().stop().await;
        } else {
            wb.shutdown().await;
        }
        let deleted = format!("DELETE {session}");
        for _ in 0..100 {
            if read().lines().any(|l| l == deleted) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            read().lines().any(|l| l == deleted),
            "{how}: no DELETE of {session}:\n{}",
            read()
        );
        wb.shutdown().await;
    }
}
