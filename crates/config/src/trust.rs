//! Consent before a server from elsewhere runs. An entry starts only when
//! the person trusts what it runs (command line, env, cwd) or where it
//! sends credentials (URL, headers): trust is remembered per file and entry
//! name with a fingerprint of exactly that, so a changed entry asks again.
//!
//! - No file is trusted by default: not a project's `.mcp.json`, not a file
//!   named with `--config`, not the user's own file found already there (a
//!   cloned dotfiles repository, an import into a fresh install). An entry
//!   is trusted when the person confirms it (the trust card, `mcpwb config
//!   trust`, `--trust`) or wrote it through the app or `mcpwb config` —
//!   which is also how the file the workbench creates is trusted.
//! - An edit by the person keeps an untrusted entry untrusted (a rename, a
//!   duplicate, a changed field): only entries they wrote new, or trusted
//!   ones they changed, are trusted as written. Imports are not trusted.
//! - The fingerprint covers what runs (command, args, env, cwd), where
//!   credentials go (URL, headers, `allowInsecure`, the `oauth` block),
//!   what may run without asking (`autoApprove`, `alwaysAllow`, `trust`)
//!   and what restarts it unasked (`dev.watch`): a later pull that adds
//!   any of them asks again.
//!
//! The record lives in the app's data folder (`trust.json`), machine-local:
//! not beside a config that may be synced or shared.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{ConfigFile, Scope, ServerEntry, Transport};
use crate::error::{Error, Result};

/// What the person sees before trusting an entry: everything it will run,
/// send or let run unasked, with secret values masked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrustRequest {
    /// The entry's name.
    pub name: String,
    /// The file it is in: the person's or the project's.
    pub scope: Scope,
    /// The file the entry is in.
    pub file: String,
    /// The full command line, shell-quoted (stdio), or the URL (remote).
    pub target: String,
    /// The folder it runs in.
    pub cwd: Option<String>,
    /// Environment variables as the file has them (references unexpanded).
    pub env: Vec<Shown>,
    /// Headers as the file has them.
    pub headers: Vec<Shown>,
    /// Every `${...}` the entry uses, in any field (the `oauth` block's
    /// too): what it will read from the environment, the keychain or the
    /// person.
    pub references: Vec<String>,
    /// Tools it lets run without asking (`autoApprove`, `alwaysAllow`;
    /// `*` for `"trust": true`).
    pub auto_approve: Vec<String>,
    /// `"allowInsecure"`: credentials may go over plain http.
    pub allow_insecure: bool,
    /// The `oauth` block's client id and scope (its secret is masked).
    pub oauth: Vec<Shown>,
    /// `dev.watch`: the files whose change restarts it, unasked.
    pub watch: Vec<String>,
    /// What is trusted, in short ([`fingerprint`]): the window sends it
    /// back with the person's yes, and an entry changed since is not
    /// trusted unseen.
    pub fingerprint: String,
}

/// One name and value of a trust request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shown {
    /// The name (an environment variable, a header).
    pub name: String,
    /// The value as written; a literal credential is masked (a `${...}`
    /// reference is shown: it names where the value comes from).
    pub value: String,
    /// Whether the value shown is masked.
    pub masked: bool,
    /// Why this variable changes what runs (`PYTHONPATH`, `NODE_OPTIONS`,
    /// `LD_PRELOAD`, `PATH`, a package index, ...), when it does.
    pub changes_what_runs: Option<String>,
}

