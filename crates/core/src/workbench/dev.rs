//! Reload on change (VS Code's `"dev": {"watch": GLOB}`): a server whose
//! watched files change is restarted. A burst of saves is one restart;
//! `node_modules`, `.git` and build output are ignored unless a pattern
//! names them. Watches follow the config: servers added, changed or
//! dropped get, keep or lose theirs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::Workbench;
use crate::events::Event;

/// Saves closer together than this are one change.
pub const SETTLE: Duration = Duration::from_millis(250);

/// Folders no pattern reaches unless it names them.
const IGNORED: [&str; 9] = [
    "node_modules",
    ".git",
    "target",
    "dist",
    "build",
    "out",
    "__pycache__",
    ".venv",
    ".mypy_cache",
];

/// What a server's watch is made of: its folder and patterns.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Spec {
    root: PathBuf,
    patterns: Vec<String>,
}

/// Keeps the watches; dropping it stops them all.
pub struct DevWatch {
    _stop: DropGuard,
}

/// Which changed paths count: matching a pattern, and not under an ignored
/// folder unless a pattern names that folder.
pub struct Matcher {
    set: GlobSet,
    named: Vec<&'static str>,
}

impl Matcher {
    pub fn new(patterns: &[String]) -> Option<Matcher> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            // As VS Code reads them: `*` stays within a folder, `**` crosses.
            b.add(GlobBuilder::new(p).literal_separator(true).build().ok()?);
        }
        let named = IGNORED
            .into_iter()
            .filter(|dir| patterns.iter().any(|p| p.contains(dir)))
            .collect();
        Some(Matcher {
            set: b.build().ok()?,
            named,
        })
    }

    /// `relative`: the path under the watched folder.
    pub fn matches(&self, relative: &Path) -> bool {
        let ignored = relative.components().any(|c| {
            let part = c.as_os_str().to_string_lossy();
            IGNORED.contains(&part.as_ref()) && !self.named.contains(&part.as_ref())
        });
        !ignored && self.set.is_match(relative)
    }
}

fn spec_of(handle: &crate::connect::ServerHandle) -> Option<Spec> {
    let entry = handle.entry();
    let dev = entry.dev.as_ref()?;
    if entry.disabled || !entry.trusted {
        return None;
    }
    let cwd = match &entry.transport {
        crate::config::Transport::Stdio { cwd: Some(c), .. } => {
            let p = PathBuf::from(c);
            Some(if p.is_relative() {
                handle.base_dir().join(p)
            } else {
                p
            })
        }
        _ => None,
    };
    Some(Spec {
        root: cwd.unwrap_or_else(|| handle.base_dir().to_path_buf()),
        patterns: dev.watch.clone(),
    })
}

/// One server's watch: restarts it after each settled burst.
fn watch_one(wb: &Workbench, server: String, spec: &Spec) -> Option<DropGuard> {
    let matcher = Matcher::new(&spec.patterns)?;
    let root = spec
        .root
        .canonicalize()
        .unwrap_or_else(|_| spec.root.clone());
    let (tx, mut rx) = mpsc::unbounded_channel::<PathBuf>();
    let under = root.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if matches!(event.kind, notify::EventKind::Access(_)) {
            return;
        }
        for path in event.paths {
            if let Ok(relative) = path.strip_prefix(&under)
                && matcher.matches(relative)
            {
                let _ = tx.send(relative.to_path_buf());
            }
        }
    })
    .ok()?;
    if let Err(e) = watcher.watch(&root, RecursiveMode::Recursive) {
        tracing::warn!(%server, root = %root.display(), error = %e, "dev.watch: cannot watch the folder");
        return None;
    }
    let ct = CancellationToken::new();
    let stop = ct.clone();
    let wb = wb.clone();
    tokio::spawn(async move {
        let _watcher = watcher;
        loop {
            let first = tokio::select! {
                _ = stop.cancelled() => return,
                p = rx.recv() => match p { Some(p) => p, None => return },
            };
            let mut files = vec![first];
            // The burst settles: every save within SETTLE of the last one.
            loop {
                match tokio::time::timeout(SETTLE, rx.recv()).await {
                    Ok(Some(p)) => files.push(p),
                    Ok(None) => return,
                    Err(_) => break,
                }
            }
            let mut names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
            names.sort();
            names.dedup();
            names.truncate(20);
            let Ok(handle) = wb.server(&server) else {
                return;
            };
            tracing::info!(%server, files = ?names, "dev.watch: restarting");
            let _ = wb.inner.events.send(Event::DevReload {
                server: server.clone(),
                files: names,
            });
            handle.restart().await;
        }
    });
    Some(ct.drop_guard())
}

impl Workbench {
    /// Restart servers whose `dev.watch` files change, for as long as the
    /// returned guard lives (following config changes).
    pub fn watch_dev(&self) -> DevWatch {
        let ct = CancellationToken::new();
        let stop = ct.clone();
        let wb = self.clone();
        let mut events = self.subscribe();
        tokio::spawn(async move {
            let mut watches: BTreeMap<String, (Spec, DropGuard)> = BTreeMap::new();
            loop {
                let wanted: BTreeMap<String, Spec> = wb
                    .servers()
                    .iter()
                    .filter_map(|h| Some((h.name().to_string(), spec_of(h)?)))
                    .collect();
                watches.retain(|name, (spec, _)| wanted.get(name) == Some(spec));
                for (name, spec) in wanted {
                    if watches.contains_key(&name) {
                        continue;
                    }
                    if let Some(guard) = watch_one(&wb, name.clone(), &spec) {
                        watches.insert(name, (spec, guard));
                    }
                }
                // Looked at again when the config is applied.
                loop {
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        e = events.recv() => match e {
                            Ok(Event::ConfigApplied { .. }) => break,
                            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                            _ => {}
                        },
                    }
                }
            }
        });
        DevWatch {
            _stop: ct.drop_guard(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_and_ignored_folders() {
        let m = Matcher::new(&["src/**/*.ts".into(), "*.py".into()]).unwrap();
        assert!(m.matches(Path::new("src/a/b.ts")));
        assert!(m.matches(Path::new("server.py")));
        assert!(!m.matches(Path::new("src/a/b.js")));
        // `*` stays in its folder, as in VS Code.
        assert!(!m.matches(Path::new("lib/server.py")));
        let everywhere = Matcher::new(&["**/*.py".into()]).unwrap();
        assert!(everywhere.matches(Path::new("lib/server.py")));
        // An ignored folder is not watched unless named.
        assert!(!everywhere.matches(Path::new("node_modules/x/y.py")));
        assert!(!everywhere.matches(Path::new(".venv/lib/site.py")));
        let named = Matcher::new(&["node_modules/my-lib/**/*.js".into()]).unwrap();
        assert!(named.matches(Path::new("node_modules/my-lib/index.js")));
    }
}
