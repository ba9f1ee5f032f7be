//! A turn's steps: the model asked with the tools as they are now, its
//! answer stored and metered, the calls it asked for made, until it
//! answers without a call, the step limit, Stop, or a failure.

use std::time::Duration;

use genai::chat::{ChatOptions, ChatRequest};
use tokio_util::sync::CancellationToken;
use workbench_store::Usage;

use super::TOOLS_WAIT;
use crate::error::{Error, Result};
use crate::events::{AgentEvent, ContextMeter, EndReason};
use crate::parts::{Part, to_chat_messages};
use crate::sessions::options_of;
use crate::settings::ProviderConfig;
use crate::stream::{Interrupted, StepOutput};
use crate::toolset::ToolSet;
use crate::{Agent, ApproveMode, Sink, adapt, providers, retry};

impl Agent {
    /// Just after start the servers may still be connecting: a first message
    /// sent then would reach a model that has none of their tools. Wait for
    /// them (bounded, and said), then go on with what is there.
    async fn wait_for_tools(&self, sink: &Sink, cancel: &CancellationToken) {
        let wb = self.workbench();
        let pending = wb.pending_tools();
        if pending.is_empty() {
            return;
        }
        sink(AgentEvent::Notice {
            text: format!("Waiting for {} to start…", pending.join(", ")),
        });
        tokio::select! {
            _ = wb.tools_settled(TOOLS_WAIT) => {}
            _ = cancel.cancelled() => {}
        }
    }

