use std::time::{Duration, Instant};

use serde_json::json;
use workbench_core::connect::ServerState;
use workbench_core::traffic::{Direction, MessageKind};
use workbench_core::{CallOptions, ErrorCode};

use super::*;
use workbench_core::testing::RawCalls;

/// Every fault test runs beside a healthy server that must be unaffected.
pub async fn with_healthy(faulty: (String, Value)) -> (Workbench, tempfile::TempDir) {
    start(&[faulty, stdio("healthy", &[])]).await
}

pub async fn healthy_still_works(wb: &Workbench) {
    ready(wb, "healthy").await;
    let out = wb
        .call_tool(
            "healthy",
            "echo",
            json!({ "message": "fine" }),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "fine");
}

fn restarting_or_failed(s: &ServerState) -> bool {
    matches!(
        s,
        ServerState::Restarting { .. } | ServerState::Failed { .. }
    )
}

#[tokio::test]
async fn exit_at_start_is_reported_with_its_stderr_and_retried_with_backoff() {
    let (wb, _dir) = with_healthy(stdio("broken", &["--fault", "exit-at-start"])).await;
    let h = wb.server("broken").unwrap();
    let s = h
        .wait_for(Duration::from_secs(10), |s| {
            matches!(s, ServerState::Restarting { attempt: 2.., .. })
        })
        .await
        .expect("retried");
    let ServerState::Restarting {
        reason,
        stderr,
        next_try_in_ms,
        ..
    } = s.state
    else {
        unreachable!()
    };
    assert!(
        reason.contains("status 3") || reason.contains("handshake"),
        "{reason}"
    );
    assert!(
        stderr.iter().any(|l| l.contains("exit-at-start")),
        "{stderr:?}"
    );
    assert!(next_try_in_ms >= 400, "backoff doubles: {next_try_in_ms}");
    // Its life is kept, each failure with its code: the process exited
    // during the handshake.
    let life = h.life();
    let failures: Vec<_> = life.iter().filter(|e| e.state == "failed").collect();
    assert!(failures.len() >= 2, "{life:?}");
    assert!(
        failures
            .iter()
            .all(|e| e.code == Some(workbench_core::connect::FailureCode::Exited)),
        "{life:?}"
    );
    assert_eq!(life[0].state, "starting");
    assert!(
        life.iter()
            .any(|e| e.state == "restarting" && e.attempt == Some(2)),
        "{life:?}"
    );
    healthy_still_works(&wb).await;
    wb.shutdown().await;
    assert_eq!(
        h.status().state,
        ServerState::Stopped,
        "a stopped server is not restarted"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(h.status().state, ServerState::Stopped);
}

/// A server that exits at every start is tried five times in a row, then
/// left failed, saying so, until the person restarts it (one more try).
#[tokio::test]
async fn a_server_failing_every_start_is_left_after_five_tries_until_restarted() {
    let (wb, _dir) = with_healthy(stdio("broken", &["--fault", "exit-at-start"])).await;
    let h = wb.server("broken").unwrap();
    let given_up = |s: &ServerState| matches!(s, ServerState::Failed { reason, .. } if reason.contains("not tried again"));
    let s = h
        .wait_for(Duration::from_secs(20), given_up)
        .await
        .expect("left failed after its tries");
    let ServerState::Failed { reason, .. } = &s.state else {
        unreachable!()
    };
    assert!(reason.contains("5 times in a row"), "{reason}");
    let starts = |h: &workbench_core::connect::ServerHandle| {
        h.life().iter().filter(|e| e.state == "starting").count()
    };
    assert_eq!(starts(&h), 5, "{:?}", h.life());
    // Longer than the longest backoff (2 s here): not tried again.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(starts(&h), 5, "{:?}", h.life());
    assert!(given_up(&h.status().state), "{:?}", h.status());
    // Restarted by the person: tried once more, then left again.
    h.restart().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(starts(&h), 6, "{:?}", h.life());
    assert!(given_up(&h.status().state), "{:?}", h.status());
    healthy_still_works(&wb).await;
}

/// A server that dies right after its handshake, every time, is restarted
/// ever later as the backoff grows: a session that short is no good start.
/// (It was started again every first delay, for as long as the window was
/// open.)
#[tokio::test]
async fn a_server_dying_after_each_handshake_is_restarted_ever_later() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/dies_after_handshake.py"
    );
    let entry = (
        "dies".to_string(),
        serde_json::json!({ "command": "python3", "args": [script] }),
    );
    let (wb, _dir) = with_healthy(entry).await;
    let h = wb.server("dies").unwrap();
    // The delays here start at 200 ms and stop growing at 2 s.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let life = h.life();
    let readies = life.iter().filter(|e| e.state == "ready").count();
    let attempts: Vec<u32> = life
        .iter()
        .filter(|e| e.state == "restarting")
        .filter_map(|e| e.attempt)
        .collect();
    assert!(readies >= 3, "it did come up each time: {life:?}");
    assert!(
        attempts.windows(2).all(|w| w[1] == w[0] + 1) && attempts.last() >= Some(&4),
        "the attempts count up, not from 1 each time: {attempts:?}"
    );
    // 200 + 400 + 800 + 1600 + 2000 ms: six starts at most in 6 s, where
    // a first delay each time made more than twenty.
    assert!(readies <= 7, "{readies} starts in 6 s: {life:?}");
    healthy_still_works(&wb).await;
}