/// Environment variables that change which code a command runs (or where
/// its packages come from), with why.
pub fn changes_what_runs(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    let why = match upper.as_str() {
        "PATH" => "chooses which program each command name runs",
        "PYTHONPATH" | "PYTHONHOME" | "PYTHONUSERBASE" => {
            "Python imports modules from there first (a planted sitecustomize.py runs at start)"
        }
        "PYTHONSTARTUP" | "PYTHONINSPECT" | "PYTHONBREAKPOINT" => "Python runs code it names",
        "NODE_OPTIONS" => "Node loads the modules it names (--require, --import) before the server",
        "NODE_PATH" => "Node resolves modules from there",
        "LD_PRELOAD"
        | "LD_LIBRARY_PATH"
        | "LD_AUDIT"
        | "DYLD_INSERT_LIBRARIES"
        | "DYLD_LIBRARY_PATH" => "loads native libraries into the process",
        "PERL5LIB" | "PERL5OPT" | "PERLLIB" | "RUBYOPT" | "RUBYLIB" => {
            "the interpreter loads code from there"
        }
        "BASH_ENV" | "ENV" | "ZDOTDIR" | "PROMPT_COMMAND" => {
            "the shell runs the file or command it names"
        }
        "JAVA_TOOL_OPTIONS" | "_JAVA_OPTIONS" | "JDK_JAVA_OPTIONS" => {
            "the JVM loads agents it names"
        }
        "GIT_SSH_COMMAND" | "GIT_EXEC_PATH" | "GIT_CONFIG_GLOBAL" => "git runs what it names",
        "PIP_INDEX_URL"
        | "PIP_EXTRA_INDEX_URL"
        | "UV_INDEX_URL"
        | "UV_EXTRA_INDEX_URL"
        | "UV_DEFAULT_INDEX"
        | "UV_INDEX"
        | "NPM_CONFIG_REGISTRY"
        | "YARN_REGISTRY"
        | "BUN_CONFIG_REGISTRY" => "packages (uvx, pipx, npx) are fetched from another index",
        "HOME" | "XDG_CONFIG_HOME" => "programs read their start-up files from there",
        _ if upper.starts_with("NPM_CONFIG_") => "changes how npm and npx install and run packages",
        _ if upper.starts_with("LD_") || upper.starts_with("DYLD_") => {
            "changes how native libraries are loaded"
        }
        _ => return None,
    };
    Some(why)
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Record {
    /// Files seen, each with its trusted entries: name → fingerprint.
    #[serde(default)]
    files: BTreeMap<String, BTreeMap<String, String>>,
}

/// The trust record (a path). Cheap to clone.
#[derive(Clone, Debug)]
pub struct Trust {
    path: PathBuf,
}

fn hex(h: Sha256) -> String {
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The fingerprint of what an entry runs, where it sends credentials and
/// what it lets run without asking (`2:` and a SHA-256).
pub fn fingerprint(entry: &ServerEntry) -> String {
    let mut h = Sha256::new();
    h.update(format!("{:?}", entry.transport).as_bytes());
    h.update(format!("{:?}", entry.protocol).as_bytes());
    let mut approve = entry.auto_approve.clone();
    approve.sort();
    approve.dedup();
    h.update(format!("{approve:?}").as_bytes());
    h.update(format!("{:?}", entry.oauth).as_bytes());
    h.update(if entry.allow_insecure { b"1" } else { b"0" });
    // What restarts it unasked (`dev.watch`): a pull that adds or widens a
    // watch asks again. Absent, the fingerprint is as before.
    if let Some(dev) = &entry.dev {
        h.update(format!("dev:{:?}", dev.watch).as_bytes());
    }
    format!("2:{}", hex(h))
}

/// The fingerprint before it covered approvals and the `oauth` block.
fn fingerprint_v1(entry: &ServerEntry) -> String {
    let mut h = Sha256::new();
    h.update(format!("{:?}", entry.transport).as_bytes());
    h.update(format!("{:?}", entry.protocol).as_bytes());
    hex(h)
}

/// Whether a recorded fingerprint vouches for `entry` as it is. A record
/// from before approvals and `oauth` were covered still vouches for an
/// entry that has none of them (it covered everything such an entry has).
fn vouches(recorded: &str, entry: &ServerEntry) -> bool {
    if recorded.starts_with("2:") {
        return recorded == fingerprint(entry);
    }
    recorded == fingerprint_v1(entry)
        && entry.auto_approve.is_empty()
        && entry.oauth.is_none()
        && !entry.allow_insecure
}

/// What an entry is, whatever its name: its fingerprint with its own
/// secret ids written without the name (a rename or a duplicate moves them
/// to the new name; it is still the same entry).
fn shape(entry: &ServerEntry) -> String {
    let unnamed = |text: &str| -> String {
        let own = format!("{}/", entry.name);
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("${secret:") {
            out.push_str(&rest[..at + 9]);
            rest = &rest[at + 9..];
            // `<name>/...` (the user's file) or `project-<hash>/<name>/...`.
            let skip = match rest.split_once('/') {
                Some((first, after))
                    if first.starts_with("project-") && after.starts_with(&own) =>
                {
                    first.len() + 1
                }
                _ => 0,
            };
            out.push_str(&rest[..skip]);
            rest = &rest[skip..];
            if let Some(after) = rest.strip_prefix(own.as_str()) {
                out.push_str("\u{0}/");
                rest = after;
            }
        }
        out.push_str(rest);
        out
    };
    let mut e = entry.clone();
    e.transport = entry
        .transport
        .map_texts(|_, t| Ok::<_, std::convert::Infallible>(unnamed(t)))
        .unwrap_or_else(|never| match never {});
    if let Some(o) = &mut e.oauth {
        for v in [
            &mut o.client_id,
            &mut o.client_secret,
            &mut o.scope,
            &mut o.client_metadata_url,
        ]
        .into_iter()
        .flatten()
        {
            *v = unnamed(v);
        }
    }
    fingerprint(&e)
}

/// Which entry of which file, running what: `<file>#<name>@<fingerprint>`
/// (its first 16 hex digits). Standing approvals belong to an owner, so a
/// project's entry that shadows a user's server of the same name, or an
/// entry changed outside the workbench, inherits none of them.
pub fn owner(file: &Path, entry: &ServerEntry) -> String {
    let fp = fingerprint(entry);
    let short = fp.get(..18).unwrap_or(&fp);
    format!("{}#{}@{short}", key(file), entry.name)
}

/// The file an entry of a (merged) config is in.
pub fn file_of(user: &Path, project: Option<&Path>, entry: &ServerEntry) -> PathBuf {
    match (entry.scope, project) {
        (Scope::Project, Some(p)) => p.to_path_buf(),
        _ => user.to_path_buf(),
    }
}

fn key(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

impl Trust {
    /// The app's record: `trust.json` in the data folder ([`super::app::data_dir`]).
    pub fn app() -> Trust {
        Trust::at(super::app::data_dir().join("trust.json"))
    }

    /// A trust record kept at `path`.
    pub fn at(path: impl Into<PathBuf>) -> Trust {
        Trust { path: path.into() }
    }

    /// Where the record is kept (a window follows it: a server trusted by
    /// `mcpwb config trust` starts there too).
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Held while the record is read, changed and written.
    fn exclusive(&self) -> Option<nix::fcntl::Flock<std::fs::File>> {
        crate::files::lock_beside(&self.path)
    }

    fn read(&self) -> Record {
        std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    fn write(&self, record: &Record) -> Result<()> {
        let text = serde_json::to_string_pretty(record).map_err(|e| Error::Trust(e.to_string()))?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| Error::ConfigWrite {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let failed = |source: std::io::Error| Error::ConfigWrite {
            path: self.path.clone(),
            source,
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(".trust.")
            .tempfile_in(dir)
            .map_err(failed)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(failed)?;
        tmp.as_file().sync_all().map_err(failed)?;
        tmp.persist(&self.path).map_err(|e| failed(e.error))?;
        Ok(())
    }

    /// Mark each entry of `config` trusted or not, by the record.
    pub fn mark(&self, config: &mut ConfigFile) {
        let record = self.read();
        let (path, project) = (config.path.clone(), config.project.clone());
        for entry in &mut config.servers {
            let file = key(&file_of(&path, project.as_deref(), entry));
            entry.trusted = record
                .files
                .get(&file)
                .and_then(|m| m.get(&entry.name))
                .is_some_and(|fp| vouches(fp, entry));
        }
    }

    /// Trust `entry` of `file` as it is now.
    pub fn trust(&self, file: &Path, entry: &ServerEntry) -> Result<()> {
        let _file = self.exclusive();
        let mut record = self.read();
        record
            .files
            .entry(key(file))
            .or_default()
            .insert(entry.name.clone(), fingerprint(entry));
        self.write(&record)
    }

    /// After the person's own save of `file` (the app, `mcpwb config`):
    /// an entry they wrote new is trusted as written, and so is a trusted
    /// entry they changed; an untrusted entry stays untrusted whatever the
    /// edit (a renamed or duplicated one too: it is still what came from
    /// elsewhere). A file the workbench creates (`before` empty) is all the
    /// person's. Returns the trusted entries the person changed or renamed,
    /// as (before, after): their standing approvals follow them.
    pub fn trust_changes(
        &self,
        file: &Path,
        before: &str,
        after: &str,
    ) -> Result<Vec<(ServerEntry, ServerEntry)>> {
        let entries = |text: &str| -> Vec<ServerEntry> {
            if text.trim().is_empty() {
                return Vec::new();
            }
            ConfigFile::parse(file, text)
                .map(|c| c.servers)
                .unwrap_or_default()
        };
        let (old, new) = (entries(before), entries(after));
        let _file = self.exclusive();
        let mut record = self.read();
        let trusted = record.files.entry(key(file)).or_default();
        let was_trusted = |e: &ServerEntry| trusted.get(&e.name).is_some_and(|fp| vouches(fp, e));
        let mut vouched = Vec::new();
        let mut moved = Vec::new();
        for entry in &new {
            let fp = fingerprint(entry);
            let source = old
                .iter()
                .find(|o| o.name == entry.name)
                .or_else(|| old.iter().find(|o| shape(o) == shape(entry)));
            match source {
                Some(o) if o.name == entry.name && fingerprint(o) == fp => {}
                Some(o) if was_trusted(o) => {
                    vouched.push((entry.name.clone(), fp));
                    moved.push((o.clone(), entry.clone()));
                }
                Some(_) => {}
                None => vouched.push((entry.name.clone(), fp)),
            }
        }
        if vouched.is_empty() {
            return Ok(moved);
        }
        trusted.extend(vouched);
        self.write(&record)?;
        Ok(moved)
    }
}

fn shown(name: &str, value: &str) -> Shown {
    // A reference names where the value comes from: shown as written.
    let literal = !value.contains("${");
    let masked = literal && !value.is_empty() && super::vars::sounds_secret(name);
    Shown {
        name: name.to_string(),
        value: if masked {
            "••••••".into()
        } else {
            value.to_string()
        },
        masked,
        changes_what_runs: changes_what_runs(name).map(str::to_string),
    }
}

/// What the person is asked to trust for `entry` of `config`.
pub fn request(config: &ConfigFile, entry: &ServerEntry) -> TrustRequest {
    let file = file_of(&config.path, config.project.as_deref(), entry)
        .display()
        .to_string();
    let (target, cwd, env, headers) = match &entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => (
            std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .map(super::shell_quote)
                .collect::<Vec<_>>()
                .join(" "),
            cwd.clone(),
            env.iter().map(|(k, v)| shown(k, v)).collect(),
            Vec::new(),
        ),
        Transport::StreamableHttp { url, headers }
        | Transport::Sse { url, headers }
        | Transport::RemoteAuto { url, headers } => (
            url.clone(),
            None,
            Vec::new(),
            headers
                .iter()
                .map(|(k, v)| Shown {
                    changes_what_runs: None,
                    ..shown(k, v)
                })
                .collect(),
        ),
    };
    let oauth = entry
        .oauth
        .as_ref()
        .map(|o| {
            [
                ("clientId", &o.client_id),
                ("clientSecret", &o.client_secret),
                ("scope", &o.scope),
                ("clientMetadataUrl", &o.client_metadata_url),
            ]
            .into_iter()
            .filter_map(|(k, v)| {
                v.as_deref().map(|v| Shown {
                    changes_what_runs: None,
                    ..shown(k, v)
                })
            })
            .collect()
        })
        .unwrap_or_default();
    TrustRequest {
        name: entry.name.clone(),
        scope: entry.scope,
        file,
        target,
        cwd,
        env,
        headers,
        references: entry.references(),
        auto_approve: entry.auto_approve.clone(),
        allow_insecure: entry.allow_insecure,
        oauth,
        watch: entry
            .dev
            .as_ref()
            .map(|d| d.watch.clone())
            .unwrap_or_default(),
        fingerprint: fingerprint(entry),
    }
}
