//! Requests to a server: every one with a timeout (reset by progress, with a
//! maximum total), progress passed to the caller, cancellation that tells the
//! server (`notifications/cancelled`), the duration measured, and a tracing
//! span with server, method, tool, duration and outcome.

use std::time::{Duration, Instant};

use rmcp::model::{CancelledNotificationParam, ClientRequest};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde::Serialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::Workbench;
use super::limits::{Due, Limits};
use super::progress::{CallSink, forward_progress};
use super::send_errors::map_error;
use crate::connect::ServerState;
use crate::error::{Error, Result};

#[derive(Default)]
pub struct CallOptions {
    /// Overrides the server's call timeout (reset by each progress
    /// notification unless `fixed_timeout`).
    pub timeout: Option<Duration>,
    /// Overrides the longest the call may take, progress or not (the
    /// entry's `maxCallTime`, else 10 minutes).
    pub max_total: Option<Duration>,
    /// The timeout counts from the start, whatever progress comes.
    pub fixed_timeout: bool,
    /// Cancel the call: the server is sent notifications/cancelled.
    pub cancel: Option<CancellationToken>,
    /// Told the call's progress notifications and each status of the task
    /// it became, as they come.
    pub sink: Option<std::sync::Arc<dyn CallSink>>,
    /// Ask for a task where the tool only may run as one (2025-11-25
    /// `taskSupport: "optional"`; a required one is always asked as a task).
    pub as_task: bool,
    /// Return once the server made the task: the outcome is the task handle
    /// as sent, and the task is left to run (`mcpwb call --no-wait`).
    pub detach: bool,
    /// Hand a server's `input_required` answer back as the outcome instead
    /// of asking a person (a caller that answers it itself: the bridge's
    /// 2026-07-28 callers).
    pub pass_input: bool,
    /// This call answers an earlier `input_required`: `inputResponses` and
    /// the `requestState` to echo, added to the call's params as they are.
    pub resume: Option<serde_json::Map<String, Value>>,
    /// The capabilities declared for this call (2026-07-28 sends them with
    /// each request): the bridge's caller's, so that a server asks only
    /// what that caller can answer.
    pub client_capabilities: Option<Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CallOutcome {
    /// The result object as the server sent it.
    pub result: Value,
    pub duration_ms: f64,
    /// What happened on the way, one sentence each: a wait for the server
    /// to restart, the request sent again after the server died under it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The task the call ran as, as last seen (None: answered directly).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<crate::task::TaskState>,
}

/// What a request carries: `tools/call`'s typed params (the hot path: built
/// from the caller's arguments without a detour through JSON text or a
/// `Value` tree), or any method's params as JSON.
#[derive(Clone)]
pub(super) enum Params {
    Tool(rmcp::model::CallToolRequestParams),
    Json(Value),
    /// Sent as a method rmcp does not model (its types would drop fields:
    /// a 2025-11-25 `tools/call` asking for a task, `tasks/result`).
    Custom(Value),
}

impl Params {
    /// The tool's name and arguments, when these are a `tools/call`'s.
    pub(super) fn tool_call(&self) -> (Option<String>, Option<Value>) {
        match self {
            Params::Tool(p) => (
                Some(p.name.to_string()),
                p.arguments.clone().map(Value::Object),
            ),
            Params::Json(v) | Params::Custom(v) => (
                v.get("name").and_then(Value::as_str).map(str::to_string),
                v.get("arguments").cloned(),
            ),
        }
    }
}

pub(super) fn state_name(state: &ServerState) -> String {
    match state {
        ServerState::Disabled => "disabled".into(),
        ServerState::Untrusted => {
            "not trusted yet (it comes from elsewhere: trust it first)".into()
        }
        ServerState::Starting { slow: false } => "starting".into(),
        ServerState::Starting { slow: true } => "starting, slow to answer".into(),
        ServerState::Ready => "ready".into(),
        ServerState::Failed { reason, .. } => format!("failed: {reason}"),
        ServerState::Restarting {
            attempt, reason, ..
        } => format!("restarting (attempt {attempt}) after: {reason}"),
        ServerState::Stopped => "stopped".into(),
    }
}

/// The capability to call a tool: a token with a private field, so no crate
/// but this one can make it. A workbench started with
/// [`Workbench::start_with_caller`] hands one to whoever started it (the
/// app's and `mcpwb`'s composition roots), who gives it to the one call path
/// (`workbench_calls::Calls::new`) and to nobody else; every tool call
/// demands it. The agent, the bridge, the doctor and every other surface
/// hold a `Calls`, never the token: they call tools through the person's
/// rules and the history, or not at all (`tests/house/` holds who names it).
#[derive(Clone)]
pub struct ToolCaller(());

impl ToolCaller {
    /// For tests of this crate's connections (the `testing` feature, a
    /// dev-dependency's only).
    #[cfg(feature = "testing")]
    pub fn for_tests() -> ToolCaller {
        ToolCaller(())
    }

