//! Noticing edits made to mcp.json outside the app, and working out which
//! servers they touch.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use serde::Serialize;
use tokio::sync::mpsc;

use super::ServerEntry;

/// Which servers a new version of the config starts, restarts or drops.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChangeSet {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
}

impl ChangeSet {
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
            Some(_) => {}
        }
    }
    for (o, _) in &old {
        if !new.iter().any(|(e, _)| e.name == o.name) {
            out.removed.push(o.name.clone());
        }
    }
    out
}

/// Watches files (through their folders, since editors save by renaming a
/// new file over the old one). Dropping it stops watching.
pub struct FileWatch {
    _watcher: notify::RecommendedWatcher,
}

/// Send `()` on the returned channel, at most once per `settle`, after any
/// of `files` is created, written, renamed or removed.
pub fn watch_files(
    files: &[PathBuf],
    settle: Duration,
) -> notify::Result<(FileWatch, mpsc::Receiver<()>)> {
    let (raw_tx, mut raw_rx) = mpsc::unbounded_channel::<()>();
    let names: Vec<PathBuf> = files.to_vec();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if matches!(event.kind, notify::EventKind::Access(_)) {
            return;
        }
        if event
            .paths
            .iter()
            .any(|p| names.iter().any(|n| same_file_name(p, n)))
        {
            let _ = raw_tx.send(());
        }
    })?;
    let mut folders: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            f.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf()
        })
        .collect();
    folders.sort();
    folders.dedup();
    for folder in &folders {
        if folder.is_dir() {
            watcher.watch(folder, RecursiveMode::NonRecursive)?;
        }
    }
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(async move {
        while raw_rx.recv().await.is_some() {
            // Let a burst of events (write, rename, chmod) settle into one.
            tokio::time::sleep(settle).await;
            while raw_rx.try_recv().is_ok() {}
            if tx.send(()).await.is_err() {
                return;
            }
        }
    });
    Ok((FileWatch { _watcher: watcher }, rx))
}

fn same_file_name(event_path: &Path, watched: &Path) -> bool {
    event_path == watched
        || (event_path.file_name() == watched.file_name()
            && event_path.parent().and_then(|p| p.canonicalize().ok())
                == watched.parent().and_then(|p| p.canonicalize().ok()))
}
