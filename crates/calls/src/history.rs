//! The history's writer: finished calls go to one thread that masks their
//! secrets, serializes them and writes them in batches (one transaction for
//! what gathered in 20 ms), then keeps the store under its size cap. A
//! caller's path only appends to a queue (the first job of a batch wakes
//! the writer, the others do not), so recording costs it nothing it could
//! see; a caller that wants the row's id hurries the batch and waits.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::oneshot;
use workbench_core::traffic::TrafficLog;
use workbench_core::traffic::mask::{mask_json, mask_str};
use workbench_store::{CallStatus, NewCall, Store};

use crate::rules::LiveRules;

mod running;

pub(crate) use running::Ticket;
pub use running::mark_interrupted;
use running::{Entry, KEEP_AFTER, Running, this_process};

/// A key for a call's row, made before the call: its answer names the row
/// at once, and no caller waits for the write. The start's milliseconds (so
/// keys sort by time) and 64 bits that set processes sharing the store apart:
/// drawn from the OS once a process, then stepped by an odd constant each
/// call (a distinct value for 2^64 calls; was a `getrandom` system call each
/// call, on the path of every call the bridge relays).
pub(crate) fn new_key() -> Option<String> {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEED: OnceLock<Option<u64>> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let seed = (*SEED.get_or_init(|| {
        let mut random = [0u8; 8];
        // The OS source failed: the store makes a key from the row's id.
        getrandom::fill(&mut random)
            .ok()
            .map(|()| u64::from_le_bytes(random))
    }))?;
    // A Weyl sequence: n * an odd constant is a permutation of the u64s.
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    Some(format!(
        "{:011x}-{:016x}",
        workbench_store::now_ms(),
        seed.wrapping_add(n.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    ))
}

/// A finished call on its way to the store: what was known as it began,
/// and how it ended.
pub(crate) struct Finished {
    /// Made before the call ([`new_key`]); None: the store makes one.
    pub key: Option<String>,
    pub begun: Begun,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub status: CallStatus,
    pub duration_ms: Option<f64>,
    pub protocol: Option<String>,
    pub traffic: (u64, u64),
    pub schema_violations: Vec<String>,
    pub task: Option<Value>,
    /// What happened on the way (a wait for a restart, a send again).
    pub notes: Vec<String>,
    /// Kept while it ran: this replaces that row ([`Ticket::end`] says).
    pub replaces: bool,
}

/// What a call's row says from its start: who made it, to what, with what.
#[derive(Clone)]
pub(crate) struct Begun {
    pub origin: &'static str,
    pub session: Option<String>,
    pub message: Option<i64>,
    pub call_id: String,
    pub server: String,
    pub tool: String,
    pub arguments: Value,
    pub started_at: i64,
}

impl Begun {
    /// Its row with no end: `status` and why (kept while it runs, or
    /// stopped).
    fn row(self, key: &str, status: CallStatus, error: Option<String>, replaces: bool) -> Finished {
        Finished {
            key: Some(key.to_string()),
            begun: self,
            result: None,
            error,
            status,
            duration_ms: None,
            protocol: None,
            traffic: (0, 0),
            schema_violations: Vec::new(),
            task: None,
            notes: Vec::new(),
            replaces,
        }
    }
}

enum Job {
    Write(Box<Finished>, Option<oneshot::Sender<i64>>),
    /// What a suite's case made of the call with this id.
    Verdict(String, workbench_store::CaseVerdict),
    Flush(oneshot::Sender<()>),
}

/// How long a batch gathers after its first job: one transaction for a
/// burst of calls instead of one a call (a flush ends the wait).
const GATHER: Duration = Duration::from_millis(20);

/// The jobs waiting for the writer. A caller appends under a short lock;
/// only the first job of a batch (or a flush) wakes the writer.
#[derive(Default)]
struct Queue {
    jobs: Mutex<Vec<Job>>,
    ready: Condvar,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Job>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, job: Job) {
        let urgent = matches!(job, Job::Flush(_));
        let mut jobs = self.lock();
        let first = jobs.is_empty();
        jobs.push(job);
        drop(jobs);
        if first || urgent {
            self.ready.notify_one();
        }
    }
}

/// The writer's handle. Cheap to clone; the thread ends when the last
/// handle is dropped, after writing what it was sent.
#[derive(Clone)]
pub(crate) struct History {
    queue: Arc<Queue>,
    running: Running,
    /// Held by handles only: the writer sees the last one go.
    handles: Arc<()>,
    store: Store,
    /// How many rows the writer has written so far (a window follows it).
    written: tokio::sync::watch::Receiver<u64>,
}

