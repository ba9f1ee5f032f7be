//! One task per server, owning its session: connects, publishes every state
//! change, restarts with exponential backoff after a crash (never after a
//! user's stop), pings an idle server, and stops it leaving no process behind.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::{Peer, RoleClient};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Context, ServerState, ServerStatus, Session, connect};
use super::{Failure, FailureCode};
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
    peer: watch::Receiver<Option<Peer<RoleClient>>>,
    pgid: Arc<Mutex<Option<u32>>>,
    commands: mpsc::Sender<Command>,
    options: SupervisorOptions,
    /// What a transient server needs to open a connection per call.
    entry: ServerEntry,
    /// The config file the entry is in; its relative paths resolve
    /// against the file's folder.
    file: PathBuf,
    base_dir: PathBuf,
    traffic: TrafficLog,
    events: broadcast::Sender<Event>,
    life: super::life::Life,
    streams: super::streams::OpenStreams,
    _guard: DropGuard,
}

mod failures;

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
    peer: watch::Sender<Option<Peer<RoleClient>>>,
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

    /// The live session's peer, or None when the server is not Ready.
    pub fn peer(&self) -> Option<Peer<RoleClient>> {
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
        crate::config::trust::owner(&self.shared.file, &self.shared.entry)
    }

    pub fn is_transient(&self) -> bool {
        self.shared.entry.lifecycle == Lifecycle::Transient
    }

    /// A transient server's connection for one call (the caller shuts it down).
    pub async fn open_transient(&self) -> Result<Session, super::Failure> {
        let sh = &self.shared;
        let (entry, dpop) = super::expand(&sh.entry, &sh.options.vars, &sh.traffic)
            .await
            .map_err(|e| super::Failure::new(super::FailureCode::Config, e))?;
        let cx = Context {
            base_dir: &sh.base_dir,
            traffic: &sh.traffic,
            events: &sh.events,
            asks: sh.options.asks.as_ref(),
            dpop,
        };
        tokio::time::timeout(sh.options.startup_timeout, connect(&entry, cx))
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

    pub async fn start(&self) {
        let _ = self.shared.commands.send(Command::Start).await;
    }

    pub async fn restart(&self) {
        let _ = self.shared.commands.send(Command::Restart).await;
    }
}

impl Supervisor {
    fn publish(&self, state: ServerState, info: Option<super::ServerInfo>) {
        // A reason may quote what was configured (a URL, a command line):
        // the entry's secrets are masked before it is shown or logged.
        let hide = |t: &str| self.traffic.mask_text(&self.entry.name, t);
        let state = match state {
            ServerState::Failed {
                code,
                reason,
                stderr,
            } => ServerState::Failed {
                code,
                reason: hide(&reason),
                stderr: stderr.iter().map(|l| hide(l)).collect(),
            },
            ServerState::Restarting {
                code,
                attempt,
                reason,
                stderr,
                next_try_in_ms,
            } => ServerState::Restarting {
                code,
                attempt,
                reason: hide(&reason),
                stderr: stderr.iter().map(|l| hide(l)).collect(),
                next_try_in_ms,
            },
            other => other,
        };
        let status = ServerStatus {
            name: self.entry.name.clone(),
            state,
            info,
        };
        tracing::info!(server = %self.entry.name, state = ?status.state, "server state");
        self.life.note(&status.state);
        self.status.send_replace(status.clone());
        let _ = self.events.send(Event::Status { status });
    }

    fn set_pgid(&self, pgid: Option<u32>) {
        *self.pgid.lock().unwrap_or_else(|e| e.into_inner()) = pgid;
    }

    /// Hold the first start until the gate opens, then this server's delay.
    /// False when the server is dropped meanwhile.
    async fn wait_for_start(&self, ct: &CancellationToken) -> bool {
        if let Some(mut gate) = self.options.start_gate.clone() {
            tokio::select! {
                _ = ct.cancelled() => return false,
                opened = gate.wait_for(|open| *open) => if opened.is_err() { /* the gate's owner left: start */ },
            }
        }
        if !self.options.start_delay.is_zero() {
            tokio::select! {
                _ = ct.cancelled() => return false,
                _ = tokio::time::sleep(self.options.start_delay) => {}
            }
        }
        // A stop asked for while waiting is honoured by the loop's first turn.
        true
    }

