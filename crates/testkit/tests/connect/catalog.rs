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

/// How many `tools/list` requests went to `server`.
fn tool_lists(wb: &Workbench, server: &str) -> usize {
    wb.traffic()
        .entries(Some(server))
        .iter()
        .filter(|e| {
            e.method.as_deref() == Some("tools/list")
                && e.direction == workbench_core::traffic::Direction::Outgoing
        })
        .count()
}

/// Cache hints (2026-07-28): what each list said is kept with it (none in
/// the 2025 era); a fresh list, or one whose changes the server announces,
/// is not asked for again until the person refreshes, which asks at once.
#[tokio::test]
async fn each_lists_cache_hints_are_kept_and_a_refresh_asks_again() {
    let (wb, _dir) = start(&[
        stdio("fresh", &["--cache-ttl", "60000"]),
        (
            "old".into(),
            json!({ "command": BIN, "args": ["--cache-ttl", "60000"], "protocolVersion": "2025-11-25" }),
        ),
    ])
    .await;
    ready(&wb, "fresh").await;
    ready(&wb, "old").await;
    assert!(wb.tools_settled(Duration::from_secs(10)).await.is_empty());
    let fresh = wb.catalog().server("fresh").unwrap();
    let tools = &fresh.cache["tools"];
    assert_eq!(tools.ttl_ms, Some(60_000));
    assert_eq!(tools.scope.as_deref(), Some("public"));
    assert_eq!(tools.pages_without, 0);
    assert!(tools.fresh_for(workbench_core::cache::now_ms()) > 50_000);
    assert_eq!(fresh.cache["prompts"].ttl_ms, Some(60_000));
    let old = wb.catalog().server("old").unwrap();
    assert!(!old.cache["tools"].given(), "no hints in the 2025 era");

    // Fresh: nothing is asked again (its skills list says ttlMs 0, "do not
    // reuse", which is not "ask before every turn").
    assert_eq!(tool_lists(&wb, "fresh"), 1);
    assert!(wb.revalidate_lists(None, false).await.is_empty());
    assert_eq!(tool_lists(&wb, "fresh"), 1);
    // The person's Refresh asks every list of the server, fresh or not.
    let asked = wb.revalidate_lists(Some("fresh"), true).await;
    assert_eq!(asked, [("fresh".to_string(), "all".to_string())]);
    assert_eq!(tool_lists(&wb, "fresh"), 2);
    assert_eq!(tool_lists(&wb, "old"), 1);
    wb.shutdown().await;
}

/// A list whose time ran out is asked again, before the next turn, only when
/// its server does not announce that list's changes: the demo's prompts
/// (`listChanged: false`) are, its tools (`listChanged: true`) are not.
#[tokio::test]
async fn a_list_whose_time_ran_out_is_asked_again_unless_its_changes_are_announced() {
    let (wb, _dir) = start(&[stdio("short", &["--cache-ttl", "300"])]).await;
    ready(&wb, "short").await;
    assert!(wb.tools_settled(Duration::from_secs(10)).await.is_empty());
    for _ in 0..200 {
        if wb
            .catalog()
            .server("short")
            .is_some_and(|c| c.cache.contains_key("prompts"))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        wb.revalidate_lists(None, false).await.is_empty(),
        "fresh for 300 ms"
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    let asked = wb.revalidate_lists(None, false).await;
    assert_eq!(asked, [("short".to_string(), "prompts".to_string())]);
    let prompt_lists = wb
        .traffic()
        .entries(Some("short"))
        .iter()
        .filter(|e| {
            e.method.as_deref() == Some("prompts/list")
                && e.direction == workbench_core::traffic::Direction::Outgoing
        })
        .count();
    assert_eq!(prompt_lists, 2);
    assert_eq!(tool_lists(&wb, "short"), 1);
    wb.shutdown().await;
}