impl History {
    pub fn start(store: Store, traffic: TrafficLog, rules: LiveRules) -> History {
        let queue = Arc::new(Queue::default());
        let handles = Arc::new(());
        let (wrote, written) = tokio::sync::watch::channel(0u64);
        let running = Running::default();
        let writer = Writer {
            queue: queue.clone(),
            running: running.clone(),
            handles: Arc::downgrade(&handles),
            store: store.clone(),
            traffic,
            rules,
            wrote,
        };
        let spawned = std::thread::Builder::new()
            .name("history".into())
            .spawn(move || writer.run());
        if let Err(e) = spawned {
            tracing::warn!("the call history's writer could not start: {e}; calls are not kept");
        }
        History {
            queue,
            running,
            handles,
            store,
            written,
        }
    }

    fn lock_running(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Entry>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A call with `key` begins: among the running until its ticket ends.
    pub fn begin(&self, key: String, begun: Begun) -> Ticket {
        self.lock_running().insert(
            key.clone(),
            Entry {
                begun,
                since: Instant::now(),
                kept: false,
            },
        );
        Ticket {
            history: self.clone(),
            key,
        }
    }

    /// Changes each time rows are written (their running count).
    pub fn written(&self) -> tokio::sync::watch::Receiver<u64> {
        self.written.clone()
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Queue a finished call; the receiver gets its id once written.
    pub fn write(&self, call: Finished) -> oneshot::Receiver<i64> {
        let (tx, rx) = oneshot::channel();
        self.queue.push(Job::Write(Box::new(call), Some(tx)));
        rx
    }

    /// Keep what a suite's case made of the call with `key` (after its row).
    pub fn verdict(&self, key: String, verdict: workbench_store::CaseVerdict) {
        self.queue.push(Job::Verdict(key, verdict));
    }

    /// Write what is queued now, not after the gathering wait (someone
    /// waits for a row's id).
    pub fn hurry(&self) {
        let (tx, _) = oneshot::channel();
        self.queue.push(Job::Flush(tx));
    }

    /// Wait until everything queued so far is written.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        self.queue.push(Job::Flush(tx));
        let _ = rx.await;
    }
}

impl Drop for History {
    fn drop(&mut self) {
        // The last handle: wake the writer to finish and end.
        if Arc::strong_count(&self.handles) == 1 {
            self.queue.ready.notify_one();
        }
    }
}

/// Each server's secrets, fetched once per batch (the traffic log's lock is
/// the taps' too: taken once a server, not once a string).
#[derive(Default)]
struct Secrets(std::collections::HashMap<String, Vec<String>>);

impl Secrets {
    fn of(&mut self, traffic: &TrafficLog, server: &str) -> &[String] {
        self.0
            .entry(server.to_string())
            .or_insert_with(|| traffic.secrets_of(server))
    }
}

fn to_row(secrets: &[String], mut call: Finished) -> NewCall {
    let begun = &mut call.begun;
    mask_json(&mut begun.arguments, secrets);
    if let Some(result) = call.result.as_mut() {
        mask_json(result, secrets);
    }
    let error = call.error.map(|e| mask_str(&e, secrets));
    let begun = call.begun;
    NewCall {
        key: call.key,
        origin: begun.origin.to_string(),
        session: begun.session,
        message: begun.message,
        call_id: begun.call_id,
        server: begun.server,
        tool: begun.tool,
        arguments: begun.arguments.to_string(),
        result: call.result.map(|r| r.to_string()),
        error,
        status: Some(call.status),
        duration_ms: call.duration_ms,
        started_at: begun.started_at,
        protocol: call.protocol,
        // None seen (a row kept while the call runs, or one dropped).
        traffic: (call.traffic != (0, 0)).then_some(call.traffic),
        schema_violations: call.schema_violations,
        task: call.task.map(|t| t.to_string()),
        notes: call.notes,
        replaces_running: call.replaces,
    }
}

/// The writer yields to everything else: a call waiting on a pipe must not
/// wait for a batch being written (on two cores the writer would otherwise
/// take the core the caller and its server's process take turns on). Nice
/// 10, not the idle class: under a steady full load it still gets about a
/// tenth of a core (its work is a few percent of a call's), so the queue
/// does not grow without end.
fn background() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10) {
        tracing::debug!("the history's writer keeps its priority: {e}");
    }
}

struct Writer {
    queue: Arc<Queue>,
    running: Running,
    handles: std::sync::Weak<()>,
    store: Store,
    traffic: TrafficLog,
    rules: LiveRules,
    wrote: tokio::sync::watch::Sender<u64>,
}

