//! The server author's loop (`mcpwb dev SERVER`): the server restarted on a
//! change to the files its `dev.watch` names, and what each restart brought
//! said in order — the files, the restart's time, what changed in its
//! surface and what the doctor now finds, a failure — plus a tool called
//! again after each reload through the one call path.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::broadcast;
use workbench_calls::Calls;
use workbench_core::connect::ServerState;
use workbench_core::events::Event;
use workbench_core::workbench::DevWatch;
use workbench_core::{CallOptions, ErrorInfo, Workbench};
pub use workbench_doctor::Impact;
pub use workbench_doctor::follow::SurfaceChange;
use workbench_doctor::follow::Surfaces;

/// What the loop has to say, in the order it happened.
#[derive(Debug)]
pub enum DevEvent {
    /// Files changed: the server restarts.
    Reload { files: Vec<String> },
    /// What the watch noticed (a server writing into its own folder).
    Note(String),
    /// The server failed to start again.
    Failed(String),
    /// Listed again after a restart, this long after the change.
    Reloaded { ms: f64 },
    /// Its surface compared with the last (and the doctor's new findings).
    Surface(Box<SurfaceChange>),
}

/// A server followed as its author edits it.
pub struct DevLoop {
    server: String,
    pub watch: Vec<String>,
    pub root: PathBuf,
    changes: broadcast::Receiver<SurfaceChange>,
    events: broadcast::Receiver<Event>,
    reloading: Option<Instant>,
    _surfaces: Surfaces,
    _watch: DevWatch,
}

/// Follow `server`: refused when its entry has no `dev.watch`, or the
/// folder its patterns are read in is not one.
pub fn start(wb: &Workbench, server: &str) -> Result<DevLoop, ErrorInfo> {
    let handle = wb.server(server)?;
    let Some(dev) = handle.entry().dev.clone() else {
        return Err(crate::invalid(format!(
            "{server} has no \"dev\": {{\"watch\": ...}} in its entry; add one (e.g. \"dev\": {{\"watch\": \"src/**/*.ts\"}}) to reload it on change, or name the files for this run (mcpwb dev {server} --watch 'src/**/*.ts')"
        )));
    };
    let root = wb
        .dev_root(server)
        .unwrap_or_else(|| handle.base_dir().to_path_buf());
    if !root.is_dir() {
        return Err(crate::invalid(format!(
            "{server}'s dev.watch is read in {}, which is not a folder (its entry's cwd, else its config's folder)",
            root.display()
        )));
    }
    let surfaces = Surfaces::follow(wb);
    Ok(DevLoop {
        server: server.to_string(),
        watch: dev.watch,
        root,
        changes: surfaces.subscribe(),
        events: wb.subscribe(),
        reloading: None,
        _surfaces: surfaces,
        _watch: wb.watch_dev(),
    })
}

impl DevLoop {
    /// The next thing to say (None: the workbench closed).
    pub async fn next(&mut self) -> Option<DevEvent> {
        loop {
            tokio::select! {
                c = self.changes.recv() => match c {
                    Ok(c) if c.server == self.server => return Some(DevEvent::Surface(Box::new(c))),
                    Err(broadcast::error::RecvError::Closed) => return None,
                    _ => {}
                },
                e = self.events.recv() => {
                    let e = match e {
                        Ok(e) => e,
                        Err(broadcast::error::RecvError::Closed) => return None,
                        Err(_) => continue,
                    };
                    match e {
                        Event::DevReload { server, files } if server == self.server => {
                            self.reloading = Some(Instant::now());
                            return Some(DevEvent::Reload { files });
                        }
                        Event::DevNote { server, note } if server == self.server => {
                            return Some(DevEvent::Note(note));
                        }
                        Event::Status { status } if status.name == self.server => {
                            if let ServerState::Failed { reason, .. } = &status.state {
                                return Some(DevEvent::Failed(reason.clone()));
                            }
                        }
                        Event::CatalogChanged { server } if server == self.server => {
                            if let Some(started) = self.reloading.take() {
                                let ms = started.elapsed().as_secs_f64() * 1000.0;
                                return Some(DevEvent::Reloaded { ms });
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// The author's tool called once more (their own act: no approval asked,
/// the standing refusals hold, the history row comes with it): its result,
/// or `{"failed": why}`.
pub async fn call(
    calls: &Calls,
    server: &str,
    tool: &str,
    arguments: &Value,
    options: CallOptions,
) -> Value {
    match crate::tools::from_cli(calls, server, tool, arguments.clone(), None, options).await {
        Ok(o) => o.result,
        Err(e) => json!({ "failed": e.to_string() }),
    }
}
