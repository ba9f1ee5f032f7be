//! A host's TOML file (Codex's `config.toml`) read and edited in place:
//! its servers are the `[mcp_servers.NAME]` tables; an edit changes the
//! keys it must through `toml_edit`, so comments, order and every other
//! table keep their bytes.

use std::path::Path;

use serde_json::{Map, Value};
use toml_edit::{DocumentMut, Item, Table};

use crate::error::{Error, Result};

/// Whether `path` is a TOML host file.
pub(crate) fn is_toml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "toml")
}

/// A TOML error in one line: where (line and column) and what, not the
/// parser's drawing of the line.
pub(crate) fn said(text: &str, message: &str, span: Option<std::ops::Range<usize>>) -> String {
    let message = message.trim();
    match span {
        Some(at) => {
            let before = &text[..at.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message.to_string(),
    }
}

fn invalid(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::ConfigEdit {
        message: format!("{} is not TOML the workbench can read: {e}", path.display()),
    }
}

/// The servers of the file, by name, in its order (each its table as JSON).
pub(crate) fn servers(path: &Path, text: &str) -> Result<Vec<(String, Map<String, Value>)>> {
    let doc: Value =
        toml::from_str(text).map_err(|e| invalid(path, said(text, e.message(), e.span())))?;
    Ok(doc
        .get("mcp_servers")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_object().map(|o| (k.clone(), o.clone())))
                .collect()
        })
        .unwrap_or_default())
}

fn parse(path: &Path, text: &str) -> Result<DocumentMut> {
    text.parse::<DocumentMut>()
        .map_err(|e| invalid(path, said(text, e.message(), e.span())))
}

/// A JSON value as TOML (text and lists of text, numbers, booleans).
fn value(v: &Value) -> Option<toml_edit::Value> {
    Some(match v {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64()?.into(),
        },
        Value::Array(items) => {
            let mut list = toml_edit::Array::new();
            for i in items {
                list.push(value(i)?);
            }
            list.into()
        }
        _ => return None,
    })
}

/// Server `name`'s `command` and `args` set (an `args` of null removed),
/// every other byte of the file as it was.
pub(crate) fn set_launch(
    path: &Path,
    text: &str,
    name: &str,
    command: &Value,
    args: &Value,
) -> Result<String> {
    let mut doc = parse(path, text)?;
    let table = doc
        .get_mut("mcp_servers")
        .and_then(|s| s.get_mut(name))
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| Error::ConfigEdit {
            message: format!("there is no server named \"{name}\" in {}", path.display()),
        })?;
    let command = value(command).ok_or_else(|| invalid(path, "a command must be text"))?;
    table.insert("command", Item::Value(command));
    match value(args) {
        Some(args) if !args.is_str() => {
            table.insert("args", Item::Value(args));
        }
        _ => {
            table.remove("args");
        }
    }
    Ok(doc.to_string())
}

/// The server `name` of `written` (a whole file of the dialect, with that
/// server in it) added to the file's `mcp_servers`; refused when the file
/// has one of that name.
pub(crate) fn add(path: &Path, text: &str, written: &str, name: &str) -> Result<String> {
    let new = parse(path, written)?;
    let mut entry = new
        .get("mcp_servers")
        .and_then(|s| s.get(name))
        .cloned()
        .ok_or_else(|| invalid(path, "the entry was not written"))?;
    let mut doc = parse(path, text)?;
    // After the file's last server (else after every table), the tables
    // after it moved down; a blank line before its header.
    let mut last = None;
    if let Some(servers) = doc.get("mcp_servers").and_then(Item::as_table) {
        last_position(servers, &mut last);
    }
    if last.is_none() {
        last_position(doc.as_table(), &mut last);
    }
    let start = last.map_or(0, |l| l + 1);
    let mut next = start;
    if let Some(table) = entry.as_table_mut() {
        place(table, &mut next);
        if !text.trim().is_empty() {
            table.decor_mut().set_prefix("\n");
        }
    }
    shift(doc.as_table_mut(), start, next - start);
    let servers = doc.entry("mcp_servers").or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    let servers = servers
        .as_table_like_mut()
        .ok_or_else(|| invalid(path, "mcp_servers is not a table"))?;
    if servers.contains_key(name) {
        return Err(Error::ConfigEdit {
            message: format!(
                "{} has a server named \"{name}\" already: give this one another name",
                path.display()
            ),
        });
    }
    servers.insert(name, entry);
    Ok(doc.to_string())
}