impl Writer {
    /// The next batch: waits for a first job, then gathers for a while
    /// (less when a flush is asked for). None: every handle is gone and
    /// nothing is left.
    fn next_batch(&self) -> Option<Vec<Job>> {
        let mut jobs = self.queue.lock();
        if jobs.is_empty() {
            if self.handles.strong_count() == 0 {
                return None;
            }
            // Idle: back when the next running call is due to be kept
            // (so one killed soon after is kept), at most a second.
            jobs = self
                .queue
                .ready
                .wait_timeout(jobs, self.next_due())
                .unwrap_or_else(|e| e.into_inner())
                .0;
            if jobs.is_empty() {
                return Some(Vec::new());
            }
        }
        let deadline = Instant::now() + GATHER;
        loop {
            let urgent = jobs.iter().any(|j| matches!(j, Job::Flush(_)));
            let left = deadline.saturating_duration_since(Instant::now());
            if urgent || left.is_zero() || self.handles.strong_count() == 0 {
                return Some(std::mem::take(&mut *jobs));
            }
            jobs = self
                .queue
                .ready
                .wait_timeout(jobs, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn run(self) {
        background();
        // Calls a process that is gone left running: interrupted.
        if mark_interrupted(&self.store) > 0 {
            self.wrote.send_modify(|w| *w += 1);
        }
        // What the last pruning could not drop: the bytes it left above the
        // cap (0 when it got under; saved and chat calls alone may pass it).
        let mut unprunable = 0;
        while let Some(jobs) = self.next_batch() {
            self.keep_running();
            if !jobs.is_empty() {
                self.write(jobs, &mut unprunable);
            }
        }
    }

    /// How long until the first running call not kept yet has run
    /// [`KEEP_AFTER`] (a second when none runs).
    fn next_due(&self) -> Duration {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        running
            .values()
            .filter(|e| !e.kept)
            .map(|e| KEEP_AFTER.saturating_sub(e.since.elapsed()))
            .min()
            .unwrap_or(KEEP_AFTER)
            .clamp(Duration::from_millis(5), Duration::from_secs(1))
    }

    /// The calls running longer than [`KEEP_AFTER`] not kept yet: each a
    /// `pending` row with this process's id (its end replaces it).
    fn keep_running(&self) {
        let mut rows = Vec::new();
        {
            let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            let mut secrets = Secrets::default();
            for (key, entry) in running.iter_mut() {
                if entry.kept || entry.since.elapsed() < KEEP_AFTER {
                    continue;
                }
                entry.kept = true;
                let begun = entry.begun.clone();
                let row = begun.row(key, CallStatus::Pending, None, false);
                rows.push(to_row(secrets.of(&self.traffic, &entry.begun.server), row));
            }
        }
        if rows.is_empty() {
            return;
        }
        match self.store.keep_running(&rows, this_process()) {
            Ok(_) => self.wrote.send_modify(|w| *w += rows.len() as u64),
            Err(e) => tracing::warn!("history: a running call could not be kept: {e}"),
        }
    }

    fn write(&self, jobs: Vec<Job>, unprunable: &mut i64) {
        let (store, traffic, rules) = (&self.store, &self.traffic, &self.rules);
        let mut secrets = Secrets::default();
        let mut rows = Vec::new();
        let mut replies = Vec::new();
        let mut flushed = Vec::new();
        let mut verdicts = Vec::new();
        for job in jobs {
            match job {
                Job::Write(call, reply) => {
                    rows.push(to_row(secrets.of(traffic, &call.begun.server), *call));
                    replies.push(reply);
                }
                Job::Verdict(key, verdict) => verdicts.push((key, verdict)),
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
                    let n = rows.len() as u64;
                    self.wrote.send_modify(|w| *w += n);
                }
                Err(e) => tracing::warn!(
                    "{} call(s) could not be kept in the history: {e}",
                    rows.len()
                ),
            }
        }
        if !verdicts.is_empty() {
            for (key, verdict) in &verdicts {
                if let Err(e) = store.set_call_verdict(key, verdict) {
                    tracing::warn!("a suite case's verdict could not be kept: {e}");
                }
            }
            // Rows changed: a window showing them reads them again.
            self.wrote.send_modify(|w| *w += 1);
        }
        let cap = i64::from(rules.history().max_mib) * 1024 * 1024;
        // When pruning could not get under the cap (saved and chat calls
        // alone pass it), the next try waits for a sixteenth more. The size
        // is one row the store keeps as calls come and go (this process's
        // and any other's).
        let limit = cap.max(*unprunable + cap / 16);
        let over = match store.calls_size() {
            Ok((_, bytes)) => bytes > limit,
            Err(e) => {
                tracing::warn!("history: its size could not be read: {e}");
                false
            }
        };
        if over {
            match store.prune_calls(cap) {
                Ok(pruned) => {
                    *unprunable = if pruned.kept_bytes > cap {
                        pruned.kept_bytes
                    } else {
                        0
                    };
                    if pruned.dropped > 0 {
                        tracing::info!(
                            "history: {} oldest call(s) dropped to stay under {cap} bytes",
                            pruned.dropped
                        )
                    }
                }
                Err(e) => tracing::warn!("history: pruning failed: {e}"),
            }
        }
        for done in flushed {
            let _ = done.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_made_one_after_another_are_all_different() {
        let keys: std::collections::HashSet<String> =
            (0..10_000).map(|_| super::new_key().unwrap()).collect();
        assert_eq!(keys.len(), 10_000);
        // Milliseconds, then 64 bits: the form the store's keys have.
        let key = keys.iter().next().unwrap();
        let (ms, bits) = key.split_once('-').unwrap();
        assert_eq!((ms.len(), bits.len()), (11, 16), "{key}");
    }
}
