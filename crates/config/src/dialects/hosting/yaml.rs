//! A new entry added to a host's YAML (Goose's `extensions` mapping,
//! Continue's `mcpServers` list) as text: the entry's own lines inserted
//! under the key's header at the indentation the file uses, every other
//! byte kept (comments, order, quoting). The result is read back before it
//! is written: unless it holds exactly what the file held plus the entry,
//! nothing is written and the person is given the entry to paste.

use serde_json::Value;

use crate::error::{Error, Result};

/// Where entries live in this host's YAML, and how.
pub(super) enum Holder {
    /// `key:` a mapping of name → entry (Goose's `extensions`).
    Mapping(&'static str),
    /// `key:` a list of entries, each with its `name` (Continue's
    /// `mcpServers`).
    List(&'static str),
}

fn refused(message: String) -> Error {
    Error::ConfigEdit { message }
}

/// `before` (the file's text) with `entry` added as `name`; `paste` is
/// what a refusal tells the person to do instead.
pub(super) fn add(
    before: &str,
    holder: &Holder,
    name: &str,
    entry: &Value,
    paste: &str,
) -> Result<String> {
    let old: Value = if before.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_yaml_ng::from_str(before).map_err(|e| {
            refused(format!(
                "it is not YAML the workbench can read ({e}): {paste}"
            ))
        })?
    };
    let Value::Object(old_map) = &old else {
        return Err(refused(format!(
            "it does not hold a mapping at its top: {paste}"
        )));
    };
    let (key, block) = match holder {
        Holder::Mapping(key) => {
            if old_map.get(*key).and_then(|m| m.get(name)).is_some() {
                return Err(refused(format!(
                    "it has a server named \"{name}\" already: give this one another name"
                )));
            }
            let mut one = serde_json::Map::new();
            one.insert(name.to_string(), entry.clone());
            (*key, yaml(&Value::Object(one))?)
        }
        Holder::List(key) => {
            let taken = old_map
                .get(*key)
                .and_then(Value::as_array)
                .is_some_and(|l| l.iter().any(|e| e["name"] == name));
            if taken {
                return Err(refused(format!(
                    "it has a server named \"{name}\" already: give this one another name"
                )));
            }
            (*key, yaml(&Value::Array(vec![entry.clone()]))?)
        }
    };
    let text = insert(before, key, &block, holder).ok_or_else(|| {
        refused(format!(
            "its \"{key}\" is not written as a block the workbench can add to: {paste}"
        ))
    })?;
    // Read back: exactly what was there, and the entry.
    let new: Value = serde_yaml_ng::from_str(&text).map_err(|_| {
        refused(format!(
            "adding to it would not keep it valid YAML: {paste}"
        ))
    })?;
    let mut expected = old.clone();
    let (key, empty) = match holder {
        Holder::Mapping(key) => (*key, Value::Object(Default::default())),
        Holder::List(key) => (*key, Value::Array(Vec::new())),
    };
    let slot = expected
        .as_object_mut()
        .expect("a mapping")
        .entry(key.to_string())
        .or_insert_with(|| empty.clone());
    if slot.is_null() {
        *slot = empty;
    }
    match (holder, slot) {
        (Holder::Mapping(_), Value::Object(map)) => {
            map.insert(name.to_string(), entry.clone());
        }
        (Holder::List(_), Value::Array(list)) => list.insert(0, entry.clone()),
        _ => {
            return Err(refused(format!(
                "its \"{key}\" is not what that host keeps its servers in: {paste}"
            )));
        }
    }
    if new != expected {
        return Err(refused(format!(
            "the workbench could not add to it without changing something else: {paste}"
        )));
    }
    Ok(text)
}

fn yaml(v: &Value) -> Result<String> {
    serde_yaml_ng::to_string(v).map_err(|e| refused(e.to_string()))
}

/// How far a line is indented, None for a blank or comment-only line.
fn indent(line: &str) -> Option<usize> {
    let body = line.trim_start_matches(' ');
    (!body.trim().is_empty() && !body.starts_with('#')).then(|| line.len() - body.len())
}

/// The text with `block` (YAML of the entry alone) put under `key:` — after
/// its header line when it is a block, in place of an empty `{}` / `[]`,
/// or as a new key at the end.
fn insert(before: &str, key: &str, block: &str, holder: &Holder) -> Option<String> {
    let newline = if before.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let lines: Vec<&str> = before.split_inclusive('\n').collect();
    let header = lines.iter().position(|l| {
        l.strip_prefix(key)
            .and_then(|rest| rest.strip_prefix(':'))
            .is_some()
    });
    let Some(at) = header else {
        // No such key: a new one at the end.
        let mut text = before.to_string();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push_str(newline);
        }
        text.push_str(&format!("{key}:{newline}"));
        text.push_str(&indented(block, 2, newline));
        return Some(text);
    };
    let line = lines[at].trim_end_matches(['\r', '\n']);
    let value = line[key.len() + 1..].trim();
    let value = value.split(" #").next().unwrap_or("").trim();
    let empty = match holder {
        Holder::Mapping(_) => value == "{}",
        Holder::List(_) => value == "[]",
    };
    if !value.is_empty() && !value.starts_with('#') && !empty {
        // A flow value (`{ a: … }`) or anything else inline: not touched.
        return None;
    }
    // The indentation the key's children use, else two spaces (a list may
    // sit at the key's own column: `- ` under `mcpServers:`).
    let child = lines[at + 1..]
        .iter()
        .find_map(|l| indent(l).map(|n| (n, l.trim_start().starts_with('-'))));
    let width = match (child, holder) {
        (Some((n, _)), _) if n > 0 && !empty => n,
        (Some((0, true)), Holder::List(_)) if !empty => 0,
        _ => 2,
    };
    let mut text: String = lines[..at].concat();
    text.push_str(&format!("{key}:{newline}"));
    text.push_str(&indented(block, width, newline));
    text.push_str(&lines[at + 1..].concat());
    Some(text)
}

