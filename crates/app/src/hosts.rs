//! Other hosts' config files (Claude Desktop's, Cursor's, …) and routing one
//! of their servers through `mcpwb tap`: the entry's `command` and `args`
//! changed losslessly, the way back written down first (a record in the
//! data folder), and put back — the file's bytes as they were when nothing
//! else changed it since. The window's Hosts and `mcpwb config tap|untap`
//! adapt these.

use std::path::{Path, PathBuf};

use serde::Serialize;
use workbench_core::config::dialects::tapping::{self, HostEntry};
use workbench_core::config::dialects::{self, Dialect};
use workbench_core::{Error, ErrorInfo};

use crate::config::Place;

/// A host's config file and its entries, for Tap and Untap.
#[derive(Debug, Clone, Serialize)]
pub struct HostFile {
    pub dialect: Dialect,
    pub path: String,
    pub entries: Vec<HostEntry>,
    /// Why its entries are not listed (unreadable; a dialect not offered).
    pub error: Option<String>,
    /// A new entry can be added into it in its host's shape (the
    /// Registry's Into).
    pub writable: bool,
    /// Where a secret goes when an entry is added into it.
    pub secrets: dialects::hosting::Secrets,
}

/// Where the way back of each tapped entry is written down.
fn records() -> PathBuf {
    workbench_core::settings::data_dir().join("tapped-hosts.json")
}

/// The hosts' config files found here (the person's own files left out),
/// each entry with whether it runs through the tap.
pub fn files(place: &Place, home: &Path) -> Vec<HostFile> {
    let mut seen = std::collections::HashSet::new();
    place
        .discover(home)
        .into_iter()
        // A project folder that is the home folder finds its files twice.
        .filter(|f| seen.insert(f.path.clone()))
        .map(|f| {
            let listed = if tapping::tappable(f.dialect) {
                tapping::entries(&records(), Path::new(&f.path)).map_err(|e| e.to_string())
            } else {
                Err("Tap is offered for the JSON configs with mcpServers or servers and Codex's config.toml; for this one, put `mcpwb tap -- COMMAND` in the entry by hand".into())
            };
            let (entries, error) = match listed {
                Ok(e) => (e, None),
                Err(e) => (Vec::new(), Some(e)),
            };
            HostFile {
                writable: dialects::hosting::writable(f.dialect),
                secrets: dialects::hosting::secrets(f.dialect),
                dialect: f.dialect,
                path: f.path,
                entries,
                error,
            }
        })
        .collect()
}

/// The host's file `which` names: a path, or a dialect's first known file
/// that exists here.
pub fn file(which: &str, home: &Path, project: Option<&Path>) -> Result<PathBuf, ErrorInfo> {
    let Some(dialect) = Dialect::from_id(which) else {
        return Ok(PathBuf::from(which));
    };
    dialects::known_paths(home, project)
        .into_iter()
        .find(|(d, p)| *d == dialect && p.is_file())
        .map(|(_, p)| p)
        .ok_or_else(|| {
            crate::invalid(format!(
                "no config file of {which} here: name the file with --in FILE"
            ))
        })
}

/// Route entry `name` of the host's file `path` through `mcpwb` (`mcpwb`:
/// where it is installed) — `on` — or put it back; what was done, in a
/// sentence.
pub fn tap(path: &Path, name: &str, mcpwb: &Path, on: bool) -> Result<String, ErrorInfo> {
    let done = if on {
        tapping::tap(&records(), path, name, &mcpwb.display().to_string()).map(|()| {
            format!(
                "{name} in {} now runs through `mcpwb tap`; restart the host, then watch its sessions (Sessions, or `mcpwb session list`)",
                path.display()
            )
        })
    } else {
        tapping::untap(&records(), path, name).map(|u| u.said(name, path))
    };
    done.map_err(|e| Error::from(e).into())
}
