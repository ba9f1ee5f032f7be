//! Where a handler leaves an upstream answer to be sent as it came: over
//! stdio the raw session (`raw.rs`) sends the JSON as is; over HTTP rmcp's
//! service wants the typed handler, which keeps what the type models. A leaf
//! both the handler and the raw session use.

use rmcp::RoleServer;
use rmcp::model::ErrorData;
use rmcp::service::RequestContext;
use serde_json::Value;

/// Where a handler leaves a result to be sent as it is.
#[derive(Clone, Default)]
pub(crate) struct RawSlot(pub(crate) std::sync::Arc<std::sync::Mutex<Option<Value>>>);

impl RawSlot {
    /// Answer with `v` as it is where the session sends raw JSON (stdio);
    /// else (HTTP: rmcp's service wants the typed handler) as rmcp's type,
    /// which keeps what the type models.
    pub(crate) fn answer<T: serde::de::DeserializeOwned>(
        ctx: &RequestContext<RoleServer>,
        v: Value,
        placeholder: impl FnOnce() -> T,
    ) -> Result<T, ErrorData> {
        match ctx.extensions.get::<RawSlot>() {
            Some(slot) => {
                *slot.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
                Ok(placeholder())
            }
            None => Self::typed(v),
        }
    }

    /// `v` as rmcp's type (what the type models is kept).
    pub(crate) fn typed<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ErrorData> {
        // rmcp's types leave `resultType` out unless it is sent; a
        // 2026-07-28 caller needs it (rmcp strips it for earlier ones).
        let mut v = v;
        if let Some(obj) = v.as_object_mut() {
            obj.entry("resultType")
                .or_insert_with(|| Value::String("complete".into()));
        }
        serde_json::from_value(v).map_err(|e| {
            ErrorData::internal_error(format!("the server's answer does not fit: {e}"), None)
        })
    }
}
