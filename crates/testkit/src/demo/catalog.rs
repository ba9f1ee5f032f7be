//! The demo server's resources, resource templates, prompts and completions.

use serde_json::{Value, json};

use crate::media::{b64, png};

pub const COUNTER_URI: &str = "demo://counter";
pub const NOTE_TOPICS: [&str; 5] = ["mcp", "rust", "tauri", "testing", "transports"];
pub const LANGUAGES: [&str; 6] = ["go", "javascript", "python", "rust", "typescript", "zig"];
pub const STYLES: [&str; 3] = ["casual", "formal", "pirate"];

pub fn resources() -> Vec<Value> {
    vec![
        json!({ "uri": "demo://readme", "name": "readme", "title": "Demo README", "description": "What this server offers", "mimeType": "text/markdown" }),
        json!({ "uri": "demo://logo.png", "name": "logo", "title": "Logo", "mimeType": "image/png", "size": png(32).len() }),
        json!({ "uri": COUNTER_URI, "name": "counter", "title": "Counter", "description": "Changes with increment_counter; subscribe to be told", "mimeType": "text/plain", "annotations": { "audience": ["user", "assistant"], "priority": 0.5 } }),
        json!({ "uri": "demo://blob.bin", "name": "blob", "description": "4 KiB of binary data", "mimeType": "application/octet-stream", "size": 4096 }),
    ]
}

pub fn resource_templates() -> Vec<Value> {
    vec![
        json!({ "uriTemplate": "demo://notes/{topic}", "name": "note", "title": "A note on a topic", "description": "Topics complete from the server", "mimeType": "text/plain" }),
        json!({ "uriTemplate": "demo://users/{user_id}/profile", "name": "profile", "description": "A user's profile as JSON", "mimeType": "application/json" }),
    ]
}

/// The contents of a resource, or None when there is no such URI.
pub fn read(uri: &str, counter: i64) -> Option<Value> {
    let text = |mime: &str, text: String| json!({ "uri": uri, "mimeType": mime, "text": text });
    let blob =
        |mime: &str, bytes: &[u8]| json!({ "uri": uri, "mimeType": mime, "blob": b64(bytes) });
    let content = match uri {
        "demo://readme" => text(
            "text/markdown",
            "# MCP Workbench demo server\n\nTools, resources, templates, prompts, completions, \
             logging, sampling, elicitation, progress and cancellation."
                .into(),
        ),
        "demo://logo.png" => blob("image/png", &png(32)),
        COUNTER_URI => text("text/plain", counter.to_string()),
        "demo://blob.bin" => {
            let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 256) as u8).collect();
            blob("application/octet-stream", &bytes)
        }
        _ => {
            if let Some(topic) = uri.strip_prefix("demo://notes/") {
                text("text/plain", format!("Notes on {topic}: nothing yet."))
            } else if let Some(user) = uri
                .strip_prefix("demo://users/")
                .and_then(|r| r.strip_suffix("/profile"))
            {
                text(
                    "application/json",
                    json!({ "id": user, "name": format!("User {user}") }).to_string(),
                )
            } else {
                return None;
            }
        }
    };
    Some(json!({ "contents": [content] }))
}

pub fn prompts() -> Vec<Value> {
    vec![
        json!({
            "name": "greet",
            "title": "Greet someone",
            "description": "A greeting in a chosen style",
            "arguments": [
                { "name": "name", "description": "Who to greet", "required": true },
                { "name": "style", "description": "casual, formal or pirate (completes)", "required": false }
            ]
        }),
        json!({
            "name": "review_code",
            "title": "Review code",
            "description": "Asks for a review of a snippet; returns a user message and an embedded resource",
            "arguments": [
                { "name": "language", "description": "The language (completes)", "required": true },
                { "name": "code", "description": "The code to review", "required": true }
            ]
        }),
        json!({ "name": "status_report", "description": "A prompt with no arguments" }),
    ]
}

