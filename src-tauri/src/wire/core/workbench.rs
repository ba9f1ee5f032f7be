#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// A skill loaded: its entry, its SKILL.md, its files (not read), and what
/// is wrong with what the server sent (its fault, each said once).
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LoadedSkill {
    pub server: String,
    pub name: String,
    pub uri: String,
    pub description: String,
    /// The entry as the server gave it (`skills/get`, else its listing).
    pub entry: Value,
    /// SKILL.md's text (untrusted: shown as text or sanitised markdown).
    pub text: String,
    /// Every file the entry lists, SKILL.md included.
    pub files: Vec<Promised>,
    pub problems: Vec<String>,
}
/// One file of a skill, read and checked.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SkillFile {
    pub uri: String,
    pub path: String,
    #[specta(type = f64)]
    pub size: usize,
    /// Its text, when it is UTF-8.
    pub text: Option<String>,
    pub mime_type: Option<String>,
    /// What is wrong with it against the entry (None: as promised).
    pub problem: Option<String>,
}
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Trial {
    /// The state the trial connection reached (ready, or failed and why).
    pub status: ServerStatus,
    pub tools: Vec<String>,
    pub resources: u32,
    /// Resource templates (counted apart from resources, as the panel does).
    pub templates: u32,
    pub prompts: u32,
}
crate::wire::to_wire!(workbench_core::LoadedSkill => LoadedSkill);
impl From<workbench_core::LoadedSkill> for LoadedSkill {
    fn from(v: workbench_core::LoadedSkill) -> Self {
        let workbench_core::LoadedSkill {
            server,
            name,
            uri,
            description,
            entry,
            text,
            files,
            problems,
        } = v;
        Self {
            server,
            name,
            uri,
            description,
            entry,
            text,
            files: files.into_iter().map(|v| v.into()).collect(),
            problems,
        }
    }
}
crate::wire::to_wire!(workbench_core::SkillFile => SkillFile);
impl From<workbench_core::SkillFile> for SkillFile {
    fn from(v: workbench_core::SkillFile) -> Self {
        let workbench_core::SkillFile {
            uri,
            path,
            size,
            text,
            mime_type,
            problem,
        } = v;
        Self {
            uri,
            path,
            size,
            text,
            mime_type,
            problem,
        }
    }
}
crate::wire::to_wire!(workbench_core::workbench::Trial => Trial);
impl From<workbench_core::workbench::Trial> for Trial {
    fn from(v: workbench_core::workbench::Trial) -> Self {
        let workbench_core::workbench::Trial {
            status,
            tools,
            resources,
            templates,
            prompts,
            catalog: _,
        } = v;
        Self {
            status: status.into(),
            tools,
            resources,
            templates,
            prompts,
        }
    }
}
