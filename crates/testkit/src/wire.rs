//! What the demo server writes that its library cannot: rmcp 3.11's `Tool`
//! has no `execution` (`taskSupport`), so the task tools carry it under a
//! `_meta` key of their own ([`MARKER`]) and the demo's transports move it
//! to its place on the way out — stdio through a pipe, HTTP in a layer over
//! JSON bodies and SSE events alike. What the client reads is the spec's
//! `execution.taskSupport`, as a server on another SDK would send it.

use std::borrow::Cow;

use axum::response::Response;
use futures::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// The `_meta` key a tool's `execution` travels under inside the demo.
pub const MARKER: &str = "x-mcp-demo/execution";

/// A message with each tool's `_meta[MARKER]` moved to `execution`.
pub fn patch(text: &str) -> Cow<'_, str> {
    if !text.contains(MARKER) {
        return Cow::Borrowed(text);
    }
    let Ok(mut message) = serde_json::from_str::<Value>(text) else {
        return Cow::Borrowed(text);
    };
    let Some(tools) = message["result"]["tools"].as_array_mut() else {
        return Cow::Borrowed(text);
    };
    for tool in tools {
        let Some(meta) = tool.get_mut("_meta").and_then(Value::as_object_mut) else {
            continue;
        };
        let Some(execution) = meta.remove(MARKER) else {
            continue;
        };
        let empty = meta.is_empty();
        if let Some(tool) = tool.as_object_mut() {
            if empty {
                tool.remove("_meta");
            }
            tool.insert("execution".into(), execution);
        }
    }
    Cow::Owned(message.to_string())
}

/// Stdout for rmcp, each line patched on its way to the real stdout.
pub fn stdout() -> DuplexStream {
    let (from_rmcp, rmcp_write) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut lines = BufReader::new(from_rmcp).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let line = patch(&line);
            if stdout.write_all(line.as_bytes()).await.is_err()
                || stdout.write_all(b"\n").await.is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });
    rmcp_write
}

/// An HTTP answer with its messages patched: a JSON body whole, an SSE
/// stream event by event (split across chunks or not).
pub async fn patch_response(response: Response) -> Response {
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let (mut parts, body) = response.into_parts();
    if content_type.starts_with("application/json") {
        let Ok(bytes) = axum::body::to_bytes(body, 512 * 1024 * 1024).await else {
            return Response::from_parts(parts, axum::body::Body::empty());
        };
        let text = String::from_utf8_lossy(&bytes);
        let patched = patch(&text).into_owned();
        parts.headers.remove("content-length");
        return Response::from_parts(parts, axum::body::Body::from(patched));
    }
    if !content_type.starts_with("text/event-stream") {
        return Response::from_parts(parts, body);
    }
    // Lines are patched once whole; a partial line waits for its end.
    let mut pending = String::new();
    let stream = body.into_data_stream().map(move |chunk| {
        let chunk = chunk?;
        pending.push_str(&String::from_utf8_lossy(&chunk));
        let Some(end) = pending.rfind('\n') else {
            return Ok::<_, axum::Error>(bytes::Bytes::new());
        };
        let whole: String = pending.drain(..=end).collect();
        let mut out = String::with_capacity(whole.len());
        for line in whole.split_inclusive('\n') {
            match line.strip_prefix("data:") {
                Some(data) => {
                    let data = data.trim_start();
                    let ending = if data.ends_with("\r\n") { "\r\n" } else { "\n" };
                    let json = data.trim_end_matches(['\r', '\n']);
                    out.push_str("data: ");
                    out.push_str(&patch(json));
                    out.push_str(ending);
                }
                None => out.push_str(line),
            }
        }
        Ok(bytes::Bytes::from(out))
    });
    parts.headers.remove("content-length");
    Response::from_parts(parts, axum::body::Body::from_stream(stream))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn execution_moves_out_of_meta_and_nothing_else_changes() {
        let message = json!({ "jsonrpc": "2.0", "id": 1, "result": { "tools": [
            { "name": "a", "_meta": { MARKER: { "taskSupport": "required" } } },
            { "name": "b", "_meta": { MARKER: { "taskSupport": "optional" }, "keep": 1 } },
            { "name": "c" }
        ] } })
        .to_string();
        let patched: Value = serde_json::from_str(&patch(&message)).unwrap();
        let tools = &patched["result"]["tools"];
        assert_eq!(tools[0]["execution"]["taskSupport"], "required");
        assert!(tools[0].get("_meta").is_none());
        assert_eq!(tools[1]["execution"]["taskSupport"], "optional");
        assert_eq!(tools[1]["_meta"], json!({ "keep": 1 }));
        assert_eq!(tools[2], json!({ "name": "c" }));
        let other = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
        assert!(matches!(patch(other), Cow::Borrowed(_)));
    }
}
