//! The person's mcp.json files: reading them, their own edits (trusted as
//! written, approvals and secrets following a renamed entry, a removed
//! entry's secrets gone with it), inputs and secrets kept in the keychain,
//! and other clients' files found and imported (untrusted until the person
//! says so). The window's Servers room and `mcpwb config` are adapters of
//! these; each operation's sequence is written once, here.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};
// The config types an adapter names come from here.
use workbench_core::config::dialects;
pub use workbench_core::config::dialects::Exported;
pub use workbench_core::config::dialects::{Dialect, Found, Merged, target_of};
use workbench_core::config::document::Document;
pub use workbench_core::config::edit::EditOp;
pub use workbench_core::config::secrets::{Keychain, reference, secret_id_for};
use workbench_core::config::trust::Trust;
pub use workbench_core::config::vars::NeededInput;
use workbench_core::config::vars::keychain_refs;
pub use workbench_core::config::{ConfigFile, Scope, default_user_config, shell_quote};
use workbench_core::settings::SettingsFile;
pub use workbench_core::workbench::Trial;
use workbench_core::{Error, ErrorInfo};

/// Where the person's servers are written: the user's file, the project's
/// folder (its `.mcp.json`), and the settings file that holds the standing
/// approvals that follow a renamed entry.
#[derive(Debug, Clone)]
pub struct Place {
    pub user: PathBuf,
    pub project_dir: Option<PathBuf>,
    pub settings: SettingsFile,
}

/// A config file's text, for the window's editor.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigText {
    pub path: String,
    pub exists: bool,
    pub text: String,
}

fn unreadable(path: &Path, source: std::io::Error) -> ErrorInfo {
    Error::from(workbench_core::config::Error::ConfigUnreadable {
        path: path.to_path_buf(),
        source,
    })
    .into()
}

fn open(path: &Path) -> Result<Document, ErrorInfo> {
    Ok(Document::open(path).map_err(Error::from)?)
}

fn unknown(name: &str) -> ErrorInfo {
    Error::UnknownServer(name.to_string()).into()
}

impl Place {
    /// The machine's settings file beside the user's `user` file and the
    /// project folder `project_dir`.
    pub fn new(user: PathBuf, project_dir: Option<PathBuf>) -> Self {
        Self::with_settings(
            user,
            project_dir,
            SettingsFile::new(workbench_core::settings::default_path()),
        )
    }

    pub fn with_settings(
        user: PathBuf,
        project_dir: Option<PathBuf>,
        settings: SettingsFile,
    ) -> Self {
        Self {
            user,
            project_dir,
            settings,
        }
    }

    /// The project's `.mcp.json`, when a project folder is open.
    pub fn project_file(&self) -> Option<PathBuf> {
        self.project_dir.as_ref().map(|d| d.join(".mcp.json"))
    }

    /// The user's file merged with the project's.
    pub fn load(&self) -> Result<ConfigFile, ErrorInfo> {
        Ok(
            ConfigFile::load_scoped(&self.user, self.project_dir.as_deref())
                .map_err(Error::from)?,
        )
    }

    /// The file of a scope; the project scope needs a project folder.
    pub fn file_for(&self, scope: Scope) -> Result<PathBuf, ErrorInfo> {
        match scope {
            Scope::User => Ok(self.user.clone()),
            Scope::Project => self.project_file().ok_or_else(|| {
                Error::from(workbench_core::config::Error::ConfigEdit {
                    message: "no project folder is open (start with --project DIR)".into(),
                })
                .into()
            }),
        }
    }

    /// The file the entry `name` lives in; a name in neither file belongs
    /// to `new_in` (where a new entry is added).
    pub fn file_of(&self, name: &str, new_in: Scope) -> Result<PathBuf, ErrorInfo> {
        let scope = self
            .load()
            .ok()
            .and_then(|c| c.servers.into_iter().find(|e| e.name == name))
            .map(|e| e.scope)
            .unwrap_or(new_in);
        self.file_for(scope)
    }

