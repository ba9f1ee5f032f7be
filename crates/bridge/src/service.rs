//! The bridge as an MCP server. A `ServerHandler` answers each request from
//! the workbench (catalog, routing, calls). Over stdio the `Raw` wrapper
//! sends the upstream servers' JSON as it came (every field kept —
//! `execution`, `x-` extensions, `_meta`), with only names and URIs
//! rewritten; over HTTP rmcp's service takes only a typed handler, so the
//! answers go through rmcp's types (fields they do not model are dropped).

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, ErrorData,
    GetPromptRequestParams, GetPromptResult, GetSkillRequestParams, GetSkillResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Value, json};
use workbench_core::CallOptions;

use crate::Bridge;
use crate::names::Names;
use crate::slot::RawSlot;
use crate::upstream::{caller_new_era, resume_of, upstream};

/// One session's handler (cheap: the bridge is shared).
#[derive(Clone)]
pub struct Handler {
    pub(crate) bridge: Bridge,
    pub(crate) transport: &'static str,
    /// This session's number (a handler serves one session).
    pub(crate) session: u64,
    /// Over HTTP: where answers are kept to be relayed as sent (`relay.rs`).
    pub(crate) relay: Option<crate::relay::Relay>,
}

impl Handler {
    /// Answer with the upstream JSON `v` as sent: through the stdio
    /// session's slot, or the HTTP relay (a marked placeholder); else as
    /// rmcp's type, which keeps what it models.
    pub(crate) fn answer<T: serde::de::DeserializeOwned + serde::Serialize>(
        &self,
        ctx: &RequestContext<RoleServer>,
        v: Value,
        placeholder: impl FnOnce() -> T,
    ) -> Result<T, ErrorData> {
        if let (Some(relay), None) = (&self.relay, ctx.extensions.get::<RawSlot>()) {
            let key = relay.keep(v);
            let mut marked = serde_json::to_value(placeholder()).unwrap_or_default();
            marked["_meta"][crate::relay::MARK] = Value::String(key.clone());
            let typed = serde_json::from_value::<T>(marked).ok();
            // Only where the type keeps `_meta` can the layer find it.
            let kept_mark = typed.as_ref().is_some_and(|t| {
                serde_json::to_value(t)
                    .is_ok_and(|v| v["_meta"][crate::relay::MARK] == key.as_str())
            });
            match (typed, kept_mark) {
                (Some(t), true) => return Ok(t),
                _ => {
                    return RawSlot::typed(relay.take(&key).unwrap_or_default());
                }
            }
        }
        RawSlot::answer(ctx, v, placeholder)
    }
}

pub(crate) fn bad(message: impl Into<String>) -> ErrorData {
    ErrorData::invalid_params(message.into(), None)
}

/// A request rmcp could not read as any method it knows: a method the
/// bridge serves whose params do not fit says why, anything else is unknown.
fn unread(method: &str, params: Option<Value>) -> ErrorData {
    const SERVED: [&str; 8] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/get",
        "prompts/list",
    ];
    if !SERVED.contains(&method) {
        return ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!("{method}: not a method the bridge serves"),
            None,
        );
    }
    let why = match method {
        "tools/call" => serde_json::from_value::<CallToolRequestParams>(params.unwrap_or_default())
            .err()
            .map(|e| format!(": {e}")),
        _ => None,
    };
    bad(format!(
        "{method}: the params do not fit the method{}",
        why.unwrap_or_default()
    ))
}

impl Handler {
    fn prompt_names(&self) -> (Names, Vec<(String, Value)>) {
        let mut items = Vec::new();
        for server in self.bridge.serving() {
            if let Some(cat) = self.bridge.wb().catalog().server(&server) {
                for p in cat.prompts {
                    items.push((server.clone(), p));
                }
            }
        }
        let pairs = items
            .iter()
            .map(|(s, p)| (s.as_str(), p["name"].as_str().unwrap_or_default()));
        let names = if self.bridge.bare_server().is_some() {
            Names::bare(pairs)
        } else {
            Names::of(pairs)
        };
        (names, items)
    }
}

