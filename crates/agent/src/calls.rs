//! The calls of one model step: each routed by its name to a server's tool
//! (or answered here: `search_tools`, unknown names, arguments that are not
//! JSON), decided by policy or by the person (asked together, decided
//! together or one by one), then the approved ones run at once through the
//! workbench — progress passed on, Stop cancelling them (servers are told),
//! each recorded in the store with its duration and traffic rows.

use genai::chat::ToolCall;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use workbench_core::CallOptions;
use workbench_store::{CallRecord, CallStatus};

use crate::approvals::{self, Approval, Decision, Remember, Verdict};
use crate::error::Result;
use crate::events::AgentEvent;
use crate::parts::{Part, result_for_model};
use crate::toolset::{Entry, ToolSet};
use crate::{Agent, ApproveMode, Sink, search};

/// A call that will run, with the arguments it runs with.
struct Approved<'a> {
    index: usize,
    entry: &'a Entry,
    arguments: Value,
}

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
        (settings, options): (&crate::AgentSettings, &crate::SessionOptions),
        mode: ApproveMode,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Result<Vec<Part>> {
        let mut results: Vec<Option<Part>> = vec![None; calls.len()];
        let mut approved: Vec<Approved<'_>> = Vec::new();
        let mut asking: Vec<(usize, &Entry, u64, tokio::sync::oneshot::Receiver<Decision>)> =
            Vec::new();
        let batch = self.inner.approvals.next_id();
        let mut to_announce = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            if call.fn_name == search::NAME {
                results[i] = Some(self.search(session, call, tools, sink)?);
                continue;
            }
            let Some(entry) = tools.route(&call.fn_name) else {
                results[i] = Some(result_part(
                    call,
                    CallStatus::Failed,
                    format!(
                        "There is no tool named \"{}\" here (it may be turned off for this chat, or its server is not running).",
                        call.fn_name
                    ),
                ));
                continue;
            };
            if !call.fn_arguments.is_object() {
                results[i] = Some(result_part(
                    call,
                    CallStatus::Failed,
                    format!(
                        "The arguments are not a JSON object, so the call was not made: {}",
                        call.fn_arguments
                    ),
                ));
                continue;
            }
            let auto_approved = self
                .workbench()
                .server(&entry.server)
                .map(|h| h.entry().auto_approves(&entry.tool))
                .unwrap_or(false)
                || self.always().contains(&entry.key());
            let verdict = approvals::verdict(&approvals::Context {
                settings,
                server: &entry.server,
                tool: &entry.tool,
                definition: &entry.definition,
                auto_approved,
                chat_allowed: &options.allowed,
                mode,
            });
            match verdict {
                Verdict::Allow => {
                    self.record_first_use(entry, auto_approved, settings)?;
                    approved.push(Approved {
                        index: i,
                        entry,
                        arguments: call.fn_arguments.clone(),
                    });
                }
                Verdict::Deny(reason) => {
                    results[i] = Some(result_part(
                        call,
                        CallStatus::Denied,
                        format!("The call was refused: {reason}."),
                    ));
                }
                Verdict::Ask(changed) => {
                    let id = self.inner.approvals.next_id();
                    let approval = Approval {
                        id,
                        session: session.to_string(),
                        batch,
                        call_id: call.call_id.clone(),
                        server: entry.server.clone(),
                        tool: entry.tool.clone(),
                        qualified: entry.name.clone(),
                        arguments: call.fn_arguments.clone(),
                        definition: entry.definition.clone(),
                        changed,
                    };
                    let rx = self.inner.approvals.request(approval.clone());
                    to_announce.push(approval);
                    asking.push((i, entry, id, rx));
                }
            }
        }
        for approval in to_announce {
            sink(AgentEvent::ApprovalNeeded { approval });
        }
        // Wait for every decision (or Stop).
        for (i, entry, id, rx) in asking {
            let decision = tokio::select! {
                d = rx => d.ok(),
                _ = cancel.cancelled() => None,
            };
            let Some(decision) = decision else {
                sink(AgentEvent::ApprovalResolved {
                    id,
                    approved: false,
                });
                results[i] = Some(result_part(
                    &calls[i],
                    CallStatus::Cancelled,
                    "The call was not made: the person stopped the turn before deciding.".into(),
                ));
                continue;
            };
            sink(AgentEvent::ApprovalResolved {
                id,
                approved: decision.approve,
            });
            if !decision.approve {
                let why = decision
                    .reason
                    .filter(|r| !r.trim().is_empty())
                    .map(|r| format!(" They said: {r}"))
                    .unwrap_or_default();
                results[i] = Some(result_part(
                    &calls[i],
                    CallStatus::Denied,
                    format!("The person refused this call.{why}"),
                ));
                continue;
            }
            self.remember(session, entry, decision.remember, sink)?;
            let arguments = match decision.arguments {
                Some(Value::Object(map)) => Value::Object(map),
                Some(_) | None => calls[i].fn_arguments.clone(),
            };
            approved.push(Approved {
                index: i,
                entry,
                arguments,
            });
        }
        if cancel.is_cancelled() {
            for a in approved.drain(..) {
                results[a.index] = Some(result_part(
                    &calls[a.index],
                    CallStatus::Cancelled,
                    "The call was not made: the person stopped the turn.".into(),
                ));
            }
        }
        let runs = approved.iter().map(|a| {
            self.run_one(
                session,
                message,
                &calls[a.index],
                a.entry,
                a.arguments.clone(),
                sink,
                cancel,
            )
        });
        let done = futures::future::join_all(runs).await;
        for (a, part) in approved.iter().zip(done) {
            results[a.index] = Some(part);
        }
        Ok(results.into_iter().flatten().collect())
    }

    fn always(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.inner.always.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A standing approval used for the first time records what the tool
    /// looked like, so a later change is asked about.
    fn record_first_use(
        &self,
        entry: &Entry,
        standing: bool,
        settings: &crate::AgentSettings,
    ) -> Result<()> {
        let key = entry.key();
        let by_policy = settings.policy(&entry.server, &entry.tool) == crate::ToolPolicy::Allow;
        if (standing || by_policy) && !settings.approved_definitions.contains_key(&key) {
            let covered = approvals::covered(&entry.definition);
            self.update_settings(|s| {
                s.approved_definitions.insert(key, covered);
            })?;
        }
        Ok(())
    }

    /// Keep a decision beyond this call.
    fn remember(
        &self,
        session: &str,
        entry: &Entry,
        remember: Remember,
        sink: &Sink,
    ) -> Result<()> {
        let key = entry.key();
        let covered = approvals::covered(&entry.definition);
        match remember {
            Remember::Once => {}
            Remember::Chat => {
                self.change_chat_options(session, |o| {
                    o.allowed.insert(key, covered);
                })?;
            }
            Remember::Always => {
                self.change_chat_options(session, |o| {
                    o.allowed.insert(key.clone(), covered.clone());
                })?;
                self.always().insert(key.clone());
                self.update_settings(|s| {
                    s.approved_definitions.insert(key.clone(), covered);
                })?;
                if let Err(e) = self.approve_in_config(&entry.server, &entry.tool) {
                    sink(AgentEvent::Notice {
                        text: format!(
                            "{key} is allowed for this chat, but \"always\" could not be written to mcp.json: {e}"
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Add the tool to the entry's `autoApprove` (or Roo's `alwaysAllow`,
    /// if that is the key the entry uses), through the lossless editor.
    pub fn approve_in_config(&self, server: &str, tool: &str) -> Result<()> {
        use workbench_core::config::{edit::EditOp, store::Document};
        let handle = self.workbench().server(server)?;
        let path = match handle.entry().scope {
            workbench_core::config::Scope::Project => self.inner.config.project.clone(),
            workbench_core::config::Scope::User => Some(self.inner.config.user.clone()),
        }
        .ok_or_else(|| {
            crate::Error::Invalid(format!("{server}: the file it is defined in is not known"))
        })?;
        let mut doc = Document::open(&path)?;
        let entries = workbench_core::config::raw_entries(&path, &doc.text)?;
        let raw = entries
            .iter()
            .find(|(name, _)| name == server)
            .map(|(_, e)| e.clone())
            .ok_or_else(|| {
                crate::Error::Invalid(format!("{server} is not in {}", path.display()))
            })?;
        let key = if raw.contains_key("alwaysAllow") && !raw.contains_key("autoApprove") {
            "alwaysAllow"
        } else {
            "autoApprove"
        };
        let mut list: Vec<Value> = raw
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if list
            .iter()
            .any(|v| v.as_str() == Some(tool) || v.as_str() == Some("*"))
        {
            return Ok(());
        }
        list.push(Value::String(tool.to_string()));
        let mut fields = Map::new();
        fields.insert(key.to_string(), Value::Array(list));
        doc.edit(&EditOp::Upsert {
            name: server.to_string(),
            fields,
        })?;
        doc.save()?;
        Ok(())
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
        arguments: Value,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Part {
        let wb = self.workbench();
        let record = self
            .store()
            .record_call(&CallRecord {
                origin: "chat",
                session: Some(session),
                message: Some(message),
                call_id: &call.call_id,
                server: &entry.server,
                tool: &entry.tool,
                arguments: &arguments,
            })
            .ok();
        let before = wb.traffic().stats().1;
        sink(AgentEvent::ToolStarted {
            call_id: call.call_id.clone(),
            server: entry.server.clone(),
            tool: entry.tool.clone(),
            arguments: arguments.clone(),
        });
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let options = CallOptions {
            cancel: Some(cancel.child_token()),
            progress: Some(tx),
            ..Default::default()
        };
        let call_future = wb.call_tool(&entry.server, &entry.tool, arguments.clone(), options);
        tokio::pin!(call_future);
        let outcome = loop {
            tokio::select! {
                outcome = &mut call_future => break outcome,
                Some((progress, total, msg)) = rx.recv() => sink(AgentEvent::ToolProgress {
                    call_id: call.call_id.clone(),
                    progress,
                    total,
                    message: msg,
                }),
            }
        };
        let after = wb.traffic().stats().1;
        let (status, content, result, duration) = match outcome {
            Ok(o) => {
                let status = if o.result["isError"].as_bool() == Some(true) {
                    CallStatus::Error
                } else {
                    CallStatus::Ok
                };
                let (text, _) = result_for_model(&o.result);
                (status, text, Some(o.result), Some(o.duration_ms))
            }
            Err(e) if e.code() == workbench_core::ErrorCode::Cancelled => (
                CallStatus::Cancelled,
                "The call was cancelled: the person stopped the turn.".to_string(),
                None,
                None,
            ),
            Err(e) => (
                CallStatus::Failed,
                format!("The call failed: {e}"),
                None,
                None,
            ),
        };
        if let Some(id) = record {
            let _ = self
                .store()
                .finish_call(id, &arguments, status, result.as_ref(), duration);
        }
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
            traffic: Some((before, after)),
        }
    }
}
