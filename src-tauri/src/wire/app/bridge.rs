#[allow(unused_imports)]
use super::*;
/// A ready-made entry for another client.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
pub struct Snippet {
    /// The client's name as people know it.
    pub client: String,
    /// `http` (this bridge, with the token) or `stdio` (`mcpwb serve`).
    pub kind: String,
    pub text: String,
    /// What the export could not say, one sentence each.
    pub notes: Vec<String>,
}
crate::wire::to_wire!(workbench_app::bridge::Snippet => Snippet);
impl From<workbench_app::bridge::Snippet> for Snippet {
    fn from(v: workbench_app::bridge::Snippet) -> Self {
        let workbench_app::bridge::Snippet {
            client,
            kind,
            text,
            notes,
        } = v;
        Self {
            client,
            kind,
            text,
            notes,
        }
    }
}
