//! Codex's `config.toml`: each server a `[mcp_servers.NAME]` table, its
//! keys in Codex's names. Read into the keys every dialect shares (then
//! `normalise`), and written back from ours, what Codex cannot say named.
//!
//! Codex's keys: `command`, `args`, `env`, `env_vars` (variables passed on
//! from Codex's own environment), `cwd`; `url`, `bearer_token_env_var`,
//! `http_headers`, `env_http_headers` (a header's value from a variable);
//! `enabled`, `startup_timeout_sec` (`startup_timeout_ms` before),
//! `tool_timeout_sec`, `enabled_tools`, `disabled_tools`; `oauth`
//! (`client_id`, `scopes`) for a remote server.

use serde_json::{Map, Value, json};

/// A Codex table in the keys `normalise` reads (its own kept as they are
/// where we have no name for them).
pub(super) fn entry(name: &str, raw: &Value, notes: &mut Vec<String>) -> Value {
    let Some(table) = raw.as_object() else {
        return raw.clone();
    };
    let mut out = Map::new();
    let mut env: Map<String, Value> = table
        .get("env")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    // Codex passes a server only the variables it names; here each is
    // written as a reference to the same variable.
    for var in table
        .get("env_vars")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let var = var
            .as_str()
            .or_else(|| var.get("name").and_then(Value::as_str));
        if let Some(v) = var.filter(|v| !v.is_empty()) {
            env.entry(v.to_string())
                .or_insert_with(|| json!(format!("${{{v}}}")));
        }
    }
    if !env.is_empty() {
        out.insert("env".into(), Value::Object(env));
    }
    let mut headers: Map<String, Value> = table
        .get("http_headers")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if let Some(var) = table.get("bearer_token_env_var").and_then(Value::as_str) {
        headers.insert("Authorization".into(), json!(format!("Bearer ${{{var}}}")));
    }
    for (header, var) in table
        .get("env_http_headers")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(var) = var.as_str() {
            headers.insert(header.clone(), json!(format!("${{{var}}}")));
        }
    }
    if !headers.is_empty() {
        out.insert("headers".into(), Value::Object(headers));
    }
    let seconds = |key: &str| table.get(key).and_then(Value::as_f64);
    if let Some(s) = seconds("startup_timeout_sec")
        .or_else(|| seconds("startup_timeout_ms").map(|ms| ms / 1000.0))
    {
        out.insert("startupTimeout".into(), super::seconds(s));
    }
    if let Some(s) = seconds("tool_timeout_sec") {
        out.insert("callTimeout".into(), super::seconds(s));
    }
    for (from, to) in [
        ("enabled_tools", "includeTools"),
        ("disabled_tools", "excludeTools"),
    ] {
        if let Some(list) = table.get(from) {
            out.insert(to.into(), list.clone());
        }
    }
    if let Some(oauth) = table.get("oauth").and_then(Value::as_object) {
        let mut ours = Map::new();
        if let Some(id) = oauth.get("client_id") {
            ours.insert("clientId".into(), id.clone());
        }
        let scopes = oauth.get("scopes").or_else(|| table.get("scopes"));
        if let Some(list) = scopes.and_then(Value::as_array) {
            let words: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
            ours.insert("scope".into(), json!(words.join(" ")));
        }
        if !ours.is_empty() {
            out.insert("oauth".into(), Value::Object(ours));
        }
    }
    const CODEX_ONLY: [&str; 14] = [
        "env",
        "env_vars",
        "http_headers",
        "bearer_token_env_var",
        "env_http_headers",
        "startup_timeout_sec",
        "startup_timeout_ms",
        "tool_timeout_sec",
        "enabled_tools",
        "disabled_tools",
        "oauth",
        "scopes",
        "bearer_token",
        "required",
    ];
    if table.contains_key("bearer_token") {
        notes.push(format!(
            "{name}: an inline \"bearer_token\" (Codex refuses it) is not brought; give the token with `mcpwb config edit {name} --secret-header Authorization=…`"
        ));
    }
    for (k, v) in table {
        if !CODEX_ONLY.contains(&k.as_str()) {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Value::Object(out)
}

/// `text` is `${VAR}` or `${env:VAR}` and nothing else: VAR.
fn whole_variable(text: &str) -> Option<&str> {
    let inner = text.strip_prefix("${")?.strip_suffix('}')?;
    let var = inner.strip_prefix("env:").unwrap_or(inner);
    (!var.is_empty() && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(var)
}

/// Our entry (normalised, references already as the export spells them)
/// as a Codex table. Codex reads no `${...}` in its file: a value that is
/// a whole variable becomes one Codex reads from its environment
/// (`env_vars`, `bearer_token_env_var`, `env_http_headers`); any other is
/// written as it is, and said.
pub(super) fn table(name: &str, e: &Map<String, Value>, notes: &mut Vec<String>) -> Value {
    let mut out = Map::new();
    let literal = |at: &str, v: &str, notes: &mut Vec<String>| {
        if v.contains("${") {
            notes.push(format!(
                "{name}.{at}: Codex does not expand ${{...}} in its file; \"{v}\" is written as it is"
            ));
        }
        json!(v)
    };
    if let Some(url) = e.get("url").and_then(Value::as_str) {
        out.insert("url".into(), literal("url", url, notes));
        if e.get("type").and_then(Value::as_str) == Some("sse") {
            notes.push(format!(
                "{name}: Codex speaks Streamable HTTP only; this legacy SSE server is written as a plain url"
            ));
        }
        let mut plain = Map::new();
        let mut from_env = Map::new();
        for (h, v) in e
            .get("headers")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let Some(v) = v.as_str() else { continue };
            if h.eq_ignore_ascii_case("authorization")
                && let Some(var) = v.strip_prefix("Bearer ").and_then(whole_variable)
            {
                out.insert("bearer_token_env_var".into(), json!(var));
            } else if let Some(var) = whole_variable(v) {
                from_env.insert(h.clone(), json!(var));
            } else {
                plain.insert(h.clone(), literal(&format!("headers.{h}"), v, notes));
            }
        }
        if !plain.is_empty() {
            out.insert("http_headers".into(), Value::Object(plain));
        }
        if !from_env.is_empty() {
            out.insert("env_http_headers".into(), Value::Object(from_env));
        }
    } else {
        if let Some(c) = e.get("command").and_then(Value::as_str) {
            out.insert("command".into(), literal("command", c, notes));
        }
        if let Some(args) = e.get("args").and_then(Value::as_array) {
            let args: Vec<Value> = args
                .iter()
                .filter_map(Value::as_str)
                .map(|a| literal("args", a, notes))
                .collect();
            out.insert("args".into(), Value::Array(args));
        }
        let mut env = Map::new();
        let mut passed = Vec::new();
        for (k, v) in e
            .get("env")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let Some(v) = v.as_str() else { continue };
            match whole_variable(v) {
                // `KEY = ${KEY}`: Codex passes its own variable on.
                Some(var) if var == k => passed.push(json!(var)),
                _ => {
                    env.insert(k.clone(), literal(&format!("env.{k}"), v, notes));
                }
            }
        }
        if !env.is_empty() {
            out.insert("env".into(), Value::Object(env));
        }
        if !passed.is_empty() {
            out.insert("env_vars".into(), Value::Array(passed));
        }
        if let Some(cwd) = e.get("cwd").and_then(Value::as_str) {
            out.insert("cwd".into(), literal("cwd", cwd, notes));
        }
    }
    if e.get("disabled").and_then(Value::as_bool) == Some(true) {
        out.insert("enabled".into(), json!(false));
    }
    for (ours, theirs) in [
        ("startupTimeout", "startup_timeout_sec"),
        ("callTimeout", "tool_timeout_sec"),
    ] {
        if let Some(s) = e.get(ours).filter(|s| s.is_number()) {
            out.insert(theirs.into(), s.clone());
        }
    }
    for (ours, theirs) in [
        ("includeTools", "enabled_tools"),
        ("excludeTools", "disabled_tools"),
    ] {
        if let Some(list) = e.get(ours) {
            out.insert(theirs.into(), list.clone());
        }
    }
    if let Some(oauth) = e.get("oauth").and_then(Value::as_object) {
        let mut theirs = Map::new();
        if let Some(id) = oauth.get("clientId") {
            theirs.insert("client_id".into(), id.clone());
        }
        if let Some(scope) = oauth.get("scope").and_then(Value::as_str) {
            theirs.insert(
                "scopes".into(),
                json!(scope.split_whitespace().collect::<Vec<_>>()),
            );
        }
        for key in ["clientSecret", "clientMetadataUrl"] {
            if oauth.contains_key(key) {
                notes.push(format!(
                    "{name}: Codex has no oauth \"{key}\"; it was left out"
                ));
            }
        }
        if !theirs.is_empty() {
            out.insert("oauth".into(), Value::Object(theirs));
        }
    }
    if e.contains_key("autoApprove") {
        notes.push(format!(
            "{name}: Codex has no \"autoApprove\"; it was left out"
        ));
    }
    Value::Object(out)
}

