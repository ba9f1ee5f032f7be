//! Which tools the model sees in a request. The enabled tools are those of
//! Ready servers chosen for the chat, minus the tools turned off for it and
//! those denied in the settings (the entry's include/exclude lists already
//! shaped the catalog); each is adapted to the provider. With many tools
//! (the threshold, their schemas' share of the context window, or the
//! provider's 128-tool cap) the model gets `search_tools` and the tools it
//! has loaded instead of every schema.

use std::collections::{BTreeMap, HashSet};

use genai::chat::Tool;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use workbench_core::catalog::QualifiedTool;

use crate::adapt;
use crate::settings::{AgentSettings, ProviderKind, ToolPolicy, tool_key};

/// The most tools a request may carry (OpenAI's limit; the others' is higher).
pub const MAX_TOOLS: usize = 128;

/// What a session keeps about its tools (in the store, as JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

/// One enabled tool.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The name the model uses.
    pub name: String,
    pub server: String,
    pub tool: String,
    pub definition: Value,
}

impl Entry {
    pub fn key(&self) -> String {
        tool_key(&self.server, &self.tool)
    }
}

/// The tools of one request.
#[derive(Debug, Clone, Default)]
pub struct ToolSet {
    /// Every enabled tool, in catalog order.
    pub entries: Vec<Entry>,
    /// What the model gets in this request.
    pub offered: Vec<Tool>,
    /// Whether the model discovers tools through `search_tools`.
    pub deferred: bool,
    /// What was adapted or held back, for the person.
    pub notes: Vec<String>,
    /// Estimated tokens of the schemas offered.
    pub offered_tokens: u32,
    /// The skills the model may load (`load_skill`), each as the entry it
    /// is decided and routed as (`skill:NAME`).
    pub skills: Vec<Entry>,
}

