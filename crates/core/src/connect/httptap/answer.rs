//! What comes back from a POST: a status that is not success (a JSON-RPC
//! error in its body, 429 and 5xx with their Retry-After), or a success's
//! answer — an SSE stream recorded event by event as it passes (timed from
//! its first bytes to its last), or one JSON-RPC message.

use std::borrow::Cow;

use futures::StreamExt;
use http::StatusCode;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    HttpStatusError, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::SseStream;

use super::{Result, SESSION_HEADER, TapClient};
use std::sync::Arc;

use crate::traffic::{Direction, TrafficLog};

/// Whether a Content-Type's media type is `expected` (its parameters aside).
pub(super) fn media_type_is(value: &str, expected: &str) -> bool {
    value
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(expected))
}

/// Read a body, failing (rather than truncating) past `max`.
pub(super) async fn read_body(response: reqwest::Response, max: usize) -> Result<Vec<u8>> {
    if response.content_length().is_some_and(|n| n > max as u64) {
        return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
    }
    let mut stream = response.bytes_stream();
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if chunk.len() > max - body.len() {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A sessionless `server/discover` that a 2025-era server rejects with a 4xx
/// becomes a JSON-RPC error carrying the request's id, so the lifecycle can
/// fall back to `initialize` (what rmcp's own client does).
fn discover_rejected(
    message: &ClientJsonRpcMessage,
    had_session: bool,
    status: StatusCode,
    body: &str,
) -> Option<StreamableHttpPostResponse> {
    if had_session
        || !status.is_client_error()
        || matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
    {
        return None;
    }
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    if !matches!(request.request, ClientRequest::DiscoverRequest(_)) {
        return None;
    }
    let error = match serde_json::from_str::<ServerJsonRpcMessage>(body) {
        Ok(ServerJsonRpcMessage::Error(e)) => e.error,
        _ => ErrorData::invalid_request(
            format!("server/discover rejected with HTTP {status}: {body}"),
            None,
        ),
    };
    Some(StreamableHttpPostResponse::Json(
        ServerJsonRpcMessage::error(error, Some(request.id.clone())),
        None,
    ))
}

impl TapClient {
    /// A status that is not success: a JSON-RPC error the body carries is
    /// the answer (recorded); 429 and 5xx say so with their Retry-After;
    /// else the status with the start of the body.
    pub(super) async fn failed_status(
        &self,
        response: reqwest::Response,
        message: &ClientJsonRpcMessage,
        had_session: bool,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse> {
        let status = response.status();
        let is_json = content_type(&response)
            .as_deref()
            .is_some_and(|ct| media_type_is(ct, "application/json"));
        let new_session = session_of(&response);
        let retry_after = response
            .headers()
            .get(http::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let status_error = (status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error())
            .then(|| HttpStatusError::new(status.as_u16(), retry_after));
        let status_error = match status_error {
            Some(error) if !is_json || status == StatusCode::TOO_MANY_REQUESTS => {
                return Err(error.into());
            }
            other => other,
        };
        let limit = if is_json {
            limits.max_json_response_size
        } else {
            limits.max_error_response_size
        };
        let raw = read_body(response, limit.max(1))
            .await
            .unwrap_or_else(|_| b"<the response body could not be read>".to_vec());
        let text = String::from_utf8_lossy(&raw).into_owned();
        if let Some(answer) = discover_rejected(message, had_session, status, &text) {
            return Ok(answer);
        }
        if let Ok(error @ ServerJsonRpcMessage::Error(_)) =
            serde_json::from_slice::<ServerJsonRpcMessage>(&raw)
            && !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
        {
            self.record(Direction::Incoming, &raw);
            return Ok(StreamableHttpPostResponse::Json(error, new_session));
        }
        if let Some(error) = status_error {
            return Err(error.into());
        }
        let text: String = text.chars().take(limits.max_error_response_size).collect();
        Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
            format!("HTTP {status}: {text}"),
        )))
    }

    /// A successful answer: an SSE stream (each event recorded as it
    /// passes, an event over the entry's limit closing it), a JSON-RPC
    /// message, or nothing for a message that awaits nothing.
    pub(super) async fn answer(
        &self,
        response: reqwest::Response,
        message: &ClientJsonRpcMessage,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse> {
        let awaits_nothing = !matches!(message, ClientJsonRpcMessage::Request(_));
        if awaits_nothing && response.content_length() == Some(0) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        let content_type = content_type(&response);
        let new_session = session_of(&response);
        match content_type.as_deref() {
            Some(ct) if media_type_is(ct, "text/event-stream") => {
                let me = self.clone();
                let max = limits.max_sse_event_size;
                let method = match message {
                    ClientJsonRpcMessage::Request(r) => r.request.method().to_string(),
                    _ => String::new(),
                };
                let timed = Timed {
                    inner: Box::pin(response.bytes_stream()),
                    since: std::time::Instant::now(),
                    last: None,
                    done: Some((self.traffic.clone(), self.server.clone(), method)),
                };
                let body = crate::connect::sselimit::bounded(timed, max, move || {
                    let message = format!(
                        "the server sent an event of more than {max} bytes (the entry's maxMessageSize); closing the stream. To accept it, raise \"maxMessageSize\" (bytes) in the entry"
                    );
                    me.traffic.record_note(&me.server, &message);
                    *me.failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(message.clone());
                    message
                });
                let events = SseStream::from_bytes_stream(body).boxed();
                Ok(StreamableHttpPostResponse::Sse(
                    self.tapped(events),
                    new_session,
                ))
            }
            Some(ct) if media_type_is(ct, "application/json") => {
                let raw = read_body(response, limits.max_json_response_size).await?;
                if !raw.is_empty() {
                    self.record(Direction::Incoming, &raw);
                }
                match serde_json::from_slice::<ServerJsonRpcMessage>(&raw) {
                    Ok(parsed) => Ok(StreamableHttpPostResponse::Json(parsed, new_session)),
                    Err(_) if awaits_nothing => Ok(StreamableHttpPostResponse::Accepted),
                    Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                        format!(
                            "the server's answer is not a JSON-RPC message ({e}): {}",
                            String::from_utf8_lossy(&raw[..raw.len().min(200)])
                        ),
                    ))),
                }
            }
            _ if awaits_nothing => Ok(StreamableHttpPostResponse::Accepted),
            _ => Err(StreamableHttpError::UnexpectedContentType(content_type)),
        }
    }
}

