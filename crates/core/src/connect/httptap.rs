//! The Streamable HTTP client rmcp's transport drives, over reqwest, that
//! records each message's bytes in the traffic log before anything parses
//! them: the POST body as sent, a JSON response body as received, and the
//! `data` of every SSE event (POST responses and the GET stream). Fields
//! rmcp's types do not know survive in the log, and rmcp's own recovery
//! (re-initialising after a 404) shows up there too.
//!
//! The response handling follows rmcp's own reqwest client (status codes,
//! challenges, session expiry, legacy `server/discover` rejections) so the
//! transport above behaves the same; only the recording is new.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient,
    StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::{Sse, SseStream};

use crate::traffic::{Direction, TrafficLog};

const SESSION_HEADER: &str = "mcp-session-id";

/// Said in a server's Events when it answered 404 for the session: rmcp's
/// worker starts a new one (the handshake again) and sends the request on
/// it — the server never saw it, its session being gone. The workbench
/// sends the session's standing requests again on seeing it.
pub const SESSION_RENEWED: &str = "the server no longer knows this session (HTTP 404, it restarted or expired it): a new session is started and the request sent on it; the subscriptions and log level are sent again";
const ACCEPT: &str = "text/event-stream, application/json";

#[derive(Clone)]
pub struct TapClient {
    pub http: reqwest::Client,
    pub server: Arc<str>,
    pub traffic: TrafficLog,
    /// The largest message accepted (the entry's maxMessageSize).
    pub max_body: usize,
    /// The last request that failed to go out, with every cause (rmcp's
    /// errors keep only the top line: "error sending request for url").
    pub failure: Arc<std::sync::Mutex<Option<String>>>,
    /// The answers kept as sent (`keep.rs`).
    pub kept: super::keep::Kept,
    /// The sign-in's DPoP binding: a fresh proof on every request, the
    /// server's nonce honoured (RFC 9449 §9).
    pub dpop: Option<Arc<crate::auth::dpop::Binding>>,
}

/// Why a request could not be sent, in words a person can act on.
pub fn describe_send_failure(e: &reqwest::Error) -> String {
    let chain = super::error_chain(e);
    if chain.contains("certificate") {
        format!(
            "{chain} (the server's TLS certificate is not trusted here; if it comes from a \
             private CA, point SSL_CERT_FILE at that CA's PEM file)"
        )
    } else {
        chain
    }
}

type Result<T> = std::result::Result<T, StreamableHttpError<reqwest::Error>>;

fn media_type_is(value: &str, expected: &str) -> bool {
    value
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(expected))
}

