//! Noticing edits made to mcp.json outside the app, and working out which
//! servers they touch.

use serde::Serialize;
use std::path::Path;

use super::ServerEntry;

/// Which servers a new version of the config starts, restarts or drops.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChangeSet {
    /// Entries new in the file.
    pub added: Vec<String>,
    /// Entries whose settings (or file) changed.
    pub changed: Vec<String>,
    /// Entries gone from the file.
    pub removed: Vec<String>,
    /// Of the added and changed, those that do not start: waiting for the
    /// person's trust (a file from elsewhere), or disabled.
    pub held: Vec<Held>,
}

/// An added or changed entry that does not start, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Held {
    /// The entry's name.
    pub name: String,
    /// Why it does not start.
    pub why: HeldBy,
}

/// Why an entry of the file does not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeldBy {
    /// It waits for the person's trust (a file from elsewhere).
    Untrusted,
    /// The person disabled it.
    Disabled,
}

impl ChangeSet {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

/// Compare two versions by name: an entry whose settings or file (so its
/// base folder) differ is changed; the rest are untouched.
pub fn diff<'a>(
    old: impl Iterator<Item = (&'a ServerEntry, &'a Path)>,
    new: impl Iterator<Item = (&'a ServerEntry, &'a Path)>,
) -> ChangeSet {
    let old: Vec<_> = old.collect();
    let new: Vec<_> = new.collect();
    let mut out = ChangeSet::default();
    for (entry, base) in &new {
        match old.iter().find(|(o, _)| o.name == entry.name) {
            None => out.added.push(entry.name.clone()),
            Some((o, ob)) if o != entry || ob != base => out.changed.push(entry.name.clone()),
            Some(_) => continue,
        }
        let why = match (entry.trusted, entry.disabled) {
            (false, _) => HeldBy::Untrusted,
            (true, true) => HeldBy::Disabled,
            (true, false) => continue,
        };
        out.held.push(Held {
            name: entry.name.clone(),
            why,
        });
    }
    for (o, _) in &old {
        if !new.iter().any(|(e, _)| e.name == o.name) {
            out.removed.push(o.name.clone());
        }
    }
    out
}