/// The messages of a prompt, or Err(reason) for an unknown prompt or missing argument.
pub fn get_prompt(name: &str, args: &Value) -> Result<Value, String> {
    let arg = |key: &str| args.get(key).and_then(Value::as_str);
    let need = |key: &str| arg(key).ok_or_else(|| format!("missing required argument \"{key}\""));
    match name {
        "greet" => {
            let who = need("name")?;
            let greeting = match arg("style").unwrap_or("casual") {
                "formal" => format!("Good day, {who}."),
                "pirate" => format!("Ahoy, {who}!"),
                _ => format!("Hi {who}!"),
            };
            Ok(json!({
                "description": "A greeting",
                "messages": [{ "role": "user", "content": { "type": "text", "text": format!("Please say: {greeting}") } }]
            }))
        }
        "review_code" => {
            let language = need("language")?;
            let code = need("code")?;
            Ok(json!({
                "description": format!("Review of a {language} snippet"),
                "messages": [
                    { "role": "user", "content": { "type": "text", "text": format!("Review this {language} code for bugs.") } },
                    { "role": "user", "content": { "type": "resource", "resource": { "uri": format!("demo://snippet.{language}"), "mimeType": "text/plain", "text": code } } },
                    { "role": "assistant", "content": { "type": "text", "text": "I will look at correctness first." } }
                ]
            }))
        }
        "status_report" => Ok(json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": "Write a short status report." } }]
        })),
        other => Err(format!("no prompt named \"{other}\"")),
    }
}

/// Completion values for an argument of a prompt or resource template;
/// `context` holds the other arguments' values (review_code's `code`
/// completes with a snippet in the chosen `language`).
pub fn complete(reference: &Value, argument: &str, prefix: &str, context: &Value) -> Vec<String> {
    if reference["name"] == "review_code" && argument == "code" {
        let snippet = match context["language"].as_str() {
            Some("rust") => "fn main() {}",
            Some("python") => "print('hello')",
            Some("typescript") => "export const x = 1;",
            _ => return Vec::new(),
        };
        return vec![snippet.to_string()];
    }
    let pool: &[&str] = match (
        reference["type"].as_str(),
        reference["name"].as_str(),
        reference["uri"].as_str(),
        argument,
    ) {
        (Some("ref/prompt"), Some("greet"), _, "style") => &STYLES,
        (Some("ref/prompt"), Some("review_code"), _, "language") => &LANGUAGES,
        (Some("ref/resource"), _, Some("demo://notes/{topic}"), "topic") => &NOTE_TOPICS,
        _ => &[],
    };
    pool.iter()
        .filter(|v| v.starts_with(prefix))
        .map(|v| v.to_string())
        .collect()
}

/// One page of `items` starting at `cursor`, and the next cursor.
pub fn page(
    items: Vec<Value>,
    cursor: Option<&str>,
    page_size: Option<usize>,
) -> (Vec<Value>, Option<String>) {
    let Some(size) = page_size.filter(|s| *s > 0) else {
        return (items, None);
    };
    let start: usize = cursor.and_then(|c| c.parse().ok()).unwrap_or(0);
    let end = (start + size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    (items.into_iter().skip(start).take(size).collect(), next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pages_cover_every_item_once() {
        let items: Vec<_> = (0..7).map(|i| json!(i)).collect();
        let (first, next) = page(items.clone(), None, Some(3));
        assert_eq!(first, items[..3]);
        let (second, next) = page(items.clone(), next.as_deref(), Some(3));
        assert_eq!(second, items[3..6]);
        let (third, next) = page(items.clone(), next.as_deref(), Some(3));
        assert_eq!(third, items[6..]);
        assert_eq!(next, None);
        assert_eq!(page(items.clone(), None, None).0.len(), 7);
    }

    #[test]
    fn completions_filter_by_prefix_and_reference() {
        let r = json!({ "type": "ref/prompt", "name": "review_code" });
        assert_eq!(
            complete(&r, "language", "ty", &serde_json::Value::Null),
            ["typescript"]
        );
        assert_eq!(
            complete(&r, "code", "", &json!({ "language": "rust" })),
            ["fn main() {}"]
        );
        let t = json!({ "type": "ref/resource", "uri": "demo://notes/{topic}" });
        assert_eq!(
            complete(&t, "topic", "t", &serde_json::Value::Null),
            ["tauri", "testing", "transports"]
        );
        assert!(complete(&r, "code", "", &serde_json::Value::Null).is_empty());
    }
}
