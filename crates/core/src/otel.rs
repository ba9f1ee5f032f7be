//! Traces out: spans for what the workbench does (every call, whoever made
//! it; a suite's case; an agent's turn and step; a bridge relay; a load
//! run), exported over OTLP/HTTP (the JSON encoding) to the collector the
//! person named — Settings, `--otlp URL` or `OTEL_EXPORTER_OTLP_ENDPOINT` —
//! and nowhere unless one is named. A request to a server carries the span
//! it is made in as W3C trace context (`_meta.traceparent`), so the
//! server's own tracing joins the same trace.
//!
//! The current span is a task-local: `Span::run(future)` makes it the
//! parent of spans started and requests sent while that future runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The most spans kept waiting to be sent (more are dropped and counted).
const QUEUE: usize = 8192;
/// Spans go out at least this often, or when this many wait.
const EVERY: Duration = Duration::from_secs(1);
const BATCH: usize = 512;

static ON: AtomicBool = AtomicBool::new(false);
static EXPORTER: OnceLock<Mutex<Option<mpsc::Sender<Msg>>>> = OnceLock::new();

enum Msg {
    Span(Finished),
    /// Send what waits now, and say when it went.
    Flush(tokio::sync::oneshot::Sender<()>),
}

fn sender() -> Option<mpsc::Sender<Msg>> {
    EXPORTER
        .get()
        .and_then(|e| e.lock().unwrap_or_else(|e| e.into_inner()).clone())
}

/// Send the spans waiting now (before a short program exits); at most `within`.
pub async fn flush(within: Duration) {
    let Some(tx) = sender() else {
        return;
    };
    let (done, wait) = tokio::sync::oneshot::channel();
    if tx.send(Msg::Flush(done)).await.is_ok() {
        let _ = tokio::time::timeout(within, wait).await;
    }
}

tokio::task_local! {
    static CURRENT: Context;
}

/// A span's identity: what a child and a request carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    pub trace: [u8; 16],
    pub span: [u8; 8],
}

impl Context {
    /// W3C trace context (`traceparent`), sampled.
    pub fn traceparent(&self) -> String {
        format!("00-{}-{}-01", hex(&self.trace), hex(&self.span))
    }

    /// Read a `traceparent` (a caller's, through the bridge).
    pub fn parse(traceparent: &str) -> Option<Context> {
        let parts: Vec<&str> = traceparent.trim().split('-').collect();
        let [version, trace, span, _flags] = parts.as_slice() else {
            return None;
        };
        if *version != "00" || trace.len() != 32 || span.len() != 16 {
            return None;
        }
        let mut t = [0u8; 16];
        let mut s = [0u8; 8];
        unhex(trace, &mut t)?;
        unhex(span, &mut s)?;
        (t != [0; 16] && s != [0; 8]).then_some(Context { trace: t, span: s })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str, out: &mut [u8]) -> Option<()> {
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(text.get(i * 2..i * 2 + 2)?, 16).ok()?;
    }
    Some(())
}

fn random<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    // Random ids; a failure of the OS source leaves a time-based one.
    if getrandom::fill(&mut out).is_err() {
        let now = now_ns().to_le_bytes();
        for (i, b) in out.iter_mut().enumerate() {
            *b = now[i % 8] ^ (i as u8);
        }
    }
    out
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Whether spans are exported (a collector was named).
pub fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The span the running task is in, if any.
pub fn current() -> Option<Context> {
    CURRENT.try_with(|c| *c).ok()
}

/// The settings file's section for traces.
pub const SECTION: &str = "traces";

/// What the settings file says about traces.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct TraceSettings {
    /// The OTLP/HTTP collector's base URL (e.g. http://127.0.0.1:4318);
    /// absent: no spans leave this machine.
    pub otlp_endpoint: Option<String>,
}

/// The collector to export to, first of: `flag` (`--otlp`), the
/// environment (`OTEL_EXPORTER_OTLP_ENDPOINT`), the settings file.
pub fn endpoint(flag: Option<&str>, settings: &crate::settings::SettingsFile) -> Option<String> {
    flag.map(str::to_string)
        .or_else(|| std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").ok())
        .or_else(|| {
            settings
                .section::<TraceSettings>(SECTION)
                .ok()
                .and_then(|s| s.otlp_endpoint)
        })
        .filter(|v| !v.trim().is_empty())
}

/// Export spans to the OTLP/HTTP collector at `endpoint` (its base URL:
/// spans go to `ENDPOINT/v1/traces`) from now on; call inside a Tokio
/// runtime. `service` names this program in the traces.
pub fn export_to(endpoint: &str, service: &str) -> Result<(), crate::ErrorInfo> {
    let invalid = |m: String| crate::ErrorInfo::new(crate::ErrorCode::Invalid, m);
    let url = format!("{}/v1/traces", endpoint.trim_end_matches('/'));
    let parsed =
        url::Url::parse(&url).map_err(|e| invalid(format!("{endpoint}: not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "{endpoint}: an OTLP/HTTP collector's address is http(s)://"
        )));
    }
    let (tx, rx) = mpsc::channel(QUEUE);
    *EXPORTER
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(tx);
    tokio::spawn(send(url, service.to_string(), rx));
    ON.store(true, Ordering::Relaxed);
    Ok(())
}

