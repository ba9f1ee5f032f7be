//! The traffic log: every JSON-RPC message in both directions as the bytes
//! that crossed the wire, every stderr line, and whatever else a server wrote
//! to stdout. Responses are paired with their request (latency). Bounded per
//! server; values marked secret are masked before anything is stored.

use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rustc_hash::FxHashMap as HashMap;
use tokio::sync::broadcast;

pub use entry::{Direction, MessageKind, TrafficEntry};
pub use mask::BRIDGE_ROWS;
#[cfg(test)]
use ring::MAX_METHODS;
use ring::{Fresh, IdKey, Ring};

/// Default number of entries kept per server.
pub const DEFAULT_CAPACITY: usize = 10_000;
/// Bodies longer than this are stored truncated (the size stays exact).
pub const DEFAULT_MAX_BODY: usize = 1024 * 1024;
/// Bytes of bodies kept per server at most: a server sending large messages
/// keeps fewer entries rather than all of memory.
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;
use workbench_mask::MASK;

struct Inner {
    seq: u64,
    capacity: usize,
    max_body: usize,
    max_bytes: usize,
    rings: HashMap<String, Ring>,
    /// (server, progress token) → when the server last reported progress on
    /// it: what a call's timeout is reset by.
    progress: HashMap<(String, String), Instant>,
    /// (server, list method) → the last answer as sent, whole: the catalog
    /// keeps every field of every item, also those no library models.
    raw_lists: HashMap<(String, &'static str), String>,
}

/// The list methods whose answers are kept whole for the catalog.
pub const LIST_METHODS: [&str; 4] = [
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
];

impl Inner {
    /// The ring of `server`, made on first use.
    fn ring(&mut self, server: &str) -> &mut Ring {
        if !self.rings.contains_key(server) {
            // What the bridge relays carries every server's answers: its
            // rows are masked with every server's secrets.
            let secrets = if server.starts_with(BRIDGE_ROWS) {
                self.all_secrets()
            } else {
                Vec::new()
            };
            let ring = Ring::new(server, secrets);
            self.rings.insert(server.to_string(), ring);
        }
        // Found by the name alone: no key is built for the lookup.
        self.rings
            .get_mut(server)
            .expect("the ring was inserted just above")
    }
}

/// Progress records kept at most (a token a finished call left behind is
/// dropped when the map is pruned).
const MAX_PROGRESS: usize = 4096;

/// Requests waiting for their response, per server, at most: a server that
/// sends requests nobody answers (or answers with `id: null`) cannot grow
/// the map. Past it, what waited longer than ten minutes goes, then the
/// older half (their responses, if they come, show no latency).
pub const MAX_PENDING: usize = 4096;
/// Shared, cheap to clone. Locks are held only to push or copy; never across `.await`.
#[derive(Clone)]
pub struct TrafficLog {
    inner: Arc<Mutex<Inner>>,
    /// How many progress records there are (read without the lock: a call
    /// that ends looks here before it takes the lock to forget its own).
    progress_len: Arc<std::sync::atomic::AtomicUsize>,
    live: broadcast::Sender<Arc<TrafficEntry>>,
    refusals: Arc<Mutex<HashMap<String, crate::challenge::Refusal>>>,
    /// Each server's last streamed answers and how long they took (`gaps.rs`).
    gaps: Arc<Mutex<HashMap<String, gaps::Ring>>>,
    /// Stderr lines only (`mcpwb serve` passes them on without waking for
    /// every message).
    stderr_live: broadcast::Sender<Arc<TrafficEntry>>,
    /// The workbench's own notes as they are recorded (a renewed session).
    notes_live: broadcast::Sender<Arc<TrafficEntry>>,
    /// Incoming progress only (a call is not woken by every message).
    progress_live: broadcast::Sender<Arc<TrafficEntry>>,
}

impl Default for TrafficLog {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

impl TrafficLog {
    pub fn new(capacity: usize) -> Self {
        let (live, _) = broadcast::channel(4096);
        TrafficLog {
            inner: Arc::new(Mutex::new(Inner {
                seq: 0,
                capacity: capacity.max(1),
                max_body: DEFAULT_MAX_BODY,
                max_bytes: DEFAULT_MAX_BYTES,
                rings: HashMap::default(),
                raw_lists: HashMap::default(),
                progress: HashMap::default(),
            })),
            progress_len: Arc::default(),
            live,
            refusals: Arc::default(),
            gaps: Arc::default(),
            stderr_live: broadcast::channel(1024).0,
            notes_live: broadcast::channel(64).0,
            progress_live: broadcast::channel(1024).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many requests (of every server) wait for their response here.
    /// Whether a request with this id (JSON text) went out to `server` and
    /// is still waiting for its answer: written to the connection, not only
    /// queued for it. Only meaningful for a request sent moments ago (the
    /// waiting ones are kept 10 minutes, at most 4,096 a server).
    pub fn was_sent(&self, server: &str, id: &str) -> bool {
        self.lock()
            .rings
            .get(server)
            .is_some_and(|r| r.pending.contains_key(&(IdKey::of(id), true)))
    }

    /// A request recorded as going to `server` (its id, JSON text) that the
    /// connection then refused (the write failed: a broken pipe to a server
    /// that just died): it never reached the server, so it no longer counts
    /// as sent ([`TrafficLog::was_sent`]).
    pub fn not_written(&self, server: &str, id: &str) {
        if let Some(ring) = self.lock().rings.get_mut(server) {
            ring.pending.remove(&(IdKey::of(id), true));
        }
    }

    pub fn pending_len(&self) -> usize {
        self.lock().rings.values().map(|r| r.pending.len()).sum()
    }

    /// Keep at most `bytes` of message bodies per server (oldest go first).
    pub fn set_max_bytes(&self, bytes: usize) {
        self.lock().max_bytes = bytes.max(1);
    }

    /// Every entry recorded from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<TrafficEntry>> {
        self.live.subscribe()
    }

    /// Every progress notification a server sends from now on.
    pub fn subscribe_progress(&self) -> broadcast::Receiver<Arc<TrafficEntry>> {
        self.progress_live.subscribe()
    }

    /// Every stderr line recorded from now on.
    /// The workbench's own notes as they are recorded.
    pub fn subscribe_notes(&self) -> broadcast::Receiver<Arc<TrafficEntry>> {
        self.notes_live.subscribe()
    }

    pub fn subscribe_stderr(&self) -> broadcast::Receiver<Arc<TrafficEntry>> {
        self.stderr_live.subscribe()
    }

    /// Record one message line as it crossed the wire.
    pub fn record_message(
        &self,
        server: &str,
        direction: Direction,
        raw: &[u8],
    ) -> Arc<TrafficEntry> {
        // Valid UTF-8 is borrowed as it is (the fast path); anything else is
        // shown with replacement characters.
        let text = match std::str::from_utf8(raw) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(raw),
        };
        let text = text.trim_end_matches(['\r', '\n']);
        let c = classify::classify(text, direction == Direction::Outgoing);
        let progress = c.progress_token.is_some() && direction == Direction::Incoming;
        if let (Some(token), Direction::Incoming) = (c.progress_token, direction) {
            let mut inner = self.lock();
            if inner.progress.len() >= MAX_PROGRESS {
                inner.progress.clear();
            }
            inner
                .progress
                .insert((server.to_string(), token), Instant::now());
            self.progress_len
                .store(inner.progress.len(), std::sync::atomic::Ordering::Relaxed);
        }
        let entry = self.push(
            server,
            direction,
            c.kind,
            c.method.as_deref(),
            c.id,
            text,
            raw.len(),
        );
        if progress && self.progress_live.receiver_count() > 0 {
            let _ = self.progress_live.send(entry.clone());
        }
        if direction == Direction::Incoming
            && entry.kind == MessageKind::Response
            && let Some(list) = entry
                .method
                .as_deref()
                .and_then(|m| LIST_METHODS.iter().find(|l| **l == m))
        {
            self.lock()
                .raw_lists
                .insert((server.to_string(), list), text.to_string());
        }
        entry
    }