    pub(super) fn mint() -> ToolCaller {
        ToolCaller(())
    }
}

impl Workbench {
    /// Send `method` with `params` to `server` and wait for the result. Not
    /// `tools/call`: a tool call goes through the one call path
    /// ([`ToolCaller`], `workbench_calls::Calls::run`).
    pub async fn request(
        &self,
        server: &str,
        method: &str,
        params: Value,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        if method == "tools/call" {
            return Err(Error::Refused(
                "tools/call goes through the one call path (workbench-calls), not a raw request"
                    .into(),
            ));
        }
        self.request_with(server, method, Params::Json(params), options)
            .await
    }

    pub(super) async fn request_with(
        &self,
        server: &str,
        method: &str,
        params: Params,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        let handle = self.server(server)?;
        let tool = match &params {
            Params::Tool(p) => &*p.name,
            Params::Json(v) | Params::Custom(v) if method == "tools/call" => {
                v["name"].as_str().unwrap_or_default()
            }
            Params::Json(_) | Params::Custom(_) => "",
        };
        let span = tracing::info_span!("mcp_request", server, method, tool);
        async move {
            let started = Instant::now();
            // Boxed: every caller above would hold (and copy) its 5 KB.
            let outcome = Box::pin(self.request_recovering(&handle, method, params, options))
                .await
                .map_err(|e| super::recover::explain_era_trap(&handle, e));
            let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
            match &outcome {
                Ok(_) => tracing::info!(duration_ms, outcome = "ok", "request done"),
                Err(e) => {
                    tracing::info!(duration_ms, outcome = ?e.code(), error = %e, "request failed")
                }
            }
            outcome.map(|((result, task), notes)| CallOutcome {
                result,
                duration_ms,
                task,
                notes,
            })
        }
        .instrument(span)
        .await
    }

    /// A transient server: a fresh connection for this call, closed after it.
    pub(super) async fn transient_request(
        &self,
        handle: &crate::connect::ServerHandle,
        method: &str,
        params: Params,
        options: CallOptions,
    ) -> Result<super::rounds::Sent> {
        let session = handle
            .open_transient()
            .await
            .map_err(|f| Error::Transport {
                server: handle.name().to_string(),
                method: method.to_string(),
                message: f.reason,
            })?;
        let result = self
            .send(handle, &session.peer, method, &params, &options)
            .await;
        session.shutdown(handle.options().shutdown_grace).await;
        result
    }

    /// One request and its answer (one round of a multi-round call).
    pub(super) async fn send_once(
        &self,
        handle: &crate::connect::ServerHandle,
        peer: &rmcp::Peer<rmcp::RoleClient>,
        method: &str,
        params: &Params,
        options: &CallOptions,
    ) -> Result<rmcp::model::ServerResult> {
        let server = handle.name();
        let opts = handle.options();
        let timeout = options.timeout.unwrap_or(opts.call_timeout);
        let max_total = options.max_total.unwrap_or(opts.max_call_time).max(timeout);
        // Progress is read from the traffic tap, which sees messages in wire
        // order (rmcp runs notification handlers in spawned tasks, so through
        // it the last progress can arrive after the result).
        let mut tap = options
            .sink
            .as_ref()
            .map(|_| self.traffic().subscribe_progress());
        // The timeouts are kept here rather than by rmcp's per-request
        // progress watchers: one timer per call, and the progress that resets
        // it is looked up in the traffic log only when it fires.
        // Boxed, like the answer awaited below: each is 3.4-3.7 KB of rmcp's
        // state, and this future is part of every caller's above it (the
        // call path is copied level by level as it starts: 8 KB here and
        // ~130 KB over a bridge's call before, ~1 KB here after).
        let request = Box::pin(self.put(handle, peer, (method, params), options)).await?;
        let started = tokio::time::Instant::now();
        let limits = Limits {
            timeout,
            max_total,
            fixed: options.fixed_timeout,
            started,
        };
        // The token as JSON text, made only when needed (progress wanted, a
        // timer fired, progress recorded): most calls never need it.
        let progress_token = request.progress_token.clone();
        let token_text = || serde_json::to_string(&progress_token).unwrap_or_default();
        let mut token = if tap.is_some() {
            token_text()
        } else {
            String::new()
        };
        let id = request.id.clone();
        let mut response = Box::pin(request.await_response());
        let mut idle = Box::pin(tokio::time::sleep(timeout.min(max_total)));
        let cancel = &options.cancel;
        let outcome = loop {
            tokio::select! {
                biased;
                result = &mut response => {
                    let result = match result {
                        Ok(result) => result,
                        Err(e) => break Err(self.unanswered(e, (server, method), &id, started)),
                    };
                    // Everything recorded before the result is already queued.
                    if let (Some(tap), Some(sink)) = (tap.as_mut(), &options.sink) {
                        while let Ok(entry) = tap.try_recv() {
                            forward_progress(&entry, server, &token, sink.as_ref());
                        }
                    }
                    break Ok(result);
                }
                _ = async { match cancel { Some(c) => c.cancelled().await, None => std::future::pending().await } } => {
                    notify_cancelled(peer, &id, "cancelled by the user").await;
                    break Err(Error::Cancelled { server: server.to_string(), method: method.to_string() });
                }
                _ = &mut idle => {
                    if token.is_empty() {
                        token = token_text();
                    }
                    let (reason, seconds, progressing) = match limits.due(self, server, &token) {
                        Due::At(next) => {
                            idle.as_mut().reset(next);
                            continue;
                        }
                        Due::Over { reason, seconds, progressing } => (reason, seconds, progressing),
                    };
                    notify_cancelled(peer, &id, reason).await;
                    break Err(Error::Timeout {
                        server: server.to_string(),
                        method: method.to_string(),
                        seconds: seconds.as_secs_f64(),
                        progressing,
                    });
                }
                entry = async { match tap.as_mut() { Some(t) => t.recv().await, None => std::future::pending().await } } => {
                    if let (Ok(entry), Some(sink)) = (entry, &options.sink) {
                        forward_progress(&entry, server, &token, sink.as_ref());
                    }
                }
            }
        };
        if self.traffic().has_progress() {
            if token.is_empty() {
                token = token_text();
            }
            self.traffic().forget_progress(server, &token);
        }
        self.inner.kept_timer.keep(idle);
        outcome
    }

