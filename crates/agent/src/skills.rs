//! Skills (SEP-2640) in the chat, disclosed step by step: the model sees
//! each chosen server's skills by name and description in one tool,
//! `load_skill`; calling it with a skill gives the skill's SKILL.md and the
//! list of its files, calling it with a file of the skill gives that file.
//! Nothing of a skill is read before the model asks for it. Each load is
//! decided like a read-only tool call named `skill:NAME` (asked, allowed
//! for the chat, denied by a rule) and kept in the history.

use genai::chat::{Tool, ToolCall};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use workbench_calls::{Link, Origin, SkillRead, is_skill_tool, skill_definition, skill_tool};
use workbench_store::CallStatus;

use crate::events::AgentEvent;
use crate::parts::Part;
use crate::toolset::Entry;
use crate::{Agent, Sink};

/// The tool's name as the model sees it.
pub const LOAD_SKILL: &str = "load_skill";

/// A description is cut to this many characters in the tool's listing (the
/// whole of it is in SKILL.md).
const DESCRIPTION_CHARS: usize = 300;

/// The entry a skill is decided and routed as (`server/skill:NAME`).
pub fn entry(server: &str, skill: &Value) -> Entry {
    let name = workbench_core::skills::name_of(skill);
    Entry {
        name: LOAD_SKILL.to_string(),
        server: server.to_string(),
        tool: skill_tool(&name),
        definition: skill_definition(skill),
    }
}

/// The skill's name as the model writes it: `server/NAME`.
fn label(e: &Entry) -> String {
    format!(
        "{}/{}",
        e.server,
        e.tool
            .strip_prefix(workbench_calls::skill::SKILL_PREFIX)
            .unwrap_or(&e.tool)
    )
}

/// `load_skill` as offered: every skill the chat may load, by name and
/// description.
pub fn tool(skills: &[Entry]) -> Tool {
    let mut listing = String::new();
    for e in skills {
        let mut description: String = e.definition["description"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(DESCRIPTION_CHARS)
            .collect();
        description = description.replace('\n', " ");
        listing.push_str(&format!("\n- {}: {description}", label(e)));
    }
    Tool::new(LOAD_SKILL)
        .with_description(format!(
            "Load a skill: instructions (and files) for a kind of task, given by the servers. \
             Load one when the task matches its description, then follow it. Call with \
             {{\"skill\": NAME}} for its SKILL.md and the list of its files; with \
             {{\"skill\": NAME, \"file\": PATH}} for one of those files. The skills:{listing}"
        ))
        .with_schema(json!({
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": "The skill, as listed (server/name)"},
                "file": {"type": "string", "description": "A file of the skill, its path as SKILL.md's list gives it"}
            },
            "required": ["skill"]
        }))
}

/// The skill a call names: `server/NAME` exactly, or a bare NAME only one
/// server offers.
pub(crate) fn route<'a>(skills: &'a [Entry], arguments: &Value) -> Result<&'a Entry, String> {
    let asked = arguments["skill"].as_str().unwrap_or_default().trim();
    if asked.is_empty() {
        return Err(format!(
            "{LOAD_SKILL} needs \"skill\": one of the skills listed in its description"
        ));
    }
    if let Some(e) = skills.iter().find(|e| label(e) == asked) {
        return Ok(e);
    }
    let bare: Vec<&Entry> = skills
        .iter()
        .filter(|e| e.tool.strip_prefix(workbench_calls::skill::SKILL_PREFIX) == Some(asked))
        .collect();
    match bare.as_slice() {
        [one] => Ok(one),
        [] => Err(format!(
            "There is no skill \"{asked}\" here (it may be turned off for this chat, or its server is not running). The skills: {}",
            skills.iter().map(label).collect::<Vec<_>>().join(", ")
        )),
        many => Err(format!(
            "\"{asked}\" is offered by several servers: say which ({})",
            many.iter().map(|e| label(e)).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// What the model reads of a loaded skill or file.
fn for_model(label: &str, file: Option<&str>, read: &Value) -> String {
    let problems: Vec<String> = match file {
        None => read["problems"]
            .as_array()
            .map(|p| {
                p.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        Some(_) => read["problem"]
            .as_str()
            .map(str::to_string)
            .into_iter()
            .collect(),
    };
    let mut out = match file {
        None => {
            let mut text = format!(
                "The skill {label} (SKILL.md):\n\n{}",
                read["text"].as_str().unwrap_or_default()
            );
            let files: Vec<String> = read["files"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|f| f["path"] != "SKILL.md")
                .map(|f| match f["size"].as_u64() {
                    Some(n) => format!("- {} ({n} bytes)", f["path"].as_str().unwrap_or_default()),
                    None => format!("- {}", f["path"].as_str().unwrap_or_default()),
                })
                .collect();
            if !files.is_empty() {
                text.push_str(&format!(
                    "\n\nIts files (read one with {LOAD_SKILL} {{\"skill\": \"{label}\", \"file\": PATH}}):\n{}",
                    files.join("\n")
                ));
            }
            text
        }
        Some(path) => match read["text"].as_str() {
            Some(t) => format!("{path} of the skill {label}:\n\n{t}"),
            None => format!(
                "{path} of the skill {label} is not text ({} bytes, {}).",
                read["size"],
                read["mime_type"].as_str().unwrap_or("no MIME type")
            ),
        },
    };
    if !problems.is_empty() {
        out.push_str(&format!(
            "\n\n(The server sent this with problems, its fault: {}.)",
            problems.join("; ")
        ));
    }
    out
}

impl Agent {
    /// Load the skill (or its file) an approved `load_skill` call asked for.
    pub(crate) async fn run_skill(
        &self,
        link: Link,
        call: &ToolCall,
        entry: &Entry,
        arguments: Value,
        sink: &Sink,
        cancel: &CancellationToken,
    ) -> Part {
        debug_assert!(is_skill_tool(&entry.tool));
        let name = entry
            .tool
            .strip_prefix(workbench_calls::skill::SKILL_PREFIX)
            .unwrap_or(&entry.tool);
        let file = arguments["file"].as_str().filter(|f| !f.trim().is_empty());
        sink(AgentEvent::ToolStarted {
            call_id: call.call_id.clone(),
            server: entry.server.clone(),
            tool: entry.tool.clone(),
            arguments: arguments.clone(),
        });
        let clock = std::time::Instant::now();
        let read = self.calls().read_skill(SkillRead {
            origin: Origin::Chat,
            server: &entry.server,
            skill: name,
            file,
            link,
            timeout: None,
        });
        let ran = tokio::select! {
            ran = read => Some(ran),
            _ = cancel.cancelled() => None,
        };
        let duration = clock.elapsed().as_secs_f64() * 1000.0;
        let (status, content, result) = match ran {
            None => (
                CallStatus::Cancelled,
                "The skill was not loaded: the person stopped the turn.".to_string(),
                None,
            ),
            Some(ran) => match ran.outcome {
                Ok(read) => (
                    ran.status,
                    for_model(&label(entry), file, &read),
                    Some(read),
                ),
                Err(e) => (
                    ran.status,
                    format!("The skill could not be loaded: {e}"),
                    None,
                ),
            },
        };
        sink(AgentEvent::ToolFinished {
            call_id: call.call_id.clone(),
            status,
            duration_ms: Some(duration),
        });
        Part::ToolResult {
            call_id: call.call_id.clone(),
            name: call.fn_name.clone(),
            status,
            content,
            result,
            arguments: Some(arguments),
            duration_ms: Some(duration),
            traffic: None,
        }
    }
}