impl ToolSet {
    pub fn route(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// The genai tool for an entry, with the adaptation notes.
fn to_tool(kind: ProviderKind, entry: &Entry, notes: &mut Vec<String>) -> Tool {
    let mut mine = Vec::new();
    let (schema, schema_notes) = adapt::input_schema(kind, entry.definition.get("inputSchema"));
    mine.extend(schema_notes);
    let description = adapt::description(&entry.definition, &mut mine);
    for n in mine {
        notes.push(format!("{}: {n}", entry.name));
    }
    Tool::new(entry.name.clone())
        .with_description(description)
        .with_schema(schema)
}

fn tokens_of(tool: &Tool) -> u32 {
    adapt::estimate_tokens(&serde_json::to_string(tool).unwrap_or_default())
}

/// Everything that decides a request's tools.
pub struct Inputs<'a> {
    pub catalog: &'a [QualifiedTool],
    /// Every Ready server's skills (server, entry as listed).
    pub skills: &'a [(String, Value)],
    /// Servers that are not Ready (their tools cannot run).
    pub away: &'a HashSet<String>,
    pub options: &'a SessionOptions,
    pub settings: &'a AgentSettings,
    pub kind: ProviderKind,
    pub context_window: u32,
}

pub fn build(inputs: &Inputs<'_>) -> ToolSet {
    let Inputs {
        skills,
        away,
        options,
        settings,
        kind,
        context_window,
        ..
    } = inputs;
    let entries = entries_of(inputs);
    let skills: Vec<Entry> = skills
        .iter()
        .filter(|(server, _)| {
            options.servers.as_ref().is_none_or(|s| s.contains(server)) && !away.contains(server)
        })
        .map(|(server, skill)| crate::skills::entry(server, skill))
        .filter(|e| {
            !options.disabled_tools.contains(&e.key())
                && settings.policy(&e.server, &e.tool) != ToolPolicy::Deny
        })
        .collect();
    let skill_tool = (!skills.is_empty()).then(|| crate::skills::tool(&skills));
    let mut notes = Vec::new();
    let all: Vec<Tool> = entries
        .iter()
        .map(|e| to_tool(*kind, e, &mut notes))
        .collect();
    let all_tokens: u32 = all.iter().map(tokens_of).sum();
    let share_limit = (f64::from(*context_window) * settings.deferred_context_share) as u32;
    let deferred = entries.len() >= settings.deferred_threshold.max(1) as usize
        || all_tokens > share_limit
        || entries.len() > MAX_TOOLS;
    if !deferred {
        let mut offered = all;
        offered.extend(skill_tool);
        return ToolSet {
            entries,
            offered_tokens: offered.iter().map(tokens_of).sum(),
            offered,
            deferred: false,
            notes,
            skills,
        };
    }
    notes.push(deferred_why(entries.len(), all_tokens, settings));
    // The loaded tools, newest kept when they exceed the cap.
    let mut loaded: Vec<&String> = options.loaded_tools.iter().collect();
    if loaded.len() > MAX_TOOLS - 1 {
        notes.push(format!(
            "{} tools were loaded; the {} loaded last are offered",
            loaded.len(),
            MAX_TOOLS - 1
        ));
        loaded = loaded.split_off(loaded.len() - (MAX_TOOLS - 1));
    }
    let mut offered = vec![search_tool()];
    offered.extend(skill_tool);
    for key in loaded {
        if let Some(i) = entries.iter().position(|e| e.key() == *key) {
            offered.push(all[i].clone());
        }
    }
    let offered_tokens = offered.iter().map(tokens_of).sum();
    ToolSet {
        entries,
        offered,
        deferred: true,
        notes,
        offered_tokens,
        skills,
    }
}

/// The servers' tools the model may see in this chat (the chat's servers,
/// ready, not turned off for it or denied, not an App's own), each under a
/// name the provider takes and no other tool has.
fn entries_of(inputs: &Inputs<'_>) -> Vec<Entry> {
    let Inputs {
        catalog,
        away,
        options,
        settings,
        kind,
        ..
    } = inputs;
    let mut taken = HashSet::new();
    taken.insert(SEARCH_TOOL.to_string());
    taken.insert(crate::skills::LOAD_SKILL.to_string());
    let mut entries = Vec::new();
    for t in catalog.iter() {
        let tool = t.tool["name"].as_str().unwrap_or_default();
        let key = tool_key(&t.server, tool);
        let chosen = options
            .servers
            .as_ref()
            .is_none_or(|s| s.contains(&t.server));
        if !chosen
            || away.contains(&t.server)
            || options.disabled_tools.contains(&key)
            || settings.policy(&t.server, tool) == ToolPolicy::Deny
            // An MCP App's own tools (visibility without "model").
            || !workbench_core::apps::visible_to_model(&t.tool)
        {
            continue;
        }
        let mut name = adapt::tool_name(*kind, &t.qualified);
        let mut n = 2;
        while taken.contains(&name) {
            let suffix = format!("_{n}");
            name.truncate(64 - suffix.len());
            name.push_str(&suffix);
            n += 1;
        }
        taken.insert(name.clone());
        entries.push(Entry {
            name,
            server: t.server.clone(),
            tool: tool.to_string(),
            definition: t.tool.clone(),
        });
    }
    entries
}

/// Why the tools are deferred (found with `search_tools`, offered once
/// loaded): too many, past the threshold, or too large for the window.
fn deferred_why(count: usize, all_tokens: u32, settings: &AgentSettings) -> String {
    let why = if count > MAX_TOOLS {
        format!("more than the {MAX_TOOLS} a request can carry")
    } else if count >= settings.deferred_threshold.max(1) as usize {
        format!("the threshold is {}", settings.deferred_threshold)
    } else {
        format!(
            "their schemas (~{all_tokens} tokens) would take more than {:.0}% of the context window",
            settings.deferred_context_share * 100.0
        )
    };
    format!(
        "{count} tools are enabled ({why}): the model finds them with {SEARCH_TOOL} and sees only those it loaded"
    )
}

/// `search_tools`, the tool's name as the model sees it (its run: `search.rs`).
pub const SEARCH_TOOL: &str = "search_tools";

/// The search tool as offered to the model.
pub fn search_tool() -> genai::chat::Tool {
    genai::chat::Tool::new(SEARCH_TOOL)
        .with_description(
            "Find tools to use. Many tools are available but not shown; search by what you want \
             to do (keywords, or a regular expression with regex=true). The tools found are \
             loaded and can be called from your next step.",
        )
        .with_schema(serde_json::json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords (all must match) or a regular expression"},
                "regex": {"type": "boolean", "description": "Treat query as a regular expression"},
                "limit": {"type": "integer", "description": "How many tools to load (default 8, at most 32)"}
            },
            "required": ["query"]
        }))
}
