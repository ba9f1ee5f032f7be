//! One task per server, owning its session: connects, publishes every state
//! change, restarts with exponential backoff after a crash (never after a
//! user's stop), pings an idle server, and stops it leaving no process behind.
//! This file is what callers hold — the handle, its options and commands;
//! `task.rs` is the task itself, `failures.rs` what it does when a server fails.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::{Peer, RoleClient};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Context, ServerState, ServerStatus, Session, connect};
use crate::config::{Lifecycle, ServerEntry};
use crate::events::Event;
use crate::traffic::TrafficLog;

#[derive(Debug, Clone)]
pub struct SupervisorOptions {
    /// After this long without an answer the server is reported slow.
    pub startup_timeout: Duration,
    /// Request timeout, reset by progress.
    pub call_timeout: Duration,
    /// Upper bound for a call however much progress it reports.
    pub max_call_time: Duration,
    pub auto_restart: bool,
    pub restart_initial: Duration,
    pub restart_max: Duration,
    /// Each step of a stop (stdin closed, SIGTERM, SIGKILL) waits this long.
    pub shutdown_grace: Duration,
    /// Ping a Ready server this often (None: never).
    pub health_interval: Option<Duration>,
    /// What `${...}` references in an entry expand against, at each connect
    /// (so an input given after a failure is used by the next attempt).
    pub vars: crate::config::vars::Vars,
    /// Where sampling and elicitation go (None: refused, as headless).
    pub asks: Option<crate::asks::Asks>,
    /// The first start waits until this holds true (the window has painted:
    /// fourteen servers starting at once would starve it), then `start_delay`.
    pub start_gate: Option<watch::Receiver<bool>>,
    /// This server's place in a staggered start.
    pub start_delay: Duration,
}

impl Default for SupervisorOptions {
    fn default() -> Self {
        SupervisorOptions {
            startup_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(60),
            max_call_time: Duration::from_secs(600),
            auto_restart: true,
            restart_initial: Duration::from_secs(1),
            restart_max: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(2),
            health_interval: Some(Duration::from_secs(60)),
            vars: crate::config::vars::Vars {
                home: std::env::var_os("HOME").map(PathBuf::from),
                ..Default::default()
            },
            asks: None,
            start_gate: None,
            start_delay: Duration::ZERO,
        }
    }
}

enum Command {
    Stop(oneshot::Sender<()>),
    Start,
    Restart,
}

struct Shared {
    name: String,
    status: watch::Receiver<ServerStatus>,
    peer: watch::Receiver<Option<Live>>,
    pgid: Arc<Mutex<Option<u32>>>,
    commands: mpsc::Sender<Command>,
    options: SupervisorOptions,
    /// What a transient server needs to open a connection per call.
    entry: ServerEntry,
    /// The config file the entry is in; its relative paths resolve
    /// against the file's folder.
    file: PathBuf,
    /// [`ServerHandle::owner`], worked out once: the entry and its file are
    /// this supervisor's for its life, and every call asks for it (the
    /// file's real path and the entry's fingerprint cost three `readlink`s
    /// and a hash a call).
    owner: std::sync::OnceLock<String>,
    base_dir: PathBuf,
    traffic: TrafficLog,
    events: broadcast::Sender<Event>,
    life: super::life::Life,
    streams: super::streams::OpenStreams,
    _guard: DropGuard,
}

mod failures;
mod task;

/// The live session: its peer and its number (each new connection of the
/// server gets the next), so what was sent on which session can be told.
#[derive(Clone)]
pub(crate) struct Live {
    pub(crate) peer: Peer<RoleClient>,
    pub(crate) session: u64,
}

/// The handle to a server's supervisor. Cheap to clone; when the last clone
/// drops, the supervisor stops the server.
#[derive(Clone)]
pub struct ServerHandle {
    shared: Arc<Shared>,
}

