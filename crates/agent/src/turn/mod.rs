//! A turn: the person's message, then model steps until the model answers
//! without asking for a tool, the step limit, Stop, or a provider failure.
//! Each step streams the model's answer (retrying 429 and 5xx before any
//! output), stores it, runs the calls it asked for (see `calls`), stores
//! their results, and goes again. One turn per chat at a time; its task is
//! owned by the chat's entry in `running`, which Stop cancels.

use std::collections::HashSet;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use workbench_store::Usage;

use crate::error::{Error, Result};
use crate::events::{AgentEvent, ContextMeter, EndReason};
use crate::parts::{Part, search_text};
use crate::sessions::{Message, options_of};
use crate::settings::ProviderConfig;
use crate::toolset::{self, ToolSet};
use crate::{Agent, ApproveMode, Sink, providers};

mod step;

use step::estimate_request;

/// How long a turn waits for servers still starting before it goes on without them.
const TOOLS_WAIT: Duration = Duration::from_secs(15);

/// A running turn.
pub struct TurnHandle {
    pub session: String,
    join: tokio::task::JoinHandle<EndReason>,
}

impl TurnHandle {
    /// Wait for the turn to end.
    pub async fn finished(self) -> EndReason {
        self.join.await.unwrap_or(EndReason::Error)
    }
}

/// Removes the chat from `running` (and its waiting approvals) when the turn ends.
pub(crate) struct Running {
    agent: Agent,
    session: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.agent
            .inner
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.session);
        self.agent.approvals().forget_session(&self.session);
    }
}

impl Agent {
    /// Send the person's message and run the turn.
    pub fn send(
        &self,
        session: &str,
        text: &str,
        mode: ApproveMode,
        sink: Sink,
    ) -> Result<TurnHandle> {
        if text.trim().is_empty() {
            return Err(Error::Invalid("the message is empty".into()));
        }
        let (cancel, guard) = self.reserve(session)?;
        self.append_user(session, text, &sink)?;
        Ok(self.spawn(guard, cancel, mode, sink))
    }

    /// Drop the model's last answer (and what its calls did) and ask again;
    /// also the Retry after a failure.
    pub fn regenerate(&self, session: &str, mode: ApproveMode, sink: Sink) -> Result<TurnHandle> {
        let (cancel, guard) = self.reserve(session)?;
        let messages = self.messages(session)?;
        let last_user = messages
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .ok_or_else(|| Error::Invalid("there is no message to answer again".into()))?;
        self.store().truncate_messages(session, last_user.seq + 1)?;
        Ok(self.spawn(guard, cancel, mode, sink))
    }

    /// Replace the person's message `seq` with `text`, drop everything after
    /// it, and run the turn again.
    pub fn edit_and_resend(
        &self,
        session: &str,
        seq: i64,
        text: &str,
        mode: ApproveMode,
        sink: Sink,
    ) -> Result<TurnHandle> {
        if text.trim().is_empty() {
            return Err(Error::Invalid("the message is empty".into()));
        }
        let (cancel, guard) = self.reserve(session)?;
        let messages = self.messages(session)?;
        // Its attachments go again with the new text.
        let attached = match messages.iter().find(|m| m.seq == seq) {
            Some(m) if m.role == "user" => crate::attach::attachments_of(&m.parts),
            Some(_) => return Err(Error::Invalid(format!("message {seq} is not one of yours"))),
            None => return Err(Error::NotFound(format!("this chat has no message {seq}"))),
        };
        self.store().truncate_messages(session, seq)?;
        let mut parts = vec![Part::Text {
            text: text.to_string(),
        }];
        parts.extend(attached);
        self.save(session, "user", &parts, None, &sink)?;
        Ok(self.spawn(guard, cancel, mode, sink))
    }

    pub(crate) fn reserve(&self, session: &str) -> Result<(CancellationToken, Running)> {
        self.store().session(session)?;
        let mut running = self.inner.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.contains_key(session) {
            return Err(Error::Busy(
                "a turn is already running in this chat: wait for it or stop it".into(),
            ));
        }
        let token = CancellationToken::new();
        running.insert(session.to_string(), token.clone());
        Ok((
            token,
            Running {
                agent: self.clone(),
                session: session.to_string(),
            },
        ))
    }

    pub(crate) fn append_user(&self, session: &str, text: &str, sink: &Sink) -> Result<()> {
        let parts = vec![Part::Text {
            text: text.to_string(),
        }];
        self.save(session, "user", &parts, None, sink)?;
        self.title_if_untitled(session, text)
    }

    pub(crate) fn save(
        &self,
        session: &str,
        role: &str,
        parts: &[Part],
        usage: Option<Usage>,
        sink: &Sink,
    ) -> Result<Message> {
        let content = serde_json::to_value(parts).map_err(|e| Error::Invalid(e.to_string()))?;
        let row =
            self.store()
                .append_message(session, role, &content, &search_text(parts), usage)?;
        let message = Message::from_row(row);
        sink(AgentEvent::Message {
            message: message.clone(),
        });
        Ok(message)
    }

