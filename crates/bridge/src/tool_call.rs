//! A caller's tool call through the bridge: found by its bridge name,
//! decided by the bridge's policy (through the one call path), made with
//! the caller's progress, capabilities and cancellation, and answered as the
//! server sent it (a task or input handed on to a caller that runs them).

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use workbench_calls::{Call, Link, Origin};
use workbench_core::CallOptions;
use workbench_core::traffic::Direction;

use crate::passing::{caller_capabilities, caller_new_era, resume_of, upstream};
use crate::policy;
use crate::rows::Row;
use crate::service::{Handler, bad};

/// A call found and decided, to relay upstream.
struct Relay<'a> {
    caller: &'a str,
    server: &'a str,
    tool: &'a str,
    qualified: &'a str,
    definition: &'a Value,
    arguments: Value,
    consent: workbench_calls::Consent,
    /// The caller speaks 2026-07-28: it answers input_required itself.
    new_era: bool,
    /// The caller's answers and state, for the next round upstream.
    resume: Option<serde_json::Map<String, Value>>,
    /// The caller runs tasks itself: it gets the task.
    pass_tasks: bool,
}

impl Handler {
    pub(crate) async fn call(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let CallToolRequestParams {
            name,
            arguments,
            input_responses,
            request_state,
            ..
        } = request;
        // A 2026-07-28 caller answers a server's input_required itself: it
        // is handed on as sent, and the caller's next round goes upstream
        // with its answers and the state echoed.
        let new_era = caller_new_era(&ctx);
        let resume = resume_of(input_responses.as_ref(), request_state);
        let qualified = name.to_string();
        // One of the bridge's own tools (the workbench's, for a coding agent).
        if let Some(own) = self.bridge.own()
            && own.owns(&qualified)
        {
            let arguments = Value::Object(arguments.unwrap_or_default());
            return self
                .call_own(own.as_ref(), &qualified, arguments, &ctx)
                .await;
        }
        let found = self
            .bridge
            .tool(&qualified)
            .ok_or_else(|| bad(format!("no tool {qualified} here (tools/list names them)")))?;
        let tool = found.tool["name"].as_str().unwrap_or_default().to_string();
        let server = found.server.clone();
        let pass_tasks = crate::passing::passes_tasks(self, &ctx, &server);
        let caller = self.caller(&ctx);
        let arguments = Value::Object(arguments.unwrap_or_default());
        self.bridge.callers().count(&caller);
        let id = ctx.id.clone();
        self.record(
            &caller,
            Direction::Incoming,
            &Row::call(&id, &qualified, &arguments),
        );
        let decided = self
            .decide(
                &caller,
                (&server, &tool, &qualified),
                &found.tool,
                &arguments,
            )
            .await;
        let (arguments, consent) = match decided {
            Ok(decided) => (decided.arguments.unwrap_or(arguments), decided.consent),
            Err(why) => {
                let refused = json!({ "content": [{ "type": "text", "text": format!("refused: {}", why.message) }], "isError": true });
                self.record(&caller, Direction::Outgoing, &Row::result(&id, &refused));
                return self
                    .answer(&ctx, refused, || CallToolResult::success(vec![]))
                    .map(Into::into);
            }
        };
        let ran = self
            .relay(
                &ctx,
                Relay {
                    caller: &caller,
                    server: &server,
                    tool: &tool,
                    qualified: &qualified,
                    definition: &found.tool,
                    arguments,
                    consent,
                    new_era,
                    resume,
                    pass_tasks,
                },
            )
            .await;
        match ran.outcome {
            Ok(out) => {
                if let (true, Some(task)) = (pass_tasks, &out.task) {
                    self.bridge.tasks().note(&task.task_id, &server);
                }
                self.record(&caller, Direction::Outgoing, &Row::result(&id, &out.result));
                self.answer(&ctx, out.result, || CallToolResult::success(vec![]))
                    .map(Into::into)
            }
            Err(e) => {
                let error = upstream(e);
                self.record(&caller, Direction::Outgoing, &Row::error(&id, &error));
                Err(error)
            }
        }
    }

    /// The bridge's policy on `caller`'s call (a refusal is kept in the
    /// History by the policy itself).
    async fn decide(
        &self,
        caller: &str,
        (server, tool, qualified): (&str, &str, &str),
        definition: &Value,
        arguments: &Value,
    ) -> Result<workbench_calls::Decided, workbench_core::ErrorInfo> {
        self.bridge
            .policy()
            .decide(
                self.bridge.calls(),
                policy::Call {
                    origin: Origin::Bridge,
                    link: Link {
                        call_id: caller.to_string(),
                        ..Link::default()
                    },
                    caller,
                    server,
                    tool,
                    qualified,
                    definition,
                    arguments,
                },
            )
            .await
    }

