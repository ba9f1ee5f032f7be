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

mod answer;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::Sse;

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
    /// The session's standing stream, for the handshake to wait on.
    pub standing: Standing,
}

/// A session's standing stream: the GET rmcp's worker opens once the
/// handshake is over, beside the first requests. A server's message on it
/// before the server has it open is lost — seen: a server's elicitation
/// during the first call, with the GET slower through a tap than the call
/// (1 run in 8 under load). The connection is handed out once the GET is
/// answered (open, or refused: 405), see [`Standing::opened`].
#[derive(Clone)]
pub struct Standing {
    /// A server answered with a session (only then is the GET opened).
    session: Arc<std::sync::atomic::AtomicBool>,
    answered: Arc<tokio::sync::watch::Sender<bool>>,
}

impl Default for Standing {
    fn default() -> Self {
        Standing {
            session: Default::default(),
            answered: Arc::new(tokio::sync::watch::Sender::new(false)),
        }
    }
}

impl Standing {
    fn note_session(&self) {
        self.session
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn note_answered(&self) {
        self.answered.send_replace(true);
    }

    /// Wait (at most `bound`) for the standing stream's GET to be answered,
    /// when the server gave a session (without one there is no GET). False:
    /// it was not answered in time.
    pub async fn opened(&self, bound: std::time::Duration) -> bool {
        if !self.session.load(std::sync::atomic::Ordering::Relaxed) {
            return true;
        }
        let mut answered = self.answered.subscribe();
        tokio::time::timeout(bound, answered.wait_for(|a| *a))
            .await
            .is_ok()
    }
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
        let response = self
            .send_post(&uri, body, session.as_deref(), auth, custom)
            .await?;
        let status = response.status();
        if status.is_success() && response.headers().contains_key(SESSION_HEADER) {
            self.standing.note_session();
        }
        if let Some(answer) = self.refusal(&response, &message)? {
            return answer;
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
        if !status.is_success() {
            return self
                .failed_status(response, &message, had_session, limits)
                .await;
        }
        self.answer(response, &message, limits).await
    }

    /// The request sent; a server that wants a DPoP nonce refuses once with
    /// it, and the same request goes again with a proof that carries it.
    async fn send_post(
        &self,
        uri: &str,
        body: Vec<u8>,
        session: Option<&str>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> Result<reqwest::Response> {
        let mut asked_nonce = false;
        loop {
            let mut request = self
                .request(self.http.post(uri), session, auth.clone(), custom.clone())
                .header(http::header::ACCEPT, ACCEPT)
                .header(http::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
            if let Some(proof) = self.dpop.as_ref().and_then(|b| b.proof("POST", uri)) {
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
            return Ok(response);
        }
    }

    /// A refusal for want of sign-in: a 401 even without a challenge
    /// (servers leave it out), a 403 only with one (insufficient_scope).
    /// Noted for the server's Sign-in; a 403 answers only its request, with
    /// an error of its own (the session goes on).
    fn refusal(
        &self,
        response: &reqwest::Response,
        message: &ClientJsonRpcMessage,
    ) -> Result<Option<Result<StreamableHttpPostResponse>>> {
        let status = response.status();
        let header = match (status, challenge(response)?) {
            (StatusCode::UNAUTHORIZED, h) => h.unwrap_or_default(),
            (StatusCode::FORBIDDEN, Some(h)) => h,
            _ => return Ok(None),
        };
        let method = match message {
            ClientJsonRpcMessage::Request(r) => Some(r.request.method().to_string()),
            _ => None,
        };
        let refusal = crate::challenge::Refusal::new(status.as_u16(), method, &header);
        self.traffic.note_refusal(&self.server, refusal.clone());
        if status == StatusCode::UNAUTHORIZED {
            return Ok(Some(Err(StreamableHttpError::AuthRequired(
                AuthRequiredError::new(header),
            ))));
        }
        if let ClientJsonRpcMessage::Request(r) = message {
            let error = ErrorData::invalid_request(
                format!(
                    "{}: sign in with the wider scope (the server's Sign-in section, or mcpwb --sign-in)",
                    refusal.describe()
                ),
                Some(serde_json::json!({ "httpStatus": 403, "wwwAuthenticate": header })),
            );
            return Ok(Some(Ok(StreamableHttpPostResponse::Json(
                ServerJsonRpcMessage::error(error, Some(r.id.clone())),
                None,
            ))));
        }
        Ok(Some(Err(StreamableHttpError::InsufficientScope(
            InsufficientScopeError::new(header, refusal.scope),
        ))))
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
            .await;
        // Open or refused, the server has had it.
        self.standing.note_answered();
        Ok(self.tapped(stream?))
    }
}
