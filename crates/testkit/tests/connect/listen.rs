//! A server's changes followed in both eras: on a 2026-07-28 server through
//! the `subscriptions/listen` stream the core keeps open (re-opened with its
//! state after a restart or a change of subscriptions), up to 2025-11-25
//! through its own notifications and `resources/subscribe` (sent again
//! after a restart).

use serde_json::Value;
use workbench_core::events::Event;
use workbench_core::{CallOptions, Workbench};

use super::*;
use workbench_core::testing::RawCalls;

const COUNTER: &str = workbench_testkit::demo::COUNTER_URI;

async fn next_update(rx: &mut tokio::sync::broadcast::Receiver<Event>) -> String {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
            Ok(Ok(Event::ResourceUpdated { uri, .. })) => return uri,
            Ok(Ok(_)) | Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {}
            other => panic!("no resource update came: {other:?}"),
        }
    }
}

async fn bump(wb: &Workbench, server: &str) {
    let out = wb
        .call_tool(
            server,
            "increment_counter",
            Value::Null,
            CallOptions::default(),
        )
        .await;
    if let Err(e) = out {
        let log: Vec<String> = wb
            .traffic()
            .entries(Some(server))
            .iter()
            .rev()
            .take(12)
            .map(|e| {
                format!(
                    "{:?} {}",
                    e.direction,
                    e.body.chars().take(300).collect::<String>()
                )
            })
            .collect();
        panic!(
            "{e}; stderr: {:?}; traffic: {log:#?}",
            wb.traffic().last_stderr(server, 20)
        );
    }
}

async fn restart(wb: &Workbench, server: &str) {
    let h = wb.server(server).unwrap();
    h.restart().await.unwrap();
    h.wait_for(Duration::from_secs(5), |s| !is_ready(s)).await;
    ready(wb, server).await;
}

async fn updates_arrive(wb: &Workbench, server: &str) {
    let mut rx = wb.subscribe();
    wb.subscribe_resource(server, COUNTER, true).await.unwrap();
    // The stream (or the subscription) is in place before the change.
    for _ in 0..100 {
        bump(wb, server).await;
        if let Ok(uri) =
            tokio::time::timeout(Duration::from_millis(300), next_update(&mut rx)).await
        {
            assert_eq!(uri, COUNTER);
            return;
        }
    }
    panic!("{server}: no update of {COUNTER} after subscribing");
}

