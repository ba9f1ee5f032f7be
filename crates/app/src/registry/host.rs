//! A registry server added into a host's own file (Claude Desktop's,
//! VS Code's, …) in that host's shape: each value it asks for given then,
//! a secret written as text only with the person's word, VS Code's kept as
//! its own inputs.

use std::path::Path;

use serde_json::Value;
use workbench_core::config::dialects::hosting::Secrets;
use workbench_core::config::dialects::{self, Dialect};
use workbench_core::{ErrorCode, ErrorInfo};

use super::{AddRequest, Listed, RegistryAdded, answers, preview, with_defaults};

/// Add the version `listed` to the host's file `path` in its dialect.
/// Every value it asks for is written into the entry as given (a choice
/// left out takes its default), except where the host asks for it itself
/// (VS Code's `inputs`: its secrets stay `${input:ID}`, asked and kept by
/// VS Code). A secret written as plain text needs `plain_text_ok`; a value
/// nobody gave is refused, naming the `--input` it needs. Nothing is
/// written when anything is refused.
pub(super) fn add(
    listed: &Listed,
    path: &Path,
    request: &AddRequest<'_>,
) -> Result<RegistryAdded, ErrorInfo> {
    let mut preview = preview(listed, request.pick)?;
    let named = preview.name.clone();
    if let Some(n) = request.as_name {
        preview.name = n.to_string();
    }
    let text = workbench_core::config::files::read_no_follow(path, 64 * 1024 * 1024)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default();
    let dialect = dialects::guess(path, &text);
    let given = with_defaults(
        &preview.inputs,
        answers(&preview.inputs, request.answers, &named)?,
    );
    let kept_by = dialects::hosting::secrets(dialect);
    let host_asks = kept_by == Secrets::HostAsks;
    // A host that reads a secret from its own environment gets the
    // variable's name, not the value, unless the person agreed to plain text.
    let from_env = kept_by == Secrets::Environment && !request.plain_text_ok;
    let mut to_set: Vec<String> = Vec::new();
    let mut values: Vec<(String, String)> = Vec::new();
    let mut kept: Vec<Value> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let mut plain: Vec<String> = Vec::new();
    for decl in &preview.inputs {
        let Some(id) = decl.get("id").and_then(Value::as_str) else {
            continue;
        };
        let secret = decl.get("password").and_then(Value::as_bool) == Some(true);
        let answer = given
            .iter()
            .find(|a| a.id == id)
            .map(|a| a.value.to_string());
        match answer {
            Some(_) | None if host_asks && secret => kept.push(decl.clone()),
            Some(_) | None if from_env && secret => {
                let var = variable_for(&preview.entry, id);
                values.push((id.to_string(), format!("${{{var}}}")));
                to_set.push(var);
            }
            Some(v) => {
                if secret {
                    plain.push(id.to_string());
                }
                values.push((id.to_string(), v));
            }
            None if host_asks => kept.push(decl.clone()),
            None => missing.push(id.to_string()),
        }
    }
    let file = path.display().to_string();
    if !missing.is_empty() {
        return Err(crate::invalid(format!(
            "the host reads {file} as it is and asks for nothing itself: give {} now",
            missing
                .iter()
                .map(|m| format!("--input {m}=VALUE"))
                .collect::<Vec<_>>()
                .join(" ")
        )));
    }
    if !plain.is_empty() && !request.plain_text_ok {
        return Err(ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "{} would be written into {file} as plain text (the host keeps its config as text, with no secret store): agree with --plain-text, or add it to the workbench (its keychain) and tap it from the host",
                plain.join(", "),
            ),
        ));
    }
    let mut entry = Value::Object(preview.entry);
    fill(&mut entry, &values);
    let Value::Object(entry) = entry else {
        unreachable!("an entry stays an object")
    };
    let mut notes = preview.notes;
    notes.extend(
        plain
            .iter()
            .map(|id| format!("{id} is written into {file} as plain text")),
    );
    notes.extend(to_set.iter().map(|var| {
        format!(
            "{file} names {var}, not its value: set {var} in the environment {} starts in",
            host_name(dialect)
        )
    }));
    notes.extend(
        dialects::hosting::add(path, dialect, &preview.name, &entry, &kept)
            .map_err(|e| ErrorInfo::from(workbench_core::Error::from(e)))?,
    );
    Ok(RegistryAdded {
        name: preview.name,
        file,
        version: listed.version.clone(),
        inputs: Vec::new(),
        notes,
    })
}

/// The host a dialect's file is read by, as a person names it.
fn host_name(d: Dialect) -> &'static str {
    match d {
        Dialect::Codex => "Codex",
        Dialect::Gemini => "Gemini CLI",
        Dialect::ClaudeCode => "Claude Code",
        other => other.id(),
    }
}

/// The variable a secret input is read from in the host's environment:
/// the env key whose whole value it is (`WEATHER_API_KEY`), else its id
/// written as a variable (`GITHUB_MCP_SERVER_TOKEN`).
fn variable_for(entry: &serde_json::Map<String, Value>, id: &str) -> String {
    let reference = format!("${{input:{id}}}");
    entry
        .get("env")
        .and_then(Value::as_object)
        .and_then(|env| {
            env.iter()
                .find(|(_, v)| v.as_str() == Some(reference.as_str()))
                .map(|(k, _)| k.clone())
        })
        .unwrap_or_else(|| {
            id.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_uppercase()
                    } else {
                        '_'
                    }
                })
                .collect()
        })
}

/// `${input:ID}` replaced by its value, in every string of `v` (the entry
/// a host's file gets; the publish check's run of an entry).
pub(crate) fn fill(v: &mut Value, values: &[(String, String)]) {
    match v {
        Value::String(s) => {
            for (id, value) in values {
                *s = s.replace(&format!("${{input:{id}}}"), value);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| fill(x, values)),
        Value::Object(o) => o.values_mut().for_each(|x| fill(x, values)),
        _ => {}
    }
}
