//! The person's part in a step's calls: a call asked about (decided
//! together with the step's others or one by one), the decision awaited
//! (or Stop), a decision kept beyond the call, and an eval's verdict, which
//! asks nobody.

use genai::chat::ToolCall;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use workbench_calls::Asking;
use workbench_store::CallStatus;

use super::Approved;
use crate::approvals::{Approval, Decision, Remember, Verdict};
use crate::error::Result;
use crate::events::AgentEvent;
use crate::toolset::Entry;
use crate::{Agent, ApproveMode, Sink};

/// A call the person is asked about.
pub(super) struct Asked<'t> {
    pub(super) index: usize,
    pub(super) entry: &'t Entry,
    pub(super) approval: Approval,
    pub(super) decided: tokio::sync::oneshot::Receiver<Decision>,
}

impl Agent {
    /// Ask the person about call `index` (one of `batch`, decided together
    /// or one by one); `changed`: how its definition changed since allowed.
    pub(super) fn ask<'t>(
        &self,
        session: &str,
        batch: u64,
        index: usize,
        call: &ToolCall,
        entry: &'t Entry,
        changed: Option<Vec<workbench_calls::DiffLine>>,
    ) -> Asked<'t> {
        let approval = Approval {
            id: self.approvals().next_id(),
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
        let decided = self.approvals().request(approval.clone());
        Asked {
            index,
            entry,
            approval,
            decided,
        }
    }

    /// An eval's call asks nobody: the standing rules decide when it runs
    /// (`Calls::standing_refusal`, origin eval); with the case's results,
    /// a tool they give none for does not run.
    pub(super) fn eval_verdict(&self, eval: &crate::eval::EvalTurn, entry: &Entry) -> Verdict {
        let verdict = self.calls().verdict(&Asking {
            server: &entry.server,
            tool: &entry.tool,
            definition: &entry.definition,
            mode: ApproveMode::All,
            chat_allowed: None,
        });
        match verdict {
            Verdict::Ask(_) => Verdict::Deny(format!(
                "{} changed since it was allowed: a person must look at it first",
                entry.key()
            )),
            Verdict::Allow
                if eval
                    .results
                    .as_ref()
                    .is_some_and(|r| !r.contains_key(&entry.key())) =>
            {
                Verdict::Deny(format!(
                    "the case gives results and none for {}: nothing runs in this eval",
                    entry.key()
                ))
            }
            other => other,
        }
    }

    /// The person's decision on `asked` (or Stop before it): the call
    /// approved, with the arguments they gave and their consent, or why it
    /// is not made.
    pub(super) async fn person_decides<'t>(
        &self,
        session: &str,
        asked: Asked<'t>,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Result<std::result::Result<Approved<'t>, (CallStatus, String)>> {
        let id = asked.approval.id;
        let decision = tokio::select! {
            d = asked.decided => d.ok(),
            _ = cancel.cancelled() => None,
        };
        let Some(decision) = decision else {
            sink(AgentEvent::ApprovalResolved {
                id,
                approved: false,
            });
            return Ok(Err((
                CallStatus::Cancelled,
                "The call was not made: the person stopped the turn before deciding.".into(),
            )));
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
            return Ok(Err((
                CallStatus::Denied,
                format!("The person refused this call.{why}"),
            )));
        }
        self.remember(session, asked.entry, decision.remember, sink)?;
        let arguments = match decision.arguments.clone() {
            Some(Value::Object(map)) => Value::Object(map),
            Some(_) | None => asked.approval.arguments.clone(),
        };
        Ok(Ok(Approved {
            index: asked.index,
            entry: asked.entry,
            arguments,
            consent: decision.consent().cloned(),
        }))
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
        let covered = workbench_calls::gate::covered(&entry.definition);
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
                self.calls()
                    .allow_always(&entry.server, &entry.tool, &entry.definition);
                // A skill is not a tool of the entry: "always" holds in the
                // rules, not in mcp.json's autoApprove (which other clients read).
                if workbench_calls::is_skill_tool(&entry.tool) {
                    return Ok(());
                }
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
        use workbench_core::config::{document::Document, edit::EditOp};
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
}
