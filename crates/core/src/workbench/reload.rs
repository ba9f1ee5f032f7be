//! Following the config on disk: every edit (outside the app, or a save of
//! its own) reloads it and applies exactly what changed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::Workbench;
use crate::config::ConfigFile;
use crate::events::Event;

/// Keeps the watch alive; dropping it stops following the files.
pub struct ConfigWatch {
    _stop: DropGuard,
}

impl Workbench {
    /// Follow the user's file (and `<project_dir>/.mcp.json`): reload after
    /// each change and apply it. A file that no longer loads is reported as
    /// [`Event::ConfigError`] and the servers keep running as they were.
    /// The trust record is followed too: a server the person trusted in
    /// another process (`mcpwb config trust`) starts here as well.
    pub fn watch_config(
        &self,
        user: PathBuf,
        project_dir: Option<PathBuf>,
    ) -> crate::error::Result<ConfigWatch> {
        let mut files = vec![user.clone()];
        if let Some(dir) = &project_dir {
            files.push(dir.join(".mcp.json"));
        }
        let mut followed = files.clone();
        followed.extend(
            self.inner
                .options
                .trust
                .as_ref()
                .map(|t| t.path().to_path_buf()),
        );
        let (watch, mut changed) = watch_files(&followed, Duration::from_millis(150))
            .map_err(|e| crate::error::Error::Internal(format!("cannot watch the config: {e}")))?;
        let ct = CancellationToken::new();
        let stop = ct.clone();
        let wb = self.clone();
        // The bytes of each file as last loaded: which of them changed.
        let read = |files: &[PathBuf]| -> Vec<Option<Vec<u8>>> {
            files.iter().map(|f| std::fs::read(f).ok()).collect()
        };
        let mut last = read(&files);
        tokio::spawn(async move {
            let _watch = watch;
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    next = changed.recv() => if next.is_none() { return },
                }
                let now = read(&files);
                let own = files
                    .iter()
                    .zip(now.iter().zip(&last))
                    .all(|(f, (new, old))| {
                        new == old
                            || new
                                .as_deref()
                                .is_some_and(|b| crate::config::document::written_here(f, b))
                    });
                last = now;
                match ConfigFile::load_scoped(&user, project_dir.as_deref()) {
                    Ok(config) => {
                        let changes = wb.apply_from(&config, own).await;
                        tracing::info!(?changes, own, "config reloaded");
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "config reload failed");
                        let _ = wb.inner.events.send(Event::ConfigError {
                            message: e.to_string(),
                        });
                    }
                }
            }
        });
        Ok(ConfigWatch {
            _stop: ct.drop_guard(),
        })
    }
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