    pub(crate) fn spawn(
        &self,
        guard: Running,
        cancel: CancellationToken,
        mode: ApproveMode,
        sink: Sink,
    ) -> TurnHandle {
        let agent = self.clone();
        let session = guard.session.clone();
        let join = tokio::spawn(async move {
            let _guard = guard;
            let mut span = workbench_core::otel::Span::start(
                "agent turn",
                workbench_core::otel::Kind::Internal,
                None,
            );
            span.set("agent.session", _guard.session.as_str());
            let ran = span
                .run(Box::pin(agent.run(&_guard.session, mode, &sink, &cancel)))
                .await;
            if let Err(e) = &ran {
                span.fail(e.to_string());
            }
            drop(span);
            let reason = match ran {
                Ok(reason) => reason,
                Err(e) => {
                    let notice = vec![Part::Notice {
                        text: e.to_string(),
                        error: true,
                    }];
                    let _ = agent.save(&_guard.session, "assistant", &notice, None, &sink);
                    sink(AgentEvent::Error {
                        code: e.code(),
                        message: e.to_string(),
                        retryable: e.retryable(),
                    });
                    EndReason::Error
                }
            };
            sink(AgentEvent::End { reason });
            reason
        });
        TurnHandle { session, join }
    }

    /// The tools the model would see in this chat now.
    pub(crate) fn toolset(
        &self,
        settings: &crate::AgentSettings,
        options: &crate::SessionOptions,
        provider: &ProviderConfig,
        window: u32,
    ) -> ToolSet {
        let wb = self.workbench();
        let catalog = wb.catalog().tools();
        let skills: Vec<(String, serde_json::Value)> = wb
            .servers()
            .iter()
            .flat_map(|h| {
                let server = h.name().to_string();
                wb.skills_of(&server)
                    .into_iter()
                    .map(move |s| (server.clone(), s))
            })
            .collect();
        let away: HashSet<String> = wb
            .statuses()
            .into_iter()
            .filter(|s| s.state != workbench_core::connect::ServerState::Ready)
            .map(|s| s.name)
            .collect();
        toolset::build(&toolset::Inputs {
            catalog: &catalog,
            skills: &skills,
            away: &away,
            options,
            settings,
            kind: provider.kind,
            context_window: window,
        })
    }
}

/// One tool as a chat's tool list shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ChatTool {
    /// The name the model uses (`load_skill` for a skill, whose `tool` is
    /// `skill:NAME`).
    pub name: String,
    pub server: String,
    pub tool: String,
    /// Whether the model sees its schema now (deferred: only once loaded).
    pub offered: bool,
}

/// What a chat's model would get now: its tools, how they were adapted,
/// and how full the context is.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ChatTools {
    pub tools: Vec<ChatTool>,
    pub deferred: bool,
    pub notes: Vec<String>,
    pub context: ContextMeter,
}

impl Agent {
    pub fn chat_tools(&self, session: &str) -> Result<ChatTools> {
        let row = self.store().session(session)?;
        let settings = self.settings()?;
        let provider = settings.provider(&row.provider).cloned().ok_or_else(|| {
            Error::NoProvider(format!(
                "provider \"{}\" is no longer in the settings",
                row.provider
            ))
        })?;
        let (window, known) = providers::context_window(&provider, &row.model);
        let options = options_of(&row);
        let set = self.toolset(&settings, &options, &provider, window);
        let offered: HashSet<String> = set.offered.iter().map(|t| t.name.to_string()).collect();
        let messages = self.messages(session)?;
        let counted = messages
            .iter()
            .rposition(|m| m.usage.is_some())
            .and_then(|i| Some((i, messages[i].usage?)));
        let stored: Vec<(String, Vec<Part>)> =
            messages.into_iter().map(|m| (m.role, m.parts)).collect();
        let estimate = estimate_request(&row.system_prompt, &stored, set.offered_tokens);
        // As during a turn: the provider's count of the last request it
        // counted, plus the estimate of what came since.
        let used = match counted {
            Some((i, u)) => {
                let then = estimate_request(&row.system_prompt, &stored[..=i], set.offered_tokens);
                (u.input + u.output) as u32 + estimate.saturating_sub(then)
            }
            None => estimate,
        };
        Ok(ChatTools {
            tools: set
                .entries
                .iter()
                .map(|e| ChatTool {
                    offered: offered.contains(&e.name),
                    name: e.name.clone(),
                    server: e.server.clone(),
                    tool: e.tool.clone(),
                })
                // The skills it may load (`load_skill`), as `skill:NAME`.
                .chain(set.skills.iter().map(|e| ChatTool {
                    offered: true,
                    name: e.name.clone(),
                    server: e.server.clone(),
                    tool: e.tool.clone(),
                }))
                .collect(),
            deferred: set.deferred,
            context: ContextMeter {
                used,
                window,
                window_known: known,
                tools: set.offered_tokens,
            },
            notes: set.notes,
        })
    }
}
