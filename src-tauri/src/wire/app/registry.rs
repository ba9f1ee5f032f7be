#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
use serde_json::Map;
use serde_json::Value;
/// A server's version as the window and `--json` show it.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RegistryServer {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    pub description: String,
    /// Deprecated by its publisher (deleted ones are never shown).
    pub deprecated: bool,
    /// Why, as the publisher said.
    pub status_message: Option<String>,
    pub published_at: Option<String>,
    pub is_latest: bool,
    pub website_url: Option<String>,
    pub repository: Option<String>,
}
/// A page of a search.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RegistryPage {
    /// The registry read.
    pub base: String,
    pub servers: Vec<RegistryServer>,
    pub next_cursor: Option<String>,
    /// The registry could not be reached: this is its last answer, this
    /// many minutes old.
    pub stale_minutes: Option<u32>,
}
/// One version of a server, as it would be added.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RegistryShown {
    pub server: RegistryServer,
    /// Its `server.json` as the registry has it.
    pub document: Value,
    /// The packages it ships as (`npm @scope/pkg 1.2.0`), in order.
    pub packages: Vec<String>,
    /// The remotes it serves at (`streamable-http https://…`), in order.
    pub remotes: Vec<String>,
    /// The way chosen and the entry it becomes (None: it cannot be run from
    /// an mcp.json entry, and why is in `refusal`).
    pub preview: Option<RegistryPreview>,
    pub refusal: Option<String>,
    pub stale_minutes: Option<u32>,
}
/// The entry a server.json becomes.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RegistryPreview {
    /// The name it gets in mcp.json.
    pub name: String,
    pub entry: Map<String, Value>,
    /// What the person will be asked for (`${input:…}` declarations).
    pub inputs: Vec<Value>,
    /// What was left out, written as plain text, or is to be done by hand.
    pub notes: Vec<String>,
    /// The inputs whose value is a file path (a picker beside them).
    pub path_inputs: Vec<String>,
    /// What the entry and its inputs are, in short: sent back on adding.
    pub fingerprint: String,
}
/// What adding wrote.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RegistryAdded {
    pub name: String,
    pub file: String,
    pub version: String,
    /// The inputs the entry asks for that have no answer yet: it starts once
    /// they are given (the window asks; `mcpwb config input ID`).
    pub inputs: Vec<Value>,
    pub notes: Vec<String>,
}
/// What the window asks to add (`AddRequest`, owned, as it comes over IPC).
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RegistryAdd {
    pub name: String,
    pub version: Option<String>,
    /// Run it from this package (from 0).
    pub package: Option<u32>,
    /// Connect to this remote (from 0). Neither given: its first package,
    /// else its first remote.
    pub remote: Option<u32>,
    pub as_name: Option<String>,
    pub scope: crate::wire::config::Scope,
    pub deprecated_ok: bool,
    /// (input id, value) pairs given now.
    pub answers: Vec<(String, String)>,
    /// A host's config file to write it into instead of the workbench's.
    #[serde(default)]
    pub host: Option<String>,
    /// The person agreed to a secret written into that file as plain text.
    #[serde(default)]
    pub plain_text_ok: bool,
    /// The fingerprint of the entry as it was shown: the window adds only
    /// what it showed, never an entry the registry makes otherwise by then.
    pub shown: String,
}
impl From<RegistryAdd> for workbench_app::registry::RegistryAdd {
    fn from(v: RegistryAdd) -> Self {
        let RegistryAdd {
            name,
            version,
            package,
            remote,
            as_name,
            scope,
            deprecated_ok,
            answers,
            host,
            plain_text_ok,
            shown,
        } = v;
        workbench_app::registry::RegistryAdd {
            name,
            version,
            package,
            remote,
            as_name,
            scope: scope.into(),
            deprecated_ok,
            answers,
            host,
            plain_text_ok,
            shown: Some(shown),
        }
    }
}
crate::wire::to_wire!(workbench_app::registry::RegistryPage => RegistryPage);
impl From<workbench_app::registry::RegistryPage> for RegistryPage {
    fn from(v: workbench_app::registry::RegistryPage) -> Self {
        let workbench_app::registry::RegistryPage {
            base,
            servers,
            next_cursor,
            stale_minutes,
        } = v;
        Self {
            base,
            servers: servers.into_iter().map(|v| v.into()).collect(),
            next_cursor,
            stale_minutes,
        }
    }
}
crate::wire::to_wire!(workbench_app::registry::RegistryShown => RegistryShown);
impl From<workbench_app::registry::RegistryShown> for RegistryShown {
    fn from(v: workbench_app::registry::RegistryShown) -> Self {
        let workbench_app::registry::RegistryShown {
            server,
            document,
            packages,
            remotes,
            preview,
            refusal,
            stale_minutes,
        } = v;
        Self {
            server: server.into(),
            document,
            packages,
            remotes,
            preview: preview.map(|v| v.into()),
            refusal,
            stale_minutes,
        }
    }
}
crate::wire::to_wire!(workbench_app::registry::RegistryAdded => RegistryAdded);
impl From<workbench_app::registry::RegistryAdded> for RegistryAdded {
    fn from(v: workbench_app::registry::RegistryAdded) -> Self {
        let workbench_app::registry::RegistryAdded {
            name,
            file,
            version,
            inputs,
            notes,
        } = v;
        Self {
            name,
            file,
            version,
            inputs,
            notes,
        }
    }
}
crate::wire::to_wire!(workbench_app::registry::RegistryServer => RegistryServer);
impl From<workbench_app::registry::RegistryServer> for RegistryServer {
    fn from(v: workbench_app::registry::RegistryServer) -> Self {
        let workbench_app::registry::RegistryServer {
            name,
            version,
            title,
            description,
            deprecated,
            status_message,
            published_at,
            is_latest,
            website_url,
            repository,
        } = v;
        Self {
            name,
            version,
            title,
            description,
            deprecated,
            status_message,
            published_at,
            is_latest,
            website_url,
            repository,
        }
    }
}
crate::wire::to_wire!(workbench_app::registry::RegistryPreview => RegistryPreview);
impl From<workbench_app::registry::RegistryPreview> for RegistryPreview {
    fn from(v: workbench_app::registry::RegistryPreview) -> Self {
        let workbench_app::registry::RegistryPreview {
            name,
            entry,
            inputs,
            notes,
            path_inputs,
            fingerprint,
        } = v;
        Self {
            name,
            entry,
            inputs,
            notes,
            path_inputs,
            fingerprint,
        }
    }
}