    /// The file an existing entry `name` lives in (an unknown name is an error).
    pub fn file_of_existing(&self, name: &str) -> Result<PathBuf, ErrorInfo> {
        let config = self.load()?;
        let entry = config
            .servers
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| unknown(name))?;
        Ok(config.file_of(entry).to_path_buf())
    }

    /// Whether `path` is one of the person's own config files.
    pub fn is_own(&self, path: &Path) -> bool {
        path == self.user || self.project_file().as_deref() == Some(path)
    }

    /// The text of a scope's file.
    pub fn read_text(&self, scope: Scope) -> Result<ConfigText, ErrorInfo> {
        let path = self.file_for(scope)?;
        let doc = open(&path)?;
        Ok(ConfigText {
            path: path.display().to_string(),
            exists: path.exists(),
            text: doc.text,
        })
    }

    /// Save the whole text of a scope's file, the person's own: only if it
    /// loads and the file still holds `base`, the text the editor started
    /// from (else nothing is written: config_conflict).
    pub fn save_text(&self, scope: Scope, text: String, base: &str) -> Result<(), ErrorInfo> {
        let path = self.file_for(scope)?;
        // Held from the comparison to the save: what is trusted before the
        // save is what the save then writes (no other save comes between).
        let mut doc = Document::open_locked(&path).map_err(Error::from)?;
        if doc.text != base {
            return Err(Error::from(workbench_core::config::Error::ConfigConflict { path }).into());
        }
        doc.replace(text).map_err(Error::from)?;
        let own = doc.path == self.user;
        Ok(workbench_calls::rules::save_own(
            &mut doc,
            base,
            &Trust::app(),
            &self.settings,
            own,
        )?)
    }

    /// The person's own edit of one server, in the file it lives in (a new
    /// server goes to `new_in`): what it adds or changes is trusted as
    /// written, a renamed entry's secrets and approvals follow it, a removed
    /// entry's own secrets and input answers go with it (those that cannot
    /// be removed are returned, each with why). The file it changed, and
    /// the secrets left behind.
    pub fn edit(&self, op: &EditOp, new_in: Scope) -> Result<Edited, ErrorInfo> {
        let path = match op {
            EditOp::Upsert { name, .. }
            | EditOp::Remove { name }
            | EditOp::SetDisabled { name, .. } => self.file_of(name, new_in)?,
            EditOp::Rename { from, .. } => self.file_of(from, new_in)?,
            _ => self.file_for(new_in)?,
        };
        self.edit_in(&path, op)
    }

    /// [`Place::edit`] of the file at `path`.
    pub fn edit_in(&self, path: &Path, op: &EditOp) -> Result<Edited, ErrorInfo> {
        let (secrets, folder) = match op {
            EditOp::Remove { name } => (
                self.own_secrets(path, name),
                // A bundle's entry: the folder it was unpacked into goes too.
                raw_entries(path)
                    .unwrap_or_default()
                    .into_iter()
                    .find(|(n, _)| n == name)
                    .and_then(|(_, e)| crate::bundle::folder_made_for(name, &e)),
            ),
            _ => (Vec::new(), None),
        };
        let keychain = Keychain::app();
        // A credential written out (`--header Authorization=Bearer …`, a
        // form's plain field) goes to the keychain, not into the file, as
        // an import's does; the file holds its reference.
        let mut kept = Vec::new();
        let kept_op;
        let op = match op {
            EditOp::Upsert { name, fields } => {
                let mut fields = fields.clone();
                kept = self.keep_credentials(path, name, &mut fields, false)?;
                kept_op = EditOp::Upsert {
                    name: name.clone(),
                    fields,
                };
                &kept_op
            }
            other => other,
        };
        // One server's change, applied to the file as it is: read under the
        // file's lock, so another window or `mcpwb` saving at once waits.
        // A file that did not exist has no lock yet: a save that finds it
        // made in between reads it again and applies the change to that.
        let mut tries = 0;
        loop {
            let mut doc = Document::open_locked(path).map_err(Error::from)?;
            match workbench_calls::rules::save_own_edit(
                &mut doc,
                op,
                &keychain,
                &Trust::app(),
                &self.settings,
                path == self.user,
            ) {
                Err(e) if e.code() == workbench_core::ErrorCode::ConfigConflict && tries < 8 => {
                    tries += 1;
                }
                done => break done?,
            }
        }
        let left = secrets
            .into_iter()
            .filter_map(|id| {
                keychain
                    .delete(&id)
                    .err()
                    .map(|e| format!("could not remove {id} from the keychain: {e}"))
            })
            .chain(folder.and_then(|f| crate::bundle::let_go(self, &f)))
            .collect();
        Ok(Edited {
            file: path.to_path_buf(),
            secrets_left: left,
            kept,
        })
    }

    /// Add server `name` to the file at `path`: refused when the file has
    /// one of that name already (edit it instead).
    pub fn add_to(
        &self,
        path: &Path,
        name: &str,
        fields: Map<String, Value>,
    ) -> Result<Edited, ErrorInfo> {
        let existing = open(path)?;
        if !existing.text.trim().is_empty()
            && ConfigFile::parse(path, &existing.text)
                .map_err(Error::from)?
                .servers
                .iter()
                .any(|s| s.name == name)
        {
            return Err(crate::invalid(format!(
                "a server named \"{name}\" already exists (edit it instead)"
            )));
        }
        self.edit_in(
            path,
            &EditOp::Upsert {
                name: name.to_string(),
                fields,
            },
        )
    }

    /// The keychain ids entry `name` of `path` owns: its `${secret:…}`
    /// references and its input answers.
    fn own_secrets(&self, path: &Path, name: &str) -> Vec<String> {
        let mut ids: Vec<String> = raw_entries(path)
            .unwrap_or_default()
            .into_iter()
            .filter(|(n, _)| n == name)
            .flat_map(|(_, e)| keychain_refs(&Value::Object(e).to_string()))
            .filter(|id| !id.starts_with("input/"))
            .collect();
        if let Some(entry) = self
            .load()
            .ok()
            .and_then(|c| c.servers.into_iter().find(|e| e.name == name))
        {
            let dir = self.project_dir.as_deref();
            ids.extend(entry.input_refs().iter().map(|id| entry.input_key(dir, id)));
        }
        ids
    }

    /// Server `name`'s entry as written (references unexpanded).
    pub fn entry(&self, name: &str) -> Result<Map<String, Value>, ErrorInfo> {
        self.entries(Some(name))?
            .remove(name)
            .and_then(|v| match v {
                Value::Object(m) => Some(m),
                _ => None,
            })
            .ok_or_else(|| unknown(name))
    }

    /// The entries as written, the project's over the user's (only `only`'s
    /// when given: an unknown name is an error).
    pub fn entries(&self, only: Option<&str>) -> Result<Map<String, Value>, ErrorInfo> {
        let mut out = Map::new();
        let files = std::iter::once(self.user.clone()).chain(self.project_file());
        for file in files.filter(|f| f.exists()) {
            for (name, entry) in raw_entries(&file)? {
                if only.is_none_or(|s| s == name) {
                    out.insert(name, Value::Object(entry));
                }
            }
        }
        match only {
            Some(name) if !out.contains_key(name) => Err(unknown(name)),
            _ => Ok(out),
        }
    }

    /// Credentials written out in `fields` of server `name` (for the file at
    /// `path`) kept in the OS keychain under the entry's own prefix, each
    /// replaced by its reference (`dry_run`: only the reference, nothing
    /// kept). The one rule for the person's edit and an import; each one
    /// moved said. A keychain that refuses fails the whole write.
    pub(crate) fn keep_credentials(
        &self,
        path: &Path,
        name: &str,
        fields: &mut Map<String, Value>,
        dry_run: bool,
    ) -> Result<Vec<String>, ErrorInfo> {
        let scope = if path == self.user {
            Scope::User
        } else {
            Scope::Project
        };
        let keychain = Keychain::app();
        let moved = workbench_core::config::secrets::keep_credentials(fields, |field, key, value| {
            let id = secret_id_for(scope, path.parent(), name, field, key);
            if !dry_run {
                keychain.set(&id, value).map_err(|e| e.to_string())?;
            }
            Ok(reference(&id))
        })
        .map_err(|why| {
            ErrorInfo::new(
                workbench_core::ErrorCode::Secret,
                format!("{name}: a credential could not be kept in the OS keychain, so nothing was written: {why}"),
            )
        })?;
        let how = if dry_run { "would be kept" } else { "kept" };
        Ok(moved
            .into_iter()
            .map(|k| format!("{name}: {k} {how} in the OS keychain, not in the file"))
            .collect())
    }

    /// A config file's text as it is shown to a person (an import's
    /// `--dry-run`): each credential written out in an entry (by hand, by
    /// another tool) replaced by the masker's mask, every other byte as
    /// it is. The same rule as [`Place::entries_shown`].
    pub(crate) fn text_shown(path: &Path, text: &str) -> String {
        let Ok(entries) = workbench_core::config::raw_entries(path, text) else {
            return text.to_string();
        };
        let mut written = Vec::new();
        for (_, mut fields) in entries {
            let _ = workbench_core::config::secrets::keep_credentials(&mut fields, |_, _, v| {
                written.push(v.to_string());
                Ok(workbench_mask::MASK.to_string())
            });
        }
        // The longest first: a value inside another is not half-masked.
        written.sort_by_key(|v| std::cmp::Reverse(v.len()));
        let mut shown = text.to_string();
        for v in written {
            // As the file spells it: a JSON string's escapes.
            let quoted = Value::String(v).to_string();
            let inner = &quoted[1..quoted.len() - 1];
            shown = shown.replace(inner, workbench_mask::MASK);
        }
        shown
    }

    /// The entries as they are shown to a person (`mcpwb config show`): a
    /// credential written out in the file (by hand, by another tool) shown
    /// as the masker's mask, each one said in the notes with how to keep it
    /// in the keychain instead. What the file holds is unchanged.
    pub fn entries_shown(
        &self,
        only: Option<&str>,
    ) -> Result<(Map<String, Value>, Vec<String>), ErrorInfo> {
        let mut out = self.entries(only)?;
        let mut notes = Vec::new();
        for (name, entry) in out.iter_mut() {
            let Value::Object(fields) = entry else {
                continue;
            };
            let hidden = workbench_core::config::secrets::keep_credentials(fields, |_, _, _| {
                Ok(workbench_mask::MASK.to_string())
            })
            .unwrap_or_default();
            let quoted = shell_quote(name);
            notes.extend(hidden.into_iter().map(|field| {
                let flag = if field.starts_with("env.") { "--env" } else { "--header" };
                let key = field.split_once('.').map_or(field.as_str(), |(_, k)| k);
                format!(
                    "{name}: {field} is written in the file in plain text (hidden here); give it again with `mcpwb config edit {quoted} {flag} {key}=…` to keep it in the OS keychain"
                )
            }));
        }
        Ok((out, notes))
    }

    /// Keep a secret env value or header of `server` (in `scope`'s file) in
    /// the OS keychain, under the entry's own prefix (the only secrets it
    /// may read); the `${secret:…}` reference to write instead.
    pub fn store_secret(
        &self,
        scope: Scope,
        server: &str,
        field: &str,
        key: &str,
        value: &str,
    ) -> Result<String, ErrorInfo> {
        let id = self.secret_id(scope, server, field, key)?;
        Keychain::app().set(&id, value).map_err(Error::from)?;
        Ok(reference(&id))
    }

    /// The keychain id a secret of `server` (in `scope`'s file) is kept under.
    fn secret_id(
        &self,
        scope: Scope,
        server: &str,
        field: &str,
        key: &str,
    ) -> Result<String, ErrorInfo> {
        let folder = self.file_for(scope)?.parent().map(Path::to_path_buf);
        Ok(secret_id_for(scope, folder.as_deref(), server, field, key))
    }

    /// The inputs the servers refer to that the keychain lacks (none when
    /// the config does not load: its problems are said elsewhere).
    pub fn needed_inputs(&self) -> Vec<NeededInput> {
        let Ok(config) = self.load() else {
            return Vec::new();
        };
        let keychain = Keychain::app();
        config.missing_inputs(self.project_dir.as_deref(), |id| {
            keychain.get(id).ok().flatten().is_some()
        })
    }

    /// Keep the value of `${input:id}` for each of `servers` that uses it
    /// (every server using it when `servers` is empty; each entry has its
    /// own answer). The servers it was kept for; none is an error.
    pub fn provide_input(
        &self,
        id: &str,
        value: &str,
        servers: &[String],
    ) -> Result<Vec<String>, ErrorInfo> {
        let keys: Vec<(String, String)> = self
            .load()?
            .input_keys(self.project_dir.as_deref(), id)
            .into_iter()
            .filter(|(s, _)| servers.is_empty() || servers.contains(s))
            .collect();
        if keys.is_empty() {
            let named = if servers.is_empty() {
                String::new()
            } else {
                format!(" named {}", servers.join(", "))
            };
            return Err(crate::invalid(format!(
                "no server{named} uses ${{input:{id}}}"
            )));
        }
        let keychain = Keychain::app();
        for (_, key) in &keys {
            keychain.set(key, value).map_err(Error::from)?;
        }
        Ok(keys.into_iter().map(|(s, _)| s).collect())
    }

    /// Add a working example server to the user's file (a first start):
    /// `demo`, the demo server shipped with the app, else the reference
    /// "everything" server through npx. The name it got.
    pub fn add_example(&self, demo: Option<PathBuf>) -> Result<String, ErrorInfo> {
        use workbench_core::connect::resolve::find_program;
        let taken: Vec<String> = self
            .load()
            .map(|c| c.servers.into_iter().map(|s| s.name).collect())
            .unwrap_or_default();
        let name = std::iter::once("example".to_string())
            .chain((2..).map(|n| format!("example-{n}")))
            .find(|n| !taken.contains(n))
            .unwrap_or_default();
        let entry = match demo {
            Some(path) => serde_json::json!({
                "command": path.display().to_string(),
                "args": ["--name", name],
                "description": "The MCP Workbench demo server: every MCP feature to try"
            }),
            None if find_program("npx").is_some() => {
                serde_json::json!({
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-everything"],
                    "description": "The MCP reference server with every feature (fetched by npx)"
                })
            }
            None => {
                return Err(Error::Refused(
                    "no example server here: the demo server is not installed beside the app and npx is not on PATH; add a server with Add server".into(),
                )
                .into());
            }
        };
        let Value::Object(fields) = entry else {
            return Err(Error::Internal("the example entry is an object".into()).into());
        };
        self.edit_in(
            &self.user.clone(),
            &EditOp::Upsert {
                name: name.clone(),
                fields,
            },
        )?;
        Ok(name)
    }
}