/// Stop exporting (spans already queued are still sent).
pub fn stop() {
    ON.store(false, Ordering::Relaxed);
    if let Some(e) = EXPORTER.get() {
        *e.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

struct Finished {
    context: Context,
    parent: Option<[u8; 8]>,
    name: String,
    kind: u8,
    start: u64,
    end: u64,
    attributes: Vec<(String, Value)>,
    error: Option<String>,
}

/// What kind of span (OTLP's `SpanKind`).
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Internal = 1,
    Server = 2,
    Client = 3,
}

/// A span under way; ended (and exported) when dropped. A no-op when
/// nothing is exported.
pub struct Span {
    inner: Option<Finished>,
}

impl Span {
    /// A span named `name`, a child of the task's current span (or of
    /// `parent`, a caller's context), or a new trace's root.
    pub fn start(name: &str, kind: Kind, parent: Option<Context>) -> Span {
        if !enabled() {
            return Span { inner: None };
        }
        let parent = parent.or_else(current);
        let context = Context {
            trace: parent.map(|p| p.trace).unwrap_or_else(random::<16>),
            span: random::<8>(),
        };
        Span {
            inner: Some(Finished {
                context,
                parent: parent.map(|p| p.span),
                name: name.to_string(),
                kind: kind as u8,
                start: now_ns(),
                end: 0,
                attributes: Vec::new(),
                error: None,
            }),
        }
    }

    pub fn context(&self) -> Option<Context> {
        self.inner.as_ref().map(|f| f.context)
    }

    /// Add an attribute (a string, number or boolean).
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        if let Some(f) = &mut self.inner {
            f.attributes.push((key.to_string(), value.into()));
        }
    }

    /// The span failed: why (masked: an error may quote a secret, and a
    /// span leaves the machine).
    pub fn fail(&mut self, why: impl Into<String>) {
        if let Some(f) = &mut self.inner {
            f.error = Some(crate::logging::masked(&why.into()));
        }
    }

    /// Run `future` with this span as the task's current one.
    pub async fn run<F: std::future::Future>(&self, future: F) -> F::Output {
        match self.context() {
            Some(c) => CURRENT.scope(c, future).await,
            None => future.await,
        }
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        let Some(mut f) = self.inner.take() else {
            return;
        };
        f.end = now_ns();
        if let Some(tx) = sender() {
            // Full: the span is dropped rather than the caller held up.
            let _ = tx.try_send(Msg::Span(f));
        }
    }
}

fn attribute(key: &str, value: &Value) -> Value {
    let v = match value {
        Value::Bool(b) => json!({ "boolValue": b }),
        Value::Number(n) if n.is_i64() || n.is_u64() => json!({ "intValue": n.to_string() }),
        Value::Number(n) => json!({ "doubleValue": n.as_f64() }),
        Value::String(s) => json!({ "stringValue": s }),
        other => json!({ "stringValue": other.to_string() }),
    };
    json!({ "key": key, "value": v })
}

/// The OTLP/JSON body of `spans` (`ExportTraceServiceRequest`).
fn body(service: &str, spans: &[Finished]) -> Value {
    let spans: Vec<Value> = spans
        .iter()
        .map(|f| {
            let mut s = json!({
                "traceId": hex(&f.context.trace),
                "spanId": hex(&f.context.span),
                "name": f.name,
                "kind": f.kind,
                "startTimeUnixNano": f.start.to_string(),
                "endTimeUnixNano": f.end.to_string(),
                "attributes": f.attributes.iter().map(|(k, v)| attribute(k, v)).collect::<Vec<_>>(),
                "status": match &f.error {
                    Some(why) => json!({ "code": 2, "message": why }),
                    None => json!({ "code": 1 }),
                },
            });
            if let Some(p) = f.parent {
                s["parentSpanId"] = json!(hex(&p));
            }
            s
        })
        .collect();
    json!({
        "resourceSpans": [{
            "resource": { "attributes": [attribute("service.name", &json!(service)), attribute("service.version", &json!(env!("CARGO_PKG_VERSION")))] },
            "scopeSpans": [{ "scope": { "name": "mcp-workbench", "version": env!("CARGO_PKG_VERSION") }, "spans": spans }]
        }]
    })
}

async fn send(url: String, service: String, mut rx: mpsc::Receiver<Msg>) {
    let client = workbench_http::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap_or_default();
    let mut batch: Vec<Finished> = Vec::new();
    let mut said = false;
    loop {
        let mut flushed = None;
        let (go, closed) = tokio::select! {
            got = rx.recv() => match got {
                Some(Msg::Span(f)) => { batch.push(f); (batch.len() >= BATCH, false) }
                Some(Msg::Flush(done)) => { flushed = Some(done); (true, false) }
                None => (true, true),
            },
            _ = tokio::time::sleep(EVERY) => (true, false),
        };
        if go && !batch.is_empty() {
            let payload = body(&service, &batch);
            batch.clear();
            let sent = client
                .post(&url)
                .header("content-type", "application/json")
                .body(payload.to_string())
                .send()
                .await;
            match sent {
                Ok(r) if r.status().is_success() => said = false,
                Ok(r) if !said => {
                    tracing::warn!("the OTLP collector at {url} refused spans: {}", r.status());
                    said = true;
                }
                Err(e) if !said => {
                    tracing::warn!("the OTLP collector at {url} cannot be reached: {e}");
                    said = true;
                }
                _ => {}
            }
        }
        if let Some(done) = flushed {
            let _ = done.send(());
        }
        if closed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_round_trips_and_bad_ones_are_refused() {
        let c = Context {
            trace: [0xab; 16],
            span: [0x01; 8],
        };
        let tp = c.traceparent();
        assert_eq!(tp, format!("00-{}-{}-01", "ab".repeat(16), "01".repeat(8)));
        assert_eq!(Context::parse(&tp), Some(c));
        for bad in [
            "",
            "01-00-00-01",
            &format!("00-{}-{}-01", "0".repeat(32), "1".repeat(16)),
            "00-xyz-abc-01",
        ] {
            assert_eq!(Context::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn nothing_is_made_while_nothing_is_exported() {
        let s = Span::start("x", Kind::Internal, None);
        assert!(s.context().is_none());
        assert!(current().is_none());
    }
}
