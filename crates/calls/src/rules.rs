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

/// The entry a server's standing approvals are for: its name, its owner
/// ([`workbench_core::config::trust::owner`]: file, entry, what it runs)
/// and whether it is in the person's own file.
#[derive(Debug, Clone, PartialEq)]
pub struct Grantee {
    pub server: String,
    pub owner: String,
    pub own_file: bool,
}

impl Grantee {
    /// The entry of a running server.
    pub fn of(handle: &workbench_core::connect::ServerHandle) -> Grantee {
        Grantee {
            server: handle.name().to_string(),
            owner: handle.owner(),
            own_file: handle.entry().scope == workbench_core::config::Scope::User,
        }
    }

    /// A server the workbench does not run: no standing approval holds.
    pub fn unknown(server: &str) -> Grantee {
        Grantee {
            server: server.to_string(),
            owner: String::new(),
            own_file: false,
        }
    }
}

/// The grantees of the person's own changes to trusted entries of `file`
/// (as [`workbench_core::config::trust::Trust::trust_changes`] returns
/// them), for [`LiveRules::carry`].
pub fn moves(
    file: &std::path::Path,
    own_file: bool,
    changed: &[(
        workbench_core::config::ServerEntry,
        workbench_core::config::ServerEntry,
    )],
) -> Vec<(Grantee, Grantee)> {
    let grantee = |e: &workbench_core::config::ServerEntry| Grantee {
        server: e.name.clone(),
        owner: workbench_core::config::trust::owner(file, e),
        own_file,
    };
    changed
        .iter()
        .map(|(before, after)| (grantee(before), grantee(after)))
        .collect()
}

/// After the person's own save of `file` (the window, `mcpwb config`):
/// what they wrote is trusted ([`workbench_core::config::trust::Trust::trust_changes`])
/// and the standing approvals of trusted entries they changed or renamed
/// follow them. `own_file`: `file` is the person's own (not a project's).
pub fn own_save(
    trust: &workbench_core::config::trust::Trust,
    settings: &SettingsFile,
    file: &std::path::Path,
    own_file: bool,
    before: &str,
    after: &str,
) -> workbench_core::Result<()> {
    let changed = trust.trust_changes(file, before, after)?;
    LiveRules::new(settings.clone()).carry(&moves(file, own_file, &changed))
}

/// Save the person's own new text of `doc` (`before`: what it held): what
/// they wrote is trusted and the approvals follow ([`own_save`]) *before*
/// the save, so the reload the save causes finds them; failing to record
/// that only means a server asks once more. The one sequence for the window
/// and `mcpwb config`, which open `doc` under the file's lock
/// (`Document::open_locked`): no other save comes between this trust and
/// the save that writes what it trusts.
pub fn save_own(
    doc: &mut workbench_core::config::document::Document,
    before: &str,
    trust: &workbench_core::config::trust::Trust,
    settings: &SettingsFile,
    own_file: bool,
) -> workbench_core::Result<()> {
    if let Err(e) = own_save(trust, settings, &doc.path, own_file, before, &doc.text) {
        tracing::warn!(error = %e, "cannot record the trust of a save or carry its approvals");
    }
    Ok(doc.save()?)
}

/// The person's own edit of `doc`, saved as [`save_own`] does; a renamed
/// entry's own secrets follow it in `keychain` (an entry reads only those
/// under its name).
pub fn save_own_edit(
    doc: &mut workbench_core::config::document::Document,
    edit: &workbench_core::config::edit::EditOp,
    keychain: &workbench_core::config::secrets::Keychain,
    trust: &workbench_core::config::trust::Trust,
    settings: &SettingsFile,
    own_file: bool,
) -> workbench_core::Result<()> {
    let before = doc.text.clone();
    doc.edit(edit)?;
    if let workbench_core::config::edit::EditOp::Rename { from, to } = edit {
        workbench_core::config::rename::follow_rename(doc, keychain, from, to)?;
    }
    save_own(doc, &before, trust, settings, own_file)
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
    /// Server name → the owner its grants were given to. A server's
    /// allows, trust and recorded definitions hold only for that owner; a
    /// name with none recorded (rules from before) only for an entry of
    /// the person's own file.
    pub grant_owners: BTreeMap<String, String>,
}

impl Rules {
    pub fn policy(&self, server: &str, tool: &str) -> ToolPolicy {
        self.tool_policies
            .get(&tool_key(server, tool))
            .copied()
            .unwrap_or_default()
    }

    /// Whether the grants kept under this server's name are this entry's.
    pub fn hold(&self, g: &Grantee) -> bool {
        holds(&self.grant_owners, g)
    }
}

/// Whether the grants kept under `g`'s server name are `g`'s, by the
/// owners recorded (none recorded: only for the person's own file).
pub fn holds(owners: &BTreeMap<String, String>, g: &Grantee) -> bool {
    match owners.get(&g.server) {
        Some(owner) => *owner == g.owner,
        None => g.own_file,
    }
}

/// The keys of the rules section that hold grants (a deny is not one: it
/// stays whoever it was set for).
const TRUST_LISTS: [&str; 2] = ["trusted_servers", "auto_sampling_servers"];

fn server_of_key<'k>(key: &'k str, server: &str) -> Option<&'k str> {
    key.strip_prefix(server)?.strip_prefix('/')
}

