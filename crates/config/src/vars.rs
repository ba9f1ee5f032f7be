//! `${...}` references in mcp.json values, expanded when a server starts;
//! the file keeps the unexpanded text.
//!
//! - `${VAR}`, `${VAR:-default}`: the environment (default when unset or empty)
//! - `${env:VAR}` (VS Code, Cursor), also with `:-default`
//! - `${userHome}`, `${workspaceFolder}` (the project folder)
//! - `${input:id}`: an input declared in the file's `inputs`, asked once and
//!   remembered in the OS keychain for each entry that uses it (an entry
//!   reads only its own answers, as with secrets)
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
    /// `${userHome}`: the home folder.
    pub home: Option<PathBuf>,
    /// `${workspaceFolder}`: the project folder.
    pub workspace: Option<PathBuf>,
    /// Where `${input:..}` answers and `${secret:..}` values live.
    pub keychain: Option<Keychain>,
    /// The keychain prefix of the entry being expanded
    /// ([`super::secrets::owner_prefix`]): `${input:..}` answers are its
    /// own, and `${secret:..}` resolves only under it (None: neither does).
    pub owner: Option<String>,
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

/// The keychain id under which the answer to `${input:id}` is remembered
/// for the entry whose secrets live under `owner`
/// ([`super::secrets::owner_prefix`]).
pub fn input_id(owner: &str, id: &str) -> String {
    format!("input/{owner}{id}")
}

impl Vars {
    /// The process environment, `$HOME`, and the app's keychain.
    pub fn from_process(workspace: Option<PathBuf>) -> Vars {
        Vars {
            env: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            workspace,
            keychain: Some(Keychain::app()),
            owner: None,
        }
    }

