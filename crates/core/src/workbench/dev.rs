//! Reload on change (VS Code's `"dev": {"watch": GLOB}`): a server whose
//! watched files change is restarted. A burst of saves is one restart;
//! `node_modules`, `.git` and build output are ignored unless a pattern
//! names them — neither walked nor watched. The watch is rooted at the
//! entry's `cwd` (else its config's folder), never follows a link out of
//! it, takes at most [`MAX_WATCHED_FOLDERS`] folders (saying so past it),
//! and holds back a restart that comes right after the last one (longer
//! each time). It is part of what the person trusts (the fingerprint).
//! Watches follow the config: servers added, changed or dropped get, keep
//! or lose theirs.

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
        !self.prunes(relative) && self.set.is_match(relative)
    }

    /// Whether `relative` lies in an ignored folder no pattern names (such
    /// a folder is neither walked nor watched).
    pub fn prunes(&self, relative: &Path) -> bool {
        relative.components().any(|c| {
            let part = c.as_os_str().to_string_lossy();
            IGNORED.contains(&part.as_ref()) && !self.named.contains(&part.as_ref())
        })
    }
}

fn spec_of(handle: &crate::connect::ServerHandle) -> Option<Spec> {
    let entry = handle.entry();
    let dev = entry.dev.as_ref()?;
    if entry.disabled || !entry.trusted {
        return None;
    }
    Some(Spec {
        root: root_of(handle),
        patterns: dev.watch.clone(),
    })
}

/// The most folders one server's watch takes (each is an inotify watch; a
/// link to `/usr` once took 15,728).
pub const MAX_WATCHED_FOLDERS: usize = 2_000;
/// A reload this soon after the last one is held back (a server that
/// writes into its own watched folder would restart for ever): the first
/// wait, doubled each time up to [`MAX_BACKOFF`], reset after a quiet spell.
const BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How soon after a restart a change counts as the restart's own doing
/// (a person saves less often than that; played: 49 restarts in 21 s).
const AGAIN_WITHIN: Duration = Duration::from_secs(2);

/// The folders to watch under `root`: walked without following links,
/// ignored folders (unless a pattern names them) pruned, at most
/// `room` of them. The second value: whether some were left out.
fn folders_under(root: &Path, matcher: &Matcher, room: usize) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        if out.len() >= room {
            return (out, true);
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        out.push(dir.clone());
        let mut subs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            // `file_type` does not follow a link: a link is never walked.
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .filter(|p| p.strip_prefix(root).is_ok_and(|rel| !matcher.prunes(rel)))
            .collect();
        subs.sort();
        subs.reverse();
        todo.extend(subs);
    }
    (out, false)
}

/// The root of `server`'s watch: the entry's `cwd` when it has one (made
/// absolute against its config's folder), else the config's folder.
fn root_of(handle: &crate::connect::ServerHandle) -> PathBuf {
    let entry = handle.entry();
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
    cwd.unwrap_or_else(|| handle.base_dir().to_path_buf())
}

