//! The one handle callers hold: the servers of a config, each under its own
//! supervisor, the catalog, the traffic log and the event stream. Cheap to
//! clone; dropping the last clone stops every server.

mod apps;
mod calls;
mod dev;
pub mod handshakes;
mod limits;
mod listen;
mod lists;
mod progress;
mod recover;
mod reload;
mod rounds;
mod send_errors;
mod skills;
mod tasks;
mod trial;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;
use tokio_util::sync::{CancellationToken, DropGuard};

pub use crate::task::{TaskForm, TaskState, merge_listed};
#[cfg(feature = "testing")]
pub mod testing;
pub use calls::{CallOptions, CallOutcome, ToolCaller};
pub use dev::DevWatch;
pub use listen::log_rank;
pub use progress::{CallSink, Progress};
pub use skills::{LoadedSkill, SkillFile};

/// How long a burst of saves to watched files is waited out before the
/// restart ([`Workbench::watch_dev`]).
pub fn dev_settle() -> Duration {
    dev::SETTLE
}
pub use reload::ConfigWatch;
pub use trial::Trial;

use crate::catalog::Catalog;
use crate::config::ConfigFile;
use crate::connect::{ServerHandle, ServerState, ServerStatus, SupervisorOptions};
use crate::error::{Error, Result};
use crate::events::Event;
use crate::traffic::TrafficLog;

#[derive(Debug, Clone, Default)]
pub struct WorkbenchOptions {
    pub supervisor: SupervisorOptions,
    /// Traffic entries kept per server (default 10,000).
    pub traffic_capacity: Option<usize>,
    /// A person can answer servers' sampling and elicitation requests (the
    /// window); otherwise they are refused and not advertised.
    pub interactive: bool,
    /// What is advertised to servers when `interactive` (None: sampling and
    /// elicitation both; `mcpwb` offers what its flags answer).
    pub offers: Option<crate::asks::Offers>,
    /// The servers of the first config start this far apart (the window's
    /// servers start one after another, so none starves the others or the UI).
    pub stagger: Duration,
    /// Consent: entries not trusted in this record do not start (the window
    /// and `mcpwb` pass the app's; None trusts every entry).
    pub trust: Option<crate::config::trust::Trust>,
}

type Servers = Arc<std::sync::RwLock<Vec<ServerHandle>>>;

fn read(servers: &Servers) -> std::sync::RwLockReadGuard<'_, Vec<ServerHandle>> {
    servers.read().unwrap_or_else(|e| e.into_inner())
}

struct Inner {
    servers: Servers,
    /// How new supervisors are made when the config changes.
    options: WorkbenchOptions,
    traffic: TrafficLog,
    catalog: Catalog,
    events: broadcast::Sender<Event>,
    asks: crate::asks::Asks,
    /// The tasks calls became, per server, newest last (`tasks.rs`).
    tasks: crate::task::Seen,
    /// The resources subscribed to, per server (`listen.rs`).
    listens: Arc<listen::Listens>,
    /// The last finished call's timer (`limits.rs`).
    kept_timer: limits::KeptTimer,
    _refresher: DropGuard,
}

#[derive(Clone)]
pub struct Workbench {
    inner: Arc<Inner>,
}

impl Workbench {
    /// Start a supervisor for every server of `config` (all connect at once).
    /// Must be called inside a tokio runtime. Its tools can be called by
    /// nobody: [`Self::start_with_caller`] is for the one call path's owner.
    pub fn start(config: &ConfigFile, options: WorkbenchOptions) -> Workbench {
        Self::start_with_caller(config, options).0
    }

