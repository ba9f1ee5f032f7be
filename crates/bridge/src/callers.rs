//! The clients connected to the bridge: who (client name and version),
//! since when, over what, how many calls; their peers, to tell them when
//! the catalog changes; and which of them is calling which server, so a
//! server's question during a call goes to the client that made the call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::{Peer, RoleServer};
use serde::Serialize;

/// One connected client, as the Bridge panel lists it.
#[derive(Debug, Clone, Serialize)]
pub struct CallerInfo {
    pub id: u32,
    pub name: String,
    pub version: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The protocol version it negotiated.
    pub protocol: String,
    /// Milliseconds since the Unix epoch.
    pub since_ms: f64,
    pub calls: u32,
}

/// How a caller hears of changes: its session (2025-11-25) or its
/// `subscriptions/listen` stream (2026-07-28).
#[derive(Clone)]
pub enum Listener {
    Session(Peer<RoleServer>),
    Subscription(rmcp::service::SubscriptionSink),
}

impl Listener {
    fn closed(&self) -> bool {
        match self {
            Listener::Session(p) => p.is_transport_closed(),
            Listener::Subscription(_) => false,
        }
    }

    /// Tell it the tools, resources and prompts lists changed.
    pub async fn lists_changed(&self) {
        match self {
            Listener::Session(p) => {
                let _ = p.notify_tool_list_changed().await;
                let _ = p.notify_resource_list_changed().await;
                let _ = p.notify_prompt_list_changed().await;
            }
            Listener::Subscription(s) => {
                let _ = s.notify_tool_list_changed().await;
                let _ = s.notify_resource_list_changed().await;
                let _ = s.notify_prompt_list_changed().await;
            }
        }
    }
}

struct Entry {
    info: CallerInfo,
    listener: Listener,
}

#[derive(Default)]
struct Inner {
    next: u32,
    callers: Vec<Entry>,
    /// server → the callers' peers with a call to it in flight (newest last).
    calling: HashMap<String, Vec<(u64, Peer<RoleServer>)>>,
    next_call: u64,
    /// Resource URI (as the callers see it) → the sessions subscribed to it.
    subscribed: HashMap<String, Vec<(u64, Peer<RoleServer>)>>,
    /// The lowest level of server log messages passed on (logging/setLevel).
    log_level: Option<u8>,
}

#[derive(Clone, Default)]
pub struct Callers {
    inner: Arc<Mutex<Inner>>,
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// Who a peer is, by what it said in `initialize`.
pub fn name_of(peer: &Peer<RoleServer>) -> (String, String) {
    match peer.peer_info() {
        Some(info) => (
            info.client_info.name.clone(),
            info.client_info.version.clone(),
        ),
        None => ("a client".into(), String::new()),
    }
}

impl Callers {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A client finished its handshake (2025-11-25).
    pub fn join(&self, peer: Peer<RoleServer>, transport: &str) -> u32 {
        let (name, version) = name_of(&peer);
        let protocol = peer
            .peer_info()
            .map(|i| i.protocol_version.to_string())
            .unwrap_or_default();
        self.add(name, version, protocol, transport, Listener::Session(peer))
    }

    /// A 2026-07-28 client opened `subscriptions/listen`; it stays listed
    /// until [`Callers::leave`].
    pub fn listen(
        &self,
        name: String,
        version: String,
        transport: &str,
        sink: rmcp::service::SubscriptionSink,
    ) -> u32 {
        self.add(
            name,
            version,
            "2026-07-28".into(),
            transport,
            Listener::Subscription(sink),
        )
    }

    pub fn leave(&self, id: u32) {
        self.lock().callers.retain(|e| e.info.id != id);
    }

    fn add(
        &self,
        name: String,
        version: String,
        protocol: String,
        transport: &str,
        listener: Listener,
    ) -> u32 {
        let mut inner = self.lock();
        inner.next += 1;
        let id = inner.next;
        inner.callers.push(Entry {
            info: CallerInfo {
                id,
                name,
                version,
                transport: transport.to_string(),
                protocol,
                since_ms: now_ms(),
                calls: 0,
            },
            listener,
        });
        id
    }

    /// Count a call by the client called `name`.
    pub fn count(&self, name: &str) {
        let mut inner = self.lock();
        if let Some(e) = inner
            .callers
            .iter_mut()
            .rev()
            .find(|e| e.info.name == name && !e.listener.closed())
        {
            e.info.calls += 1;
        }
    }

    /// The clients still connected.
    pub fn list(&self) -> Vec<CallerInfo> {
        let mut inner = self.lock();
        inner.callers.retain(|e| !e.listener.closed());
        inner.callers.iter().map(|e| e.info.clone()).collect()
    }

    /// Whom to tell about a change.
    pub fn listeners(&self) -> Vec<Listener> {
        let mut inner = self.lock();
        inner.callers.retain(|e| !e.listener.closed());
        inner.callers.iter().map(|e| e.listener.clone()).collect()
    }

    /// `peer` is calling `server` until the guard drops.
    pub fn calling(&self, server: &str, peer: Peer<RoleServer>) -> Calling {
        let mut inner = self.lock();
        inner.next_call += 1;
        let id = inner.next_call;
        inner
            .calling
            .entry(server.to_string())
            .or_default()
            .push((id, peer));
        Calling {
            callers: self.clone(),
            server: server.to_string(),
            id,
        }
    }

    /// Session `session` (a handler's number) subscribed to `uri`.
    pub fn subscribe(&self, uri: &str, session: u64, peer: Peer<RoleServer>) {
        let mut inner = self.lock();
        let v = inner.subscribed.entry(uri.to_string()).or_default();
        v.retain(|(s, p)| *s != session && !p.is_transport_closed());
        v.push((session, peer));
    }

    /// Session `session` is no longer subscribed to `uri`; true when no
    /// session is left on it (then the server is told).
    pub fn unsubscribe(&self, uri: &str, session: u64) -> bool {
        let mut inner = self.lock();
        let Some(v) = inner.subscribed.get_mut(uri) else {
            return true;
        };
        v.retain(|(s, p)| *s != session && !p.is_transport_closed());
        if v.is_empty() {
            inner.subscribed.remove(uri);
            return true;
        }
        false
    }

    /// The sessions subscribed to `uri`.
    pub fn subscribers(&self, uri: &str) -> Vec<Peer<RoleServer>> {
        let mut inner = self.lock();
        let Some(v) = inner.subscribed.get_mut(uri) else {
            return Vec::new();
        };
        v.retain(|(_, p)| !p.is_transport_closed());
        v.iter().map(|(_, p)| p.clone()).collect()
    }

    pub fn set_log_level(&self, rank: u8) {
        self.lock().log_level = Some(rank);
    }

    /// Whether a server's log message of `rank` goes on (after setLevel).
    pub fn logs(&self, rank: u8) -> bool {
        self.lock().log_level.is_some_and(|min| rank >= min)
    }

    /// The client with the newest call to `server` in flight.
    pub fn caller_of(&self, server: &str) -> Option<Peer<RoleServer>> {
        self.lock()
            .calling
            .get(server)
            .and_then(|v| v.last())
            .map(|(_, p)| p.clone())
    }
}

pub struct Calling {
    callers: Callers,
    server: String,
    id: u64,
}

impl Drop for Calling {
    fn drop(&mut self) {
        let mut inner = self.callers.lock();
        if let Some(v) = inner.calling.get_mut(&self.server) {
            v.retain(|(id, _)| *id != self.id);
            if v.is_empty() {
                inner.calling.remove(&self.server);
            }
        }
    }
}
