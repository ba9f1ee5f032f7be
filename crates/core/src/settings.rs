//! The settings the window and `mcpwb` share (LLM providers, the agent's
//! defaults and approvals): one JSON file the core owns,
//! `~/.config/mcp-workbench/settings.json` (`$MCPWB_SETTINGS` names
//! another). Each owner keeps a top-level section of its own and reads it
//! typed; sections it does not know are left as they are. Writes are atomic
//! (a temp file renamed over the old one) and refuse to replace a file that
//! does not parse, so a hand-edit gone wrong is reported, never lost.
//! Secrets never go here: API keys live in the OS keychain.
//!
//! Also where the app's data lives ([`data_dir`]): the SQLite store both
//! open, so a session started in the window can be continued by `mcpwb`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The shared settings file: `$MCPWB_SETTINGS`, else beside the user's
/// mcp.json (`$XDG_CONFIG_HOME/mcp-workbench/settings.json`).
pub fn default_path() -> PathBuf {
    if let Some(p) = std::env::var_os("MCPWB_SETTINGS").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    crate::config::default_user_config().with_file_name("settings.json")
}

/// Beside the settings: the lock held while a secret the workbench makes
/// for itself (the bridge's and the tap's tokens) is made.
pub fn keychain_lock() -> PathBuf {
    default_path().with_file_name("keychain")
}

pub use crate::paths::data_dir;

/// Writes made by this process through any [`SettingsFile`]: a reader that
/// caches (the approval rules) sees a change made here at once without
/// asking the file system on every read.
static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many times this process wrote a settings file.
pub fn writes() -> u64 {
    WRITES.load(std::sync::atomic::Ordering::Acquire)
}

/// The settings file. Cheap to clone; each call reads the file afresh, so
/// a change made by the other face (app or CLI) is seen at once.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    path: PathBuf,
}

fn unusable(path: &Path, message: String) -> Error {
    crate::config::Error::ConfigInvalid {
        path: path.to_path_buf(),
        pointer: String::new(),
        message,
    }
    .into()
}

impl SettingsFile {
    pub fn new(path: impl Into<PathBuf>) -> SettingsFile {
        SettingsFile { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The whole file as a JSON object (a missing file is `{}`).
    fn read_all(&self) -> Result<Map<String, Value>> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
            Err(source) => {
                return Err(crate::config::Error::ConfigUnreadable {
                    path: self.path.clone(),
                    source,
                }
                .into());
            }
        };
        if text.trim().is_empty() {
            return Ok(Map::new());
        }
        match crate::config::parse_jsonc(&self.path, &text)? {
            Value::Object(map) => Ok(map),
            _ => Err(unusable(
                &self.path,
                "the settings file must hold a JSON object".into(),
            )),
        }
    }

    /// One section, typed (absent: its default). A section that does not
    /// fit the type is an error naming it, not silently reset.
    pub fn section<T: DeserializeOwned + Default>(&self, key: &str) -> Result<T> {
        match self.read_all()?.remove(key) {
            None | Some(Value::Null) => Ok(T::default()),
            Some(v) => serde_json::from_value(v)
                .map_err(|e| unusable(&self.path, format!("section \"{key}\": {e}"))),
        }
    }

    /// Read a section, change it, write it back; returns what was written.
    /// Other sections keep their values, also when another process (the
    /// window, `mcpwb`) changes another section at the same moment: the
    /// read, the change and the write hold the file's lock.
    pub fn update<T, F>(&self, key: &str, change: F) -> Result<T>
    where
        T: DeserializeOwned + Serialize + Default,
        F: FnOnce(&mut T),
    {
        let _locked = crate::files::lock_beside(&self.path);
        let mut all = self.read_all()?;
        let mut section: T = match all.remove(key) {
            None | Some(Value::Null) => T::default(),
            Some(v) => serde_json::from_value(v)
                .map_err(|e| unusable(&self.path, format!("section \"{key}\": {e}")))?,
        };
        change(&mut section);
        let value = serde_json::to_value(&section).map_err(|e| Error::Internal(e.to_string()))?;
        all.insert(key.to_string(), value);
        let mut text = serde_json::to_string_pretty(&Value::Object(all))
            .map_err(|e| Error::Internal(e.to_string()))?;
        text.push('\n');
        crate::config::document::write_atomic(&self.path, text.as_bytes(), false)?;
        WRITES.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(section)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
    struct Agent {
        #[serde(default)]
        max_steps: u32,
        #[serde(default)]
        models: Vec<String>,
    }

    #[test]
    fn a_section_round_trips_and_other_sections_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "// mine\n{ \"window\": { \"zoom\": 2 } }").unwrap();
        let file = SettingsFile::new(&path);
        assert_eq!(file.section::<Agent>("agent").unwrap(), Agent::default());
        file.update("agent", |a: &mut Agent| {
            a.max_steps = 7;
            a.models.push("m".into());
        })
        .unwrap();
        let again = SettingsFile::new(&path);
        assert_eq!(again.section::<Agent>("agent").unwrap().max_steps, 7);
        let all: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(all["window"]["zoom"], 2);
    }

    #[test]
    fn changes_made_at_once_to_two_sections_are_both_kept() {
        // The window and `mcpwb` (here: two threads, each with its own
        // handle on the file) each change their own section, 40 times.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let start = std::sync::Arc::new(std::sync::Barrier::new(2));
        let writers: Vec<_> = ["window", "bridge"]
            .into_iter()
            .map(|key| {
                let (path, start) = (path.clone(), start.clone());
                std::thread::spawn(move || {
                    let file = SettingsFile::new(&path);
                    start.wait();
                    for _ in 0..40 {
                        file.update(key, |a: &mut Agent| a.max_steps += 1).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let file = SettingsFile::new(&path);
        for key in ["window", "bridge"] {
            assert_eq!(file.section::<Agent>(key).unwrap().max_steps, 40, "{key}");
        }
    }

    #[test]
    fn a_broken_file_is_reported_and_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{ \"agent\": ").unwrap();
        let file = SettingsFile::new(&path);
        let e = file
            .update("agent", |a: &mut Agent| a.max_steps = 1)
            .unwrap_err();
        assert!(e.to_string().contains("settings.json"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ \"agent\": ");
        std::fs::write(&path, "{ \"agent\": { \"max_steps\": \"many\" } }").unwrap();
        let e = file.section::<Agent>("agent").unwrap_err();
        assert!(e.to_string().contains("section \"agent\""), "{e}");
    }
}
