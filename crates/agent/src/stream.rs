//! Reading one streamed answer. Text and reasoning are passed on as they
//! arrive; tool calls are shown as the model writes them and taken whole
//! from the stream's end, reconciled with what the chunks showed — genai's
//! adapters differ: Anthropic's and OpenAI's argument chunks are cumulative,
//! Gemini and Ollama deliver arguments whole, and Ollama emits only the first
//! of several parallel calls as a chunk (the rest appear only at the end).

use futures::StreamExt;
use genai::chat::{ChatStream, ChatStreamEvent, ToolCall};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use workbench_store::Usage;

use crate::events::AgentEvent;

/// What a step produced.
#[derive(Debug, Default)]
pub struct StepOutput {
    pub text: String,
    pub reasoning: String,
    pub calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
    /// Whether anything reached the person (then a failure is not retried).
    pub started: bool,
}

/// How reading ended, when it did not end well.
#[derive(Debug)]
pub enum Interrupted {
    /// Stop: what arrived so far.
    Stopped(StepOutput),
    /// The provider failed mid-stream.
    Failed(StepOutput, genai::Error),
    /// The stream ended without its end event (cut).
    Cut(StepOutput),
}

pub fn usage(u: &genai::chat::Usage) -> Usage {
    Usage {
        input: i64::from(u.prompt_tokens.unwrap_or(0)),
        output: i64::from(u.completion_tokens.unwrap_or(0)),
        cached: i64::from(
            u.prompt_tokens_details
                .as_ref()
                .and_then(|d| d.cached_tokens)
                .unwrap_or(0),
        ),
    }
}

fn arguments_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Arguments that arrived as text are parsed; text that is not JSON stays a
/// string (the call then gets an error the model can read).
pub fn parse_arguments(v: Value) -> Value {
    match v {
        Value::String(s) if s.trim().is_empty() => Value::Object(Default::default()),
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    }
}

/// The calls of a step: the end's captured calls, plus any call a chunk
/// showed that the end lacks, in the order first seen.
pub fn reconcile(seen: Vec<ToolCall>, captured: Option<Vec<ToolCall>>) -> Vec<ToolCall> {
    let mut calls = captured.unwrap_or_default();
    for call in seen {
        if !calls.iter().any(|c| c.call_id == call.call_id) {
            calls.push(call);
        }
    }
    for c in &mut calls {
        c.fn_arguments = parse_arguments(std::mem::take(&mut c.fn_arguments));
    }
    calls
}

/// Read `stream` to its end, passing deltas to `emit`.
pub async fn read(
    mut stream: ChatStream,
    emit: &(dyn Fn(AgentEvent) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<StepOutput, Interrupted> {
    let mut out = StepOutput::default();
    // Latest state of each call as the chunks showed it.
    let mut seen: Vec<ToolCall> = Vec::new();
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => {
                out.calls = Vec::new();
                return Err(Interrupted::Stopped(out));
            }
            next = stream.next() => next,
        };
        let event = match next {
            None => {
                out.calls = reconcile(seen, None);
                return Err(Interrupted::Cut(out));
            }
            Some(Err(e)) => {
                out.calls = Vec::new();
                return Err(Interrupted::Failed(out, e));
            }
            Some(Ok(event)) => event,
        };
        match event {
            ChatStreamEvent::Start | ChatStreamEvent::Heartbeat => {}
            ChatStreamEvent::Chunk(c) => {
                if !c.content.is_empty() {
                    out.started = true;
                    out.text.push_str(&c.content);
                    emit(AgentEvent::TextDelta { text: c.content });
                }
            }
            ChatStreamEvent::ReasoningChunk(c) => {
                if !c.content.is_empty() {
                    out.started = true;
                    out.reasoning.push_str(&c.content);
                    emit(AgentEvent::ReasoningDelta { text: c.content });
                }
            }
            ChatStreamEvent::ThoughtSignatureChunk(_) => {}
            ChatStreamEvent::ToolCallChunk(chunk) => {
                out.started = true;
                let call = chunk.tool_call;
                emit(AgentEvent::ToolCallDelta {
                    call_id: call.call_id.clone(),
                    name: call.fn_name.clone(),
                    arguments: arguments_text(&call.fn_arguments),
                });
                match seen.iter_mut().find(|c| c.call_id == call.call_id) {
                    Some(existing) => {
                        if !call.fn_name.is_empty() {
                            existing.fn_name = call.fn_name;
                        }
                        existing.fn_arguments = call.fn_arguments;
                    }
                    None => seen.push(call),
                }
            }
            ChatStreamEvent::End(end) => {
                // A count of no input is no count: every request has some
                // (seen: a provider answering `prompt_tokens: 0` put the
                // context meter at 0 in the middle of a chat).
                out.usage = end
                    .captured_usage
                    .as_ref()
                    .map(usage)
                    .filter(|u| u.input > 0);
                if out.reasoning.is_empty()
                    && let Some(r) = &end.captured_reasoning_content
                {
                    out.reasoning = r.clone();
                }
                let captured = end.captured_into_tool_calls();
                out.calls = reconcile(seen, captured);
                return Ok(out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(id: &str, args: Value) -> ToolCall {
        ToolCall {
            call_id: id.into(),
            fn_name: "f".into(),
            fn_arguments: args,
            thought_signatures: None,
        }
    }

    #[test]
    fn the_end_wins_and_calls_only_chunks_showed_are_kept() {
        // Ollama: the chunk showed the first call; the end has both.
        let calls = reconcile(
            vec![call("a", json!({"x": 1}))],
            Some(vec![call("a", json!({"x": 1})), call("b", json!({"y": 2}))]),
        );
        assert_eq!(
            calls.iter().map(|c| c.call_id.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        // Cumulative text arguments are parsed once whole.
        let calls = reconcile(vec![call("a", json!("{\"q\": \"hi\"}"))], None);
        assert_eq!(calls[0].fn_arguments, json!({"q": "hi"}));
        // Text that is not JSON stays text; empty text is no arguments.
        assert_eq!(parse_arguments(json!("{oops")), json!("{oops"));
        assert_eq!(parse_arguments(json!("")), json!({}));
    }
}
