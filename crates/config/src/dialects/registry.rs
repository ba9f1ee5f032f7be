//! The MCP Registry's `server.json`: a package (npm, PyPI, OCI image,
//! NuGet, crates.io) with its runtime hint, arguments and environment
//! variables, or a remote with its headers and URL variables. The version
//! is pinned. A value the person must give (required, secret, or one of
//! `choices`) becomes an `${input:...}` reference, declared as an input so
//! they are asked once (secrets masked and kept in the keychain; choices a
//! pick list); `{var}` templates are resolved through their `variables`.
//! Optional values with nothing to write are left out and said. Text from
//! the file never becomes a reference, and it never picks the program: a
//! `runtimeHint` must be a known launcher.

use serde_json::{Map, Value, json};

use super::Imported;
use crate::error::{Error, Result};

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

/// The id of the input an entry made from server.json asks for: the
/// entry's name and what server.json calls the value (`WEATHER_API_KEY`,
/// `--port`, a header, a URL's `{token}`), as `weather-weather-api-key`.
pub fn input_id(server: &str, label: &str) -> String {
    let slug: String = label
        .trim_start_matches('-')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("{server}-{}", slug.trim_matches('-'))
}

/// A short server name from `io.github.owner/name` (or any name): its
/// last part, each character outside letters, digits, `-` and `_` a `-`.
pub fn short_name(full: &str) -> String {
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

/// Which way to run the server: a package or a remote, by its place in
/// the file's lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pick {
    /// The first package, else the first remote.
    #[default]
    First,
    /// The package at this place in `packages` (from 0).
    Package(usize),
    /// The remote at this place in `remotes` (from 0).
    Remote(usize),
}

