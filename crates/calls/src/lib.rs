//! workbench-calls: the one path for a tool call made by anyone — the
//! window, the chat, the bridge, `mcpwb call`, suites (and later Apps and
//! tasks). It owns the approval [`gate`] (standing [`rules`] read live,
//! remembered decisions, definition hashes, the calls waiting for a person),
//! the call through workbench-core, the check of `structuredContent` against
//! the tool's `outputSchema`, and the record in the store's history with its
//! [`Origin`] and its traffic rows ([`history`]'s writer, off the caller's
//! path).
//!
//! Above workbench-core and workbench-store; below the agent, the bridge,
//! the CLI and the app, which call tools only through it.
#![forbid(unsafe_code)]

pub mod consent;
mod decide;
pub mod gate;
mod history;
pub mod load;
mod origin;
pub mod rules;
pub mod skill;
pub mod suite;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use workbench_core::otel;
use workbench_core::settings::SettingsFile;
use workbench_core::{CallOptions, CallOutcome, ErrorCode, ToolCaller, Workbench};
use workbench_store::{CallStatus, Store};

pub use consent::Consent;
pub use decide::{Decided, Undecided};
pub use gate::{Approval, Approvals, ApproveMode, Decision, DiffLine, Remember, Verdict};
pub use history::mark_interrupted;
pub use origin::Origin;
pub use rules::{Grantee, HistorySettings, LiveRules, Rules, ToolPolicy, tool_key};
pub use skill::{SkillRan, SkillRead, is_skill_tool, skill_definition, skill_tool};

/// A chat's handle on a call: its session, message and the model's id.
#[derive(Debug, Clone, Default)]
pub struct Link {
    pub session: Option<String>,
    pub message: Option<i64>,
    pub call_id: String,
}

/// A call to make.
pub struct Call<'a> {
    pub origin: Origin,
    pub server: &'a str,
    pub tool: &'a str,
    pub arguments: Value,
    /// The tool's definition when the caller has it (else it is looked up
    /// for the output-schema check).
    pub definition: Option<&'a Value>,
    pub link: Link,
    pub options: CallOptions,
    /// That the rules or a person allowed it ([`Calls::verdict_for`],
    /// [`Calls::decide`], the approvals queue): required of the callers a
    /// person answers for ([`Origin::answered_for`]); without it they run
    /// only what a standing rule allows.
    pub consent: Option<Consent>,
}

/// How a call went.
pub struct Ran {
    pub outcome: workbench_core::Result<CallOutcome>,
    pub status: CallStatus,
    /// Where `structuredContent` breaks the tool's `outputSchema`.
    pub schema_violations: Vec<String>,
    /// The traffic log's sequence numbers before and after the call.
    pub traffic: (u64, u64),
    /// The history row's key, made before the call (None: not kept). A
    /// caller that names the row needs nothing more: it waits for no write.
    pub key: Option<String>,
    /// The history row's id once written (None: history is off).
    record: Option<(tokio::sync::oneshot::Receiver<i64>, history::History)>,
}

impl Ran {
    /// The history row's id, waiting for its write (written at once, not
    /// with the next batch).
    pub async fn record_id(&mut self) -> Option<i64> {
        let (rx, history) = self.record.take()?;
        history.hurry();
        rx.await.ok()
    }
}

/// The call's span (the trace a collector shows).
fn call_span(call: &Call<'_>) -> otel::Span {
    let mut span = otel::Span::start(
        &format!("tools/call {}", call.tool),
        otel::Kind::Client,
        None,
    );
    span.set("mcp.server", call.server);
    span.set("mcp.tool", call.tool);
    span.set("mcp.origin", call.origin.as_str());
    span
}

/// What the one path is built from.
pub struct CallsOptions {
    /// The shared settings file (the rules, the history's cap).
    pub settings: SettingsFile,
    /// Where calls are kept; None keeps nothing (`--no-history`).
    pub store: Option<Store>,
}

struct Inner {
    workbench: Workbench,
    /// The capability to call the workbench's tools: held here only.
    caller: ToolCaller,
    rules: LiveRules,
    approvals: Approvals,
    /// Tools approved "always" in this run (`server/tool`), effective before
    /// the config file is read again.
    always: Mutex<HashSet<String>>,
    history: Option<history::History>,
}

/// The one path. Cheap to clone.
#[derive(Clone)]
pub struct Calls {
    inner: Arc<Inner>,
}

