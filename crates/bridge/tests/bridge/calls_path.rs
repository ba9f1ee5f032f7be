//! The bridge's calls go through the one call path: the rules read live (a
//! tool denied while the bridge runs is refused at once), the policy's
//! mode, and every call kept in the history with its origin and its
//! output-schema check.

use serde_json::{Value, json};
use workbench_bridge::Policy;
use workbench_calls::ApproveMode;
use workbench_store::HistoryQuery;

use super::{bridge_over, call, calls, connect, modes, workbench};

/// As the window's Settings writes them (in the bridge's process).
fn write_policies(dir: &std::path::Path, policies: Value) {
    workbench_core::settings::SettingsFile::new(dir.join("settings.json"))
        .update("agent", |agent: &mut serde_json::Map<String, Value>| {
            agent.insert("tool_policies".into(), policies);
        })
        .unwrap();
}

#[tokio::test]
async fn the_policy_refuses_what_it_does_not_allow_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    write_policies(dir.path(), json!({ "alpha/add": "allow" }));
    let calls = calls(&wb, dir.path());
    let policy = Policy {
        mode: ApproveMode::None,
        ask: false,
    };
    let (_bridge, listening) = bridge_over(&calls, policy).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let c = connect(&listening.url(), mode).await;
    let refused = call(&c, "alpha__echo", json!({ "message": "no" })).await;
    assert_eq!(refused["isError"], true);
    assert!(refused.to_string().contains("needs approval"), "{refused}");
    let added = call(&c, "alpha__add", json!({ "a": 1, "b": 1 })).await;
    assert_ne!(added["isError"], true, "{added}");
    c.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}

#[tokio::test]
async fn a_tool_denied_in_settings_while_the_bridge_runs_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    let calls = calls(&wb, dir.path());
    let (_bridge, listening) = bridge_over(&calls, Policy::default()).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let c = connect(&listening.url(), mode).await;
    let ran = call(&c, "alpha__echo", json!({ "message": "before" })).await;
    assert_eq!(ran["content"][0]["text"], "before");
    // The person denies it in Settings (the file the window writes); the
    // bridge keeps running.
    write_policies(dir.path(), json!({ "alpha/echo": "deny" }));
    let refused = call(&c, "alpha__echo", json!({ "message": "after" })).await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused.to_string().contains("denied"), "{refused}");
    // The server never saw the second call.
    let sent: Vec<String> = wb
        .traffic()
        .query(&workbench_core::traffic::TrafficQuery {
            server: Some("alpha".into()),
            method: Some("tools/call".into()),
            direction: Some(workbench_core::traffic::Direction::Outgoing),
            limit: 100,
            ..Default::default()
        })
        .entries
        .into_iter()
        .map(|e| e.body)
        .collect();
    assert_eq!(
        sent.len(),
        1,
        "only the first call reached the server: {sent:?}"
    );
    assert!(sent[0].contains("before"));
    // Allowed again, it runs again.
    write_policies(dir.path(), json!({ "alpha/echo": "allow" }));
    let again = call(&c, "alpha__echo", json!({ "message": "again" })).await;
    assert_eq!(again["content"][0]["text"], "again");
    c.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}

#[tokio::test]
async fn bridge_calls_are_kept_in_the_history_with_their_origin_and_schema_check() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    write_policies(dir.path(), json!({ "alpha/fail": "deny" }));
    let calls = calls(&wb, dir.path());
    let (_bridge, listening) = bridge_over(&calls, Policy::default()).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let c = connect(&listening.url(), mode).await;
    call(&c, "alpha__echo", json!({ "message": "kept" })).await;
    let bad = call(&c, "alpha__bad_structured_output", json!({})).await;
    // What the client gets is what the server sent...
    assert!(bad.get("structuredContent").is_some(), "{bad}");
    call(&c, "alpha__fail", json!({})).await;
    calls.flush().await;
    let store = calls.store().unwrap();
    let rows = store
        .history(&HistoryQuery {
            origin: Some("bridge".into()),
            ..Default::default()
        })
        .unwrap();
    let by_tool = |t: &str| {
        rows.iter()
            .find(|r| r.tool == t)
            .unwrap_or_else(|| panic!("{t} in {rows:?}"))
    };
    let echo = by_tool("echo");
    assert_eq!(echo.server, "alpha");
    assert_eq!(echo.arguments["message"], "kept");
    assert_eq!(echo.result.as_ref().unwrap()["content"][0]["text"], "kept");
    assert_eq!(echo.status, workbench_store::CallStatus::Ok);
    assert!(echo.protocol.is_some());
    assert!(
        echo.traffic_to > echo.traffic_from,
        "its traffic rows: {echo:?}"
    );
    // ...and the history says where it breaks its output schema.
    assert!(
        !by_tool("bad_structured_output")
            .schema_violations
            .is_empty(),
        "{rows:?}"
    );
    let denied = by_tool("fail");
    assert_eq!(denied.status, workbench_store::CallStatus::Denied);
    assert!(
        denied
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("denied")
    );
    c.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}
