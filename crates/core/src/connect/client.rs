//! The workbench's side of an MCP session: what it tells servers it can do,
//! and how it passes their notifications on as events.

use rmcp::model::*;
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient};
use serde_json::json;
use tokio::sync::broadcast;

use crate::events::Event;

#[derive(Clone)]
pub struct WorkbenchClient {
    pub server: String,
    pub events: broadcast::Sender<Event>,
}

impl WorkbenchClient {
    fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }
}

#[allow(deprecated)]
impl ClientHandler for WorkbenchClient {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "roots": { "listChanged": true } },
            "clientInfo": { "name": "mcp-workbench", "title": "MCP Workbench", "version": env!("CARGO_PKG_VERSION") }
        }))
        .expect("static client info is valid")
    }

    async fn list_roots(&self, _: RequestContext<RoleClient>) -> Result<ListRootsResult, McpError> {
        Ok(ListRootsResult::default())
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let token = serde_json::to_value(&params.progress_token).unwrap_or_default();
        self.emit(Event::Progress {
            server: self.server.clone(),
            token: token.to_string(),
            progress: params.progress,
            total: params.total,
            message: params.message,
        });
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.emit(Event::ListChanged {
            server: self.server.clone(),
            list: "tools".into(),
        });
    }

    async fn on_prompt_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.emit(Event::ListChanged {
            server: self.server.clone(),
            list: "prompts".into(),
        });
    }

    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.emit(Event::ListChanged {
            server: self.server.clone(),
            list: "resources".into(),
        });
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.emit(Event::ResourceUpdated {
            server: self.server.clone(),
            uri: params.uri,
        });
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let v = serde_json::to_value(&params).unwrap_or_default();
        self.emit(Event::ServerLog {
            server: self.server.clone(),
            level: v["level"].as_str().unwrap_or("info").to_string(),
            logger: v["logger"].as_str().map(str::to_string),
            data: v["data"].to_string(),
        });
    }
}
