//! `search_tools`: how the model finds tools when there are too many to
//! send every schema. Keywords (every word must appear, case-insensitive)
//! or a regular expression, over names, titles and descriptions; what it
//! finds is loaded into the conversation (offered from the next step on).

use serde_json::Value;

use crate::toolset::Entry;

/// At most this many tools are loaded per search.
const DEFAULT_LIMIT: usize = 8;
const MAX_LIMIT: usize = 32;

/// The text a search matches against.
fn haystack(e: &Entry) -> String {
    format!(
        "{} {} {} {}",
        e.name,
        e.tool,
        e.definition["title"].as_str().unwrap_or_default(),
        e.definition["description"].as_str().unwrap_or_default()
    )
    .to_lowercase()
}

/// Run a search: the matching entries (best first), or an error the model
/// reads (a bad pattern, a missing query).
pub(crate) fn run<'a>(entries: &'a [Entry], arguments: &Value) -> Result<Vec<&'a Entry>, String> {
    let query = arguments["query"].as_str().unwrap_or_default().trim();
    if query.is_empty() {
        return Err("search_tools needs a non-empty \"query\"".into());
    }
    let limit = arguments["limit"]
        .as_u64()
        .map_or(DEFAULT_LIMIT, |n| (n as usize).clamp(1, MAX_LIMIT));
    let mut scored: Vec<(usize, &Entry)> = if arguments["regex"].as_bool() == Some(true) {
        let re = regex::RegexBuilder::new(query)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("the regular expression does not compile: {e}"))?;
        entries
            .iter()
            .filter(|e| re.is_match(&haystack(e)))
            .map(|e| (usize::from(re.is_match(&e.name)), e))
            .collect()
    } else {
        let words: Vec<String> = query
            .to_lowercase()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        entries
            .iter()
            .filter_map(|e| {
                let text = haystack(e);
                if !words.iter().all(|w| text.contains(w.as_str())) {
                    return None;
                }
                let name = e.name.to_lowercase();
                Some((
                    words.iter().filter(|w| name.contains(w.as_str())).count(),
                    e,
                ))
            })
            .collect()
    };
    // Name hits first; otherwise catalog order.
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    Ok(scored.into_iter().take(limit).map(|(_, e)| e).collect())
}

/// What the model reads back.
pub fn report(found: &[&Entry], total: usize, query: &str) -> String {
    if found.is_empty() {
        return format!(
            "No tool matches \"{query}\" among the {total} available. Try other or fewer words."
        );
    }
    let mut out = format!(
        "Loaded {} tool{}; call {} from your next step:\n",
        found.len(),
        if found.len() == 1 { "" } else { "s" },
        if found.len() == 1 { "it" } else { "them" }
    );
    for e in found {
        let description = e.definition["description"].as_str().unwrap_or_default();
        let first_line = description.lines().next().unwrap_or_default();
        out.push_str(&format!("- {}: {first_line}\n", e.name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(name: &str, description: &str) -> Entry {
        Entry {
            name: name.into(),
            server: "s".into(),
            tool: name.into(),
            definition: json!({"name": name, "description": description}),
        }
    }

    #[test]
    fn keywords_must_all_match_and_names_rank_first() {
        let entries = vec![
            entry("s__send_mail", "Send an email to someone"),
            entry("s__weather", "Weather forecast; can email a summary"),
            entry("s__calendar", "Calendar events"),
        ];
        let names = |q: Value| -> Vec<String> {
            run(&entries, &q)
                .unwrap()
                .iter()
                .map(|e| e.name.clone())
                .collect()
        };
        assert_eq!(
            names(json!({"query": "EMAIL"})),
            ["s__send_mail", "s__weather"]
        );
        assert_eq!(names(json!({"query": "weather email"})), ["s__weather"]);
        assert_eq!(
            names(json!({"query": "mail", "limit": 1})),
            ["s__send_mail"]
        );
        assert_eq!(
            names(json!({"query": "^s__(cal|wea)", "regex": true})),
            ["s__weather", "s__calendar"]
        );
        assert!(
            run(&entries, &json!({"query": "(", "regex": true}))
                .unwrap_err()
                .contains("does not compile")
        );
        assert!(run(&entries, &json!({})).is_err());
    }
}
