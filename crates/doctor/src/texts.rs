//! What the model reads: descriptions present and not oversized,
//! annotations and titles, and what the whole tool list costs in tokens
//! (o200k, the tokenizer of OpenAI's current models; other providers' are
//! within a few per cent for English and JSON).

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{Value, json};

use crate::finding::{Finding, Severity};

/// Past this a description is cut by OpenAI (and the agent).
pub const LONG_DESCRIPTION: usize = 1024;
/// A tool costing more than this is worth a look.
pub const COSTLY_TOOL: usize = 1_500;
/// A whole list costing more than this crowds a model's context.
pub const COSTLY_LIST: usize = 20_000;

/// What the tool list costs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TokenCost {
    pub total: u32,
    /// The costliest tools first: (name, tokens).
    pub tools: Vec<(String, u32)>,
    pub tokenizer: String,
}

fn bpe() -> Option<&'static tiktoken_rs::CoreBPE> {
    static BPE: OnceLock<Option<tiktoken_rs::CoreBPE>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().ok()).as_ref()
}

/// Tokens of `text` (4 characters a token if the tokenizer cannot load).
pub fn tokens(text: &str) -> u32 {
    match bpe() {
        Some(b) => b.encode_ordinary(text).len() as u32,
        None => text.len().div_ceil(4) as u32,
    }
}

/// What a model is sent for a tool: its name, description and parameters.
fn as_sent(tool: &Value) -> String {
    json!({
        "name": tool["name"],
        "description": tool["description"],
        "parameters": tool["inputSchema"],
    })
    .to_string()
}

pub fn cost(tools: &[Value]) -> TokenCost {
    let mut per: Vec<(String, u32)> = tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_string(),
                tokens(&as_sent(t)),
            )
        })
        .collect();
    per.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    TokenCost {
        total: per.iter().map(|(_, n)| n).sum(),
        tools: per,
        tokenizer: if bpe().is_some() { "o200k" } else { "estimate" }.into(),
    }
}

/// Findings about what the model reads of each tool, and the list's cost.
pub fn check(tools: &[Value], cost: &TokenCost) -> Vec<Finding> {
    let mut out = Vec::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or("(no name)");
        let item = format!("tool {name}");
        let description = tool["description"].as_str().unwrap_or_default().trim();
        if description.is_empty() {
            out.push(
                Finding::new("text.no-description", Severity::Warning, &item)
                    .at("/description")
                    .seen("no description")
                    .why("a model chooses tools by their descriptions: without one it guesses from the name, or never calls it")
                    .fix("say what the tool does, when to use it and what it returns"),
            );
        } else if description.chars().count() > LONG_DESCRIPTION {
            out.push(
                Finding::new("text.long-description", Severity::Warning, &item)
                    .at("/description")
                    .seen(format!("{} characters", description.chars().count()))
                    .why(format!("OpenAI cuts descriptions at {LONG_DESCRIPTION} characters, and every character is paid for on every turn"))
                    .fix("keep the description short; put details in the parameters' descriptions"),
            );
        }
        if tool
            .get("annotations")
            .is_none_or(|a| a.as_object().is_none_or(|m| m.is_empty()))
        {
            out.push(
                Finding::new("text.no-annotations", Severity::Info, &item)
                    .at("/annotations")
                    .seen("no annotations")
                    .why("without readOnlyHint / destructiveHint clients must treat the tool as destructive: approvals ask every time")
                    .fix("add \"annotations\": {\"readOnlyHint\": ..., \"destructiveHint\": ..., \"idempotentHint\": ...}"),
            );
        }
        if tool["title"].as_str().is_none_or(str::is_empty)
            && tool
                .pointer("/annotations/title")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        {
            out.push(
                Finding::new("text.no-title", Severity::Info, &item)
                    .at("/title")
                    .seen("no title")
                    .why("clients show the raw name to people where a title would read better")
                    .fix("add a short human \"title\""),
            );
        }
    }
    for (name, n) in cost.tools.iter().filter(|(_, n)| *n as usize > COSTLY_TOOL) {
        out.push(
            Finding::new("tokens.costly-tool", Severity::Warning, format!("tool {name}"))
                .seen(format!("{n} tokens ({})", cost.tokenizer))
                .why("a tool's definition is sent with every model turn")
                .fix("shorten its description and schema descriptions; split it if it does several things"),
        );
    }
    let top: Vec<String> = cost
        .tools
        .iter()
        .take(3)
        .map(|(n, t)| format!("{n} {t}"))
        .collect();
    out.push(
        Finding::new(
            "tokens.total",
            if cost.total as usize > COSTLY_LIST {
                Severity::Warning
            } else {
                Severity::Info
            },
            "server",
        )
        .seen(format!(
            "{} tools cost {} tokens ({}); most: {}",
            cost.tools.len(),
            cost.total,
            cost.tokenizer,
            if top.is_empty() { "none".into() } else { top.join(", ") }
        ))
        .why("every tool's definition is sent with every model turn, before the conversation")
        .fix(if cost.total as usize > COSTLY_LIST {
            "fewer or shorter tools; clients with many servers defer tools behind a search past a budget"
        } else {
            "nothing to do"
        }),
    );
    out
}