    fn env_var(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(map) => map.get(name).cloned(),
            None => std::env::var(name).ok(),
        }
    }

    /// The value kept under `id`; missing, `what` is said not given, and
    /// `how` says how to give it.
    fn keychain_value(
        &self,
        id: &str,
        what: &str,
        how: &str,
    ) -> std::result::Result<String, String> {
        let Some(kc) = &self.keychain else {
            return Err(format!(
                "{what} needs the OS keychain, which is not available here"
            ));
        };
        match kc.get(id) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(format!("{what} has not been given yet{how}")),
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
                    let Some(owner) = &self.owner else {
                        return Err(format!("{what} belongs to a server entry"));
                    };
                    let how =
                        format!(" (give it in the window, or with `mcpwb config input {id}`)");
                    return self.keychain_value(&input_id(owner, id), &what, &how);
                }
                if let Some(id) = body.strip_prefix("secret:") {
                    // Every expansion comes here, so this is the one place
                    // the owner rule is kept: an entry reads only the
                    // secrets under its own prefix.
                    let Some(owner) = &self.owner else {
                        return Err(format!(
                            "${{secret:{id}}} belongs to a server entry and is read only for it"
                        ));
                    };
                    if !id.starts_with(owner.as_str()) {
                        return Err(format!(
                            "${{secret:{id}}} is not this server's: an entry reads only its own secrets (ids starting \"{owner}\"); store the value for this server"
                        ));
                    }
                    let what = format!("the secret \"{id}\"");
                    return self.keychain_value(id, &what, "");
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

    /// Expand every reference in `text`; what does not expand is said
    /// (code `variable`).
    pub fn expand(&self, text: &str) -> std::result::Result<String, workbench_codes::ErrorInfo> {
        self.expand_text(text)
            .map_err(|m| workbench_codes::ErrorInfo::new(workbench_codes::ErrorCode::Variable, m))
    }

    fn expand_text(&self, text: &str) -> std::result::Result<String, String> {
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

/// The inputs (`${input:id}`, as `input/<id>`; see [`input_id`] for where
/// an entry's answer lives) and secrets (`${secret:id}`) a text refers to.
pub fn keychain_refs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else { break };
        let body = &after[..end];
        if let Some(id) = body.strip_prefix("input:") {
            out.push(format!("input/{id}"));
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
        // Only the entry's own secrets ([`Vars::resolve`] keeps the rule).
        let own = super::secrets::owner_prefix(self.scope, vars.workspace.as_deref(), &self.name);
        let vars = &Vars {
            owner: Some(own),
            ..vars.clone()
        };
        let one = |key: &str, v: &str| vars.expand_text(v).map_err(|m| fail(key.to_string(), m));
        let transport = self.transport.map_texts(one)?;
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

/// Whether a name (an environment variable, a query parameter) says its
/// value is a credential.
pub(crate) use workbench_mask::sounds_secret;

impl ServerEntry {
    /// What must never be shown of this entry once expanded (`expanded` is
    /// `self.expanded(vars)`): its credential-named env and header values
    /// (`…TOKEN`, `…KEY`, `Authorization`, `Cookie`, …); what `${secret:..}`,
    /// `${input:..}` and credential-named environment references stand for,
    /// wherever they are (args, URL); the URL's password (or a lone user
    /// name, as tokens are sent) and credential-named query values.
    pub fn secret_values(&self, expanded: &ServerEntry, vars: &Vars) -> Vec<String> {
        let mut out = Vec::new();
        let own = super::secrets::owner_prefix(self.scope, vars.workspace.as_deref(), &self.name);
        let vars = Vars {
            owner: Some(own),
            ..vars.clone()
        };
        for reference in self.references() {
            let body = &reference[2..reference.len() - 1];
            let name = body.split_once(":-").map_or(body, |(b, _)| b);
            let keep = name.starts_with("secret:")
                || name.starts_with("input:")
                || sounds_secret(name.strip_prefix("env:").unwrap_or(name));
            if keep && let Ok(value) = vars.expand_text(&reference) {
                out.push(value);
            }
        }
        // Literal values only where the name says credential: an env value
        // such as `true` or `debug` is not one (masking it would mask every
        // `true` in the output).
        let credentials = |m: &BTreeMap<String, String>| -> Vec<String> {
            m.iter()
                .filter(|(k, _)| sounds_secret(k))
                .map(|(_, v)| v.clone())
                .collect()
        };
        match &expanded.transport {
            Transport::Stdio { env, .. } => out.extend(credentials(env)),
            Transport::StreamableHttp { url, headers }
            | Transport::Sse { url, headers }
            | Transport::RemoteAuto { url, headers } => {
                out.extend(credentials(headers));
                // The URL's own credentials (a password, `?api_key=`, …).
                out.extend(workbench_mask::url_secrets(url));
            }
        }
        out.retain(|v| super::secrets::maskable(v));
        out
    }
}

/// An `${input:id}` some server refers to that nobody has given yet.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NeededInput {
    /// The input's id (`${input:id}`).
    pub id: String,
    /// What the person is asked for.
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
        if let Some(o) = &self.oauth {
            out.extend(
                [
                    &o.client_id,
                    &o.client_secret,
                    &o.scope,
                    &o.client_metadata_url,
                ]
                .into_iter()
                .flatten()
                .map(String::as_str),
            );
        }
        out
    }
}

impl ServerEntry {
    /// Where this entry's answer to `${input:id}` lives in the keychain
    /// (`workspace`: the project folder, for a project's entry).
    pub fn input_key(&self, workspace: Option<&std::path::Path>, id: &str) -> String {
        let own = super::secrets::owner_prefix(self.scope, workspace, &self.name);
        input_id(&own, id)
    }

    /// The ids of the `${input:..}` this entry uses.
    pub fn input_refs(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for key in self.texts().into_iter().flat_map(keychain_refs) {
            if let Some(id) = key.strip_prefix("input/")
                && !out.iter().any(|o| o == id)
            {
                out.push(id.to_string());
            }
        }
        out
    }
}

impl super::ConfigFile {
    /// Where each server that uses `${input:id}` keeps its answer:
    /// `(server, keychain id)`. One answer given in the window or by
    /// `mcpwb config input` is stored for each of them.
    pub fn input_keys(
        &self,
        workspace: Option<&std::path::Path>,
        id: &str,
    ) -> Vec<(String, String)> {
        self.servers
            .iter()
            .filter(|e| e.input_refs().iter().any(|r| r == id))
            .map(|e| (e.name.clone(), e.input_key(workspace, id)))
            .collect()
    }

    /// The inputs the servers refer to for which `given(keychain id)` is
    /// false (each entry has its own answer, see [`ServerEntry::input_key`]).
    pub fn missing_inputs(
        &self,
        workspace: Option<&std::path::Path>,
        given: impl Fn(&str) -> bool,
    ) -> Vec<NeededInput> {
        let mut out: Vec<NeededInput> = Vec::new();
        for entry in &self.servers {
            for id in entry.input_refs() {
                let id = id.as_str();
                if given(&entry.input_key(workspace, id)) {
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
mod tests;