impl Handler {
    /// What the bridge says of itself: the same for every caller.
    fn info(&self) -> ServerConfig {
        let mut instructions = String::from(
            "Every tool, resource and prompt of the servers MCP Workbench runs, named server__name (resources as mcpwb://server/uri).",
        );
        if self.bridge.own().is_some() {
            instructions.push_str(
                " The workbench's own tools (workbench_*) work on those servers: restart one after an edit and see what changed, the doctor, calls, suites, traffic. The skill mcp-workbench-loop teaches the loop.",
            );
        }
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "tools": { "listChanged": true },
                "resources": { "listChanged": true, "subscribe": true },
                "prompts": { "listChanged": true },
                "completions": {},
                "logging": {},
                // Tasks pass through to callers that declare them (`passing.rs`);
                // every served server's skills are the bridge's (`skills.rs`).
                "extensions": {
                    "io.modelcontextprotocol/tasks": {},
                    "io.modelcontextprotocol/skills": { "directoryRead": true }
                }
            },
            "serverInfo": {
                "name": "mcp-workbench-bridge",
                "title": "MCP Workbench",
                "version": env!("CARGO_PKG_VERSION")
            },
            "instructions": instructions
        }))
        .expect("static server info is valid")
    }
}

// Logging is deprecated by SEP-2577 but 2025-11-25 callers still use it.
//
// rmcp runs each request in a task it spawns, holding the handler's future
// and copying it as the task starts (over HTTP, a request of a 2026-07-28
// caller is a whole service of its own): whatever does the work of a
// request is boxed here, so that future is pointers, not kilobytes.
#[allow(deprecated)]
impl ServerHandler for Handler {
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        ctx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        // 2026-07-28 removed resources/subscribe (subscriptions/listen).
        let removed = ["resources/subscribe", "resources/unsubscribe"];
        if caller_new_era(&ctx) && removed.contains(&request.method.as_str()) {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "{}: not in protocol 2026-07-28 (subscriptions/listen replaces it)",
                    request.method
                ),
                None,
            ));
        }
        Err(unread(&request.method, request.params))
    }

    fn get_info(&self) -> ServerConfig {
        self.bridge.info(|| self.info())
    }
    async fn on_initialized(&self, ctx: NotificationContext<RoleServer>) {
        self.bridge.callers().join(ctx.peer.clone(), self.transport);
        self.bridge.adopt_roots(ctx.peer);
    }

    async fn on_roots_list_changed(&self, ctx: NotificationContext<RoleServer>) {
        self.bridge.adopt_roots(ctx.peer);
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        let mut f = rmcp::model::SubscriptionFilter::new();
        f.tools_list_changed = Some(true);
        f.prompts_list_changed = Some(true);
        f.resources_list_changed = Some(true);
        Some(f)
    }

    /// A 2026-07-28 client listens for changes: it is a connected caller
    /// until it stops.
    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let ctx = context.request_context();
        let (name, version) = ctx
            .client_info()
            .map(|i| (i.name, i.version))
            .unwrap_or_else(|| ("a client".into(), String::new()));
        let id =
            self.bridge
                .callers()
                .listen(name, version, self.transport, context.sink().clone());
        context.cancelled().await;
        self.bridge.callers().leave(id);
        Ok(())
    }

    /// A tool as listed, for checking a call's `Mcp-Param-*` headers over
    /// HTTP against the upstream tool's `x-mcp-header` annotations.
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let found = self.bridge.listed(name)?;
        let mut tool = found.tool.clone();
        tool["name"] = Value::String(found.qualified.clone());
        serde_json::from_value(tool).ok()
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // A caller that does not run tasks gets a task's result from the
        // bridge: to it no tool requires a task.
        let runs_tasks = caller_new_era(&ctx)
            && ctx
                .client_capabilities()
                .is_some_and(|c| c.supports_tasks());
        let tools: Vec<Value> = self
            .bridge
            .tools()
            .into_iter()
            .map(|t| {
                let mut tool = t.tool.clone();
                tool["name"] = Value::String(t.qualified.clone());
                if !runs_tasks && let Some(obj) = tool.as_object_mut() {
                    obj.remove("execution");
                }
                tool
            })
            .chain(self.bridge.own().map(|o| o.tools()).unwrap_or_default())
            .collect();
        self.answer(&ctx, json!({ "tools": tools }), ListToolsResult::default)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Box::pin(self.call(request, ctx)).await
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        Box::pin(self.pass_get_task(request, ctx)).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Box::pin(self.pass_update_task(request, ctx)).await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Box::pin(self.pass_cancel_task(request, ctx)).await
    }

    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = serde_json::to_value(request.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "debug".into());
        self.bridge.callers().set_log_level(crate::log_rank(&level));
        // The servers behind are asked for as much (a server that logs only
        // once asked, such as another bridge, would say nothing otherwise).
        // Asked together, and a slow server holds the caller's answer 2 s
        // at most (asked before the answer: the caller's next call logs).
        let wb = self.bridge.wb();
        let asks = self.bridge.serving().into_iter().map(|server| {
            let level = level.clone();
            async move {
                let ask = wb.want_log_level(&server, &level);
                let _ = tokio::time::timeout(std::time::Duration::from_secs(2), ask).await;
            }
        });
        futures::future::join_all(asks).await;
        Ok(())
    }

    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Box::pin(self.pass_subscription(&request.uri, "resources/subscribe")).await?;
        self.bridge
            .callers()
            .subscribe(&request.uri, self.session, ctx.peer.clone());
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // Other clients may still be subscribed: the server is told only
        // when the last one leaves.
        if !self
            .bridge
            .callers()
            .unsubscribe(&request.uri, self.session)
        {
            return Ok(());
        }
        Box::pin(self.pass_subscription(&request.uri, "resources/unsubscribe")).await
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let out = self.listed(|c| c.resources, "uri");
        self.answer(
            &ctx,
            json!({ "resources": out }),
            ListResourcesResult::default,
        )
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let out = self.listed(|c| c.resource_templates, "uriTemplate");
        self.answer(
            &ctx,
            json!({ "resourceTemplates": out }),
            ListResourceTemplatesResult::default,
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        Box::pin(self.read_one_resource(&request.uri, &ctx)).await
    }

    async fn list_skills(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.list_all_skills(&ctx)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        Box::pin(self.get_one_skill(&request.uri, &ctx)).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        Box::pin(self.read_one_directory(&request.uri, &ctx)).await
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let (names, items) = self.prompt_names();
        let prompts: Vec<Value> = items
            .into_iter()
            .map(|(server, mut p)| {
                let name = p["name"].as_str().unwrap_or_default().to_string();
                if let Some(q) = names.name(&server, &name) {
                    p["name"] = Value::String(q.to_string());
                }
                p
            })
            .collect();
        self.answer(
            &ctx,
            json!({ "prompts": prompts }),
            ListPromptsResult::default,
        )
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        let (names, _) = self.prompt_names();
        let bare = self
            .bridge
            .bare_server()
            .map(|s| (s, request.name.to_string()));
        let (server, name) = names
            .route(&request.name)
            .cloned()
            .or(bare)
            .ok_or_else(|| {
                bad(format!(
                    "no prompt {} here (prompts/list names them)",
                    request.name
                ))
            })?;
        let mut params = json!({ "name": name });
        if let Some(args) = &request.arguments {
            params["arguments"] = json!(args);
        }
        let new_era = caller_new_era(&ctx);
        if new_era
            && let Some(resume) = resume_of(
                request.input_responses.as_ref(),
                request.request_state.clone(),
            )
        {
            for (k, v) in resume {
                params[k] = v;
            }
        }
        let out = Box::pin(self.bridge.wb().request(
            &server,
            "prompts/get",
            params,
            CallOptions {
                cancel: Some(ctx.ct.clone()),
                pass_input: new_era,
                ..CallOptions::default()
            },
        ))
        .await
        .map_err(upstream)?;
        self.answer::<GetPromptResult>(&ctx, out.result, || GetPromptResult::new(vec![]))
            .map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let mut params = serde_json::to_value(&request).map_err(|e| bad(e.to_string()))?;
        let server = match params["ref"]["type"].as_str() {
            Some("ref/prompt") => {
                let (names, _) = self.prompt_names();
                let q = params["ref"]["name"].as_str().unwrap_or_default();
                let bare = self.bridge.bare_server().map(|s| (s, q.to_string()));
                let (server, name) = names
                    .route(q)
                    .cloned()
                    .or(bare)
                    .ok_or_else(|| bad(format!("no prompt {q} here")))?;
                params["ref"]["name"] = Value::String(name);
                server
            }
            _ => {
                let q = params["ref"]["uri"].as_str().unwrap_or_default();
                let (server, uri) = self
                    .bridge
                    .uri_in(q)
                    .ok_or_else(|| bad(format!("no template {q} here")))?;
                params["ref"]["uri"] = Value::String(uri);
                server
            }
        };
        let out = Box::pin(self.bridge.wb().request(
            &server,
            "completion/complete",
            params,
            CallOptions {
                cancel: Some(ctx.ct.clone()),
                ..CallOptions::default()
            },
        ))
        .await
        .map_err(upstream)?;
        self.answer(&ctx, out.result, CompleteResult::default)
    }
}
