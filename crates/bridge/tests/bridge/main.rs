//! The bridge as its callers see it: an rmcp client over the loopback HTTP
//! bridge (both protocol eras), in front of a workbench running demo
//! servers over real pipes. (`mcpwb serve` over stdio, and the Python SDK's
//! client, are tested in the CLI's tests.)

use std::path::PathBuf;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ClientRequest, ReadResourceRequestParams};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use workbench_bridge::{Bridge, BridgeOptions, Policy};
use workbench_calls::{Calls, CallsOptions};
use workbench_core::settings::SettingsFile;
use workbench_core::{ConfigFile, Workbench, WorkbenchOptions};
use workbench_store::Store;

fn demo() -> PathBuf {
    workbench_testkit::demo_server_path()
}

/// A workbench running `servers` (name → extra demo args), all Ready.
async fn workbench(dir: &std::path::Path, servers: &[(&str, &[&str])]) -> Workbench {
    let mut map = serde_json::Map::new();
    for (name, extra) in servers {
        let mut args = vec!["--name".to_string(), name.to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        map.insert(name.to_string(), json!({ "command": demo(), "args": args }));
    }
    let path = dir.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": map }).to_string()).unwrap();
    let config = ConfigFile::load(&path).unwrap();
    let wb = Workbench::start(
        &config,
        WorkbenchOptions {
            interactive: true,
            ..WorkbenchOptions::default()
        },
    );
    wb.settle(Duration::from_secs(20)).await;
    wb
}

/// The one call path over `wb`: rules from `dir`'s settings.json, the
/// history in memory.
fn calls(wb: &Workbench, dir: &std::path::Path) -> Calls {
    Calls::new(
        wb.clone(),
        workbench_core::ToolCaller::for_tests(),
        CallsOptions {
            settings: SettingsFile::new(dir.join("settings.json")),
            store: Some(Store::in_memory().unwrap()),
        },
    )
}

mod calls_path;
mod hostile;
mod logs;
mod relay;
mod skills;
mod tasks;

async fn bridge(wb: &Workbench, policy: Policy) -> (Bridge, workbench_bridge::http::Listening) {
    let dir = tempfile::tempdir().unwrap();
    let calls = calls(wb, dir.path());
    bridge_over(&calls, policy).await
}

async fn bridge_over(calls: &Calls, policy: Policy) -> (Bridge, workbench_bridge::http::Listening) {
    let bridge = Bridge::new(
        calls.clone(),
        BridgeOptions {
            policy,
            headless: true,
            ..BridgeOptions::default()
        },
    );
    bridge.settled(Duration::from_secs(10)).await;
    let listening = workbench_bridge::http::serve(bridge.clone(), 0, Some("the-token".into()))
        .await
        .unwrap();
    (bridge, listening)
}

/// A caller that reports progress and list changes.
#[derive(Clone)]
struct Caller {
    progress: mpsc::UnboundedSender<f64>,
    changed: mpsc::UnboundedSender<()>,
    updated: mpsc::UnboundedSender<String>,
    logged: mpsc::UnboundedSender<Value>,
}

#[allow(deprecated)] // roots (SEP-2577), as 2025-11-25 clients still send them
impl ClientHandler for Caller {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let _ = self.progress.send(params.progress);
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let _ = self.logged.send(serde_json::to_value(params).unwrap());
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let _ = self.updated.send(params.uri.to_string());
    }

    /// A person at this client fills the form the server asked for.
    async fn create_elicitation(
        &self,
        _: rmcp::model::ElicitRequestParams,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        Ok(
            serde_json::from_value(json!({ "action": "accept", "content": { "name": "Ada" } }))
                .unwrap(),
        )
    }

    /// This client's model answers the server's sampling request.
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        let asked = serde_json::to_string(&params.messages).unwrap();
        Ok(serde_json::from_value(json!({
            "role": "assistant",
            "content": { "type": "text", "text": format!("the caller's model heard {asked}") },
            "model": "callers-model",
            "stopReason": "endTurn"
        }))
        .unwrap())
    }

    /// This client's project folder.
    async fn list_roots(
        &self,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Ok(serde_json::from_value(
            json!({ "roots": [{ "uri": "file:///work/callers-project", "name": "project" }] }),
        )
        .unwrap())
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "elicitation": { "form": {} }, "sampling": {}, "roots": { "listChanged": true } },
            "clientInfo": { "name": "bridge-test-caller", "version": "1" }
        }))
        .unwrap()
    }
}