    /// Relay a decided call upstream through the one call path: the
    /// caller's progress and (2026-07-28) log messages passed on, its
    /// cancellation and capabilities, in a span that is a child of the
    /// caller's trace when it sent one.
    async fn relay(&self, ctx: &RequestContext<RoleServer>, r: Relay<'_>) -> workbench_calls::Ran {
        let (progress, forwarding) = forward_progress(ctx);
        // Boxed: asking the server for a log level is a request of its own
        // (6.7 KB of state), and this future would hold it through the call.
        let logs = Box::pin(self.follow_logs(ctx, r.server, r.new_era)).await;
        let _calling = self.bridge.callers().calling(r.server, ctx.peer.clone());
        let mut span = workbench_core::otel::Span::start(
            &format!("bridge tools/call {}", r.qualified),
            workbench_core::otel::Kind::Server,
            ctx.meta
                .get("traceparent")
                .and_then(Value::as_str)
                .and_then(workbench_core::otel::Context::parse),
        );
        span.set("mcp.bridge.caller", r.caller);
        let ran = span
            .run(self.bridge.calls().run(Call {
                consent: Some(r.consent),
                origin: Origin::Bridge,
                server: r.server,
                tool: r.tool,
                arguments: r.arguments,
                definition: Some(r.definition),
                link: Link {
                    call_id: r.caller.to_string(),
                    ..Link::default()
                },
                // A task upstream is followed to its end: the bridge's
                // caller gets the final result.
                options: CallOptions {
                    cancel: Some(ctx.ct.clone()),
                    sink: progress,
                    pass_input: r.new_era,
                    resume: r.resume.filter(|_| r.new_era),
                    client_capabilities: caller_capabilities(ctx),
                    // A caller that runs tasks itself gets the task.
                    detach: r.pass_tasks,
                    ..CallOptions::default()
                },
            }))
            .await;
        if let Err(e) = &ran.outcome {
            span.fail(e.to_string());
        }
        drop(span);
        // Every progress notification and log message the server sent
        // before its answer goes first: the call is over, so the progress
        // channel's sender is gone and its forwarder ends once it sent the
        // last (it could overtake them otherwise; seen in the conformance
        // suite's tools-call-with-progress through the bridge).
        if let Some(forwarding) = forwarding {
            let _ = tokio::time::timeout(std::time::Duration::from_millis(500), forwarding).await;
        }
        if let Some(logs) = logs {
            logs.finish().await;
        }
        ran
    }

    /// One of the bridge's own tools (the workbench's, for a coding agent).
    async fn call_own(
        &self,
        own: &dyn crate::own::OwnTools,
        qualified: &str,
        arguments: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = own
            .call(qualified, arguments, ctx.ct.clone())
            .await
            .map_err(bad)?;
        self.answer(ctx, result, || CallToolResult::success(vec![]))
            .map(Into::into)
    }

    /// A 2026-07-28 caller asks for log messages per request: the server's
    /// come to it while its call runs, and the server is asked for as much.
    async fn follow_logs(
        &self,
        ctx: &RequestContext<RoleServer>,
        server: &str,
        new_era: bool,
    ) -> Option<crate::logs::Following> {
        let level = new_era
            .then(|| ctx.meta.get("io.modelcontextprotocol/logLevel"))
            .flatten()
            .and_then(Value::as_str)?
            .to_string();
        let _ = self.bridge.wb().want_log_level(server, &level).await;
        Some(crate::logs::follow(
            self.bridge.wb(),
            server,
            &level,
            ctx.peer.clone(),
        ))
    }
}

/// Progress the server reports goes on to the caller that asked for it
/// (all of it before the answer: the caller waits for the forwarder).
/// Telling the caller is async, so the call's sink is a channel to a
/// forwarder.
fn forward_progress(
    ctx: &RequestContext<RoleServer>,
) -> (
    Option<std::sync::Arc<dyn workbench_core::CallSink>>,
    Option<tokio::task::JoinHandle<()>>,
) {
    let Some(token) = ctx.meta.get_progress_token() else {
        return (None, None);
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<workbench_core::Progress>();
    let peer = ctx.peer.clone();
    let forwarding = tokio::spawn(async move {
        while let Some(got) = rx.recv().await {
            let mut p = ProgressNotificationParam::new(token.clone(), got.progress);
            p.total = got.total;
            p.message = got.message;
            if peer.notify_progress(p).await.is_err() {
                return;
            }
        }
    });
    let sink: std::sync::Arc<dyn workbench_core::CallSink> = std::sync::Arc::new(tx);
    (Some(sink), Some(forwarding))
}