    /// The request handed to the connection (not yet answered).
    async fn put(
        &self,
        handle: &crate::connect::ServerHandle,
        peer: &rmcp::Peer<rmcp::RoleClient>,
        (method, params): (&str, &Params),
        options: &CallOptions,
    ) -> Result<rmcp::service::RequestHandle<rmcp::RoleClient>> {
        let request = build_request(method, params)?;
        peer.send_cancellable_request(request, self.request_options(handle, options))
            .await
            .map_err(|e| match e {
                // Never written: the server did not see it.
                ServiceError::TransportClosed => Error::ConnectionLost {
                    server: handle.name().to_string(),
                    method: method.to_string(),
                    sent: false,
                },
                e => map_error(handle.name(), method, e),
            })
    }

    /// Why a sent request got no answer. The connection closed under it
    /// soon after: if the traffic log never saw it written it was only
    /// queued for a connection that ended first, and the server did not see
    /// it (`sent: false`: safe to send again).
    fn unanswered(
        &self,
        e: ServiceError,
        (server, method): (&str, &str),
        id: &rmcp::model::RequestId,
        started: tokio::time::Instant,
    ) -> Error {
        match e {
            ServiceError::TransportClosed
                if started.elapsed() < Duration::from_secs(2)
                    && !self
                        .traffic()
                        .was_sent(server, &serde_json::to_string(id).unwrap_or_default()) =>
            {
                Error::ConnectionLost {
                    server: server.to_string(),
                    method: method.to_string(),
                    sent: false,
                }
            }
            e => map_error(server, method, e),
        }
    }

    /// Call a tool by server and name, on the one call path.
    pub async fn call_tool_on(
        &self,
        _caller: &ToolCaller,
        server: &str,
        tool: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        let handle = self.server(server)?;
        if !handle.entry().offers_tool(tool) {
            return Err(Error::ToolExcluded {
                server: server.to_string(),
                tool: tool.to_string(),
            });
        }
        let arguments = match arguments {
            Value::Null => serde_json::Map::new(),
            Value::Object(map) => map,
            other => {
                let what = match other {
                    Value::Array(_) => "an array",
                    Value::String(_) => "a string",
                    Value::Number(_) => "a number",
                    _ => "a boolean",
                };
                return Err(Error::Internal(format!(
                    "tools/call: the arguments must be a JSON object, not {what}"
                )));
            }
        };
        let params = match (
            self.as_2025_task(&handle, tool, &arguments, &options),
            &options.resume,
        ) {
            (Some(asked), _) => Params::Custom(asked),
            (None, Some(resume)) => {
                let mut params = json!({ "name": tool, "arguments": arguments });
                for (k, v) in resume {
                    params[k] = v.clone();
                }
                Params::Json(params)
            }
            (None, None) => Params::Tool(
                rmcp::model::CallToolRequestParams::new(tool.to_string()).with_arguments(arguments),
            ),
        };
        self.request_with(server, "tools/call", params, options)
            .await
    }