struct Connected {
    client: RunningService<RoleClient, Caller>,
    progress: mpsc::UnboundedReceiver<f64>,
    changed: mpsc::UnboundedReceiver<()>,
    updated: mpsc::UnboundedReceiver<String>,
    logged: mpsc::UnboundedReceiver<Value>,
}

async fn connect(url: &str, mode: rmcp::service::ClientLifecycleMode) -> Connected {
    let (p_tx, progress) = mpsc::unbounded_channel();
    let (c_tx, changed) = mpsc::unbounded_channel();
    let (u_tx, updated) = mpsc::unbounded_channel();
    let (l_tx, logged) = mpsc::unbounded_channel();
    let transport = StreamableHttpClientTransport::with_client(
        workbench_http::client().unwrap(),
        StreamableHttpClientTransportConfig::with_uri(url).auth_header("the-token"),
    );
    let client = rmcp::serve_client_with_lifecycle(
        Caller {
            progress: p_tx,
            changed: c_tx,
            updated: u_tx,
            logged: l_tx,
        },
        transport,
        mode,
    )
    .await
    .unwrap();
    Connected {
        client,
        progress,
        changed,
        updated,
        logged,
    }
}

fn modes() -> [(&'static str, rmcp::service::ClientLifecycleMode); 2] {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::ClientLifecycleMode;
    [
        ("2025-11-25", ClientLifecycleMode::Initialize),
        (
            "2026-07-28",
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        ),
    ]
}

async fn call(c: &Connected, name: &str, args: Value) -> Value {
    let params = CallToolRequestParams::new(name.to_string())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    serde_json::to_value(c.client.call_tool(params).await.unwrap()).unwrap()
}

#[tokio::test]
async fn two_servers_through_the_http_bridge_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[]), ("beta", &[])]).await;
    let (bridge, listening) = bridge(&wb, Policy::default()).await;
    for (era, mode) in modes() {
        let c = connect(&listening.url(), mode).await;
        let tools: Vec<String> = c
            .client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        for t in ["alpha__echo", "beta__echo", "alpha__add"] {
            assert!(tools.contains(&t.to_string()), "{era}: {t} in {tools:?}");
        }
        let echoed = call(
            &c,
            "alpha__echo",
            json!({ "message": format!("via {era}") }),
        )
        .await;
        assert_eq!(echoed["content"][0]["text"], format!("via {era}"), "{era}");
        let added = call(&c, "beta__add", json!({ "a": 2, "b": 40 })).await;
        assert!(added.to_string().contains("42"), "{era}: {added}");
        let resources = c.client.list_all_resources().await.unwrap();
        let readme = resources
            .iter()
            .find(|r| r.uri == "mcpwb://beta/demo://readme")
            .unwrap_or_else(|| panic!("{era}: {resources:?}"));
        let read = c
            .client
            .read_resource(ReadResourceRequestParams::new(readme.uri.clone()))
            .await
            .unwrap();
        let read = serde_json::to_value(read).unwrap();
        assert!(
            read.to_string().contains("MCP Workbench demo server"),
            "{era}: {read}"
        );
        let prompts = c.client.list_all_prompts().await.unwrap();
        assert!(prompts.iter().any(|p| p.name == "alpha__greet"), "{era}");
        let got = c
            .client
            .get_prompt(
                rmcp::model::GetPromptRequestParams::new("alpha__greet")
                    .with_arguments(json!({ "name": "Ada" }).as_object().cloned().unwrap()),
            )
            .await
            .unwrap();
        assert!(
            serde_json::to_string(&got).unwrap().contains("Ada"),
            "{era}"
        );
        // Every call through the bridge is in the traffic view, with its caller.
        let caller_rows: Vec<String> = wb
            .traffic()
            .entries(None)
            .iter()
            .filter(|e| e.server.starts_with("bridge ← "))
            .map(|e| e.body.clone())
            .collect();
        assert!(
            caller_rows
                .iter()
                .any(|b| b.contains(&format!("via {era}"))),
            "{era}: {caller_rows:?}"
        );
        c.client.cancel().await.unwrap();
    }
    assert!(bridge.callers().list().is_empty() || !bridge.serving().is_empty());
    listening.stop.cancel();
    wb.shutdown().await;
}

