//! Other clients' config files: found in their documented places,
//! imported into ours (untrusted until the person says so, the
//! credentials written out in them kept in the keychain), ours exported in
//! their shape.

use std::path::{Path, PathBuf};

use serde_json::Value;
use workbench_core::config::dialects::{self, Imported};
use workbench_core::config::document::Document;
use workbench_core::{Error, ErrorInfo};

use super::{ConfigFile, Dialect, Exported, Found, Merged, Place, open, raw_entries, unreadable};

/// What an import did or (dry run) would do.
#[derive(Debug, Clone)]
pub struct Imports {
    pub dialect: Dialect,
    /// The file the servers went (or would go) into.
    pub file: PathBuf,
    pub imported: Imported,
    pub merged: Merged,
    /// The file's text after the import, as a dry run shows it: each
    /// credential written out in it masked ([`Place::text_shown`]).
    pub text: String,
}

impl Place {
    /// Other clients' config files found here (their documented places),
    /// the person's own left out.
    pub fn discover(&self, home: &Path) -> Vec<Found> {
        let project = self
            .project_dir
            .clone()
            .or_else(|| self.user.parent().map(Path::to_path_buf));
        let mut found = dialects::discover(home, project.as_deref());
        found.retain(|f| !self.is_own(Path::new(&f.path)));
        found
    }

    /// Import servers from another client's file `path` (in `dialect`, else
    /// guessed) into ours — only `only`'s when not empty; ours of the same
    /// name kept unless `replace`. A file inside the project folder is the
    /// project's: its servers go to the project's `.mcp.json`. Imported
    /// servers are not the person's own edit: they start once trusted.
    /// Nothing is written when `dry_run`.
    pub fn import(
        &self,
        path: &Path,
        dialect: Option<&str>,
        only: &[String],
        replace: bool,
        dry_run: bool,
    ) -> Result<Imports, ErrorInfo> {
        let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, e))?;
        let dialect = match dialect {
            Some(id) => Dialect::from_id(id).ok_or_else(|| {
                crate::invalid(format!(
                    "unknown dialect \"{id}\"; one of: {}",
                    dialect_ids()
                ))
            })?,
            None => dialects::guess(path, &text),
        };
        // Which file is not its dialect, said with why.
        let mut imported = dialects::import(dialect, &text).map_err(|e| {
            let mut info = ErrorInfo::from(Error::from(e));
            info.message = format!("{}: {}", path.display(), info.message);
            info
        })?;
        let inside_project = self.project_dir.as_ref().and_then(|dir| {
            let dir = std::fs::canonicalize(dir).ok()?;
            let file = std::fs::canonicalize(path).ok()?;
            file.starts_with(&dir).then(|| dir.join(".mcp.json"))
        });
        let file = inside_project.unwrap_or_else(|| self.user.clone());
        // Merged into the file as it is: another writer waits for the save.
        let mut doc = if dry_run {
            open(&file)?
        } else {
            Document::open_locked(&file).map_err(Error::from)?
        };
        // Credentials written out in the other client's file go to the
        // keychain, not into ours (a dry run only says they would).
        let ours = dialects::names_in(&doc).map_err(Error::from)?;
        let mut said = Vec::new();
        for (name, fields) in imported
            .servers
            .iter_mut()
            .filter(|(n, _)| dialects::goes_in(n, &ours, only, replace))
        {
            said.extend(self.keep_credentials(&file, name, fields, dry_run)?);
        }

        let mut merged =
            dialects::merge_into(&mut doc, &imported, only, replace).map_err(Error::from)?;
        merged.notes.extend(said);
        if !dry_run && !merged.added.is_empty() {
            doc.save().map_err(Error::from)?;
        }
        Ok(Imports {
            dialect,
            imported,
            merged,
            text: Place::text_shown(&file, &doc.text),
            file,
        })
    }
}

/// The config `cfg` (the project's entries over the user's) in dialect
/// `to`'s shape, with a note for each thing the target cannot express.
pub fn export_as(cfg: &ConfigFile, to: &str) -> Result<Exported, ErrorInfo> {
    let d = Dialect::from_id(to).ok_or_else(|| {
        crate::invalid(format!(
            "unknown dialect \"{to}\"; one of: {}",
            dialect_ids()
        ))
    })?;
    let mut servers = raw_entries(&cfg.path).unwrap_or_default();
    if let Some(p) = &cfg.project {
        for (n, e) in raw_entries(p)? {
            servers.retain(|(m, _)| *m != n);
            servers.push((n, e));
        }
    }
    let inputs: Vec<Value> = std::fs::read_to_string(&cfg.path)
        .ok()
        .and_then(|t| workbench_core::config::parse_jsonc(&cfg.path, &t).ok())
        .and_then(|d| d.get("inputs").and_then(Value::as_array).cloned())
        .unwrap_or_default();
    Ok(dialects::export(d, &servers, &inputs).map_err(Error::from)?)
}

/// The dialects' ids, for a message.
pub fn dialect_ids() -> String {
    dialects::ALL
        .iter()
        .map(|d| d.id())
        .collect::<Vec<_>>()
        .join(", ")
}
