//! The history's writer: finished calls go to one thread that masks their
//! secrets, serializes them and writes them in batches (one transaction for
//! whatever arrived meanwhile), then keeps the store under its size cap. A
//! caller's path only sends on a channel, so recording costs it nothing it
//! could see; a caller that wants the row's id waits for it.

use std::sync::mpsc;

use serde_json::Value;
use tokio::sync::oneshot;
use workbench_core::traffic::TrafficLog;
use workbench_store::{CallStatus, NewCall, Store};

use crate::rules::LiveRules;

/// A finished call on its way to the store.
pub(crate) struct Finished {
    pub origin: &'static str,
    pub session: Option<String>,
    pub message: Option<i64>,
    pub call_id: String,
    pub server: String,
    pub tool: String,
    pub arguments: Value,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub status: CallStatus,
    pub duration_ms: Option<f64>,
    pub started_at: i64,
    pub protocol: Option<String>,
    pub traffic: (u64, u64),
    pub schema_violations: Vec<String>,
}

enum Job {
    Write(Box<Finished>, Option<oneshot::Sender<i64>>),
    Flush(oneshot::Sender<()>),
}

/// Writes between two checks of the size cap.
const PRUNE_EVERY: u32 = 256;
/// Jobs written in one transaction at most.
const BATCH: usize = 512;

/// The writer's handle. Cheap to clone; the thread ends when the last
/// handle is dropped, after writing what it was sent.
#[derive(Clone)]
pub(crate) struct History {
    tx: mpsc::Sender<Job>,
    store: Store,
}

impl History {
    pub fn start(store: Store, traffic: TrafficLog, rules: LiveRules) -> History {
        let (tx, rx) = mpsc::channel::<Job>();
        let writer_store = store.clone();
        let spawned = std::thread::Builder::new()
            .name("history".into())
            .spawn(move || write_loop(rx, writer_store, traffic, rules));
        if let Err(e) = spawned {
            tracing::warn!("the call history's writer could not start: {e}; calls are not kept");
        }
        History { tx, store }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Queue a finished call; the receiver gets its id once written.
    pub fn write(&self, call: Finished) -> oneshot::Receiver<i64> {
        let (tx, rx) = oneshot::channel();
        let _ = self.tx.send(Job::Write(Box::new(call), Some(tx)));
        rx
    }

    /// Wait until everything queued so far is written.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Job::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

fn to_row(traffic: &TrafficLog, mut call: Finished) -> NewCall {
    traffic.mask_json(&call.server, &mut call.arguments);
    if let Some(result) = call.result.as_mut() {
        traffic.mask_json(&call.server, result);
    }
    let error = call.error.map(|e| traffic.mask_text(&call.server, &e));
    NewCall {
        origin: call.origin.to_string(),
        session: call.session,
        message: call.message,
        call_id: call.call_id,
        server: call.server,
        tool: call.tool,
        arguments: call.arguments.to_string(),
        result: call.result.map(|r| r.to_string()),
        error,
        status: Some(call.status),
        duration_ms: call.duration_ms,
        started_at: call.started_at,
        protocol: call.protocol,
        traffic: Some(call.traffic),
        schema_violations: call.schema_violations,
    }
}

fn write_loop(rx: mpsc::Receiver<Job>, store: Store, traffic: TrafficLog, rules: LiveRules) {
    let mut since_prune = PRUNE_EVERY;
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < BATCH {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let mut rows = Vec::new();
        let mut replies = Vec::new();
        let mut flushed = Vec::new();
        for job in jobs {
            match job {
                Job::Write(call, reply) => {
                    rows.push(to_row(&traffic, *call));
                    replies.push(reply);
                }
                Job::Flush(done) => flushed.push(done),
            }
        }
        if !rows.is_empty() {
            match store.insert_calls(&rows) {
                Ok(ids) => {
                    for (id, reply) in ids.into_iter().zip(replies) {
                        if let Some(reply) = reply {
                            let _ = reply.send(id);
                        }
                    }
                }
                Err(e) => tracing::warn!(
                    "{} call(s) could not be kept in the history: {e}",
                    rows.len()
                ),
            }
            since_prune += rows.len() as u32;
        }
        if since_prune >= PRUNE_EVERY {
            since_prune = 0;
            let cap = i64::from(rules.history().max_mib) * 1024 * 1024;
            match store.prune_calls(cap) {
                Ok(0) => {}
                Ok(n) => {
                    tracing::info!("history: {n} oldest call(s) dropped to stay under {cap} bytes")
                }
                Err(e) => tracing::warn!("history: pruning failed: {e}"),
            }
        }
        for done in flushed {
            let _ = done.send(());
        }
    }
}
