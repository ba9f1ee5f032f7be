//! The four providers' wire formats for one scripted turn: the frames of a
//! streamed answer (SSE or NDJSON) and the body of a whole one.

use axum::body::Bytes;
use serde_json::{Value, json};

use super::{Api, Turn};

/// Text split the way a model streams it: a few characters at a time.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(6).map(|c| c.iter().collect()).collect()
}

fn sse(data: &Value) -> Bytes {
    Bytes::from(format!("data: {data}\n\n"))
}

fn sse_event(event: &str, data: &Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

fn ndjson(data: &Value) -> Bytes {
    Bytes::from(format!("{data}\n"))
}

pub(super) fn content_type(api: Api) -> &'static str {
    match api {
        Api::Ollama => "application/x-ndjson",
        _ => "text/event-stream",
    }
}

/// A frame that is not JSON, in the API's framing.
pub(super) fn malformed(api: Api) -> Bytes {
    match api {
        Api::Ollama => Bytes::from_static(b"{\"message\": {not json\n"),
        Api::Anthropic => Bytes::from_static(b"event: content_block_delta\ndata: {not json\n\n"),
        _ => Bytes::from_static(b"data: {not json\n\n"),
    }
}

/// (input including cached, output, cached). Anthropic reports input
/// without the cached part; the others include it.
fn usage(turn: &Turn) -> (u32, u32, u32) {
    let u = turn.usage.unwrap_or_default();
    (u.input, u.output, u.cached)
}

/// The frames of a streamed answer.
pub(super) fn frames(
    api: Api,
    turn: &Turn,
    calls: &[(String, String, Value)],
    model: &str,
) -> Vec<Bytes> {
    match api {
        Api::OpenAi => openai_frames(turn, calls, model),
        Api::Anthropic => anthropic_frames(turn, calls, model),
        Api::Gemini => gemini_frames(turn, calls),
        Api::Ollama => ollama_frames(turn, calls, model),
    }
}

fn openai_chunk(model: &str, delta: Value, finish: Option<&str>) -> Bytes {
    sse(&json!({
        "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1, "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    }))
}

