#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// One message's answer.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    /// A result (as sent).
    Result { result: Value },
    /// A JSON-RPC error.
    Error { code: i64, message: String },
    /// Nothing within the time (or the connection ended first: why).
    None { why: String },
}
crate::wire::to_wire!(workbench_core::workbench::handshakes::Answer => Answer);
impl From<workbench_core::workbench::handshakes::Answer> for Answer {
    fn from(v: workbench_core::workbench::handshakes::Answer) -> Self {
        match v {
            workbench_core::workbench::handshakes::Answer::Result { result } => {
                Self::Result { result }
            }
            workbench_core::workbench::handshakes::Answer::Error { code, message } => {
                Self::Error { code, message }
            }
            workbench_core::workbench::handshakes::Answer::None { why } => Self::None { why },
        }
    }
}
/// What the server answered to each opening.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct Handshakes {
    /// `server/discover`, first thing on a new connection.
    pub discover: Answer,
    /// `initialize` offering `2026-07-28` (newer than the 2025 era).
    pub initialize_newer: Answer,
    /// `initialize` offering `2025-11-25`.
    pub initialize_2025: Answer,
}
crate::wire::to_wire!(workbench_core::workbench::handshakes::Handshakes => Handshakes);
impl From<workbench_core::workbench::handshakes::Handshakes> for Handshakes {
    fn from(v: workbench_core::workbench::handshakes::Handshakes) -> Self {
        let workbench_core::workbench::handshakes::Handshakes {
            discover,
            initialize_newer,
            initialize_2025,
        } = v;
        Self {
            discover: discover.into(),
            initialize_newer: initialize_newer.into(),
            initialize_2025: initialize_2025.into(),
        }
    }
}
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
