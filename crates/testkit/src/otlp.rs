//! An OTLP/HTTP trace receiver for the tests: it takes what a client POSTs
//! to `/v1/traces` (JSON or binary protobuf) and decodes it with the
//! official protocol definitions (`opentelemetry-proto`), keeping every
//! span it received. Binds 127.0.0.1 only.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use tokio_util::sync::{CancellationToken, DropGuard};

/// A span as received, with the service that sent it.
#[derive(Debug, Clone)]
pub struct Received {
    pub service: String,
    pub span: Span,
}

impl Received {
    pub fn trace_id(&self) -> String {
        hex(&self.span.trace_id)
    }

    pub fn span_id(&self) -> String {
        hex(&self.span.span_id)
    }

    pub fn parent_id(&self) -> String {
        hex(&self.span.parent_span_id)
    }

    /// An attribute's value as text.
    pub fn attribute(&self, key: &str) -> Option<String> {
        use opentelemetry_proto::tonic::common::v1::any_value::Value;
        let v = self
            .span
            .attributes
            .iter()
            .find(|a| a.key == key)?
            .value
            .as_ref()?
            .value
            .as_ref()?;
        Some(match v {
            Value::StringValue(s) => s.clone(),
            Value::IntValue(i) => i.to_string(),
            Value::DoubleValue(d) => d.to_string(),
            Value::BoolValue(b) => b.to_string(),
            other => format!("{other:?}"),
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Default)]
struct Shared {
    spans: Mutex<Vec<Received>>,
    /// Requests that did not decode (with why).
    refused: Mutex<Vec<String>>,
}

/// A running receiver; dropping it stops it.
pub struct Receiver {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    _stop: DropGuard,
}

impl Receiver {
    pub async fn start() -> std::io::Result<Receiver> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .route("/v1/traces", axum::routing::post(take))
            .with_state(shared.clone());
        let stop = CancellationToken::new();
        let until = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move { until.cancelled().await })
                .await;
        });
        Ok(Receiver {
            addr,
            shared,
            _stop: stop.drop_guard(),
        })
    }

    /// The collector's base URL (spans go to `/v1/traces` under it).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn spans(&self) -> Vec<Received> {
        self.shared
            .spans
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// What could not be decoded (a test wants none).
    pub fn refused(&self) -> Vec<String> {
        self.shared
            .refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

async fn take(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let json = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    let decoded: Result<ExportTraceServiceRequest, String> = if json {
        serde_json::from_slice(&body).map_err(|e| format!("not OTLP/JSON: {e}"))
    } else {
        use prost::Message;
        ExportTraceServiceRequest::decode(body).map_err(|e| format!("not OTLP protobuf: {e}"))
    };
    match decoded {
        Ok(request) => {
            let mut spans = shared.spans.lock().unwrap_or_else(|e| e.into_inner());
            for rs in request.resource_spans {
                let service = rs
                    .resource
                    .as_ref()
                    .and_then(|r| r.attributes.iter().find(|a| a.key == "service.name"))
                    .and_then(|a| a.value.as_ref())
                    .and_then(|v| match &v.value {
                        Some(
                            opentelemetry_proto::tonic::common::v1::any_value::Value::StringValue(
                                s,
                            ),
                        ) => Some(s.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                for ss in rs.scope_spans {
                    for span in ss.spans {
                        spans.push(Received {
                            service: service.clone(),
                            span,
                        });
                    }
                }
            }
            StatusCode::OK
        }
        Err(why) => {
            shared
                .refused
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(why);
            StatusCode::BAD_REQUEST
        }
    }
}
