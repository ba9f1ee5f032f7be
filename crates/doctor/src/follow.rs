//! Following each server's surface across restarts and reloads: when its
//! lists are read again and differ from the last time it was ready, what
//! changed (the diff) and what the doctor now finds that it did not.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::broadcast;
use tokio_util::sync::{CancellationToken, DropGuard};
use workbench_core::Workbench;
use workbench_core::events::Event;

use crate::diff::{Change, diff};
use crate::finding::Finding;
use crate::surface::Surface;

/// What changed in a server's surface since it was last ready.
#[derive(Debug, Clone, Serialize)]
pub struct SurfaceChange {
    pub server: String,
    /// Milliseconds since the Unix epoch.
    pub at_ms: f64,
    pub changes: Vec<Change>,
    /// Findings of the shape checks the surface did not have before.
    pub new_findings: Vec<Finding>,
    /// Tools added, and tools changed (their names).
    pub added_tools: Vec<String>,
    pub changed_tools: Vec<String>,
    /// Set when the server's lists were read again later (a reload) and
    /// nothing had changed: this change is from an earlier reload.
    pub unchanged_at_ms: Option<f64>,
}

/// Keeps following until dropped. Cheap to clone.
#[derive(Clone)]
pub struct Surfaces {
    last: Arc<Mutex<BTreeMap<String, Surface>>>,
    changes: Arc<Mutex<BTreeMap<String, SurfaceChange>>>,
    tx: broadcast::Sender<SurfaceChange>,
    _stop: Arc<DropGuard>,
}

fn key(f: &Finding) -> (String, String, String) {
    (f.code.clone(), f.item.clone(), f.pointer.clone())
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// The change from `old` to `new` of `server`, None when nothing changed.
pub fn change(server: &str, old: &Surface, new: &Surface) -> Option<SurfaceChange> {
    let changes = diff(old, new);
    if changes.is_empty() {
        return None;
    }
    let before = crate::shape_findings(server, old, &[]);
    let after = crate::shape_findings(server, new, &[]);
    let known: std::collections::HashSet<_> = before.iter().map(key).collect();
    let new_findings = after
        .into_iter()
        .filter(|f| !known.contains(&key(f)) && f.code != "tokens.total")
        .collect();
    let tools = |code: fn(&str) -> bool| -> Vec<String> {
        let mut names: Vec<String> = changes
            .iter()
            .filter(|c| code(&c.code))
            .filter_map(|c| c.item.strip_prefix("tool ").map(str::to_string))
            .collect();
        names.sort();
        names.dedup();
        names
    };
    let added_tools = tools(|c| c == "tool.added");
    let changed_tools = tools(|c| c != "tool.added" && c != "tool.removed");
    Some(SurfaceChange {
        server: server.to_string(),
        at_ms: now_ms(),
        changes,
        new_findings,
        added_tools,
        changed_tools,
        unchanged_at_ms: None,
    })
}

impl Surfaces {
    /// Follow every server of `wb`.
    pub fn follow(wb: &Workbench) -> Surfaces {
        let (tx, _) = broadcast::channel(64);
        let ct = CancellationToken::new();
        let surfaces = Surfaces {
            last: Arc::default(),
            changes: Arc::default(),
            tx,
            _stop: Arc::new(ct.clone().drop_guard()),
        };
        // Listening first, then reading what is there: a listing that lands
        // between the two is seen as an event (the other way round it was
        // lost, and the first reload had nothing to compare with).
        let mut events = wb.subscribe();
        for h in wb.servers() {
            if let Some(s) = Surface::live(wb, h.name()) {
                surfaces.lock_last().insert(h.name().to_string(), s);
            }
        }
        let wb = wb.clone();
        let last = surfaces.last.clone();
        let changes = surfaces.changes.clone();
        let tx = surfaces.tx.clone();
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    _ = ct.cancelled() => return,
                    e = events.recv() => e,
                };
                let server = match event {
                    Ok(Event::CatalogChanged { server }) => server,
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let Some(now) = Surface::live(&wb, &server) else {
                    continue;
                };
                let before = last
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(server.clone(), now.clone());
                let Some(before) = before else { continue };
                let mut kept = changes.lock().unwrap_or_else(|e| e.into_inner());
                match change(&server, &before, &now) {
                    Some(c) => {
                        kept.insert(server.clone(), c.clone());
                        let _ = tx.send(c);
                    }
                    // Read again, the same: the change shown is an earlier one.
                    None => {
                        if let Some(earlier) = kept.get_mut(&server) {
                            earlier.unchanged_at_ms = Some(now_ms());
                            let _ = tx.send(earlier.clone());
                        }
                    }
                }
            }
        });
        surfaces
    }

    fn lock_last(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Surface>> {
        self.last.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn subscribe(&self) -> broadcast::Receiver<SurfaceChange> {
        self.tx.subscribe()
    }

    /// The last change of `server`'s surface seen (None: none since start).
    pub fn last_change(&self, server: &str) -> Option<SurfaceChange> {
        self.changes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
            .cloned()
    }
}
