//! The MCP Registry's `server.json`: a package (npm, PyPI, OCI image, ...)
//! with its runtime hint, arguments and environment variables, or a remote.
//! Required and secret variables become `${input:...}` references, declared
//! as inputs so the user is asked once (secrets are masked and kept in the
//! keychain).

use serde_json::{Map, Value, json};

use super::Imported;
use crate::error::{Error, Result};

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A short server name from `io.github.owner/name`.
fn short_name(full: &str) -> String {
    let last = full.rsplit('/').next().unwrap_or(full);
    let cleaned: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "server".into()
    } else {
        cleaned
    }
}

/// The launchers a `runtimeHint` may name: a file from elsewhere does not
/// get to pick the program (`"runtimeHint": "bash"`).
const LAUNCHERS: &[&str] = &[
    "npx", "bunx", "pnpm", "uvx", "uv", "pipx", "docker", "podman", "dnx",
];

/// Text from the file kept as text: a `${...}` in it would be expanded
/// (a `${secret:...}` read from the keychain, an `${env:...}` from the
/// environment) when the server starts, so it is escaped (`$${`) and said.
fn literal(text: &str, what: &str, notes: &mut Vec<String>) -> String {
    if text.contains("${") {
        notes.push(format!(
            "{what} contains \"${{...}}\" ({text}): kept as literal text, not as a reference"
        ));
        text.replace("${", "$${")
    } else {
        text.to_string()
    }
}

/// A value the file gives: a string, or nothing; anything else is refused.
fn plain<'a>(arg: &'a Value, key: &str) -> Result<Option<&'a str>> {
    match arg.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::Dialect(format!(
            "an argument's \"{key}\" is {other}, not a plain value: refused"
        ))),
    }
}

/// The values of positional and named arguments (`packageArguments`).
fn arguments(list: Option<&Value>, notes: &mut Vec<String>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for arg in list.and_then(Value::as_array).into_iter().flatten() {
        let value = match plain(arg, "value")? {
            Some(v) => Some(v),
            None => plain(arg, "default")?,
        };
        match str_of(arg, "type") {
            Some("named") => {
                if let Some(name) = plain(arg, "name")? {
                    out.push(literal(name, "an argument's name", notes));
                }
                if let Some(v) = value {
                    out.push(literal(v, "an argument", notes));
                }
            }
            None | Some("positional") => {
                if let Some(v) = match value {
                    Some(v) => Some(v),
                    None => plain(arg, "valueHint")?,
                } {
                    out.push(literal(v, "an argument", notes));
                }
            }
            Some(other) => {
                return Err(Error::Dialect(format!(
                    "an argument of type \"{other}\" is not known: refused"
                )));
            }
        }
    }
    Ok(out)
}

