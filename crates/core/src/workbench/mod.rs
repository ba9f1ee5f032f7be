//! The one handle callers hold: the servers of a config, each under its own
//! supervisor, the catalog, the traffic log and the event stream. Cheap to
//! clone; dropping the last clone stops every server.

mod calls;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;
use tokio_util::sync::{CancellationToken, DropGuard};

pub use calls::{CallOptions, CallOutcome};

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
}

struct Inner {
    servers: Vec<ServerHandle>,
    traffic: TrafficLog,
    catalog: Catalog,
    events: broadcast::Sender<Event>,
    _refresher: DropGuard,
}

#[derive(Clone)]
pub struct Workbench {
    inner: Arc<Inner>,
}

impl Workbench {
    /// Start a supervisor for every server of `config` (all connect at once).
    /// Must be called inside a tokio runtime.
    pub fn start(config: &ConfigFile, options: WorkbenchOptions) -> Workbench {
        let traffic = TrafficLog::new(
            options
                .traffic_capacity
                .unwrap_or(crate::traffic::DEFAULT_CAPACITY),
        );
        let (events, _) = broadcast::channel(4096);
        let catalog = Catalog::default();
        let servers: Vec<ServerHandle> = config
            .servers
            .iter()
            .map(|entry| {
                ServerHandle::spawn(
                    entry.clone(),
                    config.base_dir_of(entry).to_path_buf(),
                    traffic.clone(),
                    events.clone(),
                    options.supervisor.clone(),
                )
            })
            .collect();
        let ct = CancellationToken::new();
        tokio::spawn(refresh_catalog(
            servers.clone(),
            catalog.clone(),
            events.clone(),
            ct.clone(),
        ));
        Workbench {
            inner: Arc::new(Inner {
                servers,
                traffic,
                catalog,
                events,
                _refresher: ct.drop_guard(),
            }),
        }
    }

    pub fn servers(&self) -> &[ServerHandle] {
        &self.inner.servers
    }

    pub fn server(&self, name: &str) -> Result<&ServerHandle> {
        self.inner
            .servers
            .iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| Error::UnknownServer(name.to_string()))
    }

    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.inner
            .servers
            .iter()
            .map(ServerHandle::status)
            .collect()
    }

    pub fn traffic(&self) -> &TrafficLog {
        &self.inner.traffic
    }

    pub fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.inner.events.subscribe()
    }

    /// Wait until no server is Starting (each is Ready, Failed, Restarting,
    /// Disabled or Stopped) or `timeout` passes; returns the statuses.
    pub async fn settle(&self, timeout: Duration) -> Vec<ServerStatus> {
        let waits = self
            .inner
            .servers
            .iter()
            .map(|s| s.wait_for(timeout, |st| !matches!(st, ServerState::Starting { .. })));
        futures::future::join_all(waits).await;
        self.statuses()
    }

    /// Stop every server at once and wait until all are down.
    pub async fn shutdown(&self) {
        futures::future::join_all(self.inner.servers.iter().map(ServerHandle::stop)).await;
    }
}

/// Keeps the catalog in step with the servers: fetch on Ready, refetch a list
/// on list_changed, mark stale when a server goes away.
async fn refresh_catalog(
    servers: Vec<ServerHandle>,
    catalog: Catalog,
    events: broadcast::Sender<Event>,
    ct: CancellationToken,
) {
    let mut rx = events.subscribe();
    // Servers that became Ready before we subscribed.
    for s in &servers {
        if let (ServerState::Ready, Some(peer)) = (&s.status().state, s.peer()) {
            let caps = s.status().info.map(|i| i.capabilities).unwrap_or_default();
            spawn_refresh(
                catalog.clone(),
                events.clone(),
                s.name().to_string(),
                peer,
                caps,
                None,
            );
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
        let find = |name: &str| servers.iter().find(|s| s.name() == name);
        match event {
            Event::Status { status } => match status.state {
                ServerState::Ready => {
                    if let Some(peer) = find(&status.name).and_then(ServerHandle::peer) {
                        let caps = status.info.map(|i| i.capabilities).unwrap_or_default();
                        spawn_refresh(
                            catalog.clone(),
                            events.clone(),
                            status.name,
                            peer,
                            caps,
                            None,
                        );
                    }
                }
                _ => catalog.mark_stale(&status.name),
            },
            Event::ListChanged { server, list } => {
                if let Some(s) = find(&server)
                    && let Some(peer) = s.peer()
                {
                    let caps = s.status().info.map(|i| i.capabilities).unwrap_or_default();
                    spawn_refresh(
                        catalog.clone(),
                        events.clone(),
                        server,
                        peer,
                        caps,
                        Some(list),
                    );
                }
            }
            _ => {}
        }
    }
}

fn spawn_refresh(
    catalog: Catalog,
    events: broadcast::Sender<Event>,
    server: String,
    peer: rmcp::Peer<rmcp::RoleClient>,
    caps: serde_json::Value,
    only: Option<String>,
) {
    tokio::spawn(async move {
        match catalog
            .refresh(&server, &peer, &caps, only.as_deref())
            .await
        {
            Ok(()) => {
                let _ = events.send(Event::CatalogChanged { server });
            }
            Err(e) => tracing::debug!(%server, error = %e, "catalog refresh failed"),
        }
    });
}
