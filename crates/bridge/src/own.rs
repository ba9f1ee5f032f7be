//! Tools of the bridge's own, served beside the servers' (or instead of
//! them): the workbench's tools for a coding agent (`mcpwb serve
//! --workbench`). The bridge knows them only through this trait — what they
//! do lives above it (the doctor, the suites), which the bridge does not
//! depend on.

use std::future::Future;
use std::pin::Pin;

use rmcp::handler::server::skill_catalog::SkillCatalog;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A call's answer: the `CallToolResult` as JSON, or why the request itself
/// is wrong (a protocol error).
pub type Answer<'a> = Pin<Box<dyn Future<Output = Result<Value, String>> + Send + 'a>>;

pub trait OwnTools: Send + Sync {
    /// The tools as `tools/list` gives them (their names as served).
    fn tools(&self) -> Vec<Value>;
    /// Whether `name` is one of them (asked on every call through the
    /// bridge: cheap, without building the list).
    fn owns(&self, name: &str) -> bool;
    /// Call one of them.
    fn call<'a>(&'a self, name: &'a str, arguments: Value, cancel: CancellationToken)
    -> Answer<'a>;
    /// A server's question (elicitation, sampling) is taken here: one of
    /// these tools is calling that server and parks its questions.
    fn takes_ask(&self, server: &str) -> bool;
    /// Skills of the bridge's own (SEP-2640), served beside the servers'.
    fn skills(&self) -> Option<&SkillCatalog>;
}