#[tokio::test]
async fn a_crash_mid_call_fails_the_call_at_once_and_the_server_restarts() {
    let (wb, _dir) = with_healthy(stdio("crashy", &["--fault", "crash-on-call"])).await;
    ready(&wb, "crashy").await;
    let started = Instant::now();
    let err = wb
        .call_tool(
            "crashy",
            "echo",
            json!({ "message": "x" }),
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    let failed_after = started.elapsed();
    assert_eq!(err.code(), ErrorCode::Transport, "{err}");
    let h = wb.server("crashy").unwrap();
    let s = h
        .wait_for(Duration::from_secs(5), restarting_or_failed)
        .await
        .expect("crash detected");
    let detected_after = started.elapsed();
    println!("crash: call failed after {failed_after:?}, state changed after {detected_after:?}");
    assert!(detected_after < Duration::from_secs(2));
    let (ServerState::Failed { reason, .. } | ServerState::Restarting { reason, .. }) = &s.state
    else {
        unreachable!()
    };
    assert!(
        reason.contains("101") || reason.contains("closed"),
        "{reason}"
    );
    // It comes back by itself.
    ready(&wb, "crashy").await;
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_hung_call_times_out_and_the_server_stays_usable() {
    let (wb, _dir) = with_healthy(stdio("hangs", &["--fault", "hang-on-call"])).await;
    ready(&wb, "hangs").await;
    let opts = CallOptions {
        timeout: Some(Duration::from_millis(400)),
        ..Default::default()
    };
    let err = wb
        .call_tool("hangs", "echo", json!({ "message": "x" }), opts)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    let listed = wb
        .request("hangs", "tools/list", json!({}), CallOptions::default())
        .await;
    assert!(listed.is_ok(), "{:?}", listed.err().map(|e| e.to_string()));
    let ping = wb
        .request("hangs", "ping", Value::Null, CallOptions::default())
        .await;
    println!(
        "ping after a hung call: {:?}",
        ping.as_ref().map(|_| ()).map_err(|e| e.to_string())
    );
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_server_that_never_answers_initialize_is_reported_slow_and_stops_cleanly() {
    let (wb, _dir) = with_healthy(stdio("mute", &["--fault", "no-initialize"])).await;
    let h = wb.server("mute").unwrap();
    h.wait_for(Duration::from_secs(10), |s| {
        matches!(s, ServerState::Starting { slow: true })
    })
    .await
    .expect("reported slow");
    healthy_still_works(&wb).await;
    h.stop().await;
    assert_eq!(h.status().state, ServerState::Stopped);
    wb.shutdown().await;
}

#[tokio::test]
async fn garbage_on_stdout_is_logged_and_skipped() {
    let (wb, _dir) = with_healthy(stdio("noisy", &["--fault", "garbage-stdout"])).await;
    ready(&wb, "noisy").await;
    let out = wb
        .call_tool(
            "noisy",
            "echo",
            json!({ "message": "ok" }),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "ok");
    let invalid: Vec<_> = wb
        .traffic()
        .entries(Some("noisy"))
        .into_iter()
        .filter(|e| e.kind == MessageKind::Invalid)
        .collect();
    assert!(
        invalid
            .iter()
            .any(|e| e.body == "this line is not JSON-RPC"),
        "{invalid:?}"
    );
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_stderr_flood_is_drained_bounded_and_does_not_stall_the_server() {
    let (wb, _dir) = with_healthy(stdio("flood", &["--fault", "flood-stderr"])).await;
    ready(&wb, "flood").await;
    for i in 0..20 {
        let out = wb
            .call_tool(
                "flood",
                "echo",
                json!({ "message": i.to_string() }),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(out.result["content"][0]["text"], i.to_string());
    }
    let n = wb.traffic().entries(Some("flood")).len();
    assert!(n <= 2_000, "bounded ring: {n}");
    assert!(!wb.traffic().last_stderr("flood", 1).is_empty());
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn a_twenty_megabyte_result_arrives_whole_when_the_entry_allows_it() {
    let (name, mut entry) = stdio("huge", &["--fault", "huge-result"]);
    entry["maxMessageSize"] = json!(32 * 1024 * 1024);
    let (wb, _dir) = with_healthy((name, entry)).await;
    ready(&wb, "huge").await;
    let out = wb
        .call_tool(
            "huge",
            "echo",
            json!({ "message": "x" }),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        out.result["content"][0]["text"].as_str().unwrap().len(),
        20 * 1024 * 1024
    );
    let entry = wb
        .traffic()
        .entries(Some("huge"))
        .into_iter()
        .rev()
        .find(|e| e.method.as_deref() == Some("tools/call"))
        .unwrap();
    assert!(entry.truncated && entry.size as usize > 20 * 1024 * 1024);
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn after_an_http_session_is_dropped_calls_go_on_on_a_new_session() {
    // Sessions (Mcp-Session-Id) belong to the 2025-11-25 era of Streamable HTTP.
    let http = http_demo(&["--fault", "drop-session", "--legacy"]).await;
    let (wb, _dir) = with_healthy((
        "remote".to_string(),
        json!({ "type": "http", "url": http.url }),
    ))
    .await;
    ready(&wb, "remote").await;
    // A subscription the session holds: sent again on the new one.
    wb.subscribe_resource("remote", "demo://readme", true)
        .await
        .unwrap();
    let subscribes = || {
        wb.traffic()
            .entries(Some("remote"))
            .iter()
            .filter(|e| {
                e.direction == Direction::Outgoing
                    && e.method.as_deref() == Some("resources/subscribe")
            })
            .count()
    };
    assert_eq!(subscribes(), 1);
    wb.call_tool(
        "remote",
        "echo",
        json!({ "message": "first" }),
        CallOptions::default(),
    )
    .await
    .unwrap();
    // The server now answers 404 to that session. The next call either fails
    // with a clear error or goes through on a new session; it never hangs.
    let opts = CallOptions {
        timeout: Some(Duration::from_secs(5)),
        ..Default::default()
    };
    match wb
        .call_tool("remote", "echo", json!({ "message": "second" }), opts)
        .await
    {
        Ok(out) => assert_eq!(out.result["content"][0]["text"], "second"),
        Err(e) => {
            println!("after the session was dropped: {e}");
            assert!(
                matches!(
                    e.code(),
                    ErrorCode::Transport | ErrorCode::ServerNotReady | ErrorCode::ServerError
                ),
                "{e}"
            );
        }
    }
    let mut again = None;
    for _ in 0..100 {
        if let Ok(out) = wb
            .call_tool("remote", "add", json!({ "a": 1 }), CallOptions::default())
            .await
        {
            again = Some(out);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        again.expect("a new session works").result["structuredContent"]["sum"],
        2.0
    );
    // The new session's handshake is in the log: the tap sits below rmcp's
    // HTTP worker, which re-initializes an expired session by itself.
    let handshakes = wb
        .traffic()
        .entries(Some("remote"))
        .iter()
        .filter(|e| e.direction == Direction::Outgoing && e.method.as_deref() == Some("initialize"))
        .count();
    assert!(handshakes >= 2, "initialize sent {handshakes} time(s)");
    // The subscription is sent again on each new session (this server drops
    // every session once it answered a tool call).
    let renewals = || {
        wb.traffic()
            .entries(Some("remote"))
            .iter()
            .filter(|e| e.body == workbench_core::connect::httptap::SESSION_RENEWED)
            .count()
    };
    // The subscription is held by the session the server knows now: one
    // went out after the last renewal (a renewal that came while one was on
    // its way may take it again: at least one a renewal, never none).
    let subscribed_since_renewal = || {
        let entries = wb.traffic().entries(Some("remote"));
        let last_renewal = entries
            .iter()
            .rposition(|e| e.body == workbench_core::connect::httptap::SESSION_RENEWED);
        let last_subscribe = entries.iter().rposition(|e| {
            e.direction == Direction::Outgoing && e.method.as_deref() == Some("resources/subscribe")
        });
        matches!((last_renewal, last_subscribe), (Some(r), Some(s)) if s > r)
    };
    for _ in 0..100 {
        if subscribed_since_renewal() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(renewals() >= 1);
    assert!(
        subscribed_since_renewal(),
        "no subscription sent after the last renewal ({} subscribes, {} renewals)",
        subscribes(),
        renewals()
    );
    assert!(subscribes() >= 2, "sent again at least once");
    // Said in its Events.
    assert!(
        wb.traffic()
            .entries(Some("remote"))
            .iter()
            .any(|e| e.direction == Direction::Note
                && e.body.contains("no longer knows this session")),
        "no note of the new session"
    );
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}

#[tokio::test]
async fn restart_false_in_the_config_leaves_a_crashed_server_failed() {
    let (name, mut entry) = stdio("no-restart", &["--fault", "exit-at-start"]);
    entry["restart"] = json!(false);
    let (wb, _dir) = with_healthy((name.clone(), entry)).await;
    let h = wb.server(&name).unwrap();
    let s = h
        .wait_for(Duration::from_secs(10), |s| {
            matches!(s, ServerState::Failed { .. })
        })
        .await;
    assert!(s.is_some(), "{:?}", h.status().state);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(
        matches!(h.status().state, ServerState::Failed { .. }),
        "not retried: {:?}",
        h.status().state
    );
    // The user can still start it by hand.
    h.restart().await.unwrap();
    h.wait_for(Duration::from_secs(5), |s| {
        matches!(s, ServerState::Starting { .. } | ServerState::Failed { .. })
    })
    .await;
    healthy_still_works(&wb).await;
    wb.shutdown().await;
}