    /// The last answer `server` gave to the list method `method`, as sent
    /// (taken: the next call gives the next answer).
    pub fn take_raw_list(&self, server: &str, method: &str) -> Option<String> {
        let list = LIST_METHODS.iter().find(|l| **l == method)?;
        self.lock().raw_lists.remove(&(server.to_string(), *list))
    }

    /// When `server` last reported progress on `token` (JSON text, e.g. `3`).
    pub fn last_progress(&self, server: &str, token: &str) -> Option<Instant> {
        let inner = self.lock();
        if inner.progress.is_empty() {
            return None;
        }
        inner
            .progress
            .get(&(server.to_string(), token.to_string()))
            .copied()
    }

    /// Whether any server has reported progress that is not yet forgotten.
    pub fn has_progress(&self) -> bool {
        self.progress_len.load(std::sync::atomic::Ordering::Relaxed) > 0
    }

    /// Forget the progress of a finished call.
    pub fn forget_progress(&self, server: &str, token: &str) {
        let mut inner = self.lock();
        if !inner.progress.is_empty() {
            inner
                .progress
                .remove(&(server.to_string(), token.to_string()));
            self.progress_len
                .store(inner.progress.len(), std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Record the workbench's own note about `server` (shown in its
    /// traffic as the workbench's, not in its stderr).
    pub fn record_note(&self, server: &str, note: &str) -> Arc<TrafficEntry> {
        let entry = self.push(
            server,
            Direction::Note,
            MessageKind::Log,
            None,
            None,
            note,
            note.len(),
        );
        if self.notes_live.receiver_count() > 0 {
            let _ = self.notes_live.send(entry.clone());
        }
        entry
    }

    /// Record one message between the window and an MCP App of `server`
    /// (the App's postMessage bridge).
    pub fn record_app(&self, server: &str, to_app: bool, text: &str) -> Arc<TrafficEntry> {
        let c = classify::classify(text, !to_app);
        let direction = if to_app {
            Direction::ToApp
        } else {
            Direction::FromApp
        };
        self.push(
            server,
            direction,
            c.kind,
            c.method.as_deref(),
            c.id,
            text,
            text.len(),
        )
    }

    /// Record one stderr line.
    pub fn record_stderr(&self, server: &str, line: &str) -> Arc<TrafficEntry> {
        let line = line.trim_end_matches(['\r', '\n']);
        let entry = self.push(
            server,
            Direction::Stderr,
            MessageKind::Log,
            None,
            None,
            line,
            line.len(),
        );
        if self.stderr_live.receiver_count() > 0 {
            let _ = self.stderr_live.send(entry.clone());
        }
        entry
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &self,
        server: &str,
        direction: Direction,
        kind: MessageKind,
        method: Option<&str>,
        id: Option<String>,
        text: &str,
        size: usize,
    ) -> Arc<TrafficEntry> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        inner.seq += 1;
        let (seq, capacity, max_bytes, max_body) =
            (inner.seq, inner.capacity, inner.max_bytes, inner.max_body);
        let ring = inner.ring(server);
        let mut method = method.map(|m| ring.intern(m));
        let latency_ms = ring.pair(id.as_deref(), kind, direction, &mut method);
        // Masked before the cut: a secret the cut would split is masked whole.
        let json = matches!(
            kind,
            MessageKind::Request
                | MessageKind::Response
                | MessageKind::Error
                | MessageKind::Notification
        );
        let masked = mask::mask_message(text, &ring.secrets, json);
        let (body, truncated) = cut(&masked, max_body);
        let entry = ring.keep(
            Fresh {
                seq,
                time_ms: now_ms(),
                direction,
                kind,
                method,
                id,
                size: u32::try_from(size).unwrap_or(u32::MAX),
                latency_ms,
                body,
                truncated,
            },
            (capacity, max_bytes),
        );
        drop(guard);
        if self.live.receiver_count() > 0 {
            let _ = self.live.send(entry.clone());
        }
        entry
    }

    /// Forget a server's entries (e.g. when it is removed from the config).
    pub fn clear(&self, server: &str) {
        let mut inner = self.lock();
        inner.rings.remove(server);
        inner.progress.retain(|(s, _), _| s != server);
        self.progress_len
            .store(inner.progress.len(), std::sync::atomic::Ordering::Relaxed);
    }
}

mod classify;
mod entry;
mod gaps;
pub mod mask;
mod query;
mod reads;
mod refusals;
mod ring;
mod scan;
pub use query::{TrafficPage, TrafficQuery};

#[cfg(test)]
mod tests;
