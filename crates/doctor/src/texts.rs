//! What the model reads: descriptions present and not oversized,
//! annotations and titles, and what the whole tool list costs in tokens
//! (o200k, the tokenizer of OpenAI's current models; other providers' are
//! within a few per cent for English and JSON).

use serde::Serialize;
use serde_json::{Value, json};

use crate::finding::{Finding, Severity};
use crate::tokenizer::Tokenizer;

/// Past this a description is cut by OpenAI (and the agent).
pub const LONG_DESCRIPTION: usize = 1024;
/// A tool costing more than this is worth a look.
pub const COSTLY_TOOL: usize = 1_500;
/// A whole list costing more than this crowds a model's context.
pub const COSTLY_LIST: usize = 20_000;

/// What the tool list costs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TokenCost {
    pub total: u32,
    /// The costliest tools first: (name, tokens).
    pub tools: Vec<(String, u32)>,
    pub tokenizer: String,
}

/// Tokens of `text` (four bytes a token if the tokenizer cannot load).
pub fn tokens(text: &str) -> u32 {
    Tokenizer::get().count(text)
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
    let tokenizer = Tokenizer::get();
    let mut per: Vec<(String, u32)> = tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_string(),
                tokenizer.count(&as_sent(t)),
            )
        })
        .collect();
    per.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    TokenCost {
        total: per.iter().map(|(_, n)| n).sum(),
        tools: per,
        tokenizer: tokenizer.name().into(),
    }
}

/// Findings about what the model reads of each tool, and the list's cost.
pub fn check(tools: &[Value], cost: &TokenCost) -> Vec<Finding> {
    let mut out = describe(tools);
    out.extend(costs(cost));
    out
}

/// The same findings without counting when no count could matter: a token
/// is at least one byte, so a tool sent in no more bytes than a costly
/// tool's tokens cannot be costly, nor a list in fewer bytes than the
/// list's limit. Counted (as `check` does) only when one could be; else
/// the `tokens.total` note is left out (the full run has it). For what is
/// checked often — the servers' badges, each change of a surface.
pub fn check_costs_if_over(tools: &[Value]) -> Vec<Finding> {
    let mut out = describe(tools);
    let sizes: Vec<usize> = tools.iter().map(|t| as_sent(t).len()).collect();
    if sizes.iter().any(|&n| n > COSTLY_TOOL) || sizes.iter().sum::<usize>() > COSTLY_LIST {
        out.extend(costs(&cost(tools)));
    }
    out
}

/// Descriptions, annotations and titles of each tool.
fn describe(tools: &[Value]) -> Vec<Finding> {
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
    out
}

/// Each costly tool, and what the whole list costs.
fn costs(cost: &TokenCost) -> Vec<Finding> {
    let mut out = Vec::new();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> Value {
        json!({"name": name, "description": description, "title": name,
               "annotations": {"readOnlyHint": true},
               "inputSchema": {"type": "object"}})
    }

    fn codes(findings: &[Finding]) -> Vec<(String, String, String)> {
        findings
            .iter()
            .map(|f| (f.code.clone(), f.item.clone(), f.seen.clone()))
            .collect()
    }

    #[test]
    fn a_token_is_never_shorter_than_a_byte() {
        // What the bound in `check_costs_if_over` stands on, over texts
        // of every kind a tool carries.
        for text in [
            "a",
            "hello world",
            "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}",
            "日本語のテキストと emoji 🎉🎉🎉",
            &"x".repeat(5000),
            &"Zürich — ½ · ∞ ".repeat(200),
        ] {
            assert!(tokens(text) as usize <= text.len(), "{text}");
        }
    }

    #[test]
    fn small_tools_get_the_same_findings_without_a_count_but_the_note() {
        let tools = vec![tool("a", "Adds."), tool("b", "")];
        let full = check(&tools, &cost(&tools));
        let quick = check_costs_if_over(&tools);
        let without_note: Vec<_> = full
            .iter()
            .filter(|f| f.code != "tokens.total")
            .cloned()
            .collect();
        assert_eq!(codes(&quick), codes(&without_note));
        assert!(codes(&quick).iter().any(|c| c.0 == "text.no-description"));
    }

    #[test]
    fn a_tool_that_could_be_costly_is_counted_as_the_full_run_counts_it() {
        // Long in bytes and in tokens (words, not one repeated character).
        let long: String = (0..900).map(|i| format!("word{i} ")).collect();
        let tools = vec![tool("big", &long), tool("small", "Adds.")];
        let full = check(&tools, &cost(&tools));
        let quick = check_costs_if_over(&tools);
        assert_eq!(codes(&quick), codes(&full));
        assert!(
            codes(&quick)
                .iter()
                .any(|c| c.0 == "tokens.costly-tool" && c.1 == "tool big")
        );
        // Long in bytes but cheap in tokens: counted, and not costly.
        let cheap = vec![tool("runs", &" ".repeat(3000))];
        let found = check_costs_if_over(&cheap);
        assert!(!codes(&found).iter().any(|c| c.0 == "tokens.costly-tool"));
        assert!(
            codes(&found).iter().any(|c| c.0 == "tokens.total"),
            "counted: the note is there"
        );
    }
}
