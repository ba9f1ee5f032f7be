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
    /// Where a secret goes when an entry is added into it.
    pub secrets: HostSecrets,
}
/// Where a secret value goes when an entry is added into a host's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum HostSecrets {
    /// The host asks for it and keeps it (VS Code's `inputs`).
    HostAsks,
    /// The host reads it from its own environment: the file names the
    /// variable (Codex, Gemini CLI, Claude Code, started from a shell).
    Environment,
    /// Only as plain text in the file, with the person's word.
    PlainText,
}
impl From<workbench_config::dialects::hosting::Secrets> for HostSecrets {
    fn from(v: workbench_config::dialects::hosting::Secrets) -> Self {
        use workbench_config::dialects::hosting::Secrets as S;
        match v {
            S::HostAsks => Self::HostAsks,
            S::Environment => Self::Environment,
            S::PlainText => Self::PlainText,
        }
    }
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
            secrets,
        } = v;
        Self {
            dialect: dialect.into(),
            path,
            entries: entries.into_iter().map(|v| v.into()).collect(),
            error,
            writable,
            secrets: secrets.into(),
        }
    }
}
