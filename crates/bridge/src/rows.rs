//! A caller's call and the bridge's answer as rows of the traffic view
//! (`bridge ← CLIENT`), serialized from borrows: no copy of the JSON.

use rmcp::model::{ErrorData, RequestId};
use serde_json::Value;

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