/// A call a model-like caller (chat, bridge, App) wants to make, for the gate.
pub struct Asking<'a> {
    pub server: &'a str,
    pub tool: &'a str,
    pub definition: &'a Value,
    pub mode: ApproveMode,
    /// What "allow for this chat" recorded (none outside a chat).
    pub chat_allowed: Option<&'a BTreeMap<String, Value>>,
}

impl Calls {
    /// The one path over `workbench`, holding the capability to call its
    /// tools (`caller`, from [`Workbench::start_with_caller`]).
    pub fn new(workbench: Workbench, caller: ToolCaller, options: CallsOptions) -> Calls {
        let rules = LiveRules::new(options.settings);
        let history = options
            .store
            .map(|s| history::History::start(s, workbench.traffic().clone(), rules.clone()));
        Calls {
            inner: Arc::new(Inner {
                workbench,
                caller,
                rules,
                approvals: Approvals::default(),
                always: Mutex::default(),
                history,
            }),
        }
    }

    pub fn workbench(&self) -> &Workbench {
        &self.inner.workbench
    }

    /// The standing rules as the settings file has them now.
    pub fn rules(&self) -> Arc<Rules> {
        self.inner.rules.get()
    }

    pub fn live_rules(&self) -> &LiveRules {
        &self.inner.rules
    }

    /// The calls waiting for a person (the chat's, the bridge's, Apps').
    pub fn approvals(&self) -> &Approvals {
        &self.inner.approvals
    }

    /// The history's store (None: calls are not kept).
    pub fn store(&self) -> Option<&Store> {
        self.inner.history.as_ref().map(|h| h.store())
    }

    /// Changes each time calls are written to the history (None: history
    /// is off): a window follows the store with it instead of polling.
    pub fn history_written(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.inner.history.as_ref().map(history::History::written)
    }

    /// Keep what a suite's case made of the call with `key` beside its row.
    pub fn keep_verdict(&self, key: String, verdict: workbench_store::CaseVerdict) {
        if let Some(h) = &self.inner.history {
            h.verdict(key, verdict);
        }
    }

    /// Wait until every finished call is in the store.
    pub async fn flush(&self) {
        if let Some(h) = &self.inner.history {
            h.flush().await;
        }
    }