#[tokio::test]
async fn progress_and_cancellation_pass_through_and_list_changes_are_told() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[]), ("beta", &[])]).await;
    let (bridge, listening) = bridge(&wb, Policy::default()).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let mut c = connect(&listening.url(), mode).await;
    // A long call: its progress reaches us; cancelling it reaches the server.
    let params = CallToolRequestParams::new("alpha__long_task").with_arguments(
        json!({ "steps": 50, "step_ms": 100 })
            .as_object()
            .cloned()
            .unwrap(),
    );
    let handle = c
        .client
        .peer()
        .send_request_with_option(
            ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(10), c.progress.recv())
        .await
        .expect("progress came through the bridge");
    assert!(first.is_some());
    assert_eq!(bridge.callers().list().len(), 1, "the caller is listed");
    handle.cancel(Some("enough".into())).await.unwrap();
    let mut told = false;
    for _ in 0..100 {
        told = wb.traffic().entries(Some("alpha")).iter().any(|e| {
            e.method.as_deref() == Some("notifications/cancelled")
                && e.direction == workbench_core::traffic::Direction::Outgoing
        });
        if told {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(told, "the upstream server was sent notifications/cancelled");
    // A server's tools change: the caller hears of it and sees the new list.
    let before = c.client.list_all_tools().await.unwrap().len();
    call(&c, "beta__toggle_extra_tool", json!({})).await;
    tokio::time::timeout(Duration::from_secs(10), c.changed.recv())
        .await
        .expect("tools/list_changed came through the bridge");
    let mut after = before;
    for _ in 0..50 {
        after = c.client.list_all_tools().await.unwrap().len();
        if after != before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(after, before + 1);
    c.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}

#[tokio::test]
async fn a_crashed_server_gives_a_clear_error_and_the_others_serve() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(
        dir.path(),
        &[("crashy", &["--fault", "crash-on-call"]), ("beta", &[])],
    )
    .await;
    let (_bridge, listening) = bridge(&wb, Policy::default()).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let c = connect(&listening.url(), mode).await;
    let params = CallToolRequestParams::new("crashy__echo")
        .with_arguments(json!({ "message": "x" }).as_object().cloned().unwrap());
    let e = c.client.call_tool(params).await.expect_err("it crashed");
    assert!(e.to_string().contains("crashy"), "{e}");
    let echoed = call(&c, "beta__echo", json!({ "message": "still here" })).await;
    assert_eq!(echoed["content"][0]["text"], "still here");
    c.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}

#[tokio::test]
async fn requests_without_the_token_or_from_a_page_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    let (_bridge, listening) = bridge(&wb, Policy::default()).await;
    let url = listening.url();
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "raw", "version": "1" } } })
    .to_string();
    let http = workbench_http::client().unwrap();
    let post = |headers: &[(&str, &str)]| {
        let mut r = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init.clone());
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        r.send()
    };
    let status = |r: reqwest::Response| r.status().as_u16();
    assert_eq!(status(post(&[]).await.unwrap()), 401, "no token");
    assert_eq!(
        status(post(&[("authorization", "Bearer wrong")]).await.unwrap()),
        401,
        "wrong token"
    );
    let good = ("authorization", "Bearer the-token");
    assert_eq!(
        status(
            post(&[good, ("origin", "https://evil.example")])
                .await
                .unwrap()
        ),
        403,
        "a web page"
    );
    assert_eq!(
        status(post(&[good, ("host", "evil.example")]).await.unwrap()),
        403,
        "DNS rebinding"
    );
    let own = format!("http://{}", listening.addr);
    assert_eq!(
        status(post(&[good, ("origin", own.as_str())]).await.unwrap()),
        200,
        "the bridge's own origin (no page has it)"
    );
    let other = format!("http://127.0.0.1:{}", listening.addr.port() + 1);
    assert_eq!(
        status(post(&[good, ("origin", other.as_str())]).await.unwrap()),
        403,
        "a page served elsewhere on this machine"
    );
    assert_eq!(status(post(&[good]).await.unwrap()), 200, "the real client");
    listening.stop.cancel();
    wb.shutdown().await;
}

