//! Provider failures: what kind each is (by HTTP status and genai's error,
//! never by text), the sentence the person reads, and whether and when to
//! try again (429 honours Retry-After; 5xx and unreachable back off); a
//! model step streamed and tried again so.

use std::time::Duration;

use genai::chat::{ChatOptions, ChatRequest};
use tokio_util::sync::CancellationToken;

use crate::Sink;
use crate::error::{Error, ProviderFailure};
use crate::events::AgentEvent;
use crate::settings::ProviderConfig;
use crate::stream::{Interrupted, StepOutput};

/// Attempts after the first for a request that failed before any output.
pub const MAX_RETRIES: u32 = 3;
/// The longest Retry-After honoured; longer ones end the turn with a message.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The provider's own words from an error body (`error.message`, `message`,
/// or the start of the text), one line, at most 300 characters.
fn provider_words(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let text = parsed
        .as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("error"))
                .and_then(|m| m.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| body.to_string());
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one_line.chars().take(300).collect();
    if one_line.chars().count() > 300 {
        out.push('…');
    }
    out
}

fn body_of(e: &genai::Error) -> String {
    match e {
        genai::Error::HttpError { body, .. } => body.clone(),
        genai::Error::WebModelCall { webc_error, .. }
        | genai::Error::WebAdapterCall { webc_error, .. } => match webc_error {
            genai::webc::Error::ResponseFailedStatus { body, .. } => body.clone(),
            other => other.to_string(),
        },
        other => other.to_string(),
    }
}

/// The HTTP failure inside a stream error: a streamed request that got an
/// error status surfaces as a stream error wrapping genai's `HttpError`.
fn unwrap_http(e: &genai::Error) -> &genai::Error {
    if let genai::Error::WebStream { error, .. } = e
        && let Some(inner) = error.downcast_ref::<genai::Error>()
        && inner.status().is_some()
    {
        return inner;
    }
    e
}

/// A request that never reached the provider, said as every unreachable
/// address is (the name does not resolve, nothing listens, no answer);
/// `None` when it did reach it, or the error does not say.
fn unreached(provider: &ProviderConfig, e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let base = crate::providers::base_url(provider).ok()?;
    let url = reqwest::Url::parse(&base).ok()?;
    let why = workbench_core::reach::Unreached::of(e)
        .said(url.host_str()?, url.port_or_known_default()?)?;
    Some(format!(
        "could not reach {} (provider \"{}\") at {base}: {why}",
        provider.kind.label(),
        provider.id
    ))
}

/// The error a failed provider call becomes.
pub fn classify(provider: &ProviderConfig, e: &genai::Error) -> Error {
    let e = unwrap_http(e);
    let label = provider.kind.label();
    let id = &provider.id;
    let status = e.status().map(|s| s.as_u16());
    let (failure, message) = match status {
        Some(s @ (401 | 403)) => (
            ProviderFailure::Auth,
            format!(
                "{label} (provider \"{id}\") refused the request (HTTP {s}): {}. Check the API key and its permissions.",
                provider_words(&body_of(e))
            ),
        ),
        Some(429) => (
            ProviderFailure::RateLimited,
            format!(
                "{label} (provider \"{id}\") is limiting requests (HTTP 429): {}",
                provider_words(&body_of(e))
            ),
        ),
        Some(s) if s >= 500 => (
            ProviderFailure::Unavailable,
            format!(
                "{label} (provider \"{id}\") failed (HTTP {s}): {}",
                provider_words(&body_of(e))
            ),
        ),
        Some(s) => (
            ProviderFailure::Failed,
            format!(
                "{label} (provider \"{id}\") rejected the request (HTTP {s}): {}",
                provider_words(&body_of(e))
            ),
        ),
        None => match e {
            genai::Error::StreamParse { serde_error, .. } => (
                ProviderFailure::Failed,
                format!("{label} (provider \"{id}\") sent a malformed stream: {serde_error}"),
            ),
            // Never connected: the stream did not break off, it never began.
            genai::Error::WebStream { error, cause, .. } => {
                match unreached(provider, error.as_ref()) {
                    Some(said) => (ProviderFailure::Unavailable, said),
                    None => (
                        ProviderFailure::Failed,
                        format!("the stream from {label} (provider \"{id}\") broke off: {cause}"),
                    ),
                }
            }
            genai::Error::WebModelCall { webc_error, .. }
            | genai::Error::WebAdapterCall { webc_error, .. } => (
                ProviderFailure::Unavailable,
                // genai's own error does not give its cause as a source.
                unreached(
                    provider,
                    match webc_error {
                        genai::webc::Error::Reqwest(e) => e,
                        other => other,
                    },
                )
                .unwrap_or_else(|| {
                    format!(
                        "could not reach {label} (provider \"{id}\") at {}: {webc_error}",
                        provider.base_url.as_deref().unwrap_or("its address")
                    )
                }),
            ),
            genai::Error::ChatResponse { body, .. } => (
                ProviderFailure::Failed,
                format!(
                    "{label} (provider \"{id}\") reported an error in the stream: {}",
                    provider_words(&body.to_string())
                ),
            ),
            other => (
                ProviderFailure::Failed,
                format!(
                    "{label} (provider \"{id}\"): {}",
                    provider_words(&other.to_string())
                ),
            ),
        },
    };
    Error::Provider {
        failure,
        status,
        message,
    }
}

