//! What a caller's request says about it, and an upstream failure as the
//! caller gets it: pure functions the handler, the raw answers and the
//! passing-on share (a leaf of the bridge).

use rmcp::RoleServer;
use rmcp::model::ErrorData;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

/// Whether the caller speaks 2026-07-28 (or later).
pub(crate) fn caller_new_era(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .or_else(|| ctx.meta.protocol_version())
        .is_some_and(|v| v.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
}

/// What the caller declared it answers, to be declared upstream in its
/// place (and tasks, which the bridge follows itself for a caller without).
pub(crate) fn caller_capabilities(ctx: &RequestContext<RoleServer>) -> Option<Value> {
    let mut caps = serde_json::to_value(ctx.client_capabilities()?).ok()?;
    if caps.is_object() {
        caps["extensions"][rmcp::model::TASKS_EXTENSION_ID] = json!({});
    }
    Some(caps)
}

/// A caller's answers to an earlier `input_required`, to go upstream as
/// they came (`inputResponses`, `requestState`).
pub(crate) fn resume_of(
    responses: Option<&rmcp::model::InputResponses>,
    state: Option<String>,
) -> Option<serde_json::Map<String, Value>> {
    let mut out = serde_json::Map::new();
    if let Some(r) = responses {
        out.insert(
            "inputResponses".into(),
            serde_json::to_value(r).unwrap_or_default(),
        );
    }
    if let Some(s) = state {
        out.insert("requestState".into(), Value::String(s));
    }
    (!out.is_empty()).then_some(out)
}

/// An upstream failure for the caller: a server's own JSON-RPC error with
/// its code and data as sent; anything else an internal error saying what.
pub(crate) fn upstream(e: workbench_core::Error) -> ErrorData {
    match e {
        workbench_core::Error::ServerError {
            code,
            message,
            data,
            ..
        } => ErrorData::new(rmcp::model::ErrorCode(code), message, data.map(|d| *d)),
        other => ErrorData::internal_error(other.to_string(), None),
    }
}