fn openai_frames(turn: &Turn, calls: &[(String, String, Value)], model: &str) -> Vec<Bytes> {
    let mut out = vec![openai_chunk(
        model,
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    for p in pieces(&turn.reasoning) {
        out.push(openai_chunk(model, json!({"reasoning_content": p}), None));
    }
    for p in pieces(&turn.text) {
        out.push(openai_chunk(model, json!({"content": p}), None));
    }
    for (i, (id, name, args)) in calls.iter().enumerate() {
        out.push(openai_chunk(
            model,
            json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            None,
        ));
        // Arguments arrive in pieces.
        for p in pieces(&args.to_string()) {
            out.push(openai_chunk(
                model,
                json!({"tool_calls": [{"index": i, "function": {"arguments": p}}]}),
                None,
            ));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    out.push(openai_chunk(model, json!({}), Some(finish)));
    let (input, output, cached) = usage(turn);
    out.push(sse(&json!({
        "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1, "model": model, "choices": [],
        "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output,
                  "prompt_tokens_details": {"cached_tokens": cached}}
    })));
    out.push(Bytes::from_static(b"data: [DONE]\n\n"));
    out
}

fn anthropic_frames(turn: &Turn, calls: &[(String, String, Value)], model: &str) -> Vec<Bytes> {
    let (input, output, cached) = usage(turn);
    let mut out = vec![sse_event(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_scripted", "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null,
            "usage": {"input_tokens": input.saturating_sub(cached), "output_tokens": 1, "cache_read_input_tokens": cached}}}),
    )];
    let mut index = 0;
    if !turn.reasoning.is_empty() {
        out.push(sse_event("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": ""}})));
        for p in pieces(&turn.reasoning) {
            out.push(sse_event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": p}})));
        }
        out.push(sse_event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": "scripted-signature"}})));
        out.push(sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    if !turn.text.is_empty() {
        out.push(sse_event("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
        for p in pieces(&turn.text) {
            out.push(sse_event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}})));
        }
        out.push(sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for (id, name, args) in calls {
        out.push(sse_event("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
        for p in pieces(&args.to_string()) {
            out.push(sse_event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": p}})));
        }
        out.push(sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    out.push(sse_event("message_delta", &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": output}})));
    out.push(sse_event("message_stop", &json!({"type": "message_stop"})));
    out
}

fn gemini_usage(turn: &Turn) -> Value {
    let (input, output, cached) = usage(turn);
    json!({"promptTokenCount": input, "candidatesTokenCount": output, "totalTokenCount": input + output, "cachedContentTokenCount": cached})
}

fn gemini_chunk(parts: Value, finish: Option<&str>, usage: Option<Value>) -> Bytes {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(f) = finish {
        candidate["finishReason"] = json!(f);
    }
    let mut chunk = json!({"candidates": [candidate], "modelVersion": "scripted-model"});
    if let Some(u) = usage {
        chunk["usageMetadata"] = u;
    }
    sse(&chunk)
}

fn gemini_frames(turn: &Turn, calls: &[(String, String, Value)]) -> Vec<Bytes> {
    let mut out = Vec::new();
    for p in pieces(&turn.reasoning) {
        out.push(gemini_chunk(
            json!([{"text": p, "thought": true}]),
            None,
            None,
        ));
    }
    for p in pieces(&turn.text) {
        out.push(gemini_chunk(json!([{"text": p}]), None, None));
    }
    // Gemini sends calls whole, all in one chunk, with the end.
    let parts: Vec<Value> = calls
        .iter()
        .map(|(_, name, args)| json!({"functionCall": {"name": name, "args": args}}))
        .collect();
    let parts = if parts.is_empty() {
        json!([{"text": ""}])
    } else {
        Value::Array(parts)
    };
    out.push(gemini_chunk(parts, Some("STOP"), Some(gemini_usage(turn))));
    out
}

fn ollama_line(model: &str, message: Value, done: Option<(&str, &Turn)>) -> Bytes {
    let mut line = json!({"model": model, "created_at": "2026-01-01T00:00:00Z", "message": message, "done": done.is_some()});
    if let Some((reason, turn)) = done {
        let (input, output, _) = usage(turn);
        line["done_reason"] = json!(reason);
        line["prompt_eval_count"] = json!(input);
        line["eval_count"] = json!(output);
    }
    ndjson(&line)
}

fn ollama_frames(turn: &Turn, calls: &[(String, String, Value)], model: &str) -> Vec<Bytes> {
    let mut out = vec![ollama_line(
        model,
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    for p in pieces(&turn.reasoning) {
        out.push(ollama_line(
            model,
            json!({"role": "assistant", "content": "", "thinking": p}),
            None,
        ));
    }
    for p in pieces(&turn.text) {
        out.push(ollama_line(
            model,
            json!({"role": "assistant", "content": p}),
            None,
        ));
    }
    if !calls.is_empty() {
        // Ollama sends every call in one chunk, arguments as objects.
        let list: Vec<Value> = calls
            .iter()
            .map(|(_, name, args)| json!({"function": {"name": name, "arguments": args}}))
            .collect();
        out.push(ollama_line(
            model,
            json!({"role": "assistant", "content": "", "tool_calls": list}),
            None,
        ));
    }
    out.push(ollama_line(
        model,
        json!({"role": "assistant", "content": ""}),
        Some(("stop", turn)),
    ));
    out
}

/// The body of a whole (not streamed) answer.
pub(super) fn whole(
    api: Api,
    turn: &Turn,
    calls: &[(String, String, Value)],
    model: &str,
) -> Value {
    let (input, output, cached) = usage(turn);
    match api {
        Api::OpenAi => {
            let tool_calls: Vec<Value> = calls
                .iter()
                .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
                .collect();
            let mut message = json!({"role": "assistant", "content": if turn.text.is_empty() { Value::Null } else { json!(turn.text) }});
            if !tool_calls.is_empty() {
                message["tool_calls"] = Value::Array(tool_calls);
            }
            json!({"id": "chatcmpl-scripted", "object": "chat.completion", "created": 1, "model": model,
                   "choices": [{"index": 0, "message": message, "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" }}],
                   "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output, "prompt_tokens_details": {"cached_tokens": cached}}})
        }
        Api::Anthropic => {
            let mut content = Vec::new();
            if !turn.text.is_empty() {
                content.push(json!({"type": "text", "text": turn.text}));
            }
            for (id, name, args) in calls {
                content.push(json!({"type": "tool_use", "id": id, "name": name, "input": args}));
            }
            json!({"id": "msg_scripted", "type": "message", "role": "assistant", "model": model, "content": content,
                   "stop_reason": if calls.is_empty() { "end_turn" } else { "tool_use" },
                   "usage": {"input_tokens": input.saturating_sub(cached), "output_tokens": output, "cache_read_input_tokens": cached}})
        }
        Api::Gemini => {
            let mut parts = Vec::new();
            if !turn.text.is_empty() {
                parts.push(json!({"text": turn.text}));
            }
            for (_, name, args) in calls {
                parts.push(json!({"functionCall": {"name": name, "args": args}}));
            }
            json!({"candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
                   "usageMetadata": gemini_usage(turn), "modelVersion": model})
        }
        Api::Ollama => {
            let mut message = json!({"role": "assistant", "content": turn.text});
            if !calls.is_empty() {
                message["tool_calls"] = Value::Array(
                    calls.iter().map(|(_, name, args)| json!({"function": {"name": name, "arguments": args}})).collect(),
                );
            }
            json!({"model": model, "created_at": "2026-01-01T00:00:00Z", "message": message, "done": true,
                   "done_reason": "stop", "prompt_eval_count": input, "eval_count": output})
        }
    }
}