/// Make `g` the owner of its server's grants in the rules `section` (the
/// settings file's `"agent"` object), before a grant is written for it.
/// Grants another entry of the same name was given are dropped (its
/// allows, trust, auto-sampling, recorded definitions; denies stay).
pub fn claim(section: &mut serde_json::Map<String, Value>, g: &Grantee) {
    let owners = section
        .entry("grant_owners")
        .or_insert_with(|| Value::Object(Default::default()));
    if !owners.is_object() {
        *owners = Value::Object(Default::default());
    }
    let current = owners.get(&g.server).and_then(Value::as_str);
    let holds = match current {
        Some(o) => o == g.owner,
        None => g.own_file,
    };
    if let Some(map) = owners.as_object_mut() {
        map.insert(g.server.clone(), Value::String(g.owner.clone()));
    }
    if holds {
        return;
    }
    if let Some(Value::Object(policies)) = section.get_mut("tool_policies") {
        policies.retain(|k, v| server_of_key(k, &g.server).is_none() || v == "deny");
    }
    if let Some(Value::Object(defs)) = section.get_mut("approved_definitions") {
        defs.retain(|k, _| server_of_key(k, &g.server).is_none());
    }
    for list in TRUST_LISTS {
        if let Some(Value::Array(names)) = section.get_mut(list) {
            names.retain(|n| n.as_str() != Some(g.server.as_str()));
        }
    }
}

/// After the person changed (or renamed) an entry in the workbench: its
/// grants follow it from `from` to `to`, when they were its own.
pub fn carry(section: &mut serde_json::Map<String, Value>, from: &Grantee, to: &Grantee) {
    let rules: Rules = serde_json::from_value(Value::Object(section.clone())).unwrap_or_default();
    if !rules.hold(from) || from == to {
        return;
    }
    let rename = |key: &str| -> Option<String> {
        server_of_key(key, &from.server).map(|tool| tool_key(&to.server, tool))
    };
    for map in ["tool_policies", "approved_definitions"] {
        if let Some(Value::Object(m)) = section.get_mut(map) {
            let moved: Vec<(String, String)> = m
                .keys()
                .filter_map(|k| Some((k.clone(), rename(k)?)))
                .collect();
            for (old, new) in moved {
                if let Some(v) = m.remove(&old) {
                    m.insert(new, v);
                }
            }
        }
    }
    for list in TRUST_LISTS {
        if let Some(Value::Array(names)) = section.get_mut(list) {
            for n in names.iter_mut() {
                if n.as_str() == Some(from.server.as_str()) {
                    *n = Value::String(to.server.clone());
                }
            }
        }
    }
    if let Some(Value::Object(owners)) = section.get_mut("grant_owners") {
        owners.remove(&from.server);
    }
    let owners = section
        .entry("grant_owners")
        .or_insert_with(|| Value::Object(Default::default()));
    if let Some(map) = owners.as_object_mut() {
        map.insert(to.server.clone(), Value::String(to.owner.clone()));
    }
}

/// How the history is bounded (`"history"` in the settings file).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HistorySettings {
    /// The calls kept take at most this many MiB; the oldest go first,
    /// never saved ones.
    pub max_mib: u32,
    /// The sessions hosts had through `mcpwb tap` take at most this many
    /// MiB: the oldest ended ones go first; one session alone past it keeps
    /// nothing more (said in it).
    pub sessions_max_mib: u32,
}

impl Default for HistorySettings {
    fn default() -> Self {
        HistorySettings {
            max_mib: 256,
            sessions_max_mib: 256,
        }
    }
}

impl HistorySettings {
    /// The sessions' cap in bytes.
    pub fn sessions_cap(&self) -> i64 {
        i64::from(self.sessions_max_mib.max(1)) * 1024 * 1024
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

    /// Record what `g`'s `tool` looks like now that it was allowed,
    /// leaving every other key of the section as it is.
    pub fn approve_definition(
        &self,
        g: &Grantee,
        tool: &str,
        covered: Value,
    ) -> workbench_core::Result<()> {
        let key = tool_key(&g.server, tool);
        self.file
            .update(SECTION, |section: &mut serde_json::Map<String, Value>| {
                claim(section, g);
                let defs = section
                    .entry("approved_definitions")
                    .or_insert_with(|| Value::Object(Default::default()));
                if !defs.is_object() {
                    *defs = Value::Object(Default::default());
                }
                if let Some(map) = defs.as_object_mut() {
                    map.insert(key, covered);
                }
            })?;
        Ok(())
    }

    /// Make `g` the owner of its server's grants ([`claim`]).
    pub fn claim(&self, g: &Grantee) -> workbench_core::Result<()> {
        self.file
            .update(SECTION, |section: &mut serde_json::Map<String, Value>| {
                claim(section, g)
            })?;
        Ok(())
    }

    /// The person's change of entries (old, new) in the workbench: their
    /// grants follow them ([`carry`]).
    pub fn carry(&self, moves: &[(Grantee, Grantee)]) -> workbench_core::Result<()> {
        if moves.is_empty() {
            return Ok(());
        }
        self.file
            .update(SECTION, |section: &mut serde_json::Map<String, Value>| {
                for (from, to) in moves {
                    carry(section, from, to);
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