/// A response's Content-Type, as sent.
fn content_type(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// The session id a response gives, if any.
fn session_of(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// A streamed answer's body, noting in the traffic log how long it took
/// from its first bytes (the head) to its last (`traffic/gaps.rs`): said
/// when it ends or is dropped (a reader that has its answer stops early).
pub(super) struct Timed<S> {
    inner: S,
    since: std::time::Instant,
    last: Option<std::time::Instant>,
    done: Option<(TrafficLog, Arc<str>, String)>,
}

impl<S> Timed<S> {
    fn note(&mut self) {
        if let (Some(last), Some((traffic, server, method))) = (self.last, self.done.take()) {
            let ms = last.duration_since(self.since).as_secs_f64() * 1000.0;
            traffic.note_answer_gap(&server, &method, ms);
        }
    }
}

impl<S> Drop for Timed<S> {
    fn drop(&mut self) {
        self.note();
    }
}

impl<S: futures::Stream + Unpin> futures::Stream for Timed<S> {
    type Item = S::Item;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<S::Item>> {
        let polled = self.inner.poll_next_unpin(cx);
        match &polled {
            std::task::Poll::Ready(Some(_)) => self.last = Some(std::time::Instant::now()),
            std::task::Poll::Ready(None) => self.note(),
            std::task::Poll::Pending => {}
        }
        polled
    }
}
