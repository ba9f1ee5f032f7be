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
    /// A new entry can be added into it in its host's shape (the
    /// Registry's Into).
    pub writable: bool,
}
crate::wire::to_wire!(workbench_app::hosts::HostFile => HostFile);
impl From<workbench_app::hosts::HostFile> for HostFile {
    fn from(v: workbench_app::hosts::HostFile) -> Self {
        let workbench_app::hosts::HostFile {
            dialect,
            path,
            entries,
            error,
            writable,
        } = v;
        Self {
            dialect: dialect.into(),
            path,
            entries: entries.into_iter().map(|v| v.into()).collect(),
            error,
            writable,
        }
    }
}
