//! The calls of one model step: each routed by its name to a server's tool
//! (or answered here: `search_tools`, unknown names, arguments that are not
//! JSON), decided by policy or by the person (asked together, decided
//! together or one by one), then the approved ones run at once through the
//! one call path (workbench-calls) — progress passed on, Stop cancelling
//! them (servers are told), each kept in the history as a chat call.

use genai::chat::ToolCall;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use workbench_calls::{Asking, Call, Link, Origin};
use workbench_core::{CallOptions, CallSink, Progress, TaskState};
use workbench_store::CallStatus;

use crate::approvals::Verdict;
use crate::error::Result;
use crate::events::AgentEvent;
use crate::parts::{Part, result_for_model};
use crate::toolset::{Entry, ToolSet};
use crate::{Agent, ApproveMode, Sink, search};

/// A call that will run, with the arguments it runs with and the consent
/// it carries (None for an eval's: the rule for calls nobody is asked
/// about decides those in the one call path).
struct Approved<'a> {
    index: usize,
    entry: &'a Entry,
    arguments: Value,
    consent: Option<workbench_calls::Consent>,
}

/// Where a call goes.
enum Routed<'t> {
    /// Answered here, without a server.
    Answered(Box<Part>),
    /// To this tool.
    To(&'t Entry),
}

mod asking;

use asking::Asked;

fn result_part(call: &ToolCall, status: CallStatus, content: String) -> Part {
    Part::ToolResult {
        call_id: call.call_id.clone(),
        name: call.fn_name.clone(),
        status,
        content,
        result: None,
        arguments: Some(call.fn_arguments.clone()),
        duration_ms: None,
        traffic: None,
    }
}

