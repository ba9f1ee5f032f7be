//! The writer's thread: one session's messages, as the [`Recorder`]
//! handed them over, masked, held to the sessions' cap and kept in the
//! store a batch at a time, with the host's answered calls read from them.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use workbench_mask::Secrets;
use workbench_store::{NewCall, Store, TapMessage, now_ms};

use super::{BATCH, GATHER, Queued};
use crate::Direction;
use crate::host_calls::{Handshake, HostCalls};

/// The session written, the sessions' cap, and its messages' numbers.
pub(super) struct Session {
    pub(super) id: i64,
    /// When it began (with `id`, its calls' keys: an id can be used again
    /// once its session is gone, never in the same millisecond).
    pub(super) started: i64,
    pub(super) cap: i64,
    pub(super) seq: Arc<AtomicI64>,
}

pub(super) fn write(
    store: Store,
    session: Session,
    server: &str,
    rx: Receiver<Queued>,
    secrets: Arc<Mutex<Secrets>>,
    (closed, queued, dropped): (Arc<AtomicBool>, Arc<AtomicUsize>, Arc<AtomicI64>),
) {
    let mut writer = SessionWriter {
        store,
        session,
        server,
        dropped,
        kept: None,
        full: false,
        handshake: Handshake::default(),
        calls: HostCalls::default(),
    };
    let mut taken = Vec::new();
    let mut batch = Vec::new();
    let mut behind = false;
    loop {
        let first = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) if !closed.load(Ordering::Relaxed) => continue,
            Err(_) => break,
        };
        taken.push(first);
        // The rest of the batch gathers while this thread sleeps: a sender
        // hands a message over without waking it (waking the writer at each
        // message cost the path a futex call and a context switch). Behind
        // a full batch it does not wait.
        if !behind && !closed.load(Ordering::Relaxed) {
            std::thread::sleep(GATHER);
        }
        while taken.len() < BATCH {
            match rx.try_recv() {
                Ok(m) => taken.push(m),
                Err(_) => break,
            }
        }
        behind = taken.len() == BATCH;
        // Handed over: room in the queue again (counted as handed, before
        // masking changes a text's length).
        let handed: usize = taken.iter().map(|q| q.counted).sum();
        queued.fetch_sub(handed, Ordering::Relaxed);
        batch.extend(taken.drain(..).map(Queued::made));
        let masker = secrets.lock().unwrap_or_else(|e| e.into_inner()).clone();
        writer.mask_and_learn(&mut batch, &masker);
        if writer.within_cap(&mut batch) {
            writer.keep(&batch);
        }
        batch.clear();
    }
}

/// The writer's thread: one session's messages into the store.
struct SessionWriter<'a> {
    store: Store,
    session: Session,
    server: &'a str,
    /// Messages that passed but were not kept (the cap was reached).
    dropped: Arc<AtomicI64>,
    /// The bytes the sessions take (None: not looked at yet).
    kept: Option<i64>,
    /// At the cap: this session keeps nothing more.
    full: bool,
    handshake: Handshake,
    /// The host's calls, read from the messages as they pass.
    calls: HostCalls,
}

impl SessionWriter<'_> {
    /// Mask each message, and learn from the handshake who the host is.
    fn mask_and_learn(&mut self, batch: &mut [TapMessage], masker: &Secrets) {
        for m in batch {
            let json = !m.cut && m.text.trim_start().starts_with(['{', '[']);
            if let std::borrow::Cow::Owned(masked) = masker.message(&m.text, json) {
                m.text = masked;
            }
            if let Some((host, version, protocol)) = self.handshake.read(m) {
                let _ = self.store.set_tap_host(
                    self.session.id,
                    host.as_deref(),
                    version.as_deref(),
                    protocol.as_deref(),
                );
                self.calls.learn(host, version, protocol);
            }
        }
    }

    /// The sessions' size, known when a write could pass the cap: the
    /// oldest ended sessions go first; past it, this one keeps no more (what
    /// fits is kept, then one line saying so). False: nothing to keep.
    fn within_cap(&mut self, batch: &mut Vec<TapMessage>) -> bool {
        let Session { id, cap, .. } = self.session;
        if self.full {
            self.dropped
                .fetch_add(batch.len() as i64, Ordering::Relaxed);
            return false;
        }
        let batch_bytes: i64 = batch.iter().map(|m| m.text.len() as i64).sum();
        if self.kept.is_none_or(|k| k + batch_bytes > cap) {
            // Room for this batch: the oldest ended sessions make way.
            match self.store.prune_taps((cap - batch_bytes).max(0), Some(id)) {
                Ok((gone, now)) => {
                    if !gone.is_empty() {
                        tracing::info!(
                            "sessions: {} oldest dropped to stay under {cap} bytes",
                            gone.len()
                        );
                    }
                    self.kept = Some(now);
                }
                Err(e) => tracing::warn!("the sessions' size could not be read: {e}"),
            }
        }
        let Some(k) = self.kept else {
            return true;
        };
        // What fits under the cap is kept; the rest passed, not kept.
        let mut room = cap - k;
        let fits = batch
            .iter()
            .take_while(|m| {
                room -= m.text.len() as i64;
                room >= 0
            })
            .count();
        if fits < batch.len() {
            self.full = true;
            self.dropped
                .fetch_add((batch.len() - fits) as i64, Ordering::Relaxed);
            batch.truncate(fits);
            let text = serde_json::json!({ "full": format!(
                "the sessions kept reached their cap ({} MiB, history.sessions_max_mib in the settings): from here on messages pass but are not kept",
                cap / (1024 * 1024)
            ) })
            .to_string();
            batch.push(TapMessage {
                seq: self.session.seq.fetch_add(1, Ordering::Relaxed),
                at_ms: now_ms(),
                direction: Direction::Tap.as_str().into(),
                size: text.len() as i64,
                text,
                cut: false,
            });
        }
        true
    }

    /// The batch into the session, and the host's answered calls into the
    /// History (origin `host`), in one transaction. Each call's key is made
    /// of the session and the answer's number (unique, and no trigger has to
    /// make one from the row's id). Should the calls not go in, the
    /// messages are kept without them.
    fn keep(&mut self, batch: &[TapMessage]) {
        self.kept = self
            .kept
            .map(|k| k + batch.iter().map(|m| m.text.len() as i64).sum::<i64>());
        let mut answered: Vec<NewCall> = Vec::new();
        for m in batch {
            let calls = self.calls.read(m, self.server);
            let one = calls.len() == 1;
            answered.extend(calls.into_iter().enumerate().map(|(i, mut call)| {
                let Session { id, started, .. } = self.session;
                call.key = Some(if one {
                    format!("tap-{id}-{started}-{}", m.seq)
                } else {
                    format!("tap-{id}-{started}-{}.{i}", m.seq)
                });
                call
            }));
        }
        let id = self.session.id;
        let Err(e) = self.store.append_tap_batch(id, batch, &answered) else {
            return;
        };
        if answered.is_empty() {
            tracing::warn!("{} tapped message(s) were not kept: {e}", batch.len());
            return;
        }
        tracing::warn!(
            "{} call(s) of the host were not kept in the history: {e}",
            answered.len()
        );
        if let Err(e) = self.store.append_tap_messages(id, batch) {
            tracing::warn!("{} tapped message(s) were not kept: {e}", batch.len());
        }
    }
}
