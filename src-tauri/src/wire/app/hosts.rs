#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// A host's config file and its entries, for Tap and Untap.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HostFile {
    pub dialect: crate::wire::config::Dialect,
    pub path: String,
    pub entries: Vec<crate::wire::config::HostEntry>,
    /// Why its entries are not listed (unreadable; a dialect not offered).
    pub error: Option<String>,
}
crate::wire::to_wire!(workbench_app::hosts::HostFile => HostFile);
impl From<workbench_app::hosts::HostFile> for HostFile {
    fn from(v: workbench_app::hosts::HostFile) -> Self {
        let workbench_app::hosts::HostFile {
            dialect,
            path,
            entries,
            error,
        } = v;
        Self {
            dialect: dialect.into(),
            path,
            entries: entries.into_iter().map(|v| v.into()).collect(),
            error,
        }
    }
}