struct Supervisor {
    entry: ServerEntry,
    base_dir: PathBuf,
    traffic: TrafficLog,
    events: broadcast::Sender<Event>,
    options: SupervisorOptions,
    status: watch::Sender<ServerStatus>,
    peer: watch::Sender<Option<Live>>,
    /// How many sessions this server has had: the next one's number.
    sessions: std::sync::atomic::AtomicU64,
    pgid: Arc<Mutex<Option<u32>>>,
    life: super::life::Life,
    streams: super::streams::OpenStreams,
}

enum Next {
    Connect,
    Stopped,
    Exit,
}

impl ServerHandle {
    /// Supervise `entry` of the config `file`.
    pub fn spawn(
        entry: ServerEntry,
        file: PathBuf,
        traffic: TrafficLog,
        events: broadcast::Sender<Event>,
        mut options: SupervisorOptions,
    ) -> ServerHandle {
        if let Some(t) = entry.startup_timeout {
            options.startup_timeout = t;
        }
        if let Some(t) = entry.call_timeout {
            options.call_timeout = t;
        }
        if let Some(t) = entry.max_call_time {
            options.max_call_time = t;
        }
        if entry.lifecycle == Lifecycle::Transient {
            options.health_interval = None;
        }
        if let Some(policy) = entry.restart {
            options.auto_restart = policy.enabled;
            options.restart_initial = policy.initial_delay.unwrap_or(options.restart_initial);
            options.restart_max = policy.max_delay.unwrap_or(options.restart_max);
        }
        let initial = ServerStatus {
            name: entry.name.clone(),
            state: if entry.disabled {
                ServerState::Disabled
            } else if !entry.trusted {
                ServerState::Untrusted
            } else {
                ServerState::Starting { slow: false }
            },
            info: None,
        };
        let base_dir = super::resolve::base_dir(&file);
        let life = super::life::Life::default();
        life.note(&initial.state);
        let (status_tx, status_rx) = watch::channel(initial);
        let (peer_tx, peer_rx) = watch::channel(None);
        let (cmd_tx, cmd_rx) = mpsc::channel(16);
        let ct = CancellationToken::new();
        let pgid = Arc::new(Mutex::new(None));
        let streams = super::streams::OpenStreams::default();
        let shared = Arc::new(Shared {
            name: entry.name.clone(),
            status: status_rx,
            peer: peer_rx,
            pgid: pgid.clone(),
            commands: cmd_tx,
            options: options.clone(),
            entry: entry.clone(),
            file,
            owner: std::sync::OnceLock::new(),
            base_dir: base_dir.clone(),
            traffic: traffic.clone(),
            events: events.clone(),
            life: life.clone(),
            streams: streams.clone(),
            _guard: ct.clone().drop_guard(),
        });
        let sup = Supervisor {
            entry,
            base_dir,
            traffic,
            events,
            options,
            status: status_tx,
            peer: peer_tx,
            sessions: Default::default(),
            pgid,
            life,
            streams,
        };
        // The task holds no handle: when the last handle drops, the guard
        // cancels `ct` and the task stops the server and ends.
        tokio::spawn(sup.run(cmd_rx, ct));
        ServerHandle { shared }
    }

    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// Its life so far: each change of state, oldest first.
    pub fn life(&self) -> Vec<super::life::LifeEvent> {
        self.shared.life.events()
    }

    /// Note in its events that its lists could not be read, and why
    /// (masked: the reason may quote what the server sent).
    pub fn note_catalog_failure(&self, reason: &str) {
        let masked = self.shared.traffic.mask_text(self.name(), reason);
        self.shared.life.note_other("catalog", masked);
    }

    pub fn status(&self) -> ServerStatus {
        self.shared.status.borrow().clone()
    }

    /// The protocol version the live (or last) session negotiated.
    pub fn protocol_version(&self) -> Option<String> {
        self.with_info(|i| i.protocol_version.clone())
    }

    /// `f` of what the live (or last) session's server said of itself,
    /// without copying it (`status()` clones it all; a call asks this).
    pub fn with_info<R>(&self, f: impl FnOnce(&crate::status::ServerInfo) -> R) -> Option<R> {
        self.shared.status.borrow().info.as_ref().map(f)
    }

