//! For tests of this crate's connections (the `testing` feature, a
//! dev-dependency's only): tool calls without the gate or the history, as
//! `wb.call_tool(...)`. A normal build has none of it, so no shipped code
//! can call a tool this way.

use serde_json::Value;

use super::calls::{CallOptions, CallOutcome, ToolCaller};
use crate::Workbench;
use crate::error::Result;

/// `call_tool` and `call_qualified` straight on a [`Workbench`].
pub trait RawCalls {
    /// Call a tool by server and name.
    fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        options: CallOptions,
    ) -> impl std::future::Future<Output = Result<CallOutcome>> + Send;
    /// Call a tool by its qualified name (`server__tool`).
    fn call_qualified(
        &self,
        qualified: &str,
        arguments: Value,
        options: CallOptions,
    ) -> impl std::future::Future<Output = Result<CallOutcome>> + Send;
}

impl RawCalls for Workbench {
    async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        self.call_tool_on(&ToolCaller::for_tests(), server, tool, arguments, options)
            .await
    }

    async fn call_qualified(
        &self,
        qualified: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        self.call_qualified_on(&ToolCaller::for_tests(), qualified, arguments, options)
            .await
    }
}