/// The highest position of the tables under `table`.
fn last_position(table: &Table, last: &mut Option<isize>) {
    for (_, item) in table.iter() {
        if let Some(t) = item.as_table() {
            if let Some(p) = t.position() {
                *last = Some(last.map_or(p, |l| l.max(p)));
            }
            last_position(t, last);
        }
    }
}

/// Every table at `from` or after moved down by `by`.
fn shift(table: &mut Table, from: isize, by: isize) {
    for (_, item) in table.iter_mut() {
        if let Some(t) = item.as_table_mut() {
            if let Some(p) = t.position().filter(|p| *p >= from) {
                t.set_position(Some(p + by));
            }
            shift(t, from, by);
        }
    }
}

/// `table` and the tables under it placed from `next` on, in their order.
fn place(table: &mut Table, next: &mut isize) {
    table.set_position(Some(*next));
    *next += 1;
    for (_, item) in table.iter_mut() {
        if let Some(t) = item.as_table_mut() {
            place(t, next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FILE: &str = r#"# my Codex
model = "gpt-5-codex"

[mcp_servers.docs]
command = "npx" # the launcher
args = ["-y", "@acme/docs-mcp"]

[mcp_servers.docs.env]
DEBUG = "1"

[profiles.fast]
model = "o4-mini"
"#;

    fn p() -> &'static Path {
        Path::new("/h/.codex/config.toml")
    }

    #[test]
    fn a_servers_launch_is_set_and_every_other_byte_kept() {
        let out = set_launch(
            p(),
            FILE,
            "docs",
            &json!("/bin/mcpwb"),
            &json!(["tap", "--name=docs", "--", "npx", "-y", "@acme/docs-mcp"]),
        )
        .unwrap();
        assert!(
            out.starts_with("# my Codex\nmodel = \"gpt-5-codex\"\n\n[mcp_servers.docs]\n"),
            "{out}"
        );
        assert!(
            out.contains("[mcp_servers.docs.env]\nDEBUG = \"1\"\n\n[profiles.fast]"),
            "{out}"
        );
        let back = set_launch(
            p(),
            &out,
            "docs",
            &json!("npx"),
            &json!(["-y", "@acme/docs-mcp"]),
        )
        .unwrap();
        let servers = servers(p(), &back).unwrap();
        assert_eq!(servers[0].1["command"], "npx");
        assert_eq!(servers[0].1["args"], json!(["-y", "@acme/docs-mcp"]));
        assert!(
            back.contains("# my Codex") && back.contains("[profiles.fast]"),
            "{back}"
        );
    }

    #[test]
    fn a_server_is_added_once_and_the_rest_kept() {
        let written = "[mcp_servers.acme]\nurl = \"https://acme.example/mcp\"\nbearer_token_env_var = \"ACME_TOKEN\"\n\n[mcp_servers.acme.http_headers]\nX-Org = \"o\"\n";
        let out = add(p(), FILE, written, "acme").unwrap();
        // After the last server's tables, before the rest of the file.
        let (servers_part, rest) = FILE.split_at(FILE.find("[profiles.fast]").unwrap());
        assert_eq!(
            out,
            format!(
                "{servers_part}[mcp_servers.acme]\nurl = \"https://acme.example/mcp\"\nbearer_token_env_var = \"ACME_TOKEN\"\n\n[mcp_servers.acme.http_headers]\nX-Org = \"o\"\n\n{rest}"
            )
        );
        let names: Vec<String> = servers(p(), &out)
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["docs", "acme"]);
        let again = add(p(), &out, written, "acme").unwrap_err();
        assert!(again.to_string().contains("already"), "{again}");
        // Into an empty file.
        let fresh = add(p(), "", written, "acme").unwrap();
        assert_eq!(
            servers(p(), &fresh).unwrap()[0].1["url"],
            "https://acme.example/mcp"
        );
    }
}