    /// [`Self::start`], handing the starter the capability to call its
    /// tools ([`ToolCaller`]), which goes to `workbench_calls::Calls::new`.
    pub fn start_with_caller(
        config: &ConfigFile,
        mut options: WorkbenchOptions,
    ) -> (Workbench, ToolCaller) {
        let mut config = config.clone();
        if let Some(trust) = &options.trust {
            trust.mark(&mut config);
        }
        let config = &config;
        let traffic = TrafficLog::new(
            options
                .traffic_capacity
                .unwrap_or(crate::traffic::DEFAULT_CAPACITY),
        );
        let (events, _) = broadcast::channel(4096);
        let asks = crate::asks::Asks::new(events.clone(), options.interactive)
            .offering(options.offers.unwrap_or_default());
        options.supervisor.asks = Some(asks.clone());
        let catalog = Catalog::reading(traffic.clone());
        let servers: Vec<ServerHandle> = config
            .servers
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let mut supervisor = options.supervisor.clone();
                supervisor.start_delay = options.stagger * i as u32;
                ServerHandle::spawn(
                    entry.clone(),
                    config.file_of(entry).to_path_buf(),
                    traffic.clone(),
                    events.clone(),
                    supervisor,
                )
            })
            .collect();
        // Servers added later start at once: the gate served the first start.
        options.supervisor.start_gate = None;
        let servers: Servers = Arc::new(std::sync::RwLock::new(servers));
        let ct = CancellationToken::new();
        tokio::spawn(refresh_catalog(
            servers.clone(),
            catalog.clone(),
            events.clone(),
            ct.clone(),
        ));
        let listens = Arc::new(listen::Listens::default());
        tokio::spawn(listen::follow(
            servers.clone(),
            events.clone(),
            listens.clone(),
            traffic.clone(),
            ct.clone(),
        ));
        let wb = Workbench {
            inner: Arc::new(Inner {
                servers,
                options,
                traffic,
                catalog,
                events,
                asks,
                tasks: crate::task::Seen::default(),
                listens,
                kept_timer: limits::KeptTimer::default(),
                _refresher: ct.drop_guard(),
            }),
        };
        (wb, ToolCaller::mint())
    }

    /// The servers now, in config order.
    pub fn servers(&self) -> Vec<ServerHandle> {
        read(&self.inner.servers).clone()
    }

    pub fn server(&self, name: &str) -> Result<ServerHandle> {
        read(&self.inner.servers)
            .iter()
            .find(|s| s.name() == name)
            .cloned()
            .ok_or_else(|| Error::UnknownServer(name.to_string()))
    }

    pub fn statuses(&self) -> Vec<ServerStatus> {
        read(&self.inner.servers)
            .iter()
            .map(ServerHandle::status)
            .collect()
    }

    /// Bring the running servers in line with `config`: start the new ones,
    /// restart the changed ones, stop and drop the removed ones; leave the
    /// rest alone. Returns what changed (also published as an event).
    pub async fn apply(&self, config: &ConfigFile) -> crate::config::watch::ChangeSet {
        self.apply_from(config, false).await
    }

    /// `apply`, saying whether the change was this process's own save. The
    /// event is sent even when no server changed (a fixed file clears the error).
    /// `apply` for a change this process made itself (a server trusted, a
    /// save): not announced as a change on disk.
    pub async fn apply_own(&self, config: &ConfigFile) -> crate::config::watch::ChangeSet {
        self.apply_from(config, true).await
    }

    pub(crate) async fn apply_from(
        &self,
        config: &ConfigFile,
        own: bool,
    ) -> crate::config::watch::ChangeSet {
        let mut config = config.clone();
        if let Some(trust) = &self.inner.options.trust {
            trust.mark(&mut config);
        }
        let config = &config;
        let old = self.servers();
        let plan = crate::config::watch::diff(
            old.iter().map(|s| (s.entry(), s.file())),
            config.servers.iter().map(|e| (e, config.file_of(e))),
        );
        // Old processes end before their replacements start, so a server's
        // events never interleave across the two.
        let going: Vec<ServerHandle> = old
            .iter()
            .filter(|s| {
                plan.removed
                    .iter()
                    .chain(&plan.changed)
                    .any(|n| n == s.name())
            })
            .cloned()
            .collect();
        futures::future::join_all(going.iter().map(ServerHandle::stop)).await;
        for name in &plan.removed {
            self.inner.catalog.remove(name);
        }
        let next: Vec<ServerHandle> = config
            .servers
            .iter()
            .map(|entry| match old.iter().find(|s| s.name() == entry.name) {
                Some(s) if !plan.changed.contains(&entry.name) => s.clone(),
                _ => ServerHandle::spawn(
                    entry.clone(),
                    config.file_of(entry).to_path_buf(),
                    self.inner.traffic.clone(),
                    self.inner.events.clone(),
                    self.inner.options.supervisor.clone(),
                ),
            })
            .collect();
        *self
            .inner
            .servers
            .write()
            .unwrap_or_else(|e| e.into_inner()) = next;
        let _ = self.inner.events.send(Event::ConfigApplied {
            changes: plan.clone(),
            own,
        });
        plan
    }

    pub fn traffic(&self) -> &TrafficLog {
        &self.inner.traffic
    }

    pub fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }

    /// Servers' sampling and elicitation requests, and the roots offered.
    pub fn asks(&self) -> &crate::asks::Asks {
        &self.inner.asks
    }

    /// Offer `roots` (`[{"uri": "file:///...", "name": ...}]`) to `server`
    /// and tell it they changed.
    pub async fn set_roots(&self, server: &str, roots: Vec<serde_json::Value>) -> Result<()> {
        let handle = self.server(server)?;
        self.inner.asks.set_roots(server, roots);
        if let Some(peer) = handle.peer() {
            peer.notify_roots_list_changed()
                .await
                .map_err(|e| Error::Internal(format!("{server}: {e}")))?;
        }
        Ok(())
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.inner.events.subscribe()
    }

    /// Wait until no server is Starting (each is Ready, Failed, Restarting,
    /// Disabled or Stopped) or `timeout` passes; returns the statuses.
    pub async fn settle(&self, timeout: Duration) -> Vec<ServerStatus> {
        let servers = self.servers();
        let waits = servers
            .iter()
            .map(|s| s.wait_for(timeout, |st| !matches!(st, ServerState::Starting { .. })));
        futures::future::join_all(waits).await;
        self.statuses()
    }

    /// Servers whose tools are not known yet: Starting, or Ready with the
    /// catalog not (re)listed since.
    pub fn pending_tools(&self) -> Vec<String> {
        self.statuses()
            .into_iter()
            .filter(|s| match s.state {
                ServerState::Starting { .. } => true,
                ServerState::Ready => self.catalog().server(&s.name).is_none_or(|c| c.stale),
                _ => false,
            })
            .map(|s| s.name)
            .collect()
    }

    /// Wait until [`Self::pending_tools`] is empty or `timeout` passes (a
    /// caller about to offer tools to a model, just after start); returns the
    /// servers still pending.
    pub async fn tools_settled(&self, timeout: Duration) -> Vec<String> {
        let mut rx = self.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let pending = self.pending_tools();
            if pending.is_empty() {
                return pending;
            }
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Err(_) => return pending,
                Ok(Err(broadcast::error::RecvError::Closed)) => return pending,
                Ok(_) => {}
            }
        }
    }

    /// Stop every server at once and wait until all are down.
    pub async fn shutdown(&self) {
        let servers = self.servers();
        futures::future::join_all(servers.iter().map(ServerHandle::stop)).await;
    }
}