    async fn run(self, mut commands: mpsc::Receiver<Command>, ct: CancellationToken) {
        let mut next = if self.entry.disabled || !self.entry.trusted {
            Next::Stopped
        } else {
            Next::Connect
        };
        let mut attempt: u32 = 0;
        if matches!(next, Next::Connect) && !self.wait_for_start(&ct).await {
            next = Next::Exit;
        }
        loop {
            next = match next {
                Next::Exit => break,
                Next::Stopped => {
                    let state = if !self.entry.trusted {
                        ServerState::Untrusted
                    } else if self.entry.disabled && attempt == 0 {
                        ServerState::Disabled
                    } else {
                        ServerState::Stopped
                    };
                    self.publish(state, None);
                    attempt = 0;
                    tokio::select! {
                        _ = ct.cancelled() => Next::Exit,
                        cmd = commands.recv() => match cmd {
                            // Trusting it is a change of the entry: a new supervisor starts it.
                            Some(Command::Start | Command::Restart) if !self.entry.trusted => Next::Stopped,
                            Some(Command::Start | Command::Restart) => { attempt = 1; Next::Connect }
                            Some(Command::Stop(ack)) => { let _ = ack.send(()); Next::Stopped }
                            None => Next::Exit,
                        },
                    }
                }
                Next::Connect => {
                    let failure = match self.connect_once(&mut commands, &ct).await {
                        Outcome::Session(session) => {
                            attempt = 0;
                            match self.serve(*session, &mut commands, &ct).await {
                                Outcome::Failed(reason) => reason,
                                Outcome::Next(n) => {
                                    next = n;
                                    continue;
                                }
                                Outcome::Session(_) => {
                                    unreachable!("serve never hands a session back")
                                }
                            }
                        }
                        Outcome::Failed(reason) => reason,
                        Outcome::Next(n) => {
                            next = n;
                            continue;
                        }
                    };
                    attempt = attempt.saturating_add(1);
                    self.after_failure(failure, attempt, &mut commands, &ct)
                        .await
                }
            };
        }
        self.peer.send_replace(None);
    }

    async fn connect_once(
        &self,
        commands: &mut mpsc::Receiver<Command>,
        ct: &CancellationToken,
    ) -> Outcome {
        self.publish(ServerState::Starting { slow: false }, None);
        let (entry, dpop) =
            match super::expand(&self.entry, &self.options.vars, &self.traffic).await {
                Ok(expanded) => expanded,
                Err(e) => return Outcome::Failed(Failure::new(FailureCode::Config, e)),
            };
        let cx = Context {
            base_dir: &self.base_dir,
            traffic: &self.traffic,
            events: &self.events,
            asks: self.options.asks.as_ref(),
            dpop,
        };
        // A refusal noted from here on is this attempt's.
        self.traffic.take_refusal(&self.entry.name);
        let connecting = connect(&entry, cx);
        tokio::pin!(connecting);
        let slow = tokio::time::sleep(self.options.startup_timeout);
        tokio::pin!(slow);
        let mut reported_slow = false;
        loop {
            tokio::select! {
                result = &mut connecting => return match result {
                    Ok(session) => Outcome::Session(Box::new(session)),
                    Err(failure) => Outcome::Failed(self.refused(failure)),
                },
                _ = &mut slow, if !reported_slow => {
                    reported_slow = true;
                    self.publish(ServerState::Starting { slow: true }, None);
                }
                cmd = commands.recv() => match cmd {
                    // Dropping `connecting` drops the child, whose Drop kills its group.
                    Some(Command::Stop(ack)) => { let _ = ack.send(()); return Outcome::Next(Next::Stopped) }
                    Some(Command::Restart) => return Outcome::Next(Next::Connect),
                    Some(Command::Start) => {}
                    None => return Outcome::Next(Next::Exit),
                },
                _ = ct.cancelled() => return Outcome::Next(Next::Exit),
            }
        }
    }

