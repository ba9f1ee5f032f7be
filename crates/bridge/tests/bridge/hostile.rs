//! What a caller of the bridge may try, played for real (the table of
//! attacks: `tests/hostile/README.md`).

use super::*;

/// `mcpwb serve --bare --tools PATTERN`: a name outside the pattern is not
/// passed on to the one server (played: a tool outside it ran).
#[tokio::test]
async fn bare_mode_keeps_to_the_tool_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    let calls = calls(&wb, dir.path());
    let bridge = Bridge::new(
        calls.clone(),
        BridgeOptions {
            only: vec!["alpha".into()],
            tools: vec!["echo".into()],
            bare: true,
            headless: true,
            ..BridgeOptions::default()
        },
    );
    bridge.settled(Duration::from_secs(10)).await;
    assert!(
        bridge.tool("echo").is_some(),
        "the pattern's tool is served"
    );
    assert!(
        bridge.tool("add").is_none(),
        "a tool outside --tools got through"
    );
    assert!(bridge.tool("not_listed_yet").is_none());
    // Without a pattern, a name not listed yet still goes to the one server.
    let open = Bridge::new(
        calls,
        BridgeOptions {
            only: vec!["alpha".into()],
            bare: true,
            headless: true,
            ..BridgeOptions::default()
        },
    );
    open.settled(Duration::from_secs(10)).await;
    assert!(open.tool("not_listed_yet").is_some());
    wb.shutdown().await;
}

/// What the bridge relays holds the servers' answers: its rows in the
/// traffic log (and so the Traffic view and its export) are masked with
/// every server's secrets.
#[tokio::test]
async fn the_bridges_own_rows_are_masked() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    wb.traffic()
        .set_secrets("alpha", vec!["alpha-secret-5150".into()]);
    let (_bridge, listening) = bridge(&wb, Policy::default()).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let c = connect(&listening.url(), mode).await;
    let said = call(
        &c,
        "alpha__echo",
        json!({ "message": "the key is alpha-secret-5150" }),
    )
    .await;
    // The caller gets what it asked for...
    assert!(said.to_string().contains("alpha-secret-5150"));
    // ...and the log keeps none of it, neither the server's rows nor the bridge's.
    let rows = wb.traffic().entries(None);
    assert!(
        rows.iter()
            .any(|e| e.server.starts_with(workbench_core::traffic::BRIDGE_ROWS)),
        "the bridge recorded its rows"
    );
    for e in &rows {
        assert!(
            !e.body.contains("alpha-secret-5150"),
            "{}: {}",
            e.server,
            e.body
        );
    }
    let mut out = Vec::new();
    wb.traffic().export_jsonl(None, &mut out).unwrap();
    assert!(
        !String::from_utf8(out)
            .unwrap()
            .contains("alpha-secret-5150")
    );
    c.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}
