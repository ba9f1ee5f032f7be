//! The workbench's side of an MCP session: what it tells servers it can do,
//! and how it passes their notifications on as events.

use rmcp::model::*;
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient};
use serde_json::json;
use tokio::sync::broadcast;

use crate::asks::{Answer, AskKind, Asks};
use crate::events::Event;

#[derive(Clone)]
pub struct WorkbenchClient {
    pub server: String,
    pub events: broadcast::Sender<Event>,
    /// Where sampling and elicitation are answered (None: refused).
    pub asks: Option<Asks>,
    /// The protocol era to speak (the entry's `protocolVersion`).
    pub protocol: crate::config::ProtocolPin,
    /// Masks the entry's secrets in what the server says (its log messages).
    pub traffic: crate::traffic::TrafficLog,
}

fn refused(message: String) -> McpError {
    // -1: the user (or no user) rejected the request, as the spec's examples use.
    McpError::new(ErrorCode(-1), message, None)
}

impl WorkbenchClient {
    fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }
}

/// What the workbench tells a server about itself: its name and version,
/// and what it can do. Sampling and elicitation only where someone answers
/// them (`offers`, None: nobody).
pub fn client_config(offers: Option<crate::asks::Offers>) -> ClientConfig {
    // Tasks (the 2026-07-28 extension): every call path follows a task to
    // its end. (2025-11-25 tasks need no client capability to be asked for.)
    // MCP Apps in both eras: the window renders them, `mcpwb app` resolves.
    let mut capabilities = json!({
        "roots": { "listChanged": true },
        "extensions": {
            TASKS_EXTENSION_ID: {},
            crate::apps::UI_EXTENSION_ID: crate::apps::extension_settings(),
            crate::skills::SKILLS_EXTENSION_ID: {},
        },
    });
    let offers = offers.unwrap_or(crate::asks::Offers {
        sampling: false,
        elicitation: false,
    });
    if offers.sampling {
        // Sampling with tools (SEP-1577): the model that answers can use them.
        capabilities["sampling"] = json!({ "tools": {} });
    }
    if offers.elicitation {
        capabilities["elicitation"] = json!({ "form": {}, "url": {} });
    }
    serde_json::from_value(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": { "name": "mcp-workbench", "title": "MCP Workbench", "version": env!("CARGO_PKG_VERSION") }
    }))
    .expect("static client info is valid")
}

#[allow(deprecated)]
impl ClientHandler for WorkbenchClient {
    fn get_info(&self) -> ClientConfig {
        client_config(
            self.asks
                .as_ref()
                .filter(|a| a.interactive)
                .map(|a| a.offers),
        )
    }

    async fn list_roots(&self, _: RequestContext<RoleClient>) -> Result<ListRootsResult, McpError> {
        let roots = self
            .asks
            .as_ref()
            .map(|a| a.roots(&self.server))
            .unwrap_or_default();
        serde_json::from_value(json!({ "roots": roots }))
            .map_err(|e| McpError::internal_error(format!("roots: {e}"), None))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let Some(asks) = &self.asks else {
            return Err(refused(
                "this client does not answer sampling requests".into(),
            ));
        };
        let params = serde_json::to_value(&params).unwrap_or_default();
        match asks
            .ask(&self.server, AskKind::Sampling, params, context.ct.clone())
            .await
        {
            Answer::Result(v) => serde_json::from_value(v).map_err(|e| {
                McpError::internal_error(format!("the answer is not a sampling result: {e}"), None)
            }),
            Answer::Refuse(why) => Err(refused(why)),
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let decline = || -> Result<ElicitResult, McpError> {
            serde_json::from_value(json!({ "action": "decline" }))
                .map_err(|e| McpError::internal_error(e.to_string(), None))
        };
        let Some(asks) = &self.asks else {
            return decline();
        };
        let params = serde_json::to_value(&request).unwrap_or_default();
        match asks
            .ask(
                &self.server,
                AskKind::Elicitation,
                params,
                context.ct.clone(),
            )
            .await
        {
            Answer::Result(v) => serde_json::from_value(v).map_err(|e| {
                McpError::internal_error(
                    format!("the answer is not an elicitation result: {e}"),
                    None,
                )
            }),
            Answer::Refuse(_) => decline(),
        }
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
            data: self.traffic.mask_text(&self.server, &v["data"].to_string()),
        });
    }
}
