//! One server's ring in the traffic log: its entries within their bounds
//! (a full ring recycles its oldest), its requests waiting for their
//! answer (latency, and the method an answer takes from its request), and
//! its method names stored once.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use rustc_hash::FxHashMap as HashMap;

use super::{Direction, MAX_PENDING, MessageKind, TrafficEntry};

pub(super) struct Pending {
    at: Instant,
    method: Option<Arc<str>>,
}

/// A request id as a key: numbers (what nearly every client sends) without
/// an allocation; anything else by its JSON text.
#[derive(PartialEq, Eq, Hash)]
pub(super) enum IdKey {
    Num(i64),
    Text(String),
}

impl IdKey {
    pub(super) fn of(id: &str) -> Self {
        // JSON text: `"7"` (a string) keeps its quotes and stays text.
        id.parse()
            .map_or_else(|_| IdKey::Text(id.to_string()), IdKey::Num)
    }
}

/// One server's entries, the bytes their bodies hold, its requests waiting
/// for their response, and the values masked in what it sends.
pub(super) struct Ring {
    pub(super) name: Arc<str>,
    /// Method names seen, each stored once (bounded: see [`MAX_METHODS`]).
    pub(super) methods: rustc_hash::FxHashSet<Arc<str>>,
    pub(super) entries: VecDeque<Arc<TrafficEntry>>,
    pub(super) bytes: usize,
    /// (id, direction of the request) → when and what was asked.
    pub(super) pending: HashMap<(IdKey, bool), Pending>,
    pub(super) secrets: Vec<String>,
}

/// Distinct method names kept per server; a server inventing names past
/// this starts the set afresh (only sharing is lost, never a name).
pub(super) const MAX_METHODS: usize = 1024;

/// A message about to be kept: what a [`TrafficEntry`] holds, its body
/// borrowed (copied into a recycled entry's, or into a new one).
pub(super) struct Fresh<'a> {
    pub(super) seq: u64,
    pub(super) time_ms: f64,
    pub(super) direction: Direction,
    pub(super) kind: MessageKind,
    pub(super) method: Option<Arc<str>>,
    pub(super) id: Option<String>,
    pub(super) size: u32,
    pub(super) latency_ms: Option<f64>,
    pub(super) body: &'a str,
    pub(super) truncated: bool,
}

impl Ring {
    pub(super) fn new(server: &str, secrets: Vec<String>) -> Ring {
        Ring {
            name: server.into(),
            methods: Default::default(),
            entries: VecDeque::new(),
            bytes: 0,
            pending: HashMap::default(),
            secrets,
        }
    }

    /// A request waits for its answer; an answer finds its request: the
    /// latency, and the method the answer takes from it. An App's messages
    /// have ids of their own: never paired with the server's.
    pub(super) fn pair(
        &mut self,
        id: Option<&str>,
        kind: MessageKind,
        direction: Direction,
        method: &mut Option<Arc<str>>,
    ) -> Option<f64> {
        let wire = matches!(direction, Direction::Outgoing | Direction::Incoming);
        let id = id.filter(|_| wire)?;
        let outgoing = direction == Direction::Outgoing;
        match kind {
            MessageKind::Request => {
                let asked = Pending {
                    at: Instant::now(),
                    method: method.clone(),
                };
                if self.pending.len() >= MAX_PENDING {
                    expire_pending(&mut self.pending);
                }
                self.pending.insert((IdKey::of(id), outgoing), asked);
                None
            }
            MessageKind::Response | MessageKind::Error => {
                let p = self.pending.remove(&(IdKey::of(id), !outgoing))?;
                *method = p.method;
                Some(p.at.elapsed().as_secs_f64() * 1000.0)
            }
            _ => None,
        }
    }

    /// Keep the message, within `capacity` entries and `max_bytes` of
    /// bodies (the oldest go first). A full ring recycles its oldest entry
    /// when nobody else holds it: in a steady stream the log then allocates
    /// nothing per message and does not churn through memory it touched
    /// 10,000 messages ago.
    pub(super) fn keep(
        &mut self,
        fresh: Fresh<'_>,
        (capacity, max_bytes): (usize, usize),
    ) -> Arc<TrafficEntry> {
        let mut recycled = None;
        if self.entries.len() >= capacity
            && let Some(mut old) = self.entries.pop_front()
        {
            self.bytes -= old.body.len();
            if Arc::get_mut(&mut old).is_some() {
                recycled = Some(old);
            }
        }
        let entry = match recycled {
            Some(mut arc) => {
                if let Some(e) = Arc::get_mut(&mut arc) {
                    e.seq = fresh.seq;
                    e.time_ms = fresh.time_ms;
                    if !Arc::ptr_eq(&e.server, &self.name) {
                        e.server = self.name.clone();
                    }
                    e.direction = fresh.direction;
                    e.kind = fresh.kind;
                    e.method = fresh.method;
                    e.id = fresh.id;
                    e.size = fresh.size;
                    e.latency_ms = fresh.latency_ms;
                    e.truncated = fresh.truncated;
                    if e.body.capacity() > RECYCLE_BODY_MAX {
                        e.body = String::with_capacity(fresh.body.len());
                    }
                    e.body.clear();
                    e.body.push_str(fresh.body);
                }
                arc
            }
            None => Arc::new(TrafficEntry {
                seq: fresh.seq,
                time_ms: fresh.time_ms,
                server: self.name.clone(),
                direction: fresh.direction,
                kind: fresh.kind,
                method: fresh.method,
                id: fresh.id,
                size: fresh.size,
                latency_ms: fresh.latency_ms,
                body: fresh.body.to_string(),
                truncated: fresh.truncated,
            }),
        };
        self.bytes += entry.body.len();
        self.entries.push_back(entry.clone());
        while self.entries.len() > capacity || (self.bytes > max_bytes && self.entries.len() > 1) {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= old.body.len();
            }
        }
        entry
    }

    /// The stored name for `method`.
    pub(super) fn intern(&mut self, method: &str) -> Arc<str> {
        if let Some(m) = self.methods.get(method) {
            return m.clone();
        }
        if self.methods.len() >= MAX_METHODS {
            self.methods.clear();
        }
        let m: Arc<str> = method.into();
        self.methods.insert(m.clone());
        m
    }
}

/// Requests waiting longer than this are dropped first when the map is full.
const PENDING_TTL: std::time::Duration = std::time::Duration::from_secs(600);

fn expire_pending(pending: &mut HashMap<(IdKey, bool), Pending>) {
    pending.retain(|_, p| p.at.elapsed() < PENDING_TTL);
    if pending.len() >= MAX_PENDING / 2 {
        let mut times: Vec<Instant> = pending.values().map(|p| p.at).collect();
        let mid = times.len() / 2;
        let (_, cutoff, _) = times.select_nth_unstable(mid);
        let cutoff = *cutoff;
        pending.retain(|_, p| p.at >= cutoff);
    }
}

/// A recycled entry keeps its body's buffer only up to this size (a buffer
/// that once held a huge message is not kept for small ones).
const RECYCLE_BODY_MAX: usize = 64 * 1024;
