//! The demo server: every MCP feature a client should handle, over stdio or
//! Streamable HTTP, with optional misbehaviour ([`Fault`]).
//!
//! Definitions are written as the JSON a server sends (see `tools.rs` and
//! `catalog.rs`), so what the tests see is exactly what is on the wire.

// Sampling, roots and logging are deprecated by SEP-2577 for the newest protocol,
// but servers speaking 2025-11-25 use them every day: the demo server offers them.
#![allow(deprecated)]

pub mod app;
mod asking;
mod cache;
mod calls;
mod catalog;
mod conformance;
mod conformance_tasks;
mod listen;
mod logging;
mod mrtr;
pub mod skills;
mod tasked;
pub mod tools;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::fault::Fault;

pub use catalog::COUNTER_URI;
pub use tasked::definitions as task_tools;
pub use tools::EXTRA_TOOL;

/// Options of one demo server instance.
#[derive(Debug, Clone, Default)]
pub struct DemoOptions {
    /// Reported as `serverInfo.name`.
    pub name: String,
    pub fault: Option<Fault>,
    /// Paginate every list in pages of this size (None: one page).
    pub page_size: Option<usize>,
    /// Speak only the `initialize` era (up to 2025-11-25): `server/discover`
    /// is an unknown method, as on servers written before 2026-07-28.
    pub legacy: bool,
    /// This many generated tools on top of the real ones (scale tests).
    pub tool_count: usize,
    /// Also the fixtures the conformance suite's server scenarios call.
    pub conformance: bool,
    /// Serve the skills in this folder (SEP-2640); None: the demo's own
    /// (`crates/testkit/skills`).
    pub skills: Option<std::path::PathBuf>,
    /// Say lists stay fresh this long and are the same for every caller
    /// (`ttlMs`, `cacheScope: public`); None: `ttlMs` 0, `private` (what a
    /// 2026-07-28 server must at least say).
    pub cache_ttl: Option<u64>,
}

/// One demo server session. Cheap to clone; clones share state.
#[derive(Clone)]
pub struct DemoServer {
    inner: Arc<Inner>,
}

struct Inner {
    options: DemoOptions,
    /// The skills served (none when the folder cannot be read).
    skills: Option<rmcp::handler::server::skill_catalog::SkillCatalog>,
    extra_tool: AtomicBool,
    /// `redefine_echo` changed echo's description (a definition change).
    echo_redefined: AtomicBool,
    counter: AtomicI64,
    /// What the `lying-cache` fault keeps between lists.
    cache: cache::Lying,
    subscriptions: Mutex<HashSet<String>>,
    log_level: Mutex<LoggingLevel>,
}

fn from_json<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|e| {
        McpError::internal_error(format!("demo server built a bad message: {e}"), None)
    })
}

/// A result built from its JSON, saying it is complete (2026-07-28 results
/// must; rmcp takes `resultType` out again for earlier clients).
fn complete<T: DeserializeOwned>(mut value: Value) -> Result<T, McpError> {
    if let Some(obj) = value.as_object_mut() {
        obj.entry("resultType")
            .or_insert_with(|| Value::String("complete".into()));
    }
    from_json(value)
}

fn text_result(text: impl Into<String>, is_error: bool) -> Value {
    json!({ "content": [{ "type": "text", "text": text.into() }], "isError": is_error })
}

impl DemoServer {
    pub fn new(options: DemoOptions) -> Self {
        DemoServer {
            inner: Arc::new(Inner {
                skills: skills::catalog(options.skills.clone()),
                options,
                extra_tool: AtomicBool::new(false),
                echo_redefined: AtomicBool::new(false),
                counter: AtomicI64::new(0),
                cache: cache::Lying::default(),
                subscriptions: Mutex::new(HashSet::new()),
                log_level: Mutex::new(LoggingLevel::Debug),
            }),
        }
    }

    fn page_size(&self) -> Option<usize> {
        self.inner.options.page_size
    }

    /// Every tool this server lists to a session of the given era.
    fn tool_definitions(&self, new_era: bool) -> Vec<Value> {
        tools::all(tools::Listing {
            extra: self.inner.extra_tool.load(Ordering::SeqCst),
            echo_redefined: self.inner.echo_redefined.load(Ordering::SeqCst),
            generated: self.inner.options.tool_count,
            conformance: self.inner.options.conformance,
            new_era,
        })
    }
}

