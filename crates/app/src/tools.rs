//! A tool called by the person: the window's Run and `mcpwb call`. Their
//! own act, so no approval is asked (the standing refusals still hold: a
//! tool the person denied stays denied); the output-schema check and the
//! history row come with it, through the one call path.

use std::sync::Arc;
use std::time::Duration;
pub use workbench_core::CallOutcome;

use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use workbench_calls::{Call, Calls, Link, Origin};
use workbench_core::{CallOptions, ErrorInfo};

/// What a call reports as it runs, and what it reports: the adapter's sink
/// turns them into its own wire.
pub use workbench_core::{CallSink, Progress, TaskState};

/// Where the person called from: the window's tool panel or `mcpwb call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByHand {
    Window,
    Cli,
}

/// One call, as the person asked for it.
pub struct HandCall<'a> {
    pub from: ByHand,
    pub server: &'a str,
    pub tool: &'a str,
    pub arguments: Value,
    /// Ask for a task where the tool may run as one.
    pub as_task: bool,
    /// Return once the server made the task (`mcpwb call --no-wait`).
    pub detach: bool,
    /// The call's timeout (None: the server's), started again at each
    /// progress notification unless `fixed_timeout`.
    pub timeout: Option<Duration>,
    /// The longest it may take however it progresses (None: the entry's).
    pub max_total: Option<Duration>,
    pub fixed_timeout: bool,
    /// Stops the call (the server is told).
    pub cancel: CancellationToken,
}

/// What came back.
#[derive(Debug)]
pub struct Called {
    /// The result object as the server sent it.
    pub result: Value,
    pub duration_ms: f64,
    /// Where `structuredContent` breaks the tool's `outputSchema`.
    pub schema_violations: Vec<String>,
    /// The key of the call's row in the history, made before the call (None:
    /// not kept); the row is written off the answer's path.
    pub history_key: Option<String>,
    /// The task the call ran as, as it ended (None: answered directly).
    pub task: Option<TaskState>,
    /// What happened on the way, one sentence each (a wait for the server
    /// to restart, the request sent again after it died under it).
    pub notes: Vec<String>,
}

/// Call the tool; its progress and task statuses go to `sink` as they come.
pub async fn call(
    calls: &Calls,
    call: HandCall<'_>,
    sink: Option<Arc<dyn CallSink>>,
) -> Result<Called, ErrorInfo> {
    let origin = match call.from {
        ByHand::Window => Origin::Window,
        ByHand::Cli => Origin::Cli,
    };
    let ran = calls
        .run(Call {
            consent: None,
            origin,
            server: call.server,
            tool: call.tool,
            arguments: call.arguments,
            definition: None,
            link: Link::default(),
            options: CallOptions {
                cancel: Some(call.cancel),
                sink,
                as_task: call.as_task,
                detach: call.detach,
                timeout: call.timeout,
                max_total: call.max_total,
                fixed_timeout: call.fixed_timeout,
                ..Default::default()
            },
        })
        .await;
    let outcome = ran.outcome.map_err(ErrorInfo::from)?;
    Ok(Called {
        result: outcome.result,
        duration_ms: outcome.duration_ms,
        schema_violations: ran.schema_violations,
        history_key: ran.key,
        task: outcome.task,
        notes: outcome.notes,
    })
}

/// A tool of a Ready (or recently Ready: `stale`) server.
#[derive(Debug, Clone, Serialize)]
pub struct ToolRow {
    /// `server__tool`, unique across servers.
    pub qualified: String,
    pub server: String,
    /// The definition as the server sent it (name, title, description,
    /// inputSchema, outputSchema, annotations, icons, ...).
    pub tool: Value,
    pub stale: bool,
}

/// The tools of `names`, qualified, in server then tool order.
pub fn of_servers(
    wb: &workbench_core::Workbench,
    names: &[String],
) -> Vec<workbench_core::catalog::QualifiedTool> {
    wb.catalog()
        .tools()
        .into_iter()
        .filter(|t| names.contains(&t.server))
        .collect()
}

/// What each of `names` said of its tool list's freshness (2026-07-28
/// `cache`), by server; a server that said nothing is left out.
pub fn list_freshness(
    wb: &workbench_core::Workbench,
    names: &[String],
) -> serde_json::Map<String, serde_json::Value> {
    names
        .iter()
        .filter_map(|n| {
            let hint = wb.catalog().server(n)?.cache.get("tools")?.clone();
            Some((n.clone(), serde_json::to_value(hint).ok()?))
        })
        .collect()
}

/// A tool's `inputSchema` as its server listed it (None: not listed).
pub fn input_schema(
    wb: &workbench_core::Workbench,
    server: &str,
    tool: &str,
) -> Option<serde_json::Value> {
    wb.catalog()
        .tool(server, tool)
        .map(|t| t["inputSchema"].clone())
}

/// The tools `server` lists, when `tool` is not among them nor hidden by
/// its entry (a call to it is then sent as given, with a note); None when
/// the tool is listed or hidden, or the server's listing is not known.
pub fn unlisted(wb: &workbench_core::Workbench, server: &str, tool: &str) -> Option<Vec<String>> {
    let catalog = wb.catalog();
    let listing = catalog.server(server)?;
    let names: Vec<String> = listing
        .tools
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    let known = names.iter().chain(&listing.hidden_tools).any(|n| n == tool);
    (!known).then_some(names)
}

/// Every server's tools, as the Tools room lists them.
pub fn rows(wb: &workbench_core::Workbench) -> Vec<ToolRow> {
    let catalog = wb.catalog();
    // Which servers are away, asked once per server (not once per tool:
    // a server with 5,000 tools made that quadratic).
    let stale: std::collections::HashSet<String> = wb
        .servers()
        .iter()
        .filter(|s| catalog.server(s.name()).is_some_and(|c| c.stale))
        .map(|s| s.name().to_string())
        .collect();
    catalog
        .tools()
        .into_iter()
        .map(|t| ToolRow {
            stale: stale.contains(&t.server),
            qualified: t.qualified,
            server: t.server,
            tool: t.tool,
        })
        .collect()
}

/// The latest calls of one tool from the history (every caller's), newest
/// first; none when the history is off.
pub fn recent(
    calls: &Calls,
    server: &str,
    tool: &str,
    limit: u32,
) -> Result<Vec<workbench_store::CallRow>, ErrorInfo> {
    let Some(store) = calls.store() else {
        return Ok(Vec::new());
    };
    store
        .tool_calls(server, tool, limit.clamp(1, 500) as usize)
        .map_err(|e| ErrorInfo {
            code: workbench_core::ErrorCode::Storage,
            message: format!("the call history: {e}"),
        })
}

/// A call the person makes from a terminal with nothing to report on the
/// way (`mcpwb dev`'s call again, `mcpwb app`'s): the one call path, as
/// `Origin::Cli`, its history row with it.
pub(crate) async fn from_cli(
    calls: &Calls,
    server: &str,
    tool: &str,
    arguments: Value,
    definition: Option<&Value>,
    options: CallOptions,
) -> workbench_core::Result<workbench_core::CallOutcome> {
    calls
        .run(Call {
            consent: None,
            origin: Origin::Cli,
            server,
            tool,
            arguments,
            definition,
            link: Link::default(),
            options,
        })
        .await
        .outcome
}
