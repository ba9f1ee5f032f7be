//! Over HTTP the bridge relays what the upstream server wrote: fields and a
//! kind of content block no library models, in a call's result (read here
//! as raw HTTP, as any client's parser would), over each transport pair
//! with the upstream on stdio and on HTTP.

use serde_json::{Value, json};

/// One JSON-RPC message POSTed; the answer with `id` (JSON body or SSE).
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    message: Value,
) -> (Option<String>, Option<Value>) {
    let mut request = http
        .post(url)
        .bearer_auth("the-token")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25")
        .body(message.to_string());
    if let Some(s) = session {
        request = request.header("mcp-session-id", s);
    }
    let response = request.send().await.unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = response.text().await.unwrap();
    let answer = text
        .lines()
        .map(|l| l.strip_prefix("data:").map(str::trim).unwrap_or(l))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("id").is_some() && v["id"] == message["id"]);
    (session, answer)
}

/// Every call allowed (the point here is what comes back).
fn open() -> workbench_bridge::Policy {
    workbench_bridge::Policy {
        mode: workbench_calls::ApproveMode::All,
        ask: false,
    }
}

async fn call_through(url: &str, tool: &str) -> Value {
    let http = workbench_http::client().unwrap();
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } } });
    let (session, _) = post(&http, url, None, init).await;
    let session = session.expect("a session");
    let done = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    post(&http, url, Some(&session), done).await;
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": tool, "arguments": {} } });
    let (_, answer) = post(&http, url, Some(&session), call).await;
    answer.expect("the call's answer")
}

#[tokio::test]
async fn a_result_with_fields_and_content_no_library_models_is_relayed_as_sent_over_http() {
    // Upstream over stdio (the hand-written server): the bridge over HTTP.
    let dir = tempfile::tempdir().unwrap();
    let wb = super::workbench(dir.path(), &[("future", &["--fault", "future-fields"])]).await;
    let (_bridge, listening) = super::bridge(&wb, open()).await;
    let url = format!("http://{}/mcp", listening.addr);
    let called = call_through(&url, "future__echo").await;
    let result = &called["result"];
    assert_eq!(result["x-vendor"]["cost"], 3, "{called}");
    assert_eq!(result["content"][0]["x-vendor"]["lang"], "en", "{called}");
    assert_eq!(result["content"][1]["type"], "hologram", "{called}");
    assert_eq!(result["content"][1]["frames"], 3, "{called}");
    assert!(
        result.get("_meta").is_none(),
        "no placeholder left: {called}"
    );
    // A 2025-11-25 caller gets no 2026-07-28 fields.
    assert!(result.get("resultType").is_none(), "{called}");
    wb.shutdown().await;

    // Upstream over HTTP (a JSON-response demo adds a field to each result).
    let dir = tempfile::tempdir().unwrap();
    let (_demo, addr) =
        workbench_testkit::demo_over_http(&super::demo(), dir.path(), &["--json-response"]).await;
    let path = dir.path().join("mcp.json");
    let config =
        json!({ "mcpServers": { "web": { "type": "http", "url": format!("http://{addr}/mcp") } } });
    std::fs::write(&path, config.to_string()).unwrap();
    let wb = workbench_core::Workbench::start(
        &workbench_core::ConfigFile::load(&path).unwrap(),
        workbench_core::WorkbenchOptions::default(),
    );
    wb.settle(std::time::Duration::from_secs(20)).await;
    let (_bridge, listening) = super::bridge(&wb, open()).await;
    let url = format!("http://{}/mcp", listening.addr);
    let called = call_through(&url, "web__all_content_types").await;
    assert_eq!(
        called["result"]["x-demo-trace"]["served_by"], "demo",
        "{called}"
    );
    assert!(
        called["result"]["content"]
            .as_array()
            .is_some_and(|c| c.len() > 3),
        "{called}"
    );
    wb.shutdown().await;
}