#[allow(deprecated)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        let mut extensions = json!({ "io.modelcontextprotocol/tasks": {} });
        if self.inner.skills.is_some() {
            extensions["io.modelcontextprotocol/skills"] = json!({ "directoryRead": true });
        }
        from_json(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "tools": { "listChanged": true },
                "resources": { "subscribe": true, "listChanged": true },
                "prompts": { "listChanged": false },
                "logging": {},
                "completions": {},
                "extensions": extensions
            },
            "serverInfo": {
                "name": self.inner.options.name,
                "title": "MCP Workbench demo server",
                "version": env!("CARGO_PKG_VERSION")
            },
            "instructions": "The MCP Workbench demo server: try echo, create_order, long_task and all_content_types."
        }))
        .expect("static server info is valid")
    }

    /// The tool's definition, for checking the `Mcp-Param-*` headers of a
    /// call over HTTP against its `x-mcp-header` annotations.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        let tool = self
            .tool_definitions(true)
            .into_iter()
            .find(|t| t["name"] == name)?;
        serde_json::from_value(tool).ok()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let new_era = ctx
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        let mut all = self.tool_definitions(new_era);
        if self.inner.options.fault == Some(Fault::LyingCache) {
            all.extend(cache::lying_tools(&self.inner.cache));
        }
        let (items, next) = catalog::page(
            all,
            request.as_ref().and_then(|r| r.cursor.as_deref()),
            self.page_size(),
        );
        complete(cache::hinted(
            json!({ "tools": items, "nextCursor": next }),
            &self.inner.options,
            new_era,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let session = ctx
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if request.name == "busy_once" {
            return asking::busy_once(&request, &ctx);
        }
        if tasked::NAMES.contains(&&*request.name) {
            return tasked::call(&request, &ctx).await;
        }
        if let Some((method, params)) = asking::request_of(&request.name, &args) {
            let new_era = ctx
                .protocol_version()
                .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
            if new_era {
                return asking::ask_in_rounds(&request.name, method, params, &request);
            }
            let result = asking::ask_directly(&request.name, method, params, &ctx).await?;
            return Ok(complete::<CallToolResult>(result)?.into());
        }
        if self.inner.options.conformance
            && let Some(response) = conformance::any(&request, &args, &ctx).await
        {
            return response;
        }
        let result = self.call(&request.name, args, ctx).await?;
        if self.inner.options.fault == Some(Fault::DropSession)
            && let Some(session) = session
        {
            crate::http::drop_session(session);
        }
        Ok(complete::<CallToolResult>(result)?.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut all = catalog::resources();
        all.push(app::resource());
        if let Some(skills) = &self.inner.skills {
            all.extend(
                skills
                    .resources()
                    .into_iter()
                    .filter_map(|r| serde_json::to_value(r).ok()),
            );
        }
        if self.inner.options.conformance {
            all.extend(conformance::resources());
        }
        let (items, next) = catalog::page(
            all,
            request.as_ref().and_then(|r| r.cursor.as_deref()),
            self.page_size(),
        );
        complete(cache::hinted(
            json!({ "resources": items, "nextCursor": next }),
            &self.inner.options,
            cache::new_era(&ctx),
        ))
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let mut all = catalog::resource_templates();
        if self.inner.options.conformance {
            all.extend(conformance::templates());
        }
        let (items, next) = catalog::page(
            all,
            request.as_ref().and_then(|r| r.cursor.as_deref()),
            self.page_size(),
        );
        complete(cache::hinted(
            json!({ "resourceTemplates": items, "nextCursor": next }),
            &self.inner.options,
            cache::new_era(&ctx),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let fixture = self
            .inner
            .options
            .conformance
            .then(|| conformance::read(&request.uri))
            .flatten();
        if let Some(read) = self
            .inner
            .skills
            .as_ref()
            .and_then(|s| s.read_resource(&request.uri))
        {
            return Ok(read.into());
        }
        match fixture
            .or_else(|| app::read(&request.uri))
            .or_else(|| catalog::read(&request.uri, self.inner.counter.load(Ordering::SeqCst)))
        {
            Some(result) => Ok(complete::<ReadResourceResult>(cache::hinted(
                result,
                &self.inner.options,
                cache::new_era(&ctx),
            ))?
            .into()),
            None => Err(McpError::resource_not_found(
                format!("no resource at {}", request.uri),
                Some(json!({ "uri": request.uri })),
            )),
        }
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        match &self.inner.skills {
            Some(s) => Ok(s.list_skills()),
            None => Err(McpError::method_not_found::<ListSkillsRequestMethod>()),
        }
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        match &self.inner.skills {
            Some(s) => s.get_skill(&request.uri),
            None => Err(McpError::method_not_found::<GetSkillRequestMethod>()),
        }
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        match &self.inner.skills {
            Some(s) => s.read_resource_directory(&request.uri),
            None => Err(McpError::invalid_params(
                format!("not a directory: {}", request.uri),
                None,
            )),
        }
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // All it asks for (rmcp keeps what the capabilities advertise).
        Some(requested.clone())
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), McpError> {
        let sink = context.sink().clone();
        listen::add(sink.clone());
        context.cancelled().await;
        listen::remove(&sink);
        Ok(())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.inner.subscriptions.lock().await.insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.inner.subscriptions.lock().await.remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let mut all = catalog::prompts();
        if self.inner.options.conformance {
            all.extend(conformance::prompts());
        }
        let (items, next) = catalog::page(
            all,
            request.as_ref().and_then(|r| r.cursor.as_deref()),
            self.page_size(),
        );
        complete(cache::hinted(
            json!({ "prompts": items, "nextCursor": next }),
            &self.inner.options,
            cache::new_era(&ctx),
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        if self.inner.options.conformance
            && let Some(response) = conformance::prompt(&request, &args)
        {
            return response;
        }
        match catalog::get_prompt(&request.name, &args) {
            Ok(result) => Ok(complete::<GetPromptResult>(result)?.into()),
            Err(reason) => Err(McpError::invalid_params(reason, None)),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let req = serde_json::to_value(&request).unwrap_or_default();
        let values = catalog::complete(
            &req["ref"],
            req["argument"]["name"].as_str().unwrap_or(""),
            req["argument"]["value"].as_str().unwrap_or(""),
            &req["context"]["arguments"],
        );
        let total = values.len();
        complete(json!({ "completion": { "values": values, "total": total, "hasMore": false } }))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        tokio::time::sleep(tasked::status_delay(&request.task_id)).await;
        Ok(GetTaskResult::new(
            tasked::manager().get_task(&request.task_id)?,
        ))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        tasked::manager().update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        tasked::manager().cancel_task(&request.task_id)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        *self.inner.log_level.lock().await = request.level;
        Ok(())
    }
}