/// The ways a `server.json` offers, one line each (`npm @scope/pkg 1.2.0`,
/// `remote streamable-http https://…`), in the order [`Pick`] counts them.
pub fn ways(doc: &Value) -> (Vec<String>, Vec<String>) {
    let list = |key: &str| {
        doc.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let packages = list("packages")
        .iter()
        .map(|p| {
            format!(
                "{} {}{}",
                str_of(p, "registryType").unwrap_or("?"),
                str_of(p, "identifier").unwrap_or("?"),
                str_of(p, "version")
                    .map(|v| format!(" {v}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    let remotes = list("remotes")
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                str_of(r, "type").unwrap_or("?"),
                str_of(r, "url").unwrap_or("?")
            )
        })
        .collect();
    (packages, remotes)
}

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

/// A value the file gives: a string (a number or a boolean as its text),
/// or nothing; anything else is refused.
fn plain(input: &Value, key: &str) -> Result<Option<String>> {
    match input.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => Ok(Some(v.to_string())),
        Some(other) => Err(Error::Dialect(format!(
            "an input's \"{key}\" is {other}, not a plain value: refused"
        ))),
    }
}

/// Turns the file's inputs into values, declaring the inputs the person
/// will be asked for.
struct Values<'a> {
    server: &'a str,
    out: &'a mut Imported,
}

impl Values<'_> {
    /// The value to write for `input` (an env var, a header, an argument
    /// or a template's variable) called `label`; None: left out.
    fn of(&mut self, input: &Value, label: &str) -> Result<Option<String>> {
        let secret = flag(input, "isSecret");
        if let Some(value) = plain(input, "value")? {
            let vars = input.get("variables").and_then(Value::as_object);
            return match vars {
                Some(vars) if value.contains('{') => self.template(&value, vars, label).map(Some),
                _ => {
                    if secret {
                        self.out.notes.push(format!(
                            "{}: {label}'s value is fixed by server.json and written as plain text",
                            self.server
                        ));
                    }
                    Ok(Some(literal(&value, label, &mut self.out.notes)))
                }
            };
        }
        let choices: Vec<String> = input
            .get("choices")
            .and_then(Value::as_array)
            .map(|c| c.iter().filter_map(plain_item).collect())
            .unwrap_or_default();
        let default = plain(input, "default")?;
        let required = flag(input, "isRequired");
        if !choices.is_empty() || required || secret {
            return Ok(Some(self.ask(input, label, &choices, default, secret)));
        }
        match default {
            Some(d) => Ok(Some(literal(
                &d,
                &format!("the default of {label}"),
                &mut self.out.notes,
            ))),
            None => {
                let what = str_of(input, "description")
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                self.out.notes.push(format!(
                    "{}: {label}{what} is optional and has no default: left out (add it to the entry to set it)",
                    self.server
                ));
                Ok(None)
            }
        }
    }

    /// Declare an input and return its reference.
    fn ask(
        &mut self,
        input: &Value,
        label: &str,
        choices: &[String],
        default: Option<String>,
        secret: bool,
    ) -> String {
        let id = input_id(self.server, label);
        let mut description = str_of(input, "description").unwrap_or(label).to_string();
        if str_of(input, "format") == Some("filepath") {
            description.push_str(" (a file path)");
            if !self.out.path_inputs.contains(&id) {
                self.out.path_inputs.push(id.clone());
            }
        }
        let mut decl = if choices.is_empty() {
            json!({ "type": "promptString", "id": id, "description": description, "password": secret })
        } else {
            json!({ "type": "pickString", "id": id, "description": description, "options": choices })
        };
        if let Some(d) = default {
            decl["default"] = json!(d);
        }
        if !self
            .out
            .inputs
            .iter()
            .any(|i| i.get("id").and_then(Value::as_str) == Some(id.as_str()))
        {
            self.out.inputs.push(decl);
        }
        format!("${{input:{id}}}")
    }

    /// `{var}` in `value` replaced by each variable's value.
    fn template(&mut self, value: &str, vars: &Map<String, Value>, label: &str) -> Result<String> {
        let value = literal(value, label, &mut self.out.notes);
        let mut out = String::new();
        let mut rest = value.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match after.find('}') {
                Some(close) if vars.contains_key(&after[..close]) => {
                    let name = &after[..close];
                    let v = self.of(&vars[name], name)?.unwrap_or_default();
                    out.push_str(&v);
                    rest = &after[close + 1..];
                }
                _ => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }

    /// The values of positional and named arguments.
    fn arguments(&mut self, list: Option<&Value>) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for arg in list.and_then(Value::as_array).into_iter().flatten() {
            match str_of(arg, "type") {
                Some("named") => {
                    let Some(name) = plain(arg, "name")? else {
                        continue;
                    };
                    let name = literal(&name, "an argument's name", &mut self.out.notes);
                    let has_value = ["value", "default", "choices", "description", "valueHint"]
                        .iter()
                        .any(|k| arg.get(*k).is_some())
                        || flag(arg, "isRequired");
                    if !has_value {
                        // A flag: the name alone.
                        out.push(name);
                    } else if let Some(v) = self.of(arg, &name)? {
                        out.push(name);
                        out.push(v);
                    }
                }
                None | Some("positional") => {
                    let label = plain(arg, "valueHint")?.unwrap_or_else(|| "argument".into());
                    if let Some(v) = self.of(arg, &label)? {
                        out.push(v);
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

    /// `NAME -> value` of environment variables or headers.
    fn pairs(&mut self, list: Option<&Value>) -> Result<Map<String, Value>> {
        let mut out = Map::new();
        for var in list.and_then(Value::as_array).into_iter().flatten() {
            let Some(name) = str_of(var, "name") else {
                continue;
            };
            if let Some(v) = self.of(var, name)? {
                out.insert(name.to_string(), json!(v));
            }
        }
        Ok(out)
    }
}

fn plain_item(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        _ => None,
    }
}

/// The server.json as an entry, by its first package (else remote).
pub fn import(doc: &Value) -> Result<Imported> {
    import_pick(doc, Pick::First)
}

/// The server.json as an entry, run the way `pick` says.
pub fn import_pick(doc: &Value, pick: Pick) -> Result<Imported> {
    let full =
        str_of(doc, "name").ok_or_else(|| Error::Dialect("server.json has no \"name\"".into()))?;
    let name = short_name(full);
    let mut out = Imported::default();
    let mut entry = Map::new();
    if let Some(d) = str_of(doc, "description") {
        entry.insert("description".into(), json!(d));
    }
    let nth = |key: &str, i: usize| {
        doc.get(key)
            .and_then(Value::as_array)
            .and_then(|l| l.get(i))
    };
    let (package, remote) =
        match pick {
            Pick::First => (nth("packages", 0), nth("remotes", 0)),
            Pick::Package(i) => (
                Some(nth("packages", i).ok_or_else(|| {
                    Error::Dialect(format!("server.json has no package {}", i + 1))
                })?),
                None,
            ),
            Pick::Remote(i) => (
                None,
                Some(nth("remotes", i).ok_or_else(|| {
                    Error::Dialect(format!("server.json has no remote {}", i + 1))
                })?),
            ),
        };
    let mut values = Values {
        server: &name,
        out: &mut out,
    };
    if let Some(pkg) = package {
        package_entry(pkg, &mut values, &mut entry)?;
    } else if let Some(remote) = remote {
        let url = str_of(remote, "url")
            .ok_or_else(|| Error::Dialect("the remote has no \"url\"".into()))?;
        let t = match str_of(remote, "type") {
            Some("sse") => "sse",
            _ => "http",
        };
        let url = match remote.get("variables").and_then(Value::as_object) {
            Some(vars) if url.contains('{') => values.template(url, vars, "the remote's URL")?,
            _ => literal(url, "the remote's URL", &mut values.out.notes),
        };
        entry.insert("type".into(), json!(t));
        entry.insert("url".into(), json!(url));
        let headers = values.pairs(remote.get("headers"))?;
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

fn package_entry(
    pkg: &Value,
    values: &mut Values<'_>,
    entry: &mut Map<String, Value>,
) -> Result<()> {
    let id = str_of(pkg, "identifier")
        .ok_or_else(|| Error::Dialect("the package has no \"identifier\"".into()))?;
    let id = literal(id, "the package's identifier", &mut values.out.notes);
    let version = str_of(pkg, "version");
    let kind = str_of(pkg, "registryType").unwrap_or("npm");
    let env = values.pairs(pkg.get("environmentVariables"))?;
    let runtime_args = values.arguments(pkg.get("runtimeArguments"))?;
    let (default_cmd, mut args) = launcher(kind, &id, version, &env, values)?;
    // Runtime arguments go before the package (npx --flag, docker run -v ...).
    let at = match kind {
        "oci" | "docker" => 3,
        _ => 0,
    };
    for (i, a) in runtime_args.into_iter().enumerate() {
        args.insert(at + i, a);
    }
    args.extend(values.arguments(pkg.get("packageArguments"))?);
    let command = match str_of(pkg, "runtimeHint") {
        None => default_cmd,
        Some(hint) if LAUNCHERS.contains(&hint) => hint.to_string(),
        Some(hint) => {
            return Err(Error::Dialect(format!(
                "runtimeHint \"{hint}\" is not a known launcher ({}): refused",
                LAUNCHERS.join(", ")
            )));
        }
    };
    entry.insert("command".into(), json!(command));
    if !args.is_empty() {
        entry.insert("args".into(), json!(args));
    }
    if !env.is_empty() {
        entry.insert("env".into(), Value::Object(env));
    }
    let transport = pkg.get("transport").and_then(|t| str_of(t, "type"));
    if transport.is_some_and(|t| t != "stdio") {
        values.out.notes.push(format!(
            "{}: the package serves {} itself; it is run over stdio here",
            values.server,
            transport.unwrap_or_default()
        ));
    }
    after_install(pkg, values);
    Ok(())
}

/// The launcher a package of `kind` runs with, and its arguments naming the
/// package (a cargo package is installed first, by the person: said).
fn launcher(
    kind: &str,
    id: &str,
    version: Option<&str>,
    env: &Map<String, Value>,
    values: &mut Values<'_>,
) -> Result<(String, Vec<String>)> {
    Ok(match kind {
        "npm" => (
            "npx".into(),
            vec![
                "-y".into(),
                version.map_or(id.to_string(), |v| format!("{id}@{v}")),
            ],
        ),
        "pypi" => (
            "uvx".into(),
            vec![version.map_or(id.to_string(), |v| format!("{id}=={v}"))],
        ),
        "oci" | "docker" => {
            // docker hands a container only the variables named with -e.
            let mut a: Vec<String> = vec!["run".into(), "-i".into(), "--rm".into()];
            for n in env.keys() {
                a.extend(["-e".into(), n.clone()]);
            }
            a.push(version.map_or(id.to_string(), |v| format!("{id}:{v}")));
            ("docker".into(), a)
        }
        "nuget" => (
            "dnx".into(),
            vec![
                version.map_or(id.to_string(), |v| format!("{id}@{v}")),
                "--yes".into(),
            ],
        ),
        "cargo" => {
            // cargo installs a program; the entry runs it by its name.
            values.out.notes.push(format!(
                "{}: install it first: cargo install {id}{} (the workbench does not run it for you)",
                values.server,
                version.map(|v| format!(" --version {v}")).unwrap_or_default()
            ));
            (id.to_string(), Vec::new())
        }
        "mcpb" => {
            return Err(Error::Dialect(
                "this package is an MCP bundle (.mcpb): install it as a bundle".into(),
            ));
        }
        other => {
            return Err(Error::Dialect(format!(
                "packages of type \"{other}\" cannot be run from an mcp.json entry"
            )));
        }
    })
}

/// The package's steps after installing: said, never run.
fn after_install(pkg: &Value, values: &mut Values<'_>) {
    for step in pkg
        .get("postInstallInstructions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let command = str_of(step, "command")
            .map(|c| format!(" — `{c}`"))
            .unwrap_or_default();
        values.out.notes.push(format!(
            "{}: after installing{}: {}{command} (shown, never run)",
            values.server,
            if flag(step, "optional") {
                " (optional)"
            } else {
                ""
            },
            str_of(step, "description").unwrap_or("a step")
        ));
    }
}