    /// Where requests kept open until cancelled are noted (a listen
    /// stream): they are cancelled before the session closes.
    pub fn open_streams(&self) -> super::streams::OpenStreams {
        self.shared.streams.clone()
    }

    pub fn watch_status(&self) -> watch::Receiver<ServerStatus> {
        self.shared.status.clone()
    }

    pub fn options(&self) -> &SupervisorOptions {
        &self.shared.options
    }

    /// The live session's peer, or None when the server is not Ready. Core's
    /// own: a tool is called only on the one call path
    /// ([`crate::workbench::ToolCaller`]), never through a bare peer.
    pub(crate) fn peer(&self) -> Option<Peer<RoleClient>> {
        self.shared.peer.borrow().as_ref().map(|l| l.peer.clone())
    }

    /// The live session's peer and number, read together.
    pub(crate) fn live(&self) -> Option<Live> {
        self.shared.peer.borrow().clone()
    }

    /// The entry as configured (unexpanded).
    pub fn entry(&self) -> &ServerEntry {
        &self.shared.entry
    }

    /// The folder relative paths of the entry resolve against.
    pub fn base_dir(&self) -> &std::path::Path {
        &self.shared.base_dir
    }

    /// The config file the entry is in.
    pub fn file(&self) -> &std::path::Path {
        &self.shared.file
    }

    /// Which entry this is, of which file, running what
    /// ([`crate::config::trust::owner`]): what standing approvals are kept for.
    pub fn owner(&self) -> String {
        self.shared
            .owner
            .get_or_init(|| crate::config::trust::owner(&self.shared.file, &self.shared.entry))
            .clone()
    }

    pub fn is_transient(&self) -> bool {
        self.shared.entry.lifecycle == Lifecycle::Transient
    }

    /// A transient server's connection for one call (the caller shuts it
    /// down), through the same door as every start.
    pub(crate) async fn open_transient(&self) -> Result<Session, super::Failure> {
        let sh = &self.shared;
        let admitted = super::door::admit(&sh.entry, &sh.options.vars, &sh.traffic).await?;
        let cx = Context {
            base_dir: &sh.base_dir,
            traffic: &sh.traffic,
            events: &sh.events,
            asks: sh.options.asks.as_ref(),
        };
        tokio::time::timeout(sh.options.startup_timeout, connect(&admitted, cx))
            .await
            .map_err(|_| {
                super::Failure::from(format!(
                    "no answer to the handshake within {:.0} s",
                    sh.options.startup_timeout.as_secs_f64()
                ))
            })?
    }

    /// The process group of a stdio server while it runs.
    pub fn pgid(&self) -> Option<u32> {
        *self.shared.pgid.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait until the state satisfies `f`, or `timeout` passes.
    pub async fn wait_for(
        &self,
        timeout: Duration,
        f: impl Fn(&ServerState) -> bool,
    ) -> Option<ServerStatus> {
        let mut rx = self.shared.status.clone();
        let found = tokio::time::timeout(timeout, rx.wait_for(|s| f(&s.state))).await;
        match found {
            Ok(Ok(s)) => Some(s.clone()),
            _ => None,
        }
    }

    /// Stop the server (and everything it started); it stays stopped.
    pub async fn stop(&self) {
        let (tx, rx) = oneshot::channel();
        if self.shared.commands.send(Command::Stop(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }

    /// Start it again after a stop. Refused (and nothing sent) when the
    /// door would not let it through: turned off, or not trusted.
    pub async fn start(&self) -> crate::error::Result<()> {
        self.command(Command::Start).await
    }

    /// Restart it (start it when stopped), refused as [`Self::start`] is.
    pub async fn restart(&self) -> crate::error::Result<()> {
        self.command(Command::Restart).await
    }

    async fn command(&self, command: Command) -> crate::error::Result<()> {
        if let Some(why) = super::door::refusal(&self.shared.entry) {
            return Err(crate::error::Error::Refused(why));
        }
        let _ = self.shared.commands.send(command).await;
        Ok(())
    }
}
