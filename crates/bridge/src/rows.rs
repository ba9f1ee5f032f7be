//! A caller's call and the bridge's answer as rows of the traffic view
//! (`bridge ← CLIENT`), serialized from borrows: no copy of the JSON; who
//! the caller is, and its rows recorded.

use rmcp::RoleServer;
use rmcp::model::{ErrorData, RequestId};
use rmcp::service::RequestContext;
use serde_json::Value;
use workbench_core::traffic::Direction;

use crate::service::Handler;

/// A message of a caller's call as the traffic view shows it.
#[derive(serde::Serialize)]
pub(crate) struct Row<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<CallParams<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<RowError<'a>>,
}

#[derive(serde::Serialize)]
pub(crate) struct CallParams<'a> {
    name: &'a str,
    arguments: &'a Value,
}

#[derive(serde::Serialize)]
pub(crate) struct RowError<'a> {
    code: i32,
    message: &'a str,
}

impl<'a> Row<'a> {
    pub(crate) fn call(id: &'a RequestId, name: &'a str, arguments: &'a Value) -> Self {
        Row {
            jsonrpc: "2.0",
            id,
            method: Some("tools/call"),
            params: Some(CallParams { name, arguments }),
            result: None,
            error: None,
        }
    }

    pub(crate) fn result(id: &'a RequestId, result: &'a Value) -> Self {
        Row {
            jsonrpc: "2.0",
            id,
            method: None,
            params: None,
            result: Some(result),
            error: None,
        }
    }

    pub(crate) fn error(id: &'a RequestId, error: &'a ErrorData) -> Self {
        Row {
            jsonrpc: "2.0",
            id,
            method: None,
            params: None,
            result: None,
            error: Some(RowError {
                code: error.code.0,
                message: &error.message,
            }),
        }
    }
}

impl Handler {
    /// The caller of this session, by the name it gave.
    pub(crate) fn caller(&self, ctx: &RequestContext<RoleServer>) -> String {
        let (name, _) = crate::callers::name_of(&ctx.peer);
        if ctx.peer.peer_info().is_none()
            && let Some(info) = ctx.client_info()
        {
            return info.name;
        }
        name
    }

    /// Record a caller's request or our answer in the traffic view, under
    /// `bridge ← CLIENT` (serialized from borrows: no copy of the JSON).
    pub(crate) fn record(&self, caller: &str, direction: Direction, message: &Row<'_>) {
        if let Ok(bytes) = serde_json::to_vec(message) {
            self.bridge.wb().traffic().record_message(
                &format!("{}{caller}", workbench_core::traffic::BRIDGE_ROWS),
                direction,
                &bytes,
            );
        }
    }
}