/// A server's question during a call through the bridge goes to the client
/// that made the call (it says it takes elicitation and sampling), and its
/// answer goes back to the server; the call ends with what the person (or
/// the caller's model) said. Headless, the client's roots become the
/// servers' roots.
#[tokio::test]
async fn a_servers_question_goes_to_the_calling_client_and_its_answer_back() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[]), ("legacy", &["--legacy"])]).await;
    let (_bridge, listening) = bridge(&wb, Policy::default()).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let c = connect(&listening.url(), mode).await;
    for tool in ["alpha__ask_user", "legacy__ask_user"] {
        let out = call(&c, tool, json!({ "message": "who are you?" })).await;
        assert!(out.to_string().contains("Ada"), "{tool}: {out}");
        assert!(out.to_string().contains("accept"), "{tool}: {out}");
    }
    for tool in ["alpha__ask_llm", "legacy__ask_llm"] {
        let out = call(&c, tool, json!({ "question": "what is six times seven?" })).await;
        let text = out.to_string();
        assert!(text.contains("the caller's model heard"), "{tool}: {out}");
        assert!(text.contains("six times seven"), "{tool}: {out}");
    }
    // Headless, the caller's roots are the servers' roots.
    let mut roots = Value::Null;
    for _ in 0..50 {
        roots = call(&c, "legacy__list_roots", json!({})).await;
        if roots.to_string().contains("callers-project") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        roots.to_string().contains("file:///work/callers-project"),
        "{roots}"
    );
    c.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}

/// Two clients subscribed to one resource: when one unsubscribes, the other
/// is still told of changes (the server is told to stop only when the last
/// subscriber leaves).
#[tokio::test]
#[allow(deprecated)] // resources/subscribe: what 2025-11-25 clients send
async fn one_client_unsubscribing_leaves_the_others_subscribed() {
    let dir = tempfile::tempdir().unwrap();
    // A 2025-11-25 server: it takes resources/subscribe (a 2026-07-28 one
    // has subscriptions/listen instead, which the core does not speak yet).
    let wb = workbench(dir.path(), &[("legacy", &["--legacy"])]).await;
    let (_bridge, listening) = bridge(&wb, Policy::default()).await;
    let (_, mode) = modes().into_iter().next().unwrap();
    let mut a = connect(&listening.url(), mode.clone()).await;
    let mut b = connect(&listening.url(), mode).await;
    let uri = "mcpwb://legacy/demo://counter";
    for c in [&a, &b] {
        let params: rmcp::model::SubscribeRequestParams =
            serde_json::from_value(json!({ "uri": uri })).unwrap();
        c.client.subscribe(params).await.unwrap();
    }
    call(&a, "legacy__increment_counter", json!({})).await;
    for c in [&mut a, &mut b] {
        let got = tokio::time::timeout(Duration::from_secs(10), c.updated.recv()).await;
        assert_eq!(got.ok().flatten().as_deref(), Some(uri));
    }
    let params: rmcp::model::UnsubscribeRequestParams =
        serde_json::from_value(json!({ "uri": uri })).unwrap();
    a.client.unsubscribe(params).await.unwrap();
    call(&b, "legacy__increment_counter", json!({})).await;
    let got = tokio::time::timeout(Duration::from_secs(10), b.updated.recv()).await;
    assert_eq!(
        got.ok().flatten().as_deref(),
        Some(uri),
        "b is still subscribed"
    );
    // a is not told any more.
    let more = tokio::time::timeout(Duration::from_millis(300), a.updated.recv()).await;
    assert!(more.is_err(), "a unsubscribed but was told: {more:?}");
    a.client.cancel().await.unwrap();
    b.client.cancel().await.unwrap();
    listening.stop.cancel();
    wb.shutdown().await;
}
