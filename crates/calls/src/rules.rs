//! The standing approval rules, read live from the shared settings file:
//! per-tool policies, trusted servers, and what each allowed tool looked
//! like when it was allowed. They are keys of the file's `"agent"` section
//! (where the window's Settings writes them); this module owns them and
//! writes only them, leaving the rest of the section as it is.
//!
//! Read on every decision, so a tool denied in Settings is refused at once
//! by a running bridge, chat or App: a change written by this process (the
//! window's Settings) is seen on the next decision; a change by another
//! process (the app beside `mcpwb serve`, an editor) within [`RECHECK`]
//! (the file's stamp is looked at no more often; parsed again only when it
//! changed).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use workbench_core::settings::SettingsFile;

/// The settings file's section the rules live in.
pub const SECTION: &str = "agent";

/// What happens when a model (or a bridge client, or an App) calls a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ToolPolicy {
    /// Ask the person each time (the default).
    #[default]
    Ask,
    /// Run without asking.
    Allow,
    /// Never offered to a model; refused for every caller a person does not drive.
    Deny,
}

/// The key of a tool in the maps below.
pub fn tool_key(server: &str, tool: &str) -> String {
    format!("{server}/{tool}")
}

/// The standing rules.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rules {
    /// Per tool (`server/tool`): ask, allow, deny.
    pub tool_policies: BTreeMap<String, ToolPolicy>,
    /// Servers whose read-only tools (by their annotations) run without asking.
    pub trusted_servers: Vec<String>,
    /// What each allowed tool looked like when it was allowed (`server/tool`
    /// → description and schemas): a tool that changed since is asked about again.
    pub approved_definitions: BTreeMap<String, Value>,
}

impl Rules {
    pub fn policy(&self, server: &str, tool: &str) -> ToolPolicy {
        self.tool_policies
            .get(&tool_key(server, tool))
            .copied()
            .unwrap_or_default()
    }
}

/// How the history is bounded (`"history"` in the settings file).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct HistorySettings {
    /// The calls kept take at most this many MiB; the oldest go first,
    /// never saved ones.
    pub max_mib: u32,
}

impl Default for HistorySettings {
    fn default() -> Self {
        HistorySettings { max_mib: 256 }
    }
}

/// The section `"history"`.
pub const HISTORY_SECTION: &str = "history";

/// How stale the rules may be against another process's write.
pub const RECHECK: Duration = Duration::from_millis(20);

type Stamp = Option<(SystemTime, u64)>;

/// The file as last read.
struct Seen {
    /// Its stamp (None: missing).
    stamp: Stamp,
    /// When the stamp was looked at, and this process's settings writes then.
    checked: Instant,
    writes: u64,
    rules: Arc<Rules>,
}

fn stamp(file: &SettingsFile) -> Stamp {
    let m = std::fs::metadata(file.path()).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// The rules as the file has them now. Cheap to clone.
#[derive(Clone)]
pub struct LiveRules {
    file: SettingsFile,
    cached: Arc<Mutex<Option<Seen>>>,
}

impl LiveRules {
    pub fn new(file: SettingsFile) -> LiveRules {
        LiveRules {
            file,
            cached: Arc::new(Mutex::new(None)),
        }
    }

    pub fn file(&self) -> &SettingsFile {
        &self.file
    }

    /// The rules now. A file that does not read keeps the last good rules
    /// (an edit in progress must not open every tool); a missing file is
    /// no rules.
    pub fn get(&self) -> Arc<Rules> {
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        let writes = workbench_core::settings::writes();
        if let Some(seen) = cached.as_mut() {
            if seen.writes == writes && seen.checked.elapsed() < RECHECK {
                return seen.rules.clone();
            }
            let now = stamp(&self.file);
            if seen.stamp == now {
                seen.checked = Instant::now();
                seen.writes = writes;
                return seen.rules.clone();
            }
        }
        let now = stamp(&self.file);
        let rules = match self.file.section::<Rules>(SECTION) {
            Ok(rules) => Arc::new(rules),
            Err(_) if now.is_none() => Arc::default(),
            Err(e) => {
                tracing::warn!("the approval rules could not be read again: {e}");
                // The last good rules hold (none when there never were).
                cached.as_ref().map(|s| s.rules.clone()).unwrap_or_default()
            }
        };
        *cached = Some(Seen {
            stamp: now,
            checked: Instant::now(),
            writes,
            rules: rules.clone(),
        });
        rules
    }

    /// Record what `key` looks like now that it was allowed, leaving every
    /// other key of the section as it is.
    pub fn approve_definition(&self, key: &str, covered: Value) -> workbench_core::Result<()> {
        self.file
            .update(SECTION, |section: &mut serde_json::Map<String, Value>| {
                let defs = section
                    .entry("approved_definitions")
                    .or_insert_with(|| Value::Object(Default::default()));
                if !defs.is_object() {
                    *defs = Value::Object(Default::default());
                }
                if let Some(map) = defs.as_object_mut() {
                    map.insert(key.to_string(), covered);
                }
            })?;
        Ok(())
    }

    pub fn history(&self) -> HistorySettings {
        self.file
            .section::<HistorySettings>(HISTORY_SECTION)
            .unwrap_or_default()
    }
}
