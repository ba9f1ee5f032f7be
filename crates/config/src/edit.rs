//! Edits to mcp.json that change only the bytes they must: through a
//! concrete syntax tree, so comments, unknown keys, key order, indentation
//! and the trailing newline of everything else survive.

use std::path::Path;

use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::{Map, Value};

use super::ConfigFile;
use crate::error::{Error, Result};

/// One change to the servers of a file (also what the window sends).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EditOp {
    /// Create the server or update it: each key of `fields` gets that value
    /// (`null` removes the key); keys not named keep their text. Objects and
    /// arrays are compared piecewise, so an unchanged `env` keeps its comments.
    Upsert {
        /// The entry's name.
        name: String,
        /// The keys to set (`null` removes one).
        fields: Map<String, Value>,
    },
    /// Remove the entry.
    Remove {
        /// The entry's name.
        name: String,
    },
    /// Rename the entry, keeping its text.
    Rename {
        /// The name now.
        from: String,
        /// The new name.
        to: String,
    },
    /// Sets `disabled` (or flips `enabled`, if the entry uses that key).
    SetDisabled {
        /// The entry's name.
        name: String,
        /// Disabled or not.
        disabled: bool,
    },
    /// Declare an input (`{"type": "promptString", "id", ...}`) in the
    /// top-level `inputs` list, unless one with that id is there.
    AddInput {
        /// The declaration, as written into the file.
        decl: Value,
    },
}

impl EditOp {
    /// The server this edit is about (its new name for a rename).
    pub fn server(&self) -> &str {
        match self {
            EditOp::Upsert { name, .. }
            | EditOp::Remove { name }
            | EditOp::SetDisabled { name, .. } => name,
            EditOp::Rename { to, .. } => to,
            EditOp::AddInput { .. } => "",
        }
    }
}

/// Convert a JSON value for insertion, keeping its key order.
pub fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// Make `object`'s property `key` equal `value`, touching as little as possible.
fn set_prop(object: &CstObject, key: &str, value: &Value) {
    let Some(prop) = object.get(key) else {
        object.append(key, input(value));
        return;
    };
    let current = prop.to_serde_value();
    if current.as_ref() == Some(value) {
        return;
    }
    match (prop.object_value(), value) {
        (Some(inner), Value::Object(wanted)) => {
            for existing in inner.properties() {
                let Some(name) = existing.name().and_then(|n| n.decoded_value().ok()) else {
                    continue;
                };
                if !wanted.contains_key(&name) {
                    existing.remove();
                }
            }
            for (k, v) in wanted {
                set_prop(&inner, k, v);
            }
        }
        _ => prop.set_value(input(value)),
    }
}

/// The objects that hold the servers: `mcpServers` and `servers` (a file
/// may have both: every reader takes both), or a new `mcpServers`.
fn servers_objects(root: &CstRootNode, path: &Path) -> Result<Vec<CstObject>> {
    let invalid = |message: &str| Error::ConfigInvalid {
        path: path.to_path_buf(),
        pointer: String::new(),
        message: message.to_string(),
    };
    let object = match root.value() {
        None => root.object_value_or_set(),
        Some(v) => v
            .as_object()
            .ok_or_else(|| invalid("the file must hold a JSON object"))?,
    };
    let mut found = Vec::new();
    for key in ["mcpServers", "servers"] {
        if let Some(prop) = object.get(key) {
            found.push(prop.object_value().ok_or_else(|| Error::ConfigInvalid {
                path: path.to_path_buf(),
                pointer: format!("/{key}"),
                message: "must be an object mapping server names to their settings".into(),
            })?);
        }
    }
    if found.is_empty() {
        found.push(object.object_value_or_set("mcpServers"));
    }
    Ok(found)
}

fn find(servers: &[CstObject], name: &str) -> Option<jsonc_parser::cst::CstObjectProp> {
    servers.iter().find_map(|object| {
        object
            .properties()
            .into_iter()
            .find(|p| p.name().and_then(|n| n.decoded_value().ok()).as_deref() == Some(name))
    })
}

