//! Following the config on disk: every edit (outside the app, or a save of
//! its own) reloads it and applies exactly what changed.

use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::{CancellationToken, DropGuard};

use super::Workbench;
use crate::config::ConfigFile;
use crate::config::watch::watch_files;
use crate::events::Event;

/// Keeps the watch alive; dropping it stops following the files.
pub struct ConfigWatch {
    _stop: DropGuard,
}

impl Workbench {
    /// Follow the user's file (and `<project_dir>/.mcp.json`): reload after
    /// each change and apply it. A file that no longer loads is reported as
    /// [`Event::ConfigError`] and the servers keep running as they were.
    pub fn watch_config(
        &self,
        user: PathBuf,
        project_dir: Option<PathBuf>,
    ) -> crate::error::Result<ConfigWatch> {
        let mut files = vec![user.clone()];
        if let Some(dir) = &project_dir {
            files.push(dir.join(".mcp.json"));
        }
        let (watch, mut changed) = watch_files(&files, Duration::from_millis(150))
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
                                .is_some_and(|b| crate::config::store::written_here(f, b))
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
