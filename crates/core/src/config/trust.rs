//! Consent before a server from elsewhere runs. An entry starts only when
//! the person trusts what it runs (command line, env, cwd) or where it
//! sends credentials (URL, headers): trust is remembered per file and entry
//! name with a fingerprint of exactly that, so a changed entry asks again.
//!
//! - A project's `.mcp.json` is never trusted by default.
//! - The user's own file, the first time it is seen, is trusted as it is
//!   (those entries were there before the workbench looked); after that an
//!   entry added or changed by an edit outside the app or `mcpwb` waits.
//! - What the app or `mcpwb config` writes for the person is trusted as
//!   written; imports are not (the person trusts them after reading them).
//!
//! The record lives in the app's data folder (`trust.json`), machine-local:
//! not beside a config that may be synced or shared.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{ConfigFile, Scope, ServerEntry, Transport};
use crate::error::{Error, Result};

/// What the person sees before trusting an entry: everything it will run
/// or send, with secret values left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TrustRequest {
    pub name: String,
    pub scope: Scope,
    /// The file the entry is in.
    pub file: String,
    /// The full command line, shell-quoted (stdio), or the URL (remote).
    pub target: String,
    pub cwd: Option<String>,
    /// Environment variable names (values are not shown: they may be secret).
    pub env_keys: Vec<String>,
    /// Header names (values are not shown).
    pub header_names: Vec<String>,
    /// Every `${...}` the entry uses: what it will read from the
    /// environment, the keychain or the person.
    pub references: Vec<String>,
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

/// The fingerprint of what an entry runs or where it sends credentials.
pub fn fingerprint(entry: &ServerEntry) -> String {
    let mut h = Sha256::new();
    h.update(format!("{:?}", entry.transport).as_bytes());
    h.update(format!("{:?}", entry.protocol).as_bytes());
    let bytes = h.finalize();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    /// The app's record: `trust.json` in the data folder ([`crate::paths::data_dir`]).
    pub fn app() -> Trust {
        Trust::at(crate::paths::data_dir().join("trust.json"))
    }

    pub fn at(path: impl Into<PathBuf>) -> Trust {
        Trust { path: path.into() }
    }

    /// Held while the record is read, changed and written: the window, its
    /// commands and any number of `mcpwb` runs share the file (a lock per
    /// open, so it serialises threads of one process too).
    fn exclusive(&self) -> Option<nix::fcntl::Flock<std::fs::File>> {
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(self.path.with_extension("lock"))
            .ok()?;
        nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive).ok()
    }

    fn read(&self) -> Record {
        std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    fn write(&self, record: &Record) -> Result<()> {
        let text = serde_json::to_string_pretty(record)
            .map_err(|e| Error::Internal(format!("trust record: {e}")))?;
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

    /// Mark each entry of `config` trusted or not. The user's file, the
    /// first time it is seen, is recorded as trusted as it is.
    pub fn mark(&self, config: &mut ConfigFile) {
        let _file = self.exclusive();
        let mut record = self.read();
        let user = key(&config.path);
        if !record.files.contains_key(&user) && config.path.exists() {
            let seen: BTreeMap<String, String> = config
                .servers
                .iter()
                .filter(|e| e.scope == Scope::User)
                .map(|e| (e.name.clone(), fingerprint(e)))
                .collect();
            record.files.insert(user, seen);
            if let Err(e) = self.write(&record) {
                tracing::warn!(error = %e, "cannot write the trust record");
            }
        }
        let (path, project) = (config.path.clone(), config.project.clone());
        for entry in &mut config.servers {
            let file = key(&file_of(&path, project.as_deref(), entry));
            entry.trusted = record
                .files
                .get(&file)
                .and_then(|m| m.get(&entry.name))
                .is_some_and(|fp| *fp == fingerprint(entry));
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
    /// entries that are new or changed in what they run are trusted as
    /// written; the others keep what they had.
    pub fn trust_changes(&self, file: &Path, before: &str, after: &str) -> Result<()> {
        let entries = |text: &str| -> BTreeMap<String, String> {
            ConfigFile::parse(file, text)
                .map(|c| {
                    c.servers
                        .iter()
                        .map(|e| (e.name.clone(), fingerprint(e)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let (old, new) = (entries(before), entries(after));
        let _file = self.exclusive();
        let mut record = self.read();
        let trusted = record.files.entry(key(file)).or_default();
        let mut changed = false;
        for (name, fp) in &new {
            if old.get(name) == Some(fp) {
                continue;
            }
            // A rename (same content, the old name gone) keeps the trust it
            // had: renaming an untrusted server does not vouch for it.
            let renamed_from = old
                .iter()
                .find(|(o, ofp)| *ofp == fp && !new.contains_key(*o))
                .map(|(o, _)| o.clone());
            let vouched = match &renamed_from {
                Some(o) => trusted.get(o) == Some(fp),
                None => true,
            };
            if vouched {
                trusted.insert(name.clone(), fp.clone());
                changed = true;
            }
        }
        if changed { self.write(&record) } else { Ok(()) }
    }
}

/// What the person is asked to trust for `entry` of `config`.
pub fn request(config: &ConfigFile, entry: &ServerEntry) -> TrustRequest {
    let file = file_of(&config.path, config.project.as_deref(), entry)
        .display()
        .to_string();
    let (target, cwd, env_keys, header_names) = match &entry.transport {
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
            env.keys().cloned().collect(),
            Vec::new(),
        ),
        Transport::StreamableHttp { url, headers }
        | Transport::Sse { url, headers }
        | Transport::RemoteAuto { url, headers } => (
            url.clone(),
            None,
            Vec::new(),
            headers.keys().cloned().collect(),
        ),
    };
    TrustRequest {
        name: entry.name.clone(),
        scope: entry.scope,
        file,
        target,
        cwd,
        env_keys,
        header_names,
        references: entry.references(),
    }
}