/// Keeps the catalog in step with the servers: fetch on Ready, refetch a list
/// on list_changed, mark stale when a server goes away.
async fn refresh_catalog(
    servers: Servers,
    catalog: Catalog,
    events: broadcast::Sender<Event>,
    ct: CancellationToken,
) {
    let mut rx = events.subscribe();
    // Servers that became Ready before we subscribed.
    let initial = read(&servers).clone();
    for s in &initial {
        if let (ServerState::Ready, Some(peer)) = (&s.status().state, s.peer()) {
            let caps = s.status().info.map(|i| i.capabilities).unwrap_or_default();
            spawn_refresh(catalog.clone(), events.clone(), s, peer, caps, None);
        }
    }
    loop {
        let event = tokio::select! {
            _ = ct.cancelled() => return,
            e = rx.recv() => e,
        };
        let event = match event {
            Ok(e) => e,
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(_) => return,
        };
        let find = |name: &str| read(&servers).iter().find(|s| s.name() == name).cloned();
        match event {
            Event::Status { status } => match status.state {
                ServerState::Ready => {
                    if let Some(s) = find(&status.name)
                        && let Some(peer) = s.peer()
                    {
                        let caps = status.info.map(|i| i.capabilities).unwrap_or_default();
                        spawn_refresh(catalog.clone(), events.clone(), &s, peer, caps, None);
                    }
                }
                _ => catalog.mark_stale(&status.name),
            },
            Event::ListChanged { server, list } => {
                if let Some(s) = find(&server)
                    && let Some(peer) = s.peer()
                {
                    let caps = s.status().info.map(|i| i.capabilities).unwrap_or_default();
                    spawn_refresh(catalog.clone(), events.clone(), &s, peer, caps, Some(list));
                }
            }
            _ => {}
        }
    }
}

fn spawn_refresh(
    catalog: Catalog,
    events: broadcast::Sender<Event>,
    handle: &ServerHandle,
    peer: rmcp::Peer<rmcp::RoleClient>,
    caps: serde_json::Value,
    only: Option<String>,
) {
    let server = handle.name().to_string();
    if !catalog.ask_refresh(&server, only.as_deref()) {
        return;
    }
    let entry = handle.entry().clone();
    let handle = handle.clone();
    tokio::spawn(async move {
        let offers = move |tool: &str| entry.offers_tool(tool);
        loop {
            match catalog
                .refresh(&server, &peer, &caps, only.as_deref(), &offers)
                .await
            {
                Ok(()) => {
                    let _ = events.send(Event::CatalogChanged {
                        server: server.clone(),
                    });
                }
                Err(e) => {
                    tracing::warn!(%server, error = %e, "catalog refresh failed");
                    handle.note_catalog_failure(&e);
                    // The lists that were read are in.
                    let _ = events.send(Event::CatalogChanged {
                        server: server.clone(),
                    });
                }
            }
            if !catalog.refreshed(&server, only.as_deref()) {
                break;
            }
        }
    });
}
