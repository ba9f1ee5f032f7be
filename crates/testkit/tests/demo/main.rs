//! The demo server, driven over real pipes and real loopback HTTP by rmcp's
//! own client: what later tests and `mcp.example.json` rely on.

mod faults;
mod http;
mod stdio;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::*;
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient, ServiceExt};
use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// What the test client saw the server send unprompted.
#[derive(Default, Debug)]
pub struct Seen {
    pub progress: Vec<f64>,
    pub tool_list_changed: usize,
    pub resource_updated: Vec<String>,
    pub log_messages: Vec<Value>,
}

/// A client that answers sampling, elicitation and roots like a person would.
#[derive(Clone, Default)]
pub struct TestClient {
    pub seen: Arc<Mutex<Seen>>,
}

pub fn from_json<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("valid MCP JSON")
}

#[allow(deprecated)]
impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        from_json(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "sampling": {}, "elicitation": { "form": {} }, "roots": { "listChanged": true } },
            "clientInfo": { "name": "demo-server-tests", "version": "0" }
        }))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let asked = serde_json::to_value(&params).unwrap();
        let question = asked["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        Ok(from_json(
            json!({ "role": "assistant", "model": "scripted", "content": { "type": "text", "text": format!("you asked: {question}") } }),
        ))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let asked = serde_json::to_value(&request).unwrap();
        assert_eq!(asked["requestedSchema"]["required"], json!(["name"]));
        Ok(from_json(
            json!({ "action": "accept", "content": { "name": "Ada", "age": 36 } }),
        ))
    }

    async fn list_roots(&self, _: RequestContext<RoleClient>) -> Result<ListRootsResult, McpError> {
        Ok(from_json(
            json!({ "roots": [{ "uri": "file:///work/project", "name": "project" }] }),
        ))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().progress.push(params.progress);
    }

    async fn on_tool_list_changed(&self, _: rmcp::service::NotificationContext<RoleClient>) {
        self.seen.lock().unwrap().tool_list_changed += 1;
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().resource_updated.push(params.uri);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.seen
            .lock()
            .unwrap()
            .log_messages
            .push(serde_json::to_value(params).unwrap());
    }
}

pub type Client = RunningService<RoleClient, TestClient>;

/// Start the demo server as a child process and connect over its stdio.
pub async fn connect_stdio(args: &[&str]) -> (Client, TestClient) {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.args(args).stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(cmd).expect("spawn demo server");
    let handler = TestClient::default();
    let client = tokio::time::timeout(TIMEOUT, handler.clone().serve(transport))
        .await
        .expect("initialize in time")
        .expect("initialize");
    (client, handler)
}

pub fn call(name: &str, args: Value) -> CallToolRequestParams {
    from_json(json!({ "name": name, "arguments": args }))
}

pub fn text_of(result: &CallToolResult) -> String {
    let v = serde_json::to_value(result).unwrap();
    v["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Poll `f` until it holds or 10 s pass.
pub async fn eventually(mut f: impl FnMut() -> bool) -> bool {
    for _ in 0..200 {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}