    pub(super) async fn run(
        &self,
        session: &str,
        mode: ApproveMode,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Result<EndReason> {
        let (mut turn, row) = self.turn(session)?;
        let max_steps = options_of(&row)
            .max_steps
            .unwrap_or(turn.settings.max_steps)
            .max(1);
        self.wait_for_tools(sink, cancel).await;
        // Lists whose cache hints ran out (2026-07-28) are read again before
        // the model sees them; fresh ones are not asked for.
        tokio::select! {
            _ = self.workbench().revalidate_lists(None, false) => {}
            _ = cancel.cancelled() => {}
        }
        for step in 0..max_steps {
            let mut span = workbench_core::otel::Span::start(
                &format!("agent step {}", step + 1),
                workbench_core::otel::Kind::Internal,
                None,
            );
            span.set("agent.model", row.model.as_str());
            span.set("agent.provider", turn.provider.id.as_str());
            let stepped = span
                .run(self.step(&mut turn, session, mode, sink, cancel))
                .await;
            drop(span);
            if let Some(reason) = stepped? {
                return Ok(reason);
            }
        }
        let notice = vec![Part::Notice {
            text: format!(
                "Stopped after {max_steps} steps (this chat's step limit). Send a message to go on, or raise the limit in the chat's settings."
            ),
            error: false,
        }];
        self.save(session, "assistant", &notice, None, sink)?;
        Ok(EndReason::StepLimit)
    }

    /// A turn of chat `session` about to start: its provider and model as
    /// the settings have them now, and its history read once.
    fn turn(&self, session: &str) -> Result<(Turn, workbench_store::SessionRow)> {
        let settings = self.settings()?;
        let row = self.store().session(session)?;
        let provider = settings.provider(&row.provider).cloned().ok_or_else(|| {
            Error::NoProvider(format!(
                "this chat uses provider \"{}\", which is no longer in the settings: choose another",
                row.provider
            ))
        })?;
        let (key, _) = providers::resolve_key(&provider, &self.inner.keychain);
        let target = providers::target(&provider, &row.model, key)?;
        let (window, window_known) = providers::context_window(&provider, &row.model);
        let stored = self
            .messages(session)?
            .into_iter()
            .map(|m| (m.role, m.parts))
            .collect();
        let turn = Turn {
            settings,
            target,
            window,
            window_known,
            vision: providers::accepts_images(&row.model),
            chat_options: ChatOptions::default()
                .with_capture_usage(true)
                .with_capture_content(true)
                .with_capture_tool_calls(true)
                .with_capture_reasoning_content(true)
                .with_stream_read_timeout(Duration::from_secs(180)),
            said_notes: false,
            stored,
            total: row.usage,
            counted: None,
            provider,
        };
        Ok((turn, row))
    }

    /// One step: the model asked (with the tools as they are now), its
    /// answer kept and metered, and its calls made. Some(how the turn
    /// ends), or None to go on.
    async fn step(
        &self,
        turn: &mut Turn,
        session: &str,
        mode: ApproveMode,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Result<Option<EndReason>> {
        if cancel.is_cancelled() {
            return Ok(Some(EndReason::Stopped));
        }
        // Options change during a turn (allowed for this chat, tools loaded).
        let row = self.store().session(session)?;
        let options = options_of(&row);
        let tools = self.toolset(&turn.settings, &options, &turn.provider, turn.window);
        if !turn.said_notes && !tools.notes.is_empty() {
            sink(AgentEvent::Notice {
                text: tools.notes.join("\n"),
            });
            turn.said_notes = true;
        }
        let request = turn.request(&row.system_prompt, &tools);
        let estimate = estimate_request(&row.system_prompt, &turn.stored, tools.offered_tokens);
        let outcome = self
            .stream_with_retry(
                &turn.provider,
                &turn.target,
                request,
                &turn.chat_options,
                sink,
                cancel,
            )
            .await;
        let (out, failure) = match outcome {
            Ok(out) => (out, None),
            Err(Interrupted::Stopped(out)) => (out, Some(None)),
            Err(Interrupted::Failed(out, e)) => {
                (out, Some(Some(retry::classify(&turn.provider, &e))))
            }
            Err(Interrupted::Cut(out)) => (out, Some(Some(retry::cut_stream(&turn.provider)))),
        };
        let calls = if failure.is_none() {
            out.calls.clone()
        } else {
            Vec::new()
        };
        let mut parts = answer_parts(&out, &tools, &calls);
        // Failed before a word came: no empty answer is kept (the window
        // drew an empty bubble above the error, and the model would be
        // sent an empty message next turn); the error is the turn's notice.
        let failure = match failure {
            Some(Some(e)) if parts.is_empty() => {
                sink(turn.meter(&row.system_prompt, None, estimate, tools.offered_tokens));
                return Err(e);
            }
            other => other,
        };
        if matches!(failure, Some(None)) {
            parts.push(Part::Notice {
                text: "Stopped.".into(),
                error: false,
            });
        }
        let message = self.save(session, "assistant", &parts, out.usage, sink)?;
        turn.stored.push(("assistant".into(), parts));
        sink(turn.meter(
            &row.system_prompt,
            out.usage,
            estimate,
            tools.offered_tokens,
        ));
        match failure {
            Some(None) => return Ok(Some(EndReason::Stopped)),
            Some(Some(e)) => return Err(e),
            None => {}
        }
        if calls.is_empty() {
            return Ok(Some(EndReason::Done));
        }
        let results = self
            .run_calls(
                session,
                message.id,
                (&calls, &tools),
                &options,
                mode,
                sink,
                cancel,
            )
            .await?;
        self.save(session, "tool", &results, None, sink)?;
        turn.stored.push(("tool".into(), results));
        if cancel.is_cancelled() {
            return Ok(Some(EndReason::Stopped));
        }
        Ok(None)
    }
}

/// A turn's state across its steps.
struct Turn {
    settings: crate::AgentSettings,
    provider: ProviderConfig,
    target: genai::ServiceTarget,
    window: u32,
    window_known: bool,
    /// Whether the model takes images (a tool's images go to it).
    vision: bool,
    chat_options: ChatOptions,
    /// The tool set's notes were said (once a turn).
    said_notes: bool,
    /// The history, read once; what the turn stores is added as it goes.
    stored: Vec<(String, Vec<Part>)>,
    /// The chat's usage, this turn's steps added.
    total: Usage,
    /// The provider's count of the last request that had one, and what
    /// the estimate said then: a step without a count (stopped, cut) is
    /// that count plus the estimate of what came since, not an estimate of
    /// the whole (which can be far off the provider's).
    counted: Option<(u32, u32)>,
}

impl Turn {
    /// The request of the next step: the history (a tool's images when the
    /// model takes them), the system prompt and the tools offered.
    fn request(&self, system_prompt: &str, tools: &ToolSet) -> ChatRequest {
        let images = |call_id: &str| {
            self.stored
                .iter()
                .find_map(|(_, parts)| {
                    let found = crate::parts::images_of(parts, call_id);
                    (!found.is_empty()).then_some(found)
                })
                .unwrap_or_default()
        };
        let history = to_chat_messages(&self.stored, &images, self.vision);
        let mut request = ChatRequest::new(history);
        if !system_prompt.trim().is_empty() {
            request = request.with_system(system_prompt.to_string());
        }
        if !tools.offered.is_empty() {
            request = request.with_tools(tools.offered.clone());
        }
        request
    }

    /// The usage after a step (`usage`: the provider's count, if it gave
    /// one; `estimate`: the request's before it was sent).
    fn meter(
        &mut self,
        system_prompt: &str,
        usage: Option<Usage>,
        estimate: u32,
        tools_tokens: u32,
    ) -> AgentEvent {
        self.total.add(usage.unwrap_or_default());
        let now = estimate_request(system_prompt, &self.stored, tools_tokens);
        let used = match (usage, self.counted) {
            (Some(u), _) => {
                let used = (u.input + u.output) as u32;
                self.counted = Some((used, now));
                used
            }
            (None, Some((count, then))) => count + now.saturating_sub(then),
            (None, None) => estimate,
        };
        AgentEvent::Usage {
            step: usage.unwrap_or_default(),
            session: self.total,
            context: ContextMeter {
                used,
                window: self.window,
                window_known: self.window_known,
                tools: tools_tokens,
            },
        }
    }
}

/// The stored parts of the model's answer: reasoning, text, and its calls
/// routed to their servers.
fn answer_parts(out: &StepOutput, tools: &ToolSet, calls: &[genai::chat::ToolCall]) -> Vec<Part> {
    let mut parts = Vec::new();
    if !out.reasoning.is_empty() {
        parts.push(Part::Reasoning {
            text: out.reasoning.clone(),
        });
    }
    if !out.text.is_empty() {
        parts.push(Part::Text {
            text: out.text.clone(),
        });
    }
    for call in calls {
        let entry = tools.route(&call.fn_name);
        parts.push(Part::ToolCall {
            call_id: call.call_id.clone(),
            name: call.fn_name.clone(),
            server: entry.map(|e| e.server.clone()),
            tool: entry.map(|e| e.tool.clone()),
            arguments: call.fn_arguments.clone(),
            signatures: call.thought_signatures.clone(),
        });
    }
    parts
}

/// Tokens the next request would take, estimated from its text.
pub(super) fn estimate_request(system: &str, messages: &[(String, Vec<Part>)], tools: u32) -> u32 {
    let history: u32 = messages
        .iter()
        .flat_map(|(_, parts)| parts.iter())
        .map(|p| match p {
            Part::Text { text } => adapt::estimate_tokens(text),
            Part::ToolCall { arguments, .. } => adapt::estimate_tokens(&arguments.to_string()) + 8,
            Part::ToolResult { content, .. } => adapt::estimate_tokens(content) + 8,
            Part::Resource { text, blob, .. } => {
                text.as_deref().map_or(0, adapt::estimate_tokens)
                    + blob.as_ref().map_or(0, |_| crate::attach::IMAGE_TOKENS)
            }
            Part::Image { .. } => crate::attach::IMAGE_TOKENS,
            _ => 0,
        })
        .sum();
    adapt::estimate_tokens(system) + history + tools
}