/// What an edit changed.
#[derive(Debug, Clone)]
pub struct Edited {
    /// The file written.
    pub file: PathBuf,
    /// What a removed entry left behind: secrets the keychain would not let
    /// go, a bundle's folder that could not be removed; each said.
    pub secrets_left: Vec<String>,
    /// Credentials written out that were kept in the keychain instead, each said.
    pub kept: Vec<String>,
}

/// The entries of the file at `path` as written.
pub fn raw_entries(path: &Path) -> Result<dialects::Entries, ErrorInfo> {
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, e))?;
    Ok(workbench_core::config::raw_entries(path, &text).map_err(Error::from)?)
}

/// Connect to entry `fields` under `name`, not saved yet, and report what
/// it offers or why it failed; the trial connection is closed after.
pub async fn trial(
    place: &Place,
    name: &str,
    fields: Map<String, Value>,
) -> Result<workbench_core::workbench::Trial, ErrorInfo> {
    let entry = workbench_core::config::parse_entry(name, &Value::Object(fields)).map_err(|p| {
        Error::from(workbench_core::config::Error::ConfigInvalid {
            path: place.user.clone(),
            pointer: format!("/mcpServers/{name}{}", p.pointer),
            message: p.message,
        })
    })?;
    let mut options = workbench_core::WorkbenchOptions::default();
    options.supervisor.vars = workbench_core::config::vars::Vars::from_process(None);
    let config = ConfigFile::empty(&place.user);
    Ok(workbench_core::Workbench::trial(
        &config,
        entry,
        options,
        std::time::Duration::from_secs(20),
    )
    .await?)
}

mod clients;
pub use clients::{Imports, dialect_ids, export_as};

#[cfg(test)]
mod tests;
