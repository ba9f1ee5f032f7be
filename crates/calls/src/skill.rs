//! A skill (SEP-2640) loaded for a caller a person does not drive (the
//! chat's model): decided like a read-only tool call named `skill:NAME`
//! (the person's rules, "allow for this chat", asking), then read through
//! workbench-core (its SKILL.md checked against the listing, or one of its
//! files checked against the digest and size the entry promised) and kept
//! in the history beside the tool calls, with its origin.
//!
//! A person's own loads (the Skills room, `mcpwb skill`) read through
//! workbench-core directly: their act is the approval, and nothing runs.

use std::time::Duration;

use serde_json::{Value, json};
use workbench_store::CallStatus;

use crate::{Calls, Link, Origin, history};

/// How a skill load shows in the rules and the history: `skill:NAME`.
pub const SKILL_PREFIX: &str = "skill:";

/// The name a skill's load has in the rules and the history.
pub fn skill_tool(skill: &str) -> String {
    format!("{SKILL_PREFIX}{skill}")
}

/// Whether a history row or an ask is a skill's load (`skill:NAME`).
pub fn is_skill_tool(tool: &str) -> bool {
    tool.starts_with(SKILL_PREFIX)
}

/// What the gate sees of a skill: a read-only "tool" named `skill:NAME`
/// whose description is the skill's own (so "allow for this chat" and a
/// changed description are asked about as for a tool).
pub fn skill_definition(skill: &Value) -> Value {
    let name = workbench_core::skills::name_of(skill);
    json!({
        "name": skill_tool(&name),
        "title": format!("Load the skill {name}"),
        "description": skill["frontmatter"]["description"].as_str()
            .or_else(|| skill["description"].as_str())
            .unwrap_or_default(),
        "inputSchema": {
            "type": "object",
            "properties": {"file": {"type": "string"}}
        },
        "annotations": {"readOnlyHint": true, "openWorldHint": false}
    })
}

/// A skill to load, or one of its files.
pub struct SkillRead<'a> {
    pub origin: Origin,
    pub server: &'a str,
    pub skill: &'a str,
    /// A file of the skill (its path within it); None: its SKILL.md.
    pub file: Option<&'a str>,
    pub link: Link,
    pub timeout: Option<Duration>,
}

/// How a load went: what was read (the loaded skill or the file, as JSON),
/// or why not, and the status kept in the history.
pub struct SkillRan {
    pub outcome: Result<Value, workbench_core::Error>,
    pub status: CallStatus,
}

impl Calls {
    /// Load a skill (or one of its files) the gate allowed: a skill whose
    /// `skill:NAME` the rules deny is refused here; kept in the history.
    pub async fn read_skill(&self, read: SkillRead<'_>) -> SkillRan {
        let wb = self.workbench();
        let tool = skill_tool(read.skill);
        let started_at = workbench_store::now_ms();
        let before = wb.traffic().last_seq();
        let clock = std::time::Instant::now();
        let denied = read.origin != Origin::Window
            && read.origin != Origin::Cli
            && self.rules().policy(read.server, &tool) == crate::ToolPolicy::Deny;
        let outcome = if denied {
            Err(workbench_core::Error::Refused(format!(
                "{} is denied in Settings (its tool policy)",
                crate::tool_key(read.server, &tool)
            )))
        } else {
            match read.file {
                None => wb
                    .load_skill(read.server, read.skill, read.timeout)
                    .await
                    .map(|s| serde_json::to_value(s).unwrap_or_default()),
                Some(path) => wb
                    .skill_file(read.server, read.skill, path, read.timeout)
                    .await
                    .map(|f| serde_json::to_value(f).unwrap_or_default()),
            }
        };
        let status = match &outcome {
            Ok(_) => CallStatus::Ok,
            Err(_) if denied => CallStatus::Denied,
            Err(e) if e.code() == workbench_core::ErrorCode::Cancelled => CallStatus::Cancelled,
            Err(_) => CallStatus::Failed,
        };
        if let Some(history) = &self.inner.history {
            let arguments = match read.file {
                Some(f) => json!({ "file": f }),
                None => json!({}),
            };
            let written = history.write(history::Finished {
                key: None,
                begun: history::Begun {
                    origin: read.origin.as_str(),
                    session: read.link.session,
                    message: read.link.message,
                    call_id: read.link.call_id,
                    server: read.server.to_string(),
                    tool,
                    arguments,
                    started_at,
                },
                result: outcome.as_ref().ok().cloned(),
                error: outcome.as_ref().err().map(|e| e.to_string()),
                status,
                duration_ms: Some(clock.elapsed().as_secs_f64() * 1000.0),
                protocol: wb
                    .server(read.server)
                    .ok()
                    .and_then(|h| h.protocol_version()),
                traffic: (before, wb.traffic().last_seq()),
                schema_violations: Vec::new(),
                task: None,
                notes: Vec::new(),
                replaces: false,
            });
            // Written before the caller goes on (as a chat's tool call is:
            // its next write to the store would wait on this one).
            history.hurry();
            let _ = written.await;
        }
        SkillRan { outcome, status }
    }
}