/// Read a body, failing (rather than truncating) past `max`.
async fn read_body(response: reqwest::Response, max: usize) -> Result<Vec<u8>> {
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

fn challenge(response: &reqwest::Response) -> Result<Option<String>> {
    match response.headers().get(http::header::WWW_AUTHENTICATE) {
        None => Ok(None),
        Some(v) => v.to_str().map(|s| Some(s.to_owned())).map_err(|_| {
            StreamableHttpError::UnexpectedServerResponse(Cow::from(
                "invalid www-authenticate header value",
            ))
        }),
    }
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
    fn record(&self, direction: Direction, bytes: &[u8]) {
        self.traffic.record_message(&self.server, direction, bytes);
        if direction == Direction::Incoming {
            self.kept.offer(bytes);
        }
    }

    /// `custom` with a DPoP proof for a request rmcp's own client sends
    /// (the GET stream, the DELETE at the end).
    fn with_proof(
        &self,
        method: &str,
        uri: &str,
        mut custom: HashMap<HeaderName, HeaderValue>,
    ) -> HashMap<HeaderName, HeaderValue> {
        if let Some(proof) = self.dpop.as_ref().and_then(|b| b.proof(method, uri))
            && let Ok(value) = HeaderValue::from_str(&proof)
        {
            custom.insert(HeaderName::from_static("dpop"), value);
        }
        custom
    }

    /// An SSE stream whose events' data are recorded as they pass.
    fn tapped(
        &self,
        stream: BoxStream<'static, std::result::Result<Sse, SseError>>,
    ) -> BoxStream<'static, std::result::Result<Sse, SseError>> {
        let me = self.clone();
        stream
            .inspect(move |item| {
                if let Ok(Sse {
                    data: Some(data), ..
                }) = item
                    && !data.trim().is_empty()
                {
                    me.record(Direction::Incoming, data.as_bytes());
                }
            })
            .boxed()
    }

    fn request(
        &self,
        builder: reqwest::RequestBuilder,
        session: Option<&str>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> reqwest::RequestBuilder {
        let mut builder = builder;
        if let Some(token) = auth {
            builder = builder.bearer_auth(token);
        }
        for (name, value) in custom {
            builder = builder.header(name, value);
        }
        if let Some(session) = session {
            builder = builder.header(SESSION_HEADER, session);
        }
        builder
    }

    async fn post(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session: Option<Arc<str>>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse> {
        let body = serde_json::to_vec(&message).map_err(|e| {
            StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                "cannot encode the message: {e}"
            )))
        })?;
        self.record(Direction::Outgoing, &body);
        let had_session = session.is_some();
        let mut asked_nonce = false;
        let response = loop {
            let mut request = self
                .request(
                    self.http.post(uri.as_ref()),
                    session.as_deref(),
                    auth.clone(),
                    custom.clone(),
                )
                .header(http::header::ACCEPT, ACCEPT)
                .header(http::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
            if let Some(proof) = self.dpop.as_ref().and_then(|b| b.proof("POST", &uri)) {
                request = request.header("DPoP", proof);
            }
            let response = match request.send().await {
                Ok(response) => response,
                Err(e) => {
                    *self.failure.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some(describe_send_failure(&e));
                    return Err(e.into());
                }
            };
            // A server that wants a DPoP nonce refuses once with it: the
            // same request again, with a proof that carries it.
            if let Some(binding) = &self.dpop {
                let fresh = binding.note_nonce(response.headers());
                let status = response.status().as_u16();
                if !asked_nonce
                    && fresh
                    && crate::auth::dpop::nonce_asked(status, response.headers(), None).is_some()
                {
                    asked_nonce = true;
                    self.traffic.record_note(
                        &self.server,
                        "the server asked for a DPoP nonce: the request is sent again with it",
                    );
                    continue;
                }
            }
            break response;
        };
        let status = response.status();
        // A 401 is a refusal for want of sign-in even without a challenge
        // (servers leave it out); a 403 only with one (insufficient_scope).
        let header = match (status, challenge(&response)?) {
            (StatusCode::UNAUTHORIZED, h) => Some(h.unwrap_or_default()),
            (StatusCode::FORBIDDEN, Some(h)) => Some(h),
            _ => None,
        };
        if let Some(header) = header {
            let method = match &message {
                ClientJsonRpcMessage::Request(r) => Some(r.request.method().to_string()),
                _ => None,
            };
            let refusal = crate::challenge::Refusal::new(status.as_u16(), method, &header);
            self.traffic.note_refusal(&self.server, refusal.clone());
            if status == StatusCode::UNAUTHORIZED {
                return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                    header,
                )));
            }
            // 403: only this request needs a wider grant. It gets an error
            // answer of its own; the session goes on (a transport error
            // here would end it).
            if let ClientJsonRpcMessage::Request(r) = &message {
                let error = ErrorData::invalid_request(
                    format!(
                        "{}: sign in with the wider scope (the server's Sign-in section, or mcpwb --sign-in)",
                        refusal.describe()
                    ),
                    Some(serde_json::json!({ "httpStatus": 403, "wwwAuthenticate": header })),
                );
                return Ok(StreamableHttpPostResponse::Json(
                    ServerJsonRpcMessage::error(error, Some(r.id.clone())),
                    None,
                ));
            }
            return Err(StreamableHttpError::InsufficientScope(
                InsufficientScopeError::new(header, refusal.scope),
            ));
        }
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && had_session {
            // Said in the server's Events: rmcp's worker starts a new
            // session (the handshake again) and sends the request on it —
            // the server never saw it, its session being gone.
            self.traffic.record_note(&self.server, SESSION_RENEWED);
            return Err(StreamableHttpError::SessionExpired);
        }
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let is_json = content_type
            .as_deref()
            .is_some_and(|ct| media_type_is(ct, "application/json"));
        let new_session = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let awaits_nothing = !matches!(message, ClientJsonRpcMessage::Request(_));
        if !status.is_success() {
            let retry_after = response
                .headers()
                .get(http::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let status_error = (status == StatusCode::TOO_MANY_REQUESTS
                || status.is_server_error())
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
            if let Some(answer) = discover_rejected(&message, had_session, status, &text) {
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
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!("HTTP {status}: {text}"),
            )));
        }
        if awaits_nothing && response.content_length() == Some(0) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        match content_type.as_deref() {
            Some(ct) if media_type_is(ct, "text/event-stream") => {
                let me = self.clone();
                let max = limits.max_sse_event_size;
                let method = match &message {
                    ClientJsonRpcMessage::Request(r) => r.request.method().to_string(),
                    _ => String::new(),
                };
                let timed = Timed {
                    inner: Box::pin(response.bytes_stream()),
                    since: std::time::Instant::now(),
                    last: None,
                    done: Some((self.traffic.clone(), self.server.clone(), method)),
                };
                let body = super::sselimit::bounded(timed, max, move || {
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

impl StreamableHttpClient for TapClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse> {
        let limits = StreamableHttpResponseLimits::default();
        self.post(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse> {
        self.post(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<()> {
        let custom_headers = self.with_proof("DELETE", &uri, custom_headers);
        self.http
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, std::result::Result<Sse, SseError>>> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            self.max_body,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, std::result::Result<Sse, SseError>>> {
        let custom_headers = self.with_proof("GET", &uri, custom_headers);
        let stream = self
            .http
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(self.tapped(stream))
    }
}

/// A streamed answer's body, noting in the traffic log how long it took
/// from its first bytes (the head) to its last (`traffic/gaps.rs`): said
/// when it ends or is dropped (a reader that has its answer stops early).
struct Timed<S> {
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
