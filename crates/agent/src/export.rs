//! A chat exported: Markdown to read (messages, reasoning folded, each tool
//! call with its arguments and what it returned) and JSON to keep (the
//! session, every message's parts, every call as recorded).

use serde_json::{Value, json};

use crate::Agent;
use crate::error::Result;
use crate::parts::Part;

fn fence(text: &str, lang: &str) -> String {
    // A fence longer than any run of backticks inside.
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest.max(2) + 1);
    format!("{ticks}{lang}\n{text}\n{ticks}\n")
}

impl Agent {
    pub fn export_markdown(&self, id: &str) -> Result<String> {
        let chat = self.chat(id)?;
        let s = &chat.session;
        let mut out = format!("# {}\n\n", s.title);
        out.push_str(&format!(
            "- Model: {} ({})\n- Messages: {}\n- Tokens: {} in ({} cached), {} out\n",
            s.model, s.provider, s.message_count, s.usage.input, s.usage.cached, s.usage.output
        ));
        if !s.system_prompt.is_empty() {
            out.push_str(&format!("\n**System prompt**\n\n{}\n", s.system_prompt));
        }
        for m in &chat.messages {
            let who = match m.role.as_str() {
                "user" => "You",
                "assistant" => "Assistant",
                _ => "Tools",
            };
            out.push_str(&format!("\n## {who}\n\n"));
            for p in &m.parts {
                match p {
                    Part::Text { text } => out.push_str(&format!("{text}\n\n")),
                    Part::Reasoning { text } => out.push_str(&format!(
                        "<details><summary>Reasoning</summary>\n\n{text}\n\n</details>\n\n"
                    )),
                    Part::ToolCall {
                        name, arguments, ..
                    } => {
                        let args = serde_json::to_string_pretty(arguments).unwrap_or_default();
                        out.push_str(&format!("**Calls `{name}`**\n\n{}\n", fence(&args, "json")));
                    }
                    Part::ToolResult {
                        name,
                        status,
                        content,
                        duration_ms,
                        ..
                    } => {
                        let took = duration_ms
                            .map(|d| format!(", {d:.0} ms"))
                            .unwrap_or_default();
                        let status = serde_json::to_value(status).unwrap_or_default();
                        out.push_str(&format!(
                            "**`{name}` → {}{took}**\n\n{}\n",
                            status.as_str().unwrap_or_default(),
                            fence(content, "")
                        ));
                    }
                    Part::Resource {
                        server,
                        uri,
                        mime_type,
                        text,
                        ..
                    } => {
                        out.push_str(&format!("**Attached `{uri}`** (of {server})\n\n"));
                        if let Some(text) = text {
                            let lang = if mime_type.as_deref() == Some("application/json") {
                                "json"
                            } else {
                                ""
                            };
                            out.push_str(&format!("{}\n", fence(text, lang)));
                        }
                    }
                    Part::Image {
                        mime_type, name, ..
                    } => out.push_str(&format!(
                        "**Attached an image** ({mime_type}{})\n\n",
                        name.as_deref()
                            .map(|n| format!(", {n}"))
                            .unwrap_or_default()
                    )),
                    Part::Notice { text, .. } => out.push_str(&format!("> {text}\n\n")),
                }
            }
        }
        Ok(out)
    }

    pub fn export_json(&self, id: &str) -> Result<Value> {
        let chat = self.chat(id)?;
        let calls = self.store().session_calls(id)?;
        Ok(json!({
            "format": "mcp-workbench-chat",
            "version": 1,
            "session": chat.session,
            "options": chat.options,
            "messages": chat.messages,
            "calls": calls,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outlast_backticks_inside() {
        assert_eq!(fence("a", ""), "```\na\n```\n");
        assert_eq!(fence("x ```` y", "json"), "`````json\nx ```` y\n`````\n");
    }
}
