#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// A tool of a Ready (or recently Ready: `stale`) server.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ToolRow {
    /// `server__tool`, unique across servers.
    pub qualified: String,
    pub server: String,
    /// The definition as the server sent it (name, title, description,
    /// inputSchema, outputSchema, annotations, icons, ...).
    pub tool: Value,
    pub stale: bool,
}
crate::wire::to_wire!(workbench_app::tools::ToolRow => ToolRow);
impl From<workbench_app::tools::ToolRow> for ToolRow {
    fn from(v: workbench_app::tools::ToolRow) -> Self {
        let workbench_app::tools::ToolRow {
            qualified,
            server,
            tool,
            stale,
        } = v;
        Self {
            qualified,
            server,
            tool,
            stale,
        }
    }
}
