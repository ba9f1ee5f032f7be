//! `${...}` references in mcp.json values, expanded when a server starts;
//! the file keeps the unexpanded text.
//!
//! - `${VAR}`, `${VAR:-default}`: the environment (default when unset or empty)
//! - `${env:VAR}` (VS Code, Cursor), also with `:-default`
//! - `${userHome}`, `${workspaceFolder}` (the project folder)
//! - `${input:id}`: an input declared in the file's `inputs`, asked once and
//!   remembered in the OS keychain
//! - `${secret:id}`: a value stored in the OS keychain
//!
//! `$${` writes a literal `${`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::secrets::Keychain;
use super::{ServerEntry, Transport};
use crate::error::{Error, Result};

/// What references resolve against.
#[derive(Clone, Default)]
pub struct Vars {
    /// Environment lookups; `None` reads the process environment.
    pub env: Option<BTreeMap<String, String>>,
    pub home: Option<PathBuf>,
    pub workspace: Option<PathBuf>,
    /// Where `${input:..}` answers and `${secret:..}` values live.
    pub keychain: Option<Keychain>,
}

impl std::fmt::Debug for Vars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vars")
            .field("home", &self.home)
            .field("workspace", &self.workspace)
            .field("keychain", &self.keychain.is_some())
            .finish_non_exhaustive()
    }
}

/// The keychain id under which the answer to `${input:id}` is remembered.
pub fn input_id(id: &str) -> String {
    format!("input/{id}")
}

impl Vars {
    /// The process environment, `$HOME`, and the app's keychain.
    pub fn from_process(workspace: Option<PathBuf>) -> Vars {
        Vars {
            env: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            workspace,
            keychain: Some(Keychain::app()),
        }
    }

    fn env_var(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(map) => map.get(name).cloned(),
            None => std::env::var(name).ok(),
        }
    }

    fn keychain_value(&self, id: &str, what: &str) -> std::result::Result<String, String> {
        let Some(kc) = &self.keychain else {
            return Err(format!(
                "{what} needs the OS keychain, which is not available here"
            ));
        };
        match kc.get(id) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(format!("{what} has not been given yet")),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Resolve one reference (the text between `${` and `}`).
    fn resolve(&self, reference: &str) -> std::result::Result<String, String> {
        let (body, default) = match reference.split_once(":-") {
            Some((b, d)) => (b, Some(d)),
            None => (reference, None),
        };
        let found = match body {
            "userHome" => Some(
                self.home
                    .as_ref()
                    .map(|h| h.display().to_string())
                    .ok_or("${userHome}: HOME is not set")?,
            ),
            "workspaceFolder" => Some(
                self.workspace
                    .as_ref()
                    .map(|w| w.display().to_string())
                    .ok_or("${workspaceFolder}: no project folder is open")?,
            ),
            _ => {
                if let Some(id) = body.strip_prefix("input:") {
                    let what = format!("the input \"{id}\"");
                    return self.keychain_value(&input_id(id), &what);
                }
                if let Some(id) = body.strip_prefix("secret:") {
                    let what = format!("the secret \"{id}\"");
                    return self.keychain_value(id, &what);
                }
                let name = body.strip_prefix("env:").unwrap_or(body);
                let valid =
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !valid {
                    return Err(format!("\"${{{reference}}}\" is not a variable reference"));
                }
                self.env_var(name)
                    .filter(|v| !v.is_empty() || default.is_none())
            }
        };
        match (found, default) {
            (Some(v), _) => Ok(v),
            (None, Some(d)) => Ok(d.to_string()),
            (None, None) => Err(format!(
                "the environment variable {} is not set (give a default with ${{{}:-value}})",
                body.strip_prefix("env:").unwrap_or(body),
                body
            )),
        }
    }

    /// Expand every reference in `text`.
    pub fn expand(&self, text: &str) -> std::result::Result<String, String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("${") {
            if at > 0 && rest.as_bytes()[at - 1] == b'$' {
                out.push_str(&rest[..at - 1]);
                out.push_str("${");
                rest = &rest[at + 2..];
                continue;
            }
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let Some(end) = after.find('}') else {
                return Err(format!("\"{}\" has no closing }}", &rest[at..]));
            };
            out.push_str(&self.resolve(&after[..end])?);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// The inputs (`${input:id}`) and secrets (`${secret:id}`) a text refers to.
pub fn keychain_refs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else { break };
        let body = &after[..end];
        if let Some(id) = body.strip_prefix("input:") {
            out.push(input_id(id));
        } else if let Some(id) = body.strip_prefix("secret:") {
            out.push(id.to_string());
        }
        rest = &after[end + 1..];
    }
    out
}

