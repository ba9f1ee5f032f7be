//! Reload on change (VS Code's `"dev": {"watch": GLOB}`): a server whose
//! watched files change is restarted. A burst of saves is one restart;
//! `node_modules`, `.git` and build output are ignored unless a pattern
//! names them — neither walked nor watched. The watch is rooted at the
//! entry's `cwd` (else its config's folder), never follows a link out of
//! it, takes at most [`workbench_watch::MAX_WATCHED_FOLDERS`] folders (saying so past it),
//! and tells the watch when each start is over, so that what the server
//! writes into its own watched files as it starts does not restart it for
//! ever (see `workbench_watch`). It is part of what the person trusts (the
//! fingerprint).
//! Watches follow the config: servers added, changed or dropped get, keep
//! or lose theirs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::{CancellationToken, DropGuard};

use super::Workbench;
use crate::events::Event;

pub use workbench_watch::SETTLE;

/// What a server's watch is made of: its folder and patterns.
type Spec = workbench_watch::Watch;

/// Keeps the watches; dropping it stops them all.
pub struct DevWatch {
    _stop: DropGuard,
}

fn spec_of(handle: &crate::connect::ServerHandle) -> Option<Spec> {
    let entry = handle.entry();
    let dev = entry.dev.as_ref()?;
    // A server the door would not start is not watched either.
    if crate::connect::door::refusal(entry).is_some() {
        return None;
    }
    Some(Spec {
        root: root_of(handle),
        patterns: dev.watch.clone(),
    })
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

/// One server's watch (the one watcher's, `workbench_watch`): restarts it
/// after each settled burst; what the watch says goes to its Events.
fn watch_one(wb: &Workbench, server: String, spec: &Spec) -> Option<DropGuard> {
    let said_by = server.clone();
    let traffic = wb.traffic().clone();
    let events = wb.inner.events.clone();
    let say: workbench_watch::Say = Arc::new(move |why: &str| {
        let note = format!("dev.watch: {why}");
        tracing::info!(server = %said_by, "{note}");
        traffic.record_note(&said_by, &note);
        let _ = events.send(Event::DevNote {
            server: said_by.clone(),
            note: why.to_string(),
        });
    });
    let (watching, mut bursts) = match workbench_watch::start(spec, say) {
        Ok(started) => started,
        Err(why) => {
            let why = format!("dev.watch: {why}");
            tracing::warn!(%server, "{why}");
            wb.traffic().record_note(&server, &why);
            return None;
        }
    };
    let ct = CancellationToken::new();
    let stop = ct.clone();
    let wb = wb.clone();
    tokio::spawn(async move {
        loop {
            let burst = tokio::select! {
                _ = stop.cancelled() => return,
                b = bursts.recv() => match b { Some(b) => b, None => return },
            };
            let Ok(handle) = wb.server(&server) else {
                return;
            };
            tracing::info!(%server, files = ?burst.files, "dev.watch: restarting");
            let _ = wb.inner.events.send(Event::DevReload {
                server: server.clone(),
                files: burst.files,
            });
            if let Err(e) = handle.restart().await {
                tracing::info!(%server, "dev.watch: not restarted: {e}");
            } else {
                // The start is over when it answers or fails (the old
                // session ends first: the new one's start is waited for).
                let starting = |s: &crate::connect::ServerState| {
                    matches!(s, crate::connect::ServerState::Starting { .. })
                };
                handle
                    .wait_for(workbench_watch::START_LIMIT, starting)
                    .await;
                handle
                    .wait_for(workbench_watch::START_LIMIT, |s| !starting(s))
                    .await;
            }
            watching.started();
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