fn indented(block: &str, width: usize, newline: &str) -> String {
    let pad = " ".repeat(width);
    block
        .lines()
        .map(|l| format!("{pad}{l}{newline}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn entry() -> Value {
        json!({ "type": "stdio", "cmd": "npx", "args": ["-y", "@acme/server@1.2.0"], "enabled": true, "name": "acme" })
    }

    #[test]
    fn goose_keeps_every_byte_and_uses_the_files_indentation() {
        let before = "# my goose\nGOOSE_PROVIDER: openai   # the one I pay\nextensions:\n    developer:\n        enabled: true\n        type: builtin\n        name: developer\nGOOSE_MODEL: gpt-4o\n";
        let text = add(
            before,
            &Holder::Mapping("extensions"),
            "acme",
            &entry(),
            "paste",
        )
        .unwrap();
        assert!(
            text.starts_with(
                "# my goose\nGOOSE_PROVIDER: openai   # the one I pay\nextensions:\n    acme:\n"
            ),
            "{text}"
        );
        assert!(text.ends_with("    developer:\n        enabled: true\n        type: builtin\n        name: developer\nGOOSE_MODEL: gpt-4o\n"), "{text}");
        let v: Value = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(v["extensions"]["acme"]["args"][1], "@acme/server@1.2.0");
        let again = add(
            &text,
            &Holder::Mapping("extensions"),
            "acme",
            &entry(),
            "paste",
        )
        .unwrap_err();
        assert!(again.to_string().contains("already"), "{again}");
    }

    #[test]
    fn continue_gets_a_list_item_at_the_column_its_list_uses() {
        let before = "name: My config\nversion: 0.0.1\nmcpServers:\n- name: fs\n  command: fs-server\nmodels: []\n";
        let e = json!({ "name": "acme", "command": "npx", "args": ["-y", "@acme/server@1.2.0"] });
        let text = add(before, &Holder::List("mcpServers"), "acme", &e, "paste").unwrap();
        let v: Value = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(v["mcpServers"][0]["name"], "acme");
        assert_eq!(v["mcpServers"][1]["name"], "fs");
        assert!(
            text.starts_with("name: My config\nversion: 0.0.1\nmcpServers:\n- "),
            "{text}"
        );
        assert!(
            text.ends_with("- name: fs\n  command: fs-server\nmodels: []\n"),
            "{text}"
        );
    }

    #[test]
    fn an_empty_holder_a_missing_key_and_a_new_file() {
        let text = add(
            "extensions: {}\n",
            &Holder::Mapping("extensions"),
            "acme",
            &entry(),
            "paste",
        )
        .unwrap();
        assert_eq!(
            serde_yaml_ng::from_str::<Value>(&text).unwrap()["extensions"]["acme"]["cmd"],
            "npx"
        );
        let text = add(
            "GOOSE_MODEL: x\n",
            &Holder::Mapping("extensions"),
            "acme",
            &entry(),
            "paste",
        )
        .unwrap();
        assert!(
            text.starts_with("GOOSE_MODEL: x\nextensions:\n  acme:\n"),
            "{text}"
        );
        let text = add(
            "",
            &Holder::List("mcpServers"),
            "acme",
            &json!({ "name": "acme", "command": "x" }),
            "paste",
        )
        .unwrap();
        assert_eq!(
            serde_yaml_ng::from_str::<Value>(&text).unwrap()["mcpServers"][0]["command"],
            "x"
        );
    }

    #[test]
    fn a_flow_mapping_or_broken_yaml_is_refused_with_the_way_round() {
        let flow = "extensions: { developer: { enabled: true } }\n";
        let e = add(
            flow,
            &Holder::Mapping("extensions"),
            "acme",
            &entry(),
            "print it with export",
        )
        .unwrap_err();
        assert!(e.to_string().contains("print it with export"), "{e}");
        let broken = "extensions:\n  a: [\n";
        assert!(
            add(
                broken,
                &Holder::Mapping("extensions"),
                "acme",
                &entry(),
                "p"
            )
            .is_err()
        );
        // A header the text search finds that is not the mapping's key (in
        // a block scalar): the read-back refuses it.
        let tricky = "notes: |\n  extensions:\n  more\nextensions:\n  x:\n    cmd: y\n";
        let text = add(
            tricky,
            &Holder::Mapping("extensions"),
            "acme",
            &entry(),
            "p",
        );
        if let Ok(text) = text {
            let v: Value = serde_yaml_ng::from_str(&text).unwrap();
            assert_eq!(v["notes"], "extensions:\nmore\n");
            assert_eq!(v["extensions"]["acme"]["cmd"], "npx");
        }
    }
}