impl ServerEntry {
    /// This entry with every reference expanded. An unresolvable reference
    /// names the server and the key.
    pub fn expanded(&self, vars: &Vars) -> Result<ServerEntry> {
        let fail = |key: String, message: String| Error::Variable {
            server: self.name.clone(),
            key,
            message,
        };
        // Only the entry's own secrets: the id must be under its prefix.
        let own = super::secrets::owner_prefix(self.scope, vars.workspace.as_deref(), &self.name);
        for reference in self.references() {
            if let Some(id) = reference
                .strip_prefix("${secret:")
                .and_then(|r| r.strip_suffix('}'))
                && !id.starts_with(&own)
            {
                return Err(fail(
                    "secret".into(),
                    format!(
                        "${{secret:{id}}} is not this server's: an entry reads only its own secrets (ids starting \"{own}\"); store the value for this server"
                    ),
                ));
            }
        }
        let one = |key: &str, v: &str| vars.expand(v).map_err(|m| fail(key.to_string(), m));
        let map = |field: &str, m: &BTreeMap<String, String>| {
            m.iter()
                .map(|(k, v)| Ok((k.clone(), one(&format!("{field}.{k}"), v)?)))
                .collect::<Result<BTreeMap<_, _>>>()
        };
        let transport = match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => Transport::Stdio {
                command: one("command", command)?,
                args: args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| one(&format!("args[{i}]"), a))
                    .collect::<Result<_>>()?,
                env: map("env", env)?,
                cwd: cwd.as_deref().map(|c| one("cwd", c)).transpose()?,
            },
            Transport::StreamableHttp { url, headers } => Transport::StreamableHttp {
                url: one("url", url)?,
                headers: map("headers", headers)?,
            },
            Transport::Sse { url, headers } => Transport::Sse {
                url: one("url", url)?,
                headers: map("headers", headers)?,
            },
            Transport::RemoteAuto { url, headers } => Transport::RemoteAuto {
                url: one("url", url)?,
                headers: map("headers", headers)?,
            },
        };
        if let Transport::StreamableHttp { url, .. }
        | Transport::Sse { url, .. }
        | Transport::RemoteAuto { url, .. } = &transport
        {
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                return Err(fail(
                    "url".into(),
                    format!("expands to \"{url}\", which is not an http(s) URL"),
                ));
            }
        }
        Ok(ServerEntry {
            transport,
            ..self.clone()
        })
    }
}

/// An `${input:id}` some server refers to that nobody has given yet.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct NeededInput {
    pub id: String,
    pub description: Option<String>,
    /// Masked while typed (undeclared inputs are treated as secret).
    pub password: bool,
    /// The servers that use it.
    pub servers: Vec<String>,
}

impl ServerEntry {
    /// Every `${...}` the entry uses (a `$${` escape is text), sorted, once each.
    pub fn references(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for text in self.texts() {
            let mut rest = text;
            while let Some(at) = rest.find("${") {
                let escaped = at > 0 && rest.as_bytes()[at - 1] == b'$';
                let after = &rest[at + 2..];
                let Some(end) = after.find('}') else { break };
                if !escaped {
                    let r = format!("${{{}}}", &after[..end]);
                    if !out.contains(&r) {
                        out.push(r);
                    }
                }
                rest = &after[end + 1..];
            }
        }
        out.sort();
        out
    }

    /// Every text of the entry that may hold references (unexpanded).
    fn texts(&self) -> Vec<&str> {
        let mut out = Vec::new();
        match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                out.push(command.as_str());
                out.extend(args.iter().map(String::as_str));
                out.extend(env.values().map(String::as_str));
                out.extend(cwd.as_deref());
            }
            Transport::StreamableHttp { url, headers }
            | Transport::Sse { url, headers }
            | Transport::RemoteAuto { url, headers } => {
                out.push(url.as_str());
                out.extend(headers.values().map(String::as_str));
            }
        }
        out
    }
}

impl super::ConfigFile {
    /// The inputs the servers refer to for which `given(keychain id)` is false.
    pub fn missing_inputs(&self, given: impl Fn(&str) -> bool) -> Vec<NeededInput> {
        let mut out: Vec<NeededInput> = Vec::new();
        for entry in &self.servers {
            for key in entry.texts().into_iter().flat_map(keychain_refs) {
                let Some(id) = key.strip_prefix("input/") else {
                    continue;
                };
                if given(&key) {
                    continue;
                }
                match out.iter_mut().find(|n| n.id == id) {
                    Some(n) if !n.servers.contains(&entry.name) => {
                        n.servers.push(entry.name.clone())
                    }
                    Some(_) => {}
                    None => {
                        let decl = self.inputs.iter().find(|d| d.id == id);
                        out.push(NeededInput {
                            id: id.to_string(),
                            description: decl.and_then(|d| d.description.clone()),
                            password: decl.is_none_or(|d| d.password),
                            servers: vec![entry.name.clone()],
                        });
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "vars_tests.rs"]
mod tests;