pub fn import(doc: &Value) -> Result<Imported> {
    let full =
        str_of(doc, "name").ok_or_else(|| Error::Dialect("server.json has no \"name\"".into()))?;
    let name = short_name(full);
    let mut out = Imported::default();
    let mut entry = Map::new();
    if let Some(d) = str_of(doc, "description") {
        entry.insert("description".into(), json!(d));
    }
    let ask = |out: &mut Imported, var: &Value| -> Option<String> {
        let var_name = str_of(var, "name")?;
        let required = var.get("isRequired").and_then(Value::as_bool) == Some(true);
        let secret = var.get("isSecret").and_then(Value::as_bool) == Some(true);
        if let Some(fixed) = str_of(var, "value").filter(|v| !v.contains('{')) {
            return Some(fixed.to_string());
        }
        if !(required || secret) {
            return str_of(var, "default")
                .map(|d| literal(d, &format!("the default of {var_name}"), &mut out.notes));
        }
        let id = format!("{name}-{}", var_name.to_ascii_lowercase().replace('_', "-"));
        out.inputs.push(json!({
            "type": "promptString",
            "id": id,
            "description": str_of(var, "description").unwrap_or(var_name),
            "password": secret,
        }));
        Some(format!("${{input:{id}}}"))
    };
    let package = doc
        .get("packages")
        .and_then(Value::as_array)
        .and_then(|p| p.first());
    if let Some(pkg) = package {
        let id = str_of(pkg, "identifier")
            .ok_or_else(|| Error::Dialect("the package has no \"identifier\"".into()))?;
        let version = str_of(pkg, "version");
        let kind = str_of(pkg, "registryType").unwrap_or("npm");
        let (default_cmd, mut args): (&str, Vec<String>) = match kind {
            "npm" => (
                "npx",
                vec![
                    "-y".into(),
                    version.map_or(id.to_string(), |v| format!("{id}@{v}")),
                ],
            ),
            "pypi" => (
                "uvx",
                vec![version.map_or(id.to_string(), |v| format!("{id}=={v}"))],
            ),
            "oci" | "docker" => (
                "docker",
                vec![
                    "run".into(),
                    "-i".into(),
                    "--rm".into(),
                    version.map_or(id.to_string(), |v| format!("{id}:{v}")),
                ],
            ),
            "nuget" => (
                "dnx",
                vec![version.map_or(id.to_string(), |v| format!("{id}@{v}"))],
            ),
            other => {
                return Err(Error::Dialect(format!(
                    "packages of type \"{other}\" cannot be run from an mcp.json entry"
                )));
            }
        };
        let runtime_args = arguments(pkg.get("runtimeArguments"), &mut out.notes)?;
        if !runtime_args.is_empty() {
            // Runtime arguments go before the package (docker run -e ..., npx --flag).
            let at = if kind == "oci" || kind == "docker" {
                3
            } else {
                0
            };
            for (i, a) in runtime_args.into_iter().enumerate() {
                args.insert(at + i, a);
            }
        }
        args.extend(arguments(pkg.get("packageArguments"), &mut out.notes)?);
        let command = match str_of(pkg, "runtimeHint") {
            None => default_cmd,
            Some(hint) if LAUNCHERS.contains(&hint) => hint,
            Some(hint) => {
                return Err(Error::Dialect(format!(
                    "runtimeHint \"{hint}\" is not a known launcher ({}): refused",
                    LAUNCHERS.join(", ")
                )));
            }
        };
        entry.insert("command".into(), json!(command));
        entry.insert("args".into(), json!(args));
        let mut env = Map::new();
        for var in pkg
            .get("environmentVariables")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(n), Some(v)) = (str_of(var, "name"), ask(&mut out, var)) {
                env.insert(n.to_string(), json!(v));
            }
        }
        if !env.is_empty() {
            entry.insert("env".into(), Value::Object(env));
        }
        let transport = pkg.get("transport").and_then(|t| str_of(t, "type"));
        if transport.is_some_and(|t| t != "stdio") {
            out.notes.push(format!(
                "{name}: the package serves {} itself; it is run over stdio here",
                transport.unwrap_or_default()
            ));
        }
    } else if let Some(remote) = doc
        .get("remotes")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
    {
        let url = str_of(remote, "url")
            .ok_or_else(|| Error::Dialect("the remote has no \"url\"".into()))?;
        let t = match str_of(remote, "type") {
            Some("sse") => "sse",
            _ => "http",
        };
        let url = literal(url, "the remote's URL", &mut out.notes);
        entry.insert("type".into(), json!(t));
        entry.insert("url".into(), json!(url));
        let mut headers = Map::new();
        for h in remote
            .get("headers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(n), Some(v)) = (str_of(h, "name"), ask(&mut out, h)) {
                headers.insert(n.to_string(), json!(v));
            }
        }
        if !headers.is_empty() {
            entry.insert("headers".into(), Value::Object(headers));
        }
    } else {
        return Err(Error::Dialect(
            "server.json has neither \"packages\" nor \"remotes\"".into(),
        ));
    }
    out.servers.push((name, entry));
    Ok(out)
}