/// Apply `op` to the text of `path`. The text must parse; the result is
/// checked to parse too. Errors name the server and say what is wrong.
pub fn apply(path: &Path, text: &str, op: &EditOp) -> Result<String> {
    // A syntax error is reported exactly as loading reports it.
    if !text.trim().is_empty() {
        super::parse_jsonc(path, text)?;
    }
    let root = CstRootNode::parse(text, &super::parse::jsonc_options()).map_err(|e| {
        Error::ConfigSyntax {
            path: path.to_path_buf(),
            line: e.line_display(),
            column: e.column_display(),
            message: e.kind().to_string(),
        }
    })?;
    let servers = servers_objects(&root, path)?;
    let unknown = |name: &str| Error::ConfigEdit {
        message: format!("there is no server named \"{name}\" in {}", path.display()),
    };
    match op {
        EditOp::Upsert { name, fields } => match find(&servers, name) {
            Some(prop) => {
                let Some(entry) = prop.object_value() else {
                    prop.set_value(input(&Value::Object(without_nulls(fields))));
                    return finish(path, &root, text);
                };
                for (k, v) in fields {
                    if v.is_null() {
                        if let Some(p) = entry.get(k) {
                            p.remove();
                        }
                    } else {
                        set_prop(&entry, k, v);
                    }
                }
            }
            None => {
                servers[0].append(name, input(&Value::Object(without_nulls(fields))));
            }
        },
        EditOp::Remove { name } => {
            let prop = find(&servers, name).ok_or_else(|| unknown(name))?;
            let used = inputs_used(prop.to_serde_value());
            prop.remove();
            drop_inputs_none_use(&root, &servers, used);
        }
        EditOp::Rename { from, to } => {
            if from == to {
                return Ok(text.to_string());
            }
            if find(&servers, to).is_some() {
                return Err(Error::ConfigEdit {
                    message: format!("a server named \"{to}\" already exists"),
                });
            }
            let prop = find(&servers, from).ok_or_else(|| unknown(from))?;
            match prop.name() {
                Some(jsonc_parser::cst::ObjectPropName::String(lit)) => {
                    lit.set_raw_value(Value::String(to.clone()).to_string())
                }
                Some(jsonc_parser::cst::ObjectPropName::Word(lit)) => {
                    lit.set_raw_value(Value::String(to.clone()).to_string())
                }
                None => return Err(unknown(from)),
            }
        }
        EditOp::AddInput { decl } => {
            let root_object = root.object_value_or_set();
            let list = root_object.array_value_or_set("inputs");
            let id = decl.get("id");
            let known = list
                .elements()
                .iter()
                .any(|e| e.to_serde_value().as_ref().and_then(|v| v.get("id")) == id);
            if !known {
                list.append(input(decl));
            }
        }
        EditOp::SetDisabled { name, disabled } => {
            let prop = find(&servers, name).ok_or_else(|| unknown(name))?;
            let entry = prop.object_value().ok_or_else(|| Error::ConfigEdit {
                message: format!("the entry \"{name}\" is not an object"),
            })?;
            if let Some(enabled) = entry.get("enabled") {
                enabled.set_value(CstInputValue::Bool(!disabled));
            } else if let Some(flag) = entry.get("disabled") {
                flag.set_value(CstInputValue::Bool(*disabled));
            } else if *disabled {
                entry.append("disabled", CstInputValue::Bool(true));
            }
        }
    }
    finish(path, &root, text)
}

/// The `${input:ID}` ids a value refers to.
fn inputs_used(value: Option<Value>) -> Vec<String> {
    let text = value.map(|v| v.to_string()).unwrap_or_default();
    crate::vars::keychain_refs(&text)
        .into_iter()
        .filter_map(|r| r.strip_prefix("input/").map(str::to_string))
        .collect()
}

/// A removed entry's inputs that no entry left in the file refers to are
/// removed with it (a bundle's or a registry server's `NAME-api-key`);
/// one another entry uses, or the entry did not use, stays.
fn drop_inputs_none_use(root: &CstRootNode, servers: &[CstObject], used: Vec<String>) {
    let still: Vec<String> = servers
        .iter()
        .flat_map(|o| o.properties())
        .flat_map(|p| inputs_used(p.to_serde_value()))
        .collect();
    let gone: Vec<&String> = used.iter().filter(|id| !still.contains(id)).collect();
    let Some(list) = root
        .value()
        .and_then(|v| v.as_object())
        .and_then(|o| o.get("inputs"))
        .and_then(|p| p.array_value())
    else {
        return;
    };
    for element in list.elements() {
        let id = element
            .to_serde_value()
            .and_then(|v| v.get("id").and_then(Value::as_str).map(str::to_string));
        if id.is_some_and(|id| gone.contains(&&id)) {
            element.remove();
        }
    }
}

fn without_nulls(fields: &Map<String, Value>) -> Map<String, Value> {
    fields
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn finish(path: &Path, root: &CstRootNode, original: &str) -> Result<String> {
    let mut out = root.to_string();
    // A new file ends with a newline; an existing one keeps its ending.
    if (original.trim().is_empty() || original.ends_with('\n')) && !out.ends_with('\n') {
        out.push('\n');
    }
    // Never hand back text that would not load.
    ConfigFile::parse(path, &out)?;
    Ok(out)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod props;
