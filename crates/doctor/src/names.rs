//! Tool names: valid for the specification, and still valid once the
//! major clients prefix them with the server's name.

use std::collections::HashMap;

use serde_json::Value;

use crate::finding::{Finding, Severity};

/// The longest function name OpenAI, Anthropic and Gemini accept.
pub const PROVIDER_LIMIT: usize = 64;

/// How clients name a tool to their model: (client, the name it makes).
fn prefixed(server: &str, tool: &str) -> [(&'static str, String); 4] {
    [
        ("Claude Code", format!("mcp__{server}__{tool}")),
        ("VS Code", format!("mcp_{server}_{tool}")),
        ("Cursor", format!("{server}_{tool}")),
        (
            "OpenAI's Agents SDK, MCP Workbench",
            format!("{server}__{tool}"),
        ),
    ]
}

fn spec_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Findings about the names of `tools` of the server named `server` in
/// the config; `duplicates` are the names it listed more than once.
pub fn check(server: &str, tools: &[Value], duplicates: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    for name in duplicates {
        out.push(
            Finding::new("name.duplicate", Severity::Error, format!("tool {name}"))
                .seen(format!("\"{name}\" is listed more than once"))
                .why("clients keep one of them (which one differs), so the others cannot be called")
                .fix("give each tool a name of its own"),
        );
    }
    let mut by_folded: HashMap<String, Vec<&str>> = HashMap::new();
    for tool in tools {
        let Some(name) = tool["name"].as_str() else {
            out.push(
                Finding::new("name.missing", Severity::Error, "tool (no name)")
                    .seen(crate::finding::quote(tool))
                    .why("a tool without a name cannot be called")
                    .fix("give it a \"name\""),
            );
            continue;
        };
        let item = format!("tool {name}");
        by_folded.entry(name.to_lowercase()).or_default().push(name);
        let bad: String = name.chars().filter(|c| !spec_char(*c)).collect();
        let len = name.chars().count();
        if name.is_empty() || len > 128 || !bad.is_empty() {
            out.push(
                Finding::new("name.invalid", Severity::Error, &item)
                    .at("/name")
                    .seen(if bad.is_empty() {
                        format!("{len} characters")
                    } else {
                        format!("characters {:?} in \"{name}\"", dedup(&bad))
                    })
                    .why("the specification allows 1–128 of A–Z a–z 0–9 _ - . ; clients rewrite or drop other names (OpenAI, Anthropic and Gemini refuse them as function names)")
                    .fix("use letters, digits, _ and - only (e.g. snake_case)"),
            );
        } else if name.contains('.') {
            out.push(
                Finding::new("name.provider-characters", Severity::Warning, &item)
                    .at("/name")
                    .seen(format!("\"{name}\" has a dot"))
                    .why("valid MCP, but OpenAI, Anthropic and Gemini allow only A–Z a–z 0–9 _ - in function names: clients must rewrite it and the model sees another name")
                    .fix("use _ or - instead of ."),
            );
        }
        let long: Vec<String> = prefixed(server, name)
            .into_iter()
            .filter(|(_, full)| full.chars().count() > PROVIDER_LIMIT)
            .map(|(client, full)| format!("{client} ({} characters: {full})", full.chars().count()))
            .collect();
        if !long.is_empty() {
            out.push(
                Finding::new("name.too-long-prefixed", Severity::Warning, &item)
                    .at("/name")
                    .seen(long.join("; "))
                    .why(format!(
                        "LLM providers take function names of at most {PROVIDER_LIMIT} characters; clients that prefix the server's name cut, hash or drop a longer one"
                    ))
                    .fix(format!(
                        "keep the tool name short (with a server named \"{server}\", at most {} characters fit every client)",
                        PROVIDER_LIMIT.saturating_sub(server.chars().count() + 5)
                    )),
            );
        }
    }
    let mut folded: Vec<_> = by_folded.into_values().filter(|v| v.len() > 1).collect();
    folded.sort();
    for names in folded {
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() < 2 {
            continue;
        }
        out.push(
            Finding::new("name.case-only", Severity::Warning, format!("tool {}", distinct[0]))
                .seen(format!("{} differ only in case", distinct.join(", ")))
                .why("clients and models that compare names without case (and file systems that cache by name) confuse them")
                .fix("name them apart by more than case"),
        );
    }
    out
}

fn dedup(s: &str) -> String {
    let mut seen = String::new();
    for c in s.chars() {
        if !seen.contains(c) {
            seen.push(c);
        }
    }
    seen
}