/// The servers as a `config.toml` of their own: `[mcp_servers.NAME]` each.
pub(super) fn text(entries: Vec<(String, Value)>) -> Result<String, String> {
    let servers: Map<String, Value> = entries.into_iter().collect();
    toml::to_string(&json!({ "mcp_servers": servers })).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::{Dialect, export, import};
    use serde_json::json;

    const CONFIG: &str = r#"
model = "gpt-5-codex"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@acme/docs-mcp"]
env_vars = ["DOCS_TOKEN"]
startup_timeout_sec = 20
tool_timeout_sec = 90
disabled_tools = ["delete_page"]

[mcp_servers.docs.env]
DEBUG = "mcp:*"

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
http_headers = { "X-Region" = "us-east-1" }
env_http_headers = { "X-Org" = "FIGMA_ORG" }
enabled = false

[mcp_servers.figma.oauth]
client_id = "abc"
scopes = ["read", "write"]
"#;

    #[test]
    fn a_codex_config_is_read_into_entries() {
        let i = import(Dialect::Codex, CONFIG).unwrap();
        let names: Vec<&str> = i.servers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["docs", "figma"]);
        let docs = serde_json::Value::Object(i.servers[0].1.clone());
        assert_eq!(docs["command"], "npx");
        assert_eq!(docs["args"], json!(["-y", "@acme/docs-mcp"]));
        assert_eq!(
            docs["env"],
            json!({ "DEBUG": "mcp:*", "DOCS_TOKEN": "${DOCS_TOKEN}" })
        );
        assert_eq!(docs["startupTimeout"], 20);
        assert_eq!(docs["callTimeout"], 90);
        assert_eq!(docs["excludeTools"], json!(["delete_page"]));
        let figma = serde_json::Value::Object(i.servers[1].1.clone());
        assert_eq!(figma["url"], "https://mcp.figma.com/mcp");
        assert_eq!(
            figma["headers"],
            json!({ "X-Region": "us-east-1", "Authorization": "Bearer ${FIGMA_TOKEN}", "X-Org": "${FIGMA_ORG}" })
        );
        assert_eq!(figma["disabled"], true);
        assert_eq!(
            figma["oauth"],
            json!({ "clientId": "abc", "scope": "read write" })
        );
        // Each one is an entry the workbench runs.
        for (name, entry) in &i.servers {
            crate::parse_entry(name, &serde_json::Value::Object(entry.clone())).unwrap();
        }
        // Found by its name or its tables.
        assert_eq!(
            super::super::guess(std::path::Path::new("/h/.codex/config.toml"), CONFIG),
            Dialect::Codex
        );
    }

    #[test]
    fn entries_are_written_as_codex_reads_them_and_read_back_the_same() {
        let i = import(Dialect::Codex, CONFIG).unwrap();
        let e = export(Dialect::Codex, &i.servers, &[]).unwrap();
        let back = import(Dialect::Codex, &e.text).unwrap();
        assert_eq!(back.servers, i.servers, "{}", e.text);
        assert!(
            e.text.contains("bearer_token_env_var = \"FIGMA_TOKEN\""),
            "{}",
            e.text
        );
        assert!(e.text.contains("env_vars = [\"DOCS_TOKEN\"]"), "{}", e.text);
        // What Codex cannot say is named.
        let ours = vec![(
            "local".to_string(),
            json!({ "command": "srv", "args": ["--key", "${API_KEY}"], "autoApprove": ["read"] })
                .as_object()
                .unwrap()
                .clone(),
        )];
        let e = export(Dialect::Codex, &ours, &[]).unwrap();
        assert!(
            e.notes.iter().any(|n| n.contains("does not expand")),
            "{:?}",
            e.notes
        );
        assert!(
            e.notes.iter().any(|n| n.contains("no \"autoApprove\"")),
            "{:?}",
            e.notes
        );
    }

    #[test]
    fn a_file_that_is_not_toml_says_where_and_what() {
        let e = import(
            Dialect::Codex,
            "model = \"o3\"\n[mcp_servers.x\ncommand = 1",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a codex config: line 2, column 15: unclosed table, expected `]`"
        );
        // TOML, but its servers not a table of tables.
        let i = import(Dialect::Codex, "mcp_servers = 5\n").unwrap();
        assert!(i.servers.is_empty());
        assert!(
            i.notes[0].contains("not a table of servers"),
            "{:?}",
            i.notes
        );
    }
}
