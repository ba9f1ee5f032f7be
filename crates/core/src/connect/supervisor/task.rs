//! The supervisor's task: wait to be started, connect (with the start-up
//! timeout), serve the session until it ends or is told to stop or restart,
//! and close it — its open streams cancelled first, then the process ended.

use std::time::Duration;

use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use super::super::{Context, ServerState, ServerStatus, Session, connect};
use super::super::{Failure, FailureCode};

use super::{Command, Next, Supervisor};
use crate::config::Lifecycle;
use crate::events::Event;

impl Supervisor {
    pub(super) fn publish(&self, state: ServerState, info: Option<super::super::ServerInfo>) {
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
        let _ = self.events.send(Event::Status {
            status: Box::new(status),
        });
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

    pub(super) async fn run(self, mut commands: mpsc::Receiver<Command>, ct: CancellationToken) {
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
                            // Trusting or enabling it is a change of the entry: a new
                            // supervisor starts it (the door refuses this one).
                            Some(Command::Start | Command::Restart)
                                if super::super::door::refusal(&self.entry).is_some() => Next::Stopped,
                            Some(Command::Start | Command::Restart) => { attempt = 1; Next::Connect }
                            Some(Command::Stop(ack)) => { let _ = ack.send(()); Next::Stopped }
                            None => Next::Exit,
                        },
                    }
                }
                Next::Connect => {
                    let failure = match self.connect_once(&mut commands, &ct).await {
                        Outcome::Session(session) => {
                            let began = std::time::Instant::now();
                            let served = self.serve(*session, &mut commands, &ct).await;
                            // Only a session that lasted is a good start: one that
                            // ends right after its handshake (a crash on the first
                            // list) is restarted ever later, as the backoff grows,
                            // not every second for as long as the window is open.
                            if began.elapsed() >= STEADY {
                                attempt = 0;
                            }
                            match served {
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
        let admitted =
            match super::super::door::admit(&self.entry, &self.options.vars, &self.traffic).await {
                Ok(admitted) => admitted,
                Err(shut) => return Outcome::Failed(shut.into()),
            };
        let cx = Context {
            base_dir: &self.base_dir,
            traffic: &self.traffic,
            events: &self.events,
            asks: self.options.asks.as_ref(),
        };
        // A refusal noted from here on is this attempt's.
        self.traffic.take_refusal(&self.entry.name);
        let connecting = connect(&admitted, cx);
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
        let number = 1 + self
            .sessions
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.peer.send_replace(Some(super::Live {
            peer: session.peer.clone(),
            session: number,
        }));
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
                    let (probe, method) = liveness_probe(&session.info.protocol_version);
                    let ping = tokio::time::timeout(Duration::from_secs(10), session.peer.send_request(probe));
                    // Any answer proves the server alive, an error answer too.
                    let alive = matches!(ping.await, Ok(Ok(_)) | Ok(Err(rmcp::service::ServiceError::McpError(_))));
                    if !alive {
                        break Outcome::Failed(Failure::new(FailureCode::Health, format!("no answer to a health check ({method}) within 10 s")));
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

/// The health check the server's era has: `ping` up to 2025-11-25;
/// `server/discover` in 2026-07-28, which has no `ping`. Never a method the
/// era does not know.
pub(crate) fn liveness_probe(protocol: &str) -> (rmcp::model::ClientRequest, &'static str) {
    if protocol >= "2026" {
        (
            rmcp::model::ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(
                "server/discover",
                None,
            )),
            "server/discover",
        )
    } else {
        (
            rmcp::model::ClientRequest::PingRequest(Default::default()),
            "ping",
        )
    }
}

/// How long a session must last for its start to count as good (the
/// restart backoff starts again from its first delay after one).
const STEADY: std::time::Duration = std::time::Duration::from_secs(10);