/// Stopping a 2026-07-28 server cancels its listen stream before its input
/// is closed: the demo (as rmcp's servers do) ends its open requests before
/// it exits on end of input, so it now exits by itself — with a grace of
/// 60 s before SIGTERM, the stop would otherwise take a minute.
#[tokio::test]
async fn a_stopped_server_s_listen_stream_is_cancelled_first_and_it_exits_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &[stdio("new", &[])]);
    let mut options = fast();
    options.supervisor.shutdown_grace = Duration::from_secs(60);
    let wb = Workbench::start(&cfg, options);
    ready(&wb, "new").await;
    // The stream is open once the server acknowledged it.
    let acknowledged = || {
        wb.traffic()
            .entries(Some("new"))
            .iter()
            .any(|e| e.method.as_deref() == Some("notifications/subscriptions/acknowledged"))
    };
    for _ in 0..200 {
        if acknowledged() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(acknowledged(), "the listen stream was not acknowledged");
    let listen_id = sent(&wb, "new", "subscriptions/listen").last().unwrap()["id"].clone();
    let stopped =
        tokio::time::timeout(Duration::from_secs(20), wb.server("new").unwrap().stop()).await;
    let cancelled = sent(&wb, "new", "notifications/cancelled");
    assert!(
        cancelled
            .iter()
            .any(|c| c["params"]["requestId"] == listen_id),
        "no cancellation of the listen stream {listen_id} was sent: {cancelled:?}"
    );
    assert!(
        stopped.is_ok(),
        "the server did not exit by itself: the stop waited for the 60 s grace"
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn a_2026_server_s_changes_come_on_the_listen_stream_and_it_is_reopened_with_its_state() {
    let (wb, _dir) = start(&[stdio("new", &[])]).await;
    ready(&wb, "new").await;
    updates_arrive(&wb, "new").await;
    let listens = sent(&wb, "new", "subscriptions/listen");
    let last = &listens.last().unwrap()["params"]["notifications"];
    assert_eq!(
        last["resourceSubscriptions"],
        serde_json::json!([COUNTER]),
        "{last}"
    );
    assert_eq!(last["toolsListChanged"], true, "{last}");
    assert!(
        last.get("promptsListChanged").is_none(),
        "the demo's prompts do not change: {last}"
    );
    assert!(
        sent(&wb, "new", "resources/subscribe").is_empty(),
        "2026-07-28 has no resources/subscribe"
    );

    // A list change on the stream refreshes the catalog.
    wb.call_tool(
        "new",
        "toggle_extra_tool",
        Value::Null,
        CallOptions::default(),
    )
    .await
    .unwrap();
    let mut listed = false;
    for _ in 0..100 {
        listed = wb
            .catalog()
            .tool("new", workbench_testkit::demo::EXTRA_TOOL)
            .is_some();
        if listed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(listed, "the tool list was read again after its change");

    // Restarted: nothing survives on the server; the stream comes back with
    // the subscription in it.
    restart(&wb, "new").await;
    let mut rx = wb.subscribe();
    let mut again = false;
    for _ in 0..100 {
        bump(&wb, "new").await;
        if tokio::time::timeout(Duration::from_millis(300), next_update(&mut rx))
            .await
            .is_ok()
        {
            again = true;
            break;
        }
    }
    assert!(again, "updates come again after the restart");

    // Unsubscribed: the stream is opened again without it.
    wb.subscribe_resource("new", COUNTER, false).await.unwrap();
    let mut without = false;
    for _ in 0..100 {
        let listens = sent(&wb, "new", "subscriptions/listen");
        without = listens.last().is_some_and(|l| {
            l["params"]["notifications"]
                .get("resourceSubscriptions")
                .is_none()
        });
        if without {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(without, "the stream was opened again without the resource");
    assert!(wb.subscriptions("new").is_empty());
    wb.shutdown().await;
}

#[tokio::test]
async fn a_2025_server_is_subscribed_with_resources_subscribe_again_after_a_restart() {
    let (wb, _dir) = start(&[stdio("old", &["--legacy"])]).await;
    ready(&wb, "old").await;
    updates_arrive(&wb, "old").await;
    assert_eq!(sent(&wb, "old", "resources/subscribe").len(), 1);
    assert!(sent(&wb, "old", "subscriptions/listen").is_empty());
    restart(&wb, "old").await;
    let mut resent = false;
    for _ in 0..100 {
        resent = sent(&wb, "old", "resources/subscribe").len() >= 2;
        if resent {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        resent,
        "resources/subscribe was sent again after the restart"
    );
    // A server that does not offer subscriptions is told so, not asked.
    let (plain, _d) = start(&[(
        "bare".into(),
        serde_json::json!({ "command": BIN, "args": ["--tasks-2025"] }),
    )])
    .await;
    ready(&plain, "bare").await;
    let e = plain
        .subscribe_resource("bare", "x://y", true)
        .await
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("does not offer resource subscriptions"),
        "{e}"
    );
    plain.shutdown().await;
    wb.shutdown().await;
}

/// The log level asked for: `logging/setLevel` up to 2025-11-25; from
/// 2026-07-28 on, in each request's `_meta` (there is no setLevel).
#[tokio::test]
async fn a_log_level_goes_with_each_request_to_a_2026_server_and_once_to_a_2025_one() {
    let (wb, _dir) = start(&[stdio("new", &[]), stdio("old", &["--legacy"])]).await;
    ready(&wb, "new").await;
    ready(&wb, "old").await;
    wb.set_log_level("new", "warning").await.unwrap();
    wb.set_log_level("old", "warning").await.unwrap();
    assert!(sent(&wb, "new", "logging/setLevel").is_empty());
    assert_eq!(
        sent(&wb, "old", "logging/setLevel")[0]["params"]["level"],
        "warning"
    );
    bump(&wb, "new").await;
    let call = sent(&wb, "new", "tools/call").pop().unwrap();
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "warning",
        "{call}"
    );
    bump(&wb, "old").await;
    let call = sent(&wb, "old", "tools/call").pop().unwrap();
    assert!(
        call["params"]["_meta"]
            .get("io.modelcontextprotocol/logLevel")
            .is_none(),
        "{call}"
    );
    // Asked on someone's behalf (a bridge's caller): only ever more detail.
    assert!(!wb.want_log_level("old", "error").await.unwrap());
    assert_eq!(wb.log_level("old").as_deref(), Some("warning"));
    assert!(wb.want_log_level("old", "debug").await.unwrap());
    assert_eq!(sent(&wb, "old", "logging/setLevel").len(), 2);
    // No state survives a restart: the level is asked again.
    restart(&wb, "old").await;
    let mut resent = Vec::new();
    for _ in 0..100 {
        resent = sent(&wb, "old", "logging/setLevel");
        if resent.len() >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        resent.len(),
        3,
        "logging/setLevel was sent again after the restart"
    );
    assert_eq!(resent[2]["params"]["level"], "debug");
    wb.shutdown().await;
}