    async fn serve(
        &self,
        mut session: Session,
        commands: &mut mpsc::Receiver<Command>,
        ct: &CancellationToken,
    ) -> Outcome {
        self.set_pgid(session.pgid());
        self.peer.send_replace(Some(session.peer.clone()));
        let mut catalog_events = self.events.subscribe();
        self.publish(ServerState::Ready, Some(session.info.clone()));
        let grace = self.options.shutdown_grace;
        if self.entry.lifecycle == Lifecycle::Transient {
            return self
                .serve_transient(session, &mut catalog_events, commands, ct)
                .await;
        }
        let health = self
            .options
            .health_interval
            .unwrap_or(Duration::from_secs(u64::from(u32::MAX)));
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + health, health);
        let outcome = loop {
            tokio::select! {
                why = session.ended() => break Outcome::Failed(Failure::new(FailureCode::Ended, why)),
                cmd = commands.recv() => match cmd {
                    Some(Command::Stop(ack)) => {
                        self.peer.send_replace(None);
                        self.streams.cancel_all(&session.peer).await;
                        session.shutdown(grace).await;
                        self.set_pgid(None);
                        let _ = ack.send(());
                        return Outcome::Next(Next::Stopped);
                    }
                    Some(Command::Restart) => break Outcome::Next(Next::Connect),
                    Some(Command::Start) => {}
                    None => break Outcome::Next(Next::Exit),
                },
                _ = ticker.tick() => {
                    let ping = tokio::time::timeout(Duration::from_secs(10), session.peer.send_request(rmcp::model::ClientRequest::PingRequest(Default::default())));
                    // Any answer proves the server alive; 2026-07-28 servers may
                    // answer ping with "method not found", and that is an answer.
                    let alive = matches!(ping.await, Ok(Ok(_)) | Ok(Err(rmcp::service::ServiceError::McpError(_))));
                    if !alive {
                        break Outcome::Failed(Failure::new(FailureCode::Health, "no answer to a health-check ping within 10 s"));
                    }
                }
                _ = ct.cancelled() => break Outcome::Next(Next::Exit),
            }
        };
        // Say so at once: a caller must not see "not ready (ready)".
        if let Outcome::Failed(failure) = &outcome {
            let stderr = self.traffic.last_stderr(&self.entry.name, 20);
            self.publish(
                ServerState::Failed {
                    code: failure.code,
                    reason: failure.reason.clone(),
                    stderr,
                },
                None,
            );
        }
        self.peer.send_replace(None);
        self.streams.cancel_all(&session.peer).await;
        session.shutdown(grace).await;
        self.set_pgid(None);
        outcome
    }

    /// A transient server: keep the discovery session until the catalog has
    /// its lists, then close it; calls open their own. It stays Ready.
    async fn serve_transient(
        &self,
        session: Session,
        events: &mut broadcast::Receiver<Event>,
        commands: &mut mpsc::Receiver<Command>,
        ct: &CancellationToken,
    ) -> Outcome {
        let name = self.entry.name.clone();
        let fetched = async {
            loop {
                match events.recv().await {
                    Ok(Event::CatalogChanged { server }) if server == name => return,
                    Err(broadcast::error::RecvError::Closed) => return,
                    _ => {}
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(30), fetched).await;
        self.peer.send_replace(None);
        session.shutdown(self.options.shutdown_grace).await;
        self.set_pgid(None);
        tokio::select! {
            cmd = commands.recv() => match cmd {
                Some(Command::Stop(ack)) => { let _ = ack.send(()); Outcome::Next(Next::Stopped) }
                Some(Command::Restart | Command::Start) => Outcome::Next(Next::Connect),
                None => Outcome::Next(Next::Exit),
            },
            _ = ct.cancelled() => Outcome::Next(Next::Exit),
        }
    }
}

enum Outcome {
    Session(Box<Session>),
    Failed(Failure),
    Next(Next),
}