    /// The params of a call asked as a 2025-11-25 task: where the server
    /// offers tasks for `tools/call` and the tool requires one (or allows one
    /// and the caller asked).
    fn as_2025_task(
        &self,
        handle: &crate::connect::ServerHandle,
        tool: &str,
        arguments: &serde_json::Map<String, Value>,
        options: &CallOptions,
    ) -> Option<Value> {
        if !handle.with_info(crate::task::offers_2025_tasks)? {
            return None;
        }
        let definition = self.catalog().tool(handle.name(), tool)?;
        let wanted = match definition["execution"]["taskSupport"].as_str() {
            Some("required") => true,
            Some("optional") => options.as_task || options.detach,
            _ => false,
        };
        wanted.then(|| {
            json!({
                "name": tool,
                "arguments": arguments,
                "task": { "ttl": super::tasks::ASKED_TTL_MS },
            })
        })
    }

    /// Call a tool by its qualified name (`server__tool`), on the one call path.
    pub async fn call_qualified_on(
        &self,
        caller: &ToolCaller,
        qualified: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        let (server, tool) = self
            .catalog()
            .route(qualified)
            .ok_or_else(|| Error::UnknownTool {
                server: "(any)".into(),
                tool: qualified.to_string(),
            })?;
        self.call_tool_on(caller, &server, &tool, arguments, options)
            .await
    }
}

/// The typed request for `method`. A tool call's typed params are copied
/// as they are (the caller keeps them for a next round); anything else goes
/// through `ClientRequest`'s own deserializer.
fn build_request(method: &str, params: &Params) -> Result<ClientRequest> {
    use serde::Deserialize;
    let bad = |e: serde_json::Error| Error::Internal(format!("{method}: {e}"));
    let params = match params {
        Params::Tool(p) => {
            return Ok(ClientRequest::CallToolRequest(
                rmcp::model::CallToolRequest::new(p.clone()),
            ));
        }
        Params::Json(v) => v,
        Params::Custom(v) => {
            let params = (!v.is_null()).then(|| v.clone());
            return Ok(ClientRequest::CustomRequest(
                rmcp::model::CustomRequest::new(method, params),
            ));
        }
    };
    if method == "tools/call" {
        // Read from the value in place: the caller keeps it for a next round.
        let params = rmcp::model::CallToolRequestParams::deserialize(params).map_err(bad)?;
        return Ok(ClientRequest::CallToolRequest(
            rmcp::model::CallToolRequest::new(params),
        ));
    }
    let message = if params.is_null() {
        json!({ "method": method })
    } else {
        json!({ "method": method, "params": params })
    };
    serde_json::from_value(message).map_err(bad)
}

impl Workbench {
    /// rmcp's options for one request: what its `_meta` adds — the
    /// capabilities it declares where the caller narrows them, and on a
    /// 2026-07-28 server the log level asked for.
    fn request_options(
        &self,
        handle: &crate::connect::ServerHandle,
        options: &CallOptions,
    ) -> PeerRequestOptions {
        let mut out = PeerRequestOptions::no_options();
        let mut meta = serde_json::Map::new();
        if let Some(caps) = &options.client_capabilities {
            meta.insert(
                "io.modelcontextprotocol/clientCapabilities".into(),
                caps.clone(),
            );
        }
        let level = self.inner.listens.log_level(handle.name());
        if let Some(level) = level
            && handle
                .protocol_version()
                .is_some_and(|v| v.as_str() >= "2026")
        {
            meta.insert(
                "io.modelcontextprotocol/logLevel".into(),
                Value::String(level),
            );
        }
        // The span this request is made in (traces out), so the server's
        // own tracing joins the trace.
        if let Some(c) = crate::otel::current() {
            meta.insert("traceparent".into(), Value::String(c.traceparent()));
        }
        if !meta.is_empty() {
            // rmcp's `_meta` is the JSON object as it is: no walk through
            // serde to make it (the caller's capabilities were read back
            // whole on every call).
            out.meta = Some(meta.into());
        }
        out
    }
}

/// Tell the server a request is abandoned (`notifications/cancelled`).
async fn notify_cancelled(
    peer: &rmcp::Peer<rmcp::RoleClient>,
    id: &rmcp::model::RequestId,
    reason: &str,
) {
    let param: std::result::Result<CancelledNotificationParam, _> =
        serde_json::from_value(json!({ "requestId": id, "reason": reason }));
    if let Ok(param) = param {
        let _ = peer.notify_cancelled(param).await;
    }
}
