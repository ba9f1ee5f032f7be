//! Connecting over each transport and era: stdio and Streamable HTTP side
//! by side, a wrong token, both protocol eras, legacy SSE and a bare URL, a
//! remote server that is not listening, HTTP traffic kept as sent.

use std::time::Duration;

use serde_json::json;
use workbench_core::CallOptions;
use workbench_core::connect::ServerState;
use workbench_core::testing::RawCalls;
use workbench_core::traffic::Direction;

use super::*;

#[tokio::test]
async fn stdio_and_http_servers_connect_together_and_show_what_they_offer() {
    let http = http_demo(&["--token", "tok", "--name", "remote-demo"]).await;
    let servers = [
        stdio("local", &[]),
        (
            "remote".to_string(),
            json!({ "type": "http", "url": http.url, "headers": { "Authorization": "Bearer tok" } }),
        ),
    ];
    let (wb, _dir) = start(&servers).await;
    ready(&wb, "local").await;
    ready(&wb, "remote").await;
    let remote = wb.server("remote").unwrap().status();
    let info = remote.info.unwrap();
    assert_eq!(info.name, "remote-demo");
    assert!(!info.protocol_version.is_empty());
    assert!(info.instructions.unwrap().contains("demo server"));

    // The catalog fills in from both, with routable qualified names.
    let mut tools = Vec::new();
    for _ in 0..100 {
        tools = wb.catalog().tools();
        if tools.iter().any(|t| t.server == "remote") && tools.iter().any(|t| t.server == "local") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(tools.iter().any(|t| t.qualified == "local__echo"));
    assert_eq!(
        wb.catalog().route("remote__add"),
        Some(("remote".into(), "add".into()))
    );
    let out = wb
        .call_qualified(
            "remote__add",
            json!({ "a": 1, "b": 2 }),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.result["structuredContent"]["sum"], 3.0);
    assert!(out.duration_ms > 0.0);
    let cat = wb.catalog().server("local").unwrap();
    assert!(cat.resources.iter().any(|r| r["uri"] == "demo://counter"));
    assert!(cat.prompts.iter().any(|p| p["name"] == "greet"));
    assert!(
        cat.resource_templates
            .iter()
            .any(|t| t["uriTemplate"] == "demo://notes/{topic}")
    );
    wb.shutdown().await;
    for s in wb.statuses() {
        assert_eq!(s.state, ServerState::Stopped);
    }
}

#[tokio::test]
async fn wrong_token_fails_with_the_reason() {
    let http = http_demo(&["--token", "right"]).await;
    let servers = [(
        "remote".to_string(),
        json!({ "type": "http", "url": http.url, "headers": { "Authorization": "Bearer wrong" } }),
    )];
    let (wb, _dir) = start(&servers).await;
    let s = wb
        .server("remote")
        .unwrap()
        .wait_for(Duration::from_secs(10), |s| {
            matches!(
                s,
                ServerState::Failed { .. } | ServerState::Restarting { .. }
            )
        })
        .await;
    let (ServerState::Failed { reason, .. } | ServerState::Restarting { reason, .. }) =
        s.expect("fails").state
    else {
        unreachable!()
    };
    println!("wrong token: {reason}");
    assert!(
        reason.contains("401") || reason.to_lowercase().contains("unauthorized"),
        "{reason}"
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn both_protocol_eras_connect_and_show_their_version() {
    let (wb, _dir) = start(&[stdio("modern", &[]), stdio("legacy", &["--legacy"])]).await;
    ready(&wb, "modern").await;
    ready(&wb, "legacy").await;
    let version = |n: &str| {
        wb.server(n)
            .unwrap()
            .status()
            .info
            .unwrap()
            .protocol_version
    };
    assert_eq!(version("modern"), "2026-07-28");
    assert_eq!(version("legacy"), "2025-11-25");
    for name in ["modern", "legacy"] {
        let out = wb
            .call_tool(
                name,
                "echo",
                json!({ "message": name }),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(out.result["content"][0]["text"], name);
    }
    // The legacy server was asked server/discover, said it does not know it, and got initialize.
    let methods: Vec<_> = wb
        .traffic()
        .entries(Some("legacy"))
        .iter()
        .filter(|e| e.direction == Direction::Outgoing)
        .filter_map(|e| e.method.as_deref().map(str::to_string))
        .take(2)
        .collect();
    assert_eq!(methods, ["server/discover", "initialize"]);
    wb.shutdown().await;
}

#[tokio::test]
async fn legacy_sse_servers_connect_and_a_bare_url_finds_its_transport() {
    let sse = sse_demo().await;
    let http = http_demo(&[]).await;
    let servers = [
        ("sse".to_string(), json!({ "type": "sse", "url": sse.url })),
        ("auto-sse".to_string(), json!({ "url": sse.url })),
        ("auto-http".to_string(), json!({ "url": http.url })),
    ];
    let (wb, _dir) = start(&servers).await;
    for name in ["sse", "auto-sse", "auto-http"] {
        ready(&wb, name).await;
        let out = wb
            .call_tool(
                name,
                "echo",
                json!({ "message": name }),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(out.result["content"][0]["text"], name);
    }
    let transport = |n: &str| {
        serde_json::to_value(wb.server(n).unwrap().status().info.unwrap().transport).unwrap()
    };
    assert_eq!(transport("auto-sse"), "sse");
    assert_eq!(transport("auto-http"), "streamable_http");
    // SSE traffic is recorded as the bytes of each event.
    assert!(
        wb.traffic()
            .entries(Some("sse"))
            .iter()
            .any(|e| e.method.as_deref() == Some("tools/call") && e.latency_ms.is_some())
    );
    // The server goes away: the supervisor notices and reports it.
    drop(sse);
    let h = wb.server("sse").unwrap();
    let gone = h.wait_for(Duration::from_secs(10), |s| !is_ready(s)).await;
    assert!(gone.is_some(), "a vanished SSE server is noticed");
    wb.shutdown().await;
}

#[tokio::test]
async fn a_remote_server_that_is_not_listening_says_so() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let servers = [(
        "gone".to_string(),
        json!({ "type": "http", "url": format!("http://127.0.0.1:{port}/mcp") }),
    )];
    let (wb, _dir) = start(&servers).await;
    let s = wb
        .server("gone")
        .unwrap()
        .wait_for(Duration::from_secs(10), |s| {
            matches!(
                s,
                ServerState::Failed { .. } | ServerState::Restarting { .. }
            )
        })
        .await
        .expect("fails");
    let (ServerState::Failed { reason, .. } | ServerState::Restarting { reason, .. }) = s.state
    else {
        unreachable!()
    };
    assert_eq!(
        reason,
        format!("nothing listens at 127.0.0.1:{port} (connection refused): is the server running?")
    );
    wb.shutdown().await;
}

#[tokio::test]
async fn streamable_http_traffic_keeps_the_bytes_the_server_sent() {
    // This server answers with JSON bodies carrying a field no SDK knows.
    let http = http_demo(&["--json-response"]).await;
    let (wb, _dir) = start(&[(
        "json".to_string(),
        json!({ "type": "http", "url": http.url }),
    )])
    .await;
    ready(&wb, "json").await;
    let out = wb
        .call_tool(
            "json",
            "echo",
            json!({ "message": "kept" }),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "kept");
    let entries = wb.traffic().entries(Some("json"));
    let answer = entries
        .iter()
        .find(|e| e.direction == Direction::Incoming && e.body.contains("\"kept\""))
        .expect("the tools/call answer is in the traffic log");
    assert!(
        answer.body.contains("\"x-demo-trace\""),
        "the extension field survives: {}",
        answer.body
    );
    assert_eq!(answer.size as usize, answer.body.len());
    assert!(answer.latency_ms.is_some(), "paired with its request");
    // What we sent is there too, as sent.
    assert!(entries.iter().any(|e| {
        e.direction == Direction::Outgoing
            && e.method.as_deref() == Some("tools/call")
            && e.body.contains("\"kept\"")
    }));
    wb.shutdown().await;
}
