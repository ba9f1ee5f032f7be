//! The catalog keeps what servers send: each listed item is the JSON the
//! server wrote, also the fields no client library models yet. The server
//! here is hand-written, as many are: it answers `server/discover` with `{}`.

use super::*;
use workbench_core::testing::RawCalls;

#[tokio::test]
async fn fields_no_library_models_reach_the_catalog_intact() {
    let (wb, _dir) = start(&[stdio("future", &["--fault", "future-fields"])]).await;
    ready(&wb, "future").await;
    // It answered server/discover with `{}`: the workbench fell back to
    // initialize and says why in the traffic view.
    let info = wb.server("future").unwrap().status().info.unwrap();
    assert_eq!(info.protocol_version, "2025-11-25");
    let said = wb.traffic().last_notes("future", 5).join("\n");
    assert!(said.contains("falls back to initialize"), "{said}");
    assert!(wb.tools_settled(Duration::from_secs(10)).await.is_empty());
    let c = wb.catalog().server("future").expect("listed");
    assert_eq!(c.tools[0]["execution"]["taskSupport"], "required");
    assert_eq!(c.tools[0]["x-vendor"]["tags"][0], "future");
    assert_eq!(c.resources[0]["x-vendor"]["shelf"], 7);
    assert_eq!(c.resource_templates[0]["x-vendor"]["shelf"], 8);
    assert_eq!(c.prompts[0]["x-vendor"]["tone"], "warm");
    // Listed once each, not twice.
    let lists = wb
        .traffic()
        .entries(Some("future"))
        .iter()
        .filter(|e| {
            e.method.as_deref() == Some("tools/list")
                && e.direction == workbench_core::traffic::Direction::Outgoing
        })
        .count();
    assert_eq!(lists, 1, "tools/list sent {lists} times");
    // A call's result too: a kind of block and fields no library models.
    let out = wb
        .call_tool("future", "echo", json!({}), Default::default())
        .await
        .expect("the call is answered");
    assert_eq!(out.result["x-vendor"]["cost"], 3);
    assert_eq!(out.result["content"][0]["x-vendor"]["lang"], "en");
    assert_eq!(out.result["content"][1]["type"], "hologram");
    wb.shutdown().await;
}

/// Over Streamable HTTP too: a call's result keeps a field no library
/// models (the demo's JSON-response mode adds one to each result).
#[tokio::test]
async fn an_http_result_keeps_fields_no_library_models() {
    let demo = http_demo(&["--json-response"]).await;
    let (wb, _dir) = start(&[("web".into(), json!({ "type": "http", "url": demo.url }))]).await;
    ready(&wb, "web").await;
    let out = wb
        .call_tool(
            "web",
            "echo",
            json!({ "message": "kept" }),
            Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "kept");
    assert_eq!(
        out.result["x-demo-trace"]["served_by"], "demo",
        "{}",
        out.result
    );
    wb.shutdown().await;
}