/// One server's watch: restarts it after each settled burst.
fn watch_one(wb: &Workbench, server: String, spec: &Spec) -> Option<DropGuard> {
    let matcher = std::sync::Arc::new(Matcher::new(&spec.patterns)?);
    let root = spec
        .root
        .canonicalize()
        .unwrap_or_else(|_| spec.root.clone());
    let (tx, mut rx) = mpsc::unbounded_channel::<PathBuf>();
    // New folders made under the root, to be watched too.
    let (new_dirs_tx, mut new_dirs) = mpsc::unbounded_channel::<PathBuf>();
    let under = root.clone();
    let seen_by = matcher.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if matches!(event.kind, notify::EventKind::Access(_)) {
            return;
        }
        let created = matches!(event.kind, notify::EventKind::Create(_));
        for path in event.paths {
            let Ok(relative) = path.strip_prefix(&under) else {
                continue;
            };
            if created
                && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
                && !seen_by.prunes(relative)
            {
                let _ = new_dirs_tx.send(path.clone());
            }
            if seen_by.matches(relative) {
                let _ = tx.send(relative.to_path_buf());
            }
        }
    })
    .ok()?;
    let (folders, cut) = folders_under(&root, &matcher, MAX_WATCHED_FOLDERS);
    if folders.is_empty() {
        let why = format!(
            "dev.watch: {} cannot be read; nothing is watched",
            root.display()
        );
        tracing::warn!(%server, "{why}");
        wb.traffic().record_note(&server, &why);
        return None;
    }
    let mut watched = 0usize;
    for f in &folders {
        if watcher.watch(f, RecursiveMode::NonRecursive).is_ok() {
            watched += 1;
        }
    }
    if cut {
        let why = format!(
            "dev.watch: more than {MAX_WATCHED_FOLDERS} folders under {}; only the first {MAX_WATCHED_FOLDERS} are watched (narrow the watch, or give the entry a cwd)",
            root.display()
        );
        tracing::warn!(%server, "{why}");
        wb.traffic().record_note(&server, &why);
    }
    let ct = CancellationToken::new();
    let stop = ct.clone();
    let wb = wb.clone();
    tokio::spawn(async move {
        let mut watcher = watcher;
        let mut last_restart: Option<tokio::time::Instant> = None;
        let mut backoff = BACKOFF;
        loop {
            let first = loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    d = new_dirs.recv() => {
                        let Some(d) = d else { return };
                        if watched < MAX_WATCHED_FOLDERS
                            && watcher.watch(&d, RecursiveMode::NonRecursive).is_ok()
                        {
                            watched += 1;
                        }
                    }
                    p = rx.recv() => match p { Some(p) => break p, None => return },
                }
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
            // Again soon after the last restart: held back, longer each time.
            if let Some(at) = last_restart {
                if at.elapsed() < AGAIN_WITHIN {
                    let why = format!(
                        "dev.watch: files changed again within {} s of the last restart (does the server write into its own watched files?); waiting {} s",
                        AGAIN_WITHIN.as_secs(),
                        backoff.as_secs()
                    );
                    tracing::warn!(%server, "{why}");
                    wb.traffic().record_note(&server, &why);
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        _ = tokio::time::sleep(backoff) => {}
                    }
                    while let Ok(p) = rx.try_recv() {
                        files.push(p);
                    }
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                } else {
                    backoff = BACKOFF;
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
            if let Err(e) = handle.restart().await {
                tracing::info!(%server, "dev.watch: not restarted: {e}");
            }
            last_restart = Some(tokio::time::Instant::now());
            // What the restart itself wrote is not a new change.
            while rx.try_recv().is_ok() {}
        }
    });
    Some(ct.drop_guard())
}

/// Make `watches` what the config's servers want now: dropped or changed
/// ones stop, new ones start.
fn follow_config(wb: &Workbench, watches: &mut BTreeMap<String, (Spec, DropGuard)>) {
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
        if let Some(guard) = watch_one(wb, name.clone(), &spec) {
            watches.insert(name, (spec, guard));
        }
    }
}

impl Workbench {
    /// The folder `server`'s `dev.watch` patterns are read from (None: it
    /// has no watch).
    pub fn dev_root(&self, server: &str) -> Option<PathBuf> {
        let handle = self.server(server).ok()?;
        handle.entry().dev.as_ref()?;
        Some(root_of(&handle))
    }

    /// Restart servers whose `dev.watch` files change, for as long as the
    /// returned guard lives (following config changes).
    pub fn watch_dev(&self) -> DevWatch {
        let ct = CancellationToken::new();
        let stop = ct.clone();
        let wb = self.clone();
        let mut events = self.subscribe();
        // The watches there are now, in place before this returns (a save
        // right after `mcpwb dev` says "watching" is seen).
        let mut watches: BTreeMap<String, (Spec, DropGuard)> = BTreeMap::new();
        follow_config(&wb, &mut watches);
        tokio::spawn(async move {
            loop {
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
                follow_config(&wb, &mut watches);
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