/// The provider gave no answer in time.
pub fn no_answer(provider: &ProviderConfig, seconds: u64) -> Error {
    Error::Provider {
        failure: ProviderFailure::Unavailable,
        status: None,
        message: format!(
            "{} (provider \"{}\") gave no answer within {seconds} s",
            provider.kind.label(),
            provider.id
        ),
    }
}

/// The stream ended without its end (no final event): the answer is cut.
pub fn cut_stream(provider: &ProviderConfig) -> Error {
    Error::Provider {
        failure: ProviderFailure::Failed,
        status: None,
        message: format!(
            "the stream from {} (provider \"{}\") ended before the answer was complete",
            provider.kind.label(),
            provider.id
        ),
    }
}

/// How long the provider asked to wait (`retry-after-ms`, `retry-after` in seconds).
fn retry_after(e: &genai::Error) -> Option<Duration> {
    let headers = e.headers()?;
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
    {
        return Some(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
    }
    headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map(|s| Duration::from_secs_f64(s.max(0.0)))
}

/// Whether to try again after `e` on attempt `attempt` (0 = the first
/// retry), and after how long. Only 429, 5xx and an unreachable provider
/// are retried; a Retry-After past [`MAX_RETRY_AFTER`] is not waited for.
pub fn delay(e: &genai::Error, attempt: u32) -> Option<Duration> {
    let e = unwrap_http(e);
    if attempt >= MAX_RETRIES {
        return None;
    }
    let backoff = Duration::from_millis(500 * 2u64.pow(attempt));
    match e.status().map(|s| s.as_u16()) {
        Some(429) => match retry_after(e) {
            Some(d) if d > MAX_RETRY_AFTER => None,
            Some(d) => Some(d),
            None => Some(backoff * 2),
        },
        Some(s) if s >= 500 => Some(retry_after(e).unwrap_or(backoff).min(MAX_RETRY_AFTER)),
        Some(_) => None,
        None => match e {
            genai::Error::WebModelCall { .. } | genai::Error::WebAdapterCall { .. } => {
                Some(backoff)
            }
            _ => None,
        },
    }
}

impl crate::Agent {
    /// One model step, tried again (with the wait the provider asked for)
    /// on 429, 5xx or an unreachable provider while nothing was shown yet.
    pub(crate) async fn stream_with_retry(
        &self,
        provider: &ProviderConfig,
        target: &genai::ServiceTarget,
        request: ChatRequest,
        options: &ChatOptions,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Result<StepOutput, Interrupted> {
        let mut attempt = 0;
        loop {
            let started = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(Interrupted::Stopped(StepOutput::default())),
                r = self.inner.client.exec_chat_stream(genai::ModelSpec::Target(target.clone()), request.clone(), Some(options)) => r,
            };
            let error = match started {
                Ok(response) => {
                    match crate::stream::read(response.stream, sink.as_ref(), cancel).await {
                        Err(Interrupted::Failed(out, e)) if !out.started => e,
                        other => return other,
                    }
                }
                Err(e) => e,
            };
            let Some(wait) = delay(&error, attempt) else {
                return Err(Interrupted::Failed(StepOutput::default(), error));
            };
            attempt += 1;
            let reason = classify(provider, &error).to_string();
            sink(AgentEvent::Retrying {
                attempt,
                wait_ms: wait.as_millis() as u64,
                reason,
            });
            tokio::select! {
                _ = cancel.cancelled() => return Err(Interrupted::Stopped(StepOutput::default())),
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_words_reads_the_usual_error_bodies() {
        assert_eq!(
            provider_words(
                r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#
            ),
            "Incorrect API key provided"
        );
        assert_eq!(
            provider_words(r#"{"message":"quota\nexceeded"}"#),
            "quota exceeded"
        );
        assert_eq!(provider_words("Bad Gateway"), "Bad Gateway");
        assert_eq!(provider_words(&"x".repeat(400)).chars().count(), 301);
    }
}