    fn always(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.inner.always.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a standing approval covers the tool: the entry's
    /// `autoApprove` (or its dialect's equivalent), or "always" this run.
    pub fn auto_approved(&self, server: &str, tool: &str) -> bool {
        self.workbench()
            .server(server)
            .map(|h| h.entry().auto_approves(tool))
            .unwrap_or(false)
            || self.always().contains(&tool_key(server, tool))
    }

    /// The entry standing approvals for `server` are kept for.
    pub fn grantee(&self, server: &str) -> Grantee {
        self.workbench()
            .server(server)
            .map(|h| Grantee::of(&h))
            .unwrap_or_else(|_| Grantee::unknown(server))
    }

    /// The standing rules' file.
    pub fn rules_file(&self) -> &LiveRules {
        &self.inner.rules
    }

    /// Make the running entry `server` the owner of the grants kept under
    /// its name, before one is written for it (the window's Settings).
    pub fn claim(&self, server: &str) -> workbench_core::Result<()> {
        self.inner.rules.claim(&self.grantee(server))
    }

    /// The server of a `server/tool` key: the longest running server name
    /// it starts with (a name may itself hold a `/`).
    pub fn server_of_key(&self, key: &str) -> Option<String> {
        self.workbench()
            .servers()
            .iter()
            .map(|h| h.name().to_string())
            .filter(|n| {
                key.strip_prefix(n.as_str())
                    .is_some_and(|r| r.starts_with('/'))
            })
            .max_by_key(String::len)
    }

    /// Make the call: through the core, checked against the output schema,
    /// kept in the history with its origin. The gate is the caller's to
    /// pass first (see [`Calls::verdict`], [`Calls::decide`]); a call of a
    /// tool the rules deny is refused here for every caller a person does
    /// not drive.
    pub async fn run(&self, call: Call<'_>) -> Ran {
        let wb = self.workbench();
        let started_at = workbench_store::now_ms();
        let before = wb.traffic().last_seq();
        let refusal = self.standing_refusal(&call);
        let denied = refusal.is_some();
        // A load run's calls are not kept one by one (its summary is), nor
        // given a span each (the run's one span is theirs).
        let keep = call.origin != Origin::Load;
        let begun = self
            .inner
            .history
            .as_ref()
            .filter(|_| keep)
            .map(|_| history::Begun {
                origin: call.origin.as_str(),
                session: call.link.session.clone(),
                message: call.link.message,
                call_id: call.link.call_id.clone(),
                server: call.server.to_string(),
                tool: call.tool.to_string(),
                arguments: call.arguments.clone(),
                started_at,
            });
        let key = begun.as_ref().and_then(|_| history::new_key());
        // Among the running calls while it runs: kept as `pending` if it
        // runs a while, so a crash does not lose it (its start waits there
        // for its row).
        let (mut begun, running) = match (&self.inner.history, begun, &key) {
            (Some(history), Some(begun), Some(k)) => (None, Some(history.begin(k.clone(), begun))),
            (_, begun, _) => (begun, None),
        };
        let mut span = keep.then(|| call_span(&call));
        let clock = std::time::Instant::now();
        let outcome = if let Some(why) = refusal {
            Err(workbench_core::Error::Refused(why))
        } else {
            // Boxed: the call's future is large, and it is awaited in one of
            // two ways (in its span, or bare).
            let made = Box::pin(wb.call_tool_on(
                &self.inner.caller,
                call.server,
                call.tool,
                call.arguments,
                call.options,
            ));
            match &span {
                Some(s) => s.run(made).await,
                None => made.await,
            }
        };
        let traffic = (before, wb.traffic().last_seq());
        let (status, schema_violations) =
            self.judge((call.server, call.tool), call.definition, &outcome, denied);
        if let Some(span) = &mut span {
            span.set("mcp.status", status.as_str());
            match &outcome {
                Err(e) => span.fail(wb.traffic().mask_text(call.server, &e.to_string())),
                Ok(_) if status == CallStatus::Error => span.fail("the tool returned an error"),
                Ok(_) => {}
            }
        }
        drop(span);
        let mut replaces = false;
        if let Some((ran, kept)) = running.and_then(history::Ticket::end) {
            (begun, replaces) = (Some(ran), kept);
        }
        let record = match (&self.inner.history, begun) {
            (Some(history), Some(begun)) => {
                let answered = outcome.as_ref().ok();
                let finished = history::Finished {
                    key: key.clone(),
                    begun,
                    status,
                    protocol: wb
                        .server(call.server)
                        .ok()
                        .and_then(|h| h.protocol_version()),
                    traffic,
                    schema_violations: schema_violations.clone(),
                    result: answered.map(|o| o.result.clone()),
                    error: outcome.as_ref().err().map(|e| e.to_string()),
                    duration_ms: match &outcome {
                        Ok(o) => Some(o.duration_ms),
                        Err(e) => sent_and_failed(e).then(|| clock.elapsed().as_secs_f64() * 1e3),
                    },
                    task: answered
                        .and_then(|o| o.task.as_ref())
                        .and_then(|t| serde_json::to_value(t).ok()),
                    notes: answered.map(|o| o.notes.clone()).unwrap_or_default(),
                    replaces,
                };
                Some((history.write(finished), history.clone()))
            }
            _ => None,
        };
        Ran {
            outcome,
            status,
            schema_violations,
            traffic,
            key,
            record,
        }
    }

    /// What the call came to: its status (a refusal is `denied`, a cancel
    /// `cancelled`, a result with `isError` an `error`), and where its
    /// `structuredContent` breaks the tool's `outputSchema`.
    fn judge(
        &self,
        (server, tool): (&str, &str),
        definition: Option<&Value>,
        outcome: &workbench_core::Result<CallOutcome>,
        denied: bool,
    ) -> (CallStatus, Vec<String>) {
        match outcome {
            Ok(o) => {
                let status = if o.result.get("isError").and_then(Value::as_bool) == Some(true) {
                    CallStatus::Error
                } else {
                    CallStatus::Ok
                };
                let violations = match definition {
                    Some(d) => workbench_core::schema::check_result(d, &o.result),
                    None => self
                        .workbench()
                        .catalog()
                        .tool(server, tool)
                        .map(|d| workbench_core::schema::check_result(&d, &o.result))
                        .unwrap_or_default(),
                };
                (status, violations)
            }
            Err(_) if denied => (CallStatus::Denied, Vec::new()),
            Err(e) if e.code() == ErrorCode::Cancelled => (CallStatus::Cancelled, Vec::new()),
            Err(_) => (CallStatus::Failed, Vec::new()),
        }
    }

    /// Keep a load run as one row of the history: its first target, its
    /// arguments, and the run's report as the result. Returns the row's id.
    pub async fn keep_load_run(
        &self,
        plan: &load::LoadPlan,
        report: &load::LoadReport,
    ) -> Option<i64> {
        let history = self.inner.history.as_ref()?;
        let first = plan.targets.first()?;
        let now = self.workbench().traffic().last_seq();
        let status = if report
            .stopped
            .as_deref()
            .is_some_and(|s| s.starts_with("refused"))
        {
            CallStatus::Denied
        } else if report.errors.total() > 0 {
            CallStatus::Error
        } else {
            CallStatus::Ok
        };
        let summary = serde_json::to_value(report).ok()?;
        let latency = if report.ok == 0 {
            "no call succeeded".to_string()
        } else {
            format!(
                "p50 {:.2} ms, p99 {:.2} ms",
                report.latency.p50, report.latency.p99
            )
        };
        let said = report
            .errors_said
            .first()
            .map(|s| format!(" (the commonest, {}×: {})", s.count, s.message))
            .unwrap_or_default();
        let text = format!(
            "load run: {} calls, {:.0}/s, {latency}, {} errors{said}",
            report.calls,
            report.throughput,
            report.errors.total()
        );
        let rx = history.write(history::Finished {
            key: None,
            begun: history::Begun {
                origin: Origin::Load.as_str(),
                session: None,
                message: None,
                call_id: String::new(),
                server: first.server.clone(),
                tool: report.tool.clone(),
                arguments: first.arguments.clone(),
                started_at: report.started_at,
            },
            result: Some(serde_json::json!({
                "content": [{ "type": "text", "text": text }],
                "structuredContent": summary,
                "isError": status == CallStatus::Error,
            })),
            error: report.stopped.clone(),
            status,
            duration_ms: Some(report.duration_ms),
            protocol: None,
            traffic: (now, now),
            schema_violations: Vec::new(),
            task: None,
            notes: Vec::new(),
            replaces: false,
        });
        history.hurry();
        rx.await.ok()
    }

    /// Record a call that was refused before it was made (by the rules or
    /// a person), so the history shows it too.
    pub fn refused(
        &self,
        origin: Origin,
        server: &str,
        tool: &str,
        arguments: &Value,
        link: Link,
        why: &str,
    ) {
        self.not_run(
            CallStatus::Denied,
            origin,
            server,
            tool,
            arguments,
            link,
            why,
        );
    }

    /// Keep a call nobody decided (its ask dropped when its App closed or
    /// its turn stopped) in the history as cancelled, not denied.
    pub fn abandoned(
        &self,
        origin: Origin,
        server: &str,
        tool: &str,
        arguments: &Value,
        link: Link,
        why: &str,
    ) {
        self.not_run(
            CallStatus::Cancelled,
            origin,
            server,
            tool,
            arguments,
            link,
            why,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn not_run(
        &self,
        status: CallStatus,
        origin: Origin,
        server: &str,
        tool: &str,
        arguments: &Value,
        link: Link,
        why: &str,
    ) {
        if let Some(history) = &self.inner.history {
            let now = self.workbench().traffic().last_seq();
            // Nobody waits for a refused call's row id.
            drop(history.write(history::Finished {
                key: None,
                begun: history::Begun {
                    origin: origin.as_str(),
                    session: link.session,
                    message: link.message,
                    call_id: link.call_id,
                    server: server.to_string(),
                    tool: tool.to_string(),
                    arguments: arguments.clone(),
                    started_at: workbench_store::now_ms(),
                },
                result: None,
                error: Some(why.to_string()),
                status,
                duration_ms: None,
                protocol: None,
                traffic: (now, now),
                schema_violations: Vec::new(),
                task: None,
                notes: Vec::new(),
                replaces: false,
            }));
        }
    }
}

/// Whether a call that failed had been sent (the server answered with an
/// error, went quiet, dropped the connection, or the person cancelled it):
/// how long it took is then worth keeping. One refused before it left
/// (not ready, hidden, denied, unknown) has no duration.
fn sent_and_failed(e: &workbench_core::Error) -> bool {
    use workbench_core::ErrorCode as C;
    matches!(
        e.code(),
        C::ServerError | C::Timeout | C::Cancelled | C::Transport
    )
}

#[cfg(test)]
mod tests;