impl Agent {
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn run_calls(
        &self,
        session: &str,
        message: i64,
        (calls, tools): (&[ToolCall], &ToolSet),
        options: &crate::SessionOptions,
        mode: ApproveMode,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Result<Vec<Part>> {
        let mut results: Vec<Option<Part>> = vec![None; calls.len()];
        let eval = self.eval_turn(session);
        let origin = if eval.is_some() {
            Origin::Eval
        } else {
            Origin::Chat
        };
        let mut approved: Vec<Approved<'_>> = Vec::new();
        let mut asking: Vec<Asked<'_>> = Vec::new();
        let batch = self.approvals().next_id();
        for (i, call) in calls.iter().enumerate() {
            let entry = match self.route(session, call, tools, sink)? {
                Routed::Answered(part) => {
                    results[i] = Some(*part);
                    continue;
                }
                Routed::To(entry) => entry,
            };
            let (verdict, consent) = match &eval {
                Some(e) => (self.eval_verdict(e, entry), None),
                None => self.calls().verdict_for(&Asking {
                    server: &entry.server,
                    tool: &entry.tool,
                    definition: &entry.definition,
                    mode,
                    chat_allowed: Some(&options.allowed),
                }),
            };
            match verdict {
                Verdict::Allow => approved.push(Approved {
                    index: i,
                    entry,
                    arguments: call.fn_arguments.clone(),
                    consent,
                }),
                Verdict::Deny(reason) => {
                    self.calls().refused(
                        origin,
                        &entry.server,
                        &entry.tool,
                        &call.fn_arguments,
                        link(session, message, call),
                        &reason,
                    );
                    results[i] = Some(result_part(
                        call,
                        CallStatus::Denied,
                        format!("The call was refused: {reason}."),
                    ));
                }
                Verdict::Ask(changed) => {
                    asking.push(self.ask(session, batch, i, call, entry, changed));
                }
            }
        }
        for asked in &asking {
            sink(AgentEvent::ApprovalNeeded {
                approval: asked.approval.clone(),
            });
        }
        for asked in asking {
            let index = asked.index;
            match self.person_decides(session, asked, sink, cancel).await? {
                Ok(a) => approved.push(a),
                Err((status, why)) => {
                    results[index] = Some(result_part(&calls[index], status, why))
                }
            }
        }
        let ran = self
            .run_approved(session, message, calls, approved, sink, cancel)
            .await;
        for (index, part) in ran {
            results[index] = Some(part);
        }
        Ok(results.into_iter().flatten().collect())
    }

    /// The approved calls made at once (none once Stop was pressed), each
    /// call's index with its result.
    async fn run_approved(
        &self,
        session: &str,
        message: i64,
        calls: &[ToolCall],
        approved: Vec<Approved<'_>>,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Vec<(usize, Part)> {
        if cancel.is_cancelled() {
            return approved
                .iter()
                .map(|a| {
                    let why = "The call was not made: the person stopped the turn.";
                    (
                        a.index,
                        result_part(&calls[a.index], CallStatus::Cancelled, why.into()),
                    )
                })
                .collect();
        }
        let runs = approved.iter().map(|a| {
            self.run_one(
                session,
                message,
                &calls[a.index],
                a.entry,
                (a.arguments.clone(), a.consent.clone()),
                sink,
                cancel,
            )
        });
        let done = futures::future::join_all(runs).await;
        approved.iter().map(|a| a.index).zip(done).collect()
    }

    /// Where `call` goes: a server's tool (or a skill's loading), or an
    /// answer given here (`search_tools`, a name no tool has, arguments
    /// that are not an object). A deferred tool the model called by name
    /// without loading it counts as loaded from now on.
    fn route<'t>(
        &self,
        session: &str,
        call: &ToolCall,
        tools: &'t ToolSet,
        sink: &Sink,
    ) -> Result<Routed<'t>> {
        if call.fn_name == crate::toolset::SEARCH_TOOL {
            return Ok(Routed::Answered(Box::new(
                self.search(session, call, tools, sink)?,
            )));
        }
        let entry = if call.fn_name == crate::skills::LOAD_SKILL {
            match crate::skills::route(&tools.skills, &call.fn_arguments) {
                Ok(entry) => Some(entry),
                Err(message) => {
                    return Ok(Routed::Answered(Box::new(result_part(
                        call,
                        CallStatus::Failed,
                        message,
                    ))));
                }
            }
        } else {
            tools.route(&call.fn_name)
        };
        let Some(entry) = entry else {
            return Ok(Routed::Answered(Box::new(result_part(
                call,
                CallStatus::Failed,
                format!(
                    "There is no tool named \"{}\" here (it may be turned off for this chat, or its server is not running).",
                    call.fn_name
                ),
            ))));
        };
        if tools.deferred
            && entry.name != crate::skills::LOAD_SKILL
            && !tools
                .offered
                .iter()
                .any(|t| t.name.to_string() == entry.name)
        {
            let key = entry.key();
            self.change_chat_options(session, |o| {
                if !o.loaded_tools.contains(&key) {
                    o.loaded_tools.push(key.clone());
                }
            })?;
            sink(AgentEvent::ToolsLoaded {
                names: vec![entry.name.clone()],
            });
        }
        if !call.fn_arguments.is_object() {
            return Ok(Routed::Answered(Box::new(result_part(
                call,
                CallStatus::Failed,
                format!(
                    "The arguments are not a JSON object, so the call was not made: {}",
                    call.fn_arguments
                ),
            ))));
        }
        Ok(Routed::To(entry))
    }

    fn search(&self, session: &str, call: &ToolCall, tools: &ToolSet, sink: &Sink) -> Result<Part> {
        let query = call.fn_arguments["query"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let (status, content) = match search::run(&tools.entries, &call.fn_arguments) {
            Err(message) => (CallStatus::Error, message),
            Ok(found) => {
                let keys: Vec<String> = found.iter().map(|e| e.key()).collect();
                let names: Vec<String> = found.iter().map(|e| e.name.clone()).collect();
                if !keys.is_empty() {
                    self.change_chat_options(session, |o| {
                        o.loaded_tools.retain(|k| !keys.contains(k));
                        o.loaded_tools.extend(keys.iter().cloned());
                    })?;
                    sink(AgentEvent::ToolsLoaded { names });
                }
                (
                    CallStatus::Ok,
                    search::report(&found, tools.entries.len(), &query),
                )
            }
        };
        Ok(result_part(call, status, content))
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_one(
        &self,
        session: &str,
        message: i64,
        call: &ToolCall,
        entry: &Entry,
        (arguments, consent): (Value, Option<workbench_calls::Consent>),
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Part {
        let eval = self.eval_turn(session);
        if let Some(result) = eval
            .as_ref()
            .and_then(|e| e.results.as_ref())
            .and_then(|r| r.get(&entry.key()))
        {
            return canned(call, arguments, result);
        }
        let origin = if eval.is_some() {
            Origin::Eval
        } else {
            Origin::Chat
        };
        if workbench_calls::is_skill_tool(&entry.tool) {
            return self
                .run_skill(
                    link(session, message, call),
                    call,
                    entry,
                    arguments,
                    sink,
                    cancel,
                )
                .await;
        }
        sink(AgentEvent::ToolStarted {
            call_id: call.call_id.clone(),
            server: entry.server.clone(),
            tool: entry.tool.clone(),
            arguments: arguments.clone(),
        });
        // A task is waited for (its status on the call's card); Stop (Esc)
        // cancels it with tasks/cancel.
        let options = CallOptions {
            cancel: Some(cancel.child_token()),
            sink: Some(std::sync::Arc::new(OnCard {
                call_id: call.call_id.clone(),
                sink: sink.clone(),
            })),
            ..Default::default()
        };
        let calls = self.calls();
        let mut ran = calls
            .run(Call {
                consent,
                origin,
                server: &entry.server,
                tool: &entry.tool,
                arguments: arguments.clone(),
                definition: Some(&entry.definition),
                link: link(session, message, call),
                options,
            })
            .await;
        // The chat's record is written before the turn goes on (an export
        // or a reopened chat reads it).
        ran.record_id().await;
        let status = ran.status;
        let (content, result, duration) = told(ran.outcome, status, &ran.schema_violations);
        sink(AgentEvent::ToolFinished {
            call_id: call.call_id.clone(),
            status,
            duration_ms: duration,
        });
        Part::ToolResult {
            call_id: call.call_id.clone(),
            name: call.fn_name.clone(),
            status,
            content,
            result,
            arguments: Some(arguments),
            duration_ms: duration,
            traffic: Some(ran.traffic),
        }
    }
}

/// What the model is told of a call (the result's text, with where it
/// breaks the output schema; or why there is none), the result, and how
/// long it took.
fn told(
    outcome: workbench_core::Result<workbench_core::CallOutcome>,
    status: CallStatus,
    violations: &[String],
) -> (String, Option<Value>, Option<f64>) {
    match outcome {
        Ok(o) => {
            let (mut text, _) = result_for_model(&o.result);
            if !violations.is_empty() {
                text.push_str(&format!(
                    "\n\n(The result does not match the tool's output schema: {}.)",
                    violations.join("; ")
                ));
            }
            (text, Some(o.result), Some(o.duration_ms))
        }
        Err(_) if status == CallStatus::Cancelled => (
            "The call was cancelled: the person stopped the turn.".to_string(),
            None,
            None,
        ),
        Err(e) if status == CallStatus::Denied => {
            (format!("The call was refused: {e}."), None, None)
        }
        Err(e) => (format!("The call failed: {e}"), None, None),
    }
}

/// The result an eval's case gives for a tool (nothing runs): an MCP
/// result, or a string as its one text block.
fn canned(call: &ToolCall, arguments: Value, given: &Value) -> Part {
    let result = match given {
        Value::String(text) => serde_json::json!({"content": [{"type": "text", "text": text}]}),
        other => other.clone(),
    };
    let status = if result["isError"].as_bool() == Some(true) {
        CallStatus::Error
    } else {
        CallStatus::Ok
    };
    let (content, _) = result_for_model(&result);
    Part::ToolResult {
        call_id: call.call_id.clone(),
        name: call.fn_name.clone(),
        status,
        content,
        result: Some(result),
        arguments: Some(arguments),
        duration_ms: Some(0.0),
        traffic: None,
    }
}

/// A chat call's place: its session, message and the model's id.
fn link(session: &str, message: i64, call: &ToolCall) -> Link {
    Link {
        session: Some(session.to_string()),
        message: Some(message),
        call_id: call.call_id.clone(),
    }
}

/// A call's progress and task statuses, onto its card in the chat.
struct OnCard {
    call_id: String,
    sink: Sink,
}

impl CallSink for OnCard {
    fn progress(&self, p: Progress) {
        (self.sink)(AgentEvent::ToolProgress {
            call_id: self.call_id.clone(),
            progress: p.progress,
            total: p.total,
            message: p.message,
        });
    }

    fn task(&self, task: &TaskState) {
        (self.sink)(AgentEvent::ToolTask {
            call_id: self.call_id.clone(),
            task: task.clone(),
        });
    }
}
