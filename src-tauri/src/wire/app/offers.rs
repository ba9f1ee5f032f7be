#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// A resource, or a resource template (`uriTemplate`), of a server.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ResourceRow {
    pub server: String,
    pub template: bool,
    /// As the server listed it (uri or uriTemplate, name, title, mimeType, ...).
    pub resource: Value,
    pub stale: bool,
}
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PromptRow {
    pub server: String,
    /// As the server listed it (name, title, description, arguments).
    pub prompt: Value,
    pub stale: bool,
}
/// A skill (SEP-2640) of a server, as its `skills/list` gave it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SkillRow {
    pub server: String,
    /// Its name (the folder of its SKILL.md).
    pub name: String,
    /// The entry as listed (uri, frontmatter, resources with digests and sizes).
    pub skill: Value,
    pub stale: bool,
}
/// One list's cache hints, as its server's last answer gave them.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ListCache {
    pub server: String,
    /// `tools`, `resources`, `resourceTemplates`, `prompts` or `skills`.
    pub list: String,
    /// When it was read is in it: the window says how fresh it is now.
    pub hint: crate::wire::core::CacheHint,
}
crate::wire::to_wire!(workbench_app::offers::ResourceRow => ResourceRow);
impl From<workbench_app::offers::ResourceRow> for ResourceRow {
    fn from(v: workbench_app::offers::ResourceRow) -> Self {
        let workbench_app::offers::ResourceRow {
            server,
            template,
            resource,
            stale,
        } = v;
        Self {
            server,
            template,
            resource,
            stale,
        }
    }
}
crate::wire::to_wire!(workbench_app::offers::PromptRow => PromptRow);
impl From<workbench_app::offers::PromptRow> for PromptRow {
    fn from(v: workbench_app::offers::PromptRow) -> Self {
        let workbench_app::offers::PromptRow {
            server,
            prompt,
            stale,
        } = v;
        Self {
            server,
            prompt,
            stale,
        }
    }
}
crate::wire::to_wire!(workbench_app::offers::SkillRow => SkillRow);
impl From<workbench_app::offers::SkillRow> for SkillRow {
    fn from(v: workbench_app::offers::SkillRow) -> Self {
        let workbench_app::offers::SkillRow {
            server,
            name,
            skill,
            stale,
        } = v;
        Self {
            server,
            name,
            skill,
            stale,
        }
    }
}
crate::wire::to_wire!(workbench_app::offers::ListCache => ListCache);
impl From<workbench_app::offers::ListCache> for ListCache {
    fn from(v: workbench_app::offers::ListCache) -> Self {
        let workbench_app::offers::ListCache { server, list, hint } = v;
        Self {
            server,
            list,
            hint: hint.into(),
        }
    }
}
