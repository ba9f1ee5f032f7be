#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
/// What a session keeps about its tools (in the store, as JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct SessionOptions {
    /// The servers whose tools the chat may use (absent: all).
    pub servers: Option<Vec<String>>,
    /// Tools (`server/tool`) turned off for this chat.
    pub disabled_tools: Vec<String>,
    /// The chat's own step limit (absent: the settings').
    pub max_steps: Option<u32>,
    /// "Allow for this chat": each tool's definition when allowed.
    pub allowed: BTreeMap<String, Value>,
    /// Tools `search_tools` loaded (`server/tool`), oldest first.
    pub loaded_tools: Vec<String>,
}
impl From<SessionOptions> for workbench_agent::toolset::SessionOptions {
    fn from(v: SessionOptions) -> Self {
        let SessionOptions {
            servers,
            disabled_tools,
            max_steps,
            allowed,
            loaded_tools,
        } = v;
        workbench_agent::toolset::SessionOptions {
            servers,
            disabled_tools,
            max_steps,
            allowed,
            loaded_tools,
        }
    }
}
crate::wire::to_wire!(workbench_agent::toolset::SessionOptions => SessionOptions);
impl From<workbench_agent::toolset::SessionOptions> for SessionOptions {
    fn from(v: workbench_agent::toolset::SessionOptions) -> Self {
        let workbench_agent::toolset::SessionOptions {
            servers,
            disabled_tools,
            max_steps,
            allowed,
            loaded_tools,
        } = v;
        Self {
            servers,
            disabled_tools,
            max_steps,
            allowed,
            loaded_tools,
        }
    }
}
