//! Following a server's changes in either era. A 2026-07-28 server tells of
//! them only on a `subscriptions/listen` stream the client opens, naming
//! what it wants: the lists that may change (as the server's capabilities
//! say) and the resources subscribed to. One stream per Ready server, opened
//! again with everything re-sent when it drops (no state survives on the
//! server) or when the subscriptions change. Up to 2025-11-25 the server
//! notifies by itself, and `resources/subscribe` is sent again for each
//! subscription after a restart.
//!
//! What comes is published as the same events the 2025-11-25 session
//! handler sends (`ListChanged`, `ResourceUpdated`).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use serde_json::{Value, json};
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

use super::{Servers, Workbench, read};
use crate::connect::ServerState;
use crate::error::{Error, Result};
use crate::events::Event;
use crate::traffic::TrafficLog;

/// The first wait before a dropped stream is opened again (doubling to 30 s).
const FIRST_RETRY: Duration = Duration::from_millis(250);
const LAST_RETRY: Duration = Duration::from_secs(30);

#[derive(Default)]
struct Server {
    uris: BTreeSet<String>,
    /// Up to 2025-11-25: the session each subscription was last sent on
    /// (by the person's subscribe or by the follower after a restart), so
    /// a session is sent each one once, whichever comes first.
    sent_on: HashMap<String, u64>,
    changed: Arc<Notify>,
    /// The lowest level of log messages asked for (2026-07-28 sends it in
    /// each request's `_meta`; earlier eras once, with `logging/setLevel`).
    log_level: Option<String>,
}

/// The resources subscribed to, per server (kept across restarts).
#[derive(Default)]
pub(super) struct Listens(Mutex<HashMap<String, Server>>);

impl Listens {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Server>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, server: &str, uri: &str, on: bool) {
        let mut all = self.lock();
        let entry = all.entry(server.to_string()).or_default();
        let changed = if on {
            entry.uris.insert(uri.to_string())
        } else {
            entry.sent_on.remove(uri);
            entry.uris.remove(uri)
        };
        if changed {
            entry.changed.notify_waiters();
        }
    }

    /// Subscribe to `uri` on session `session`: false when it already was
    /// (nothing to send).
    fn claim(&self, server: &str, uri: &str, session: u64) -> bool {
        let mut all = self.lock();
        let entry = all.entry(server.to_string()).or_default();
        if entry.uris.insert(uri.to_string()) {
            entry.changed.notify_waiters();
        }
        entry.sent_on.insert(uri.to_string(), session) != Some(session)
    }

    /// The subscriptions of `server` not yet sent on `session`, now taken
    /// as sent on it; `again` takes every one (a session the server forgot).
    fn unsent(&self, server: &str, session: u64, again: bool) -> Vec<String> {
        let mut all = self.lock();
        let Some(entry) = all.get_mut(server) else {
            return Vec::new();
        };
        let mut unsent = Vec::new();
        for uri in &entry.uris {
            let before = entry.sent_on.insert(uri.clone(), session);
            if again || before != Some(session) {
                unsent.push(uri.clone());
            }
        }
        unsent
    }

    pub(super) fn log_level(&self, server: &str) -> Option<String> {
        self.lock().get(server).and_then(|s| s.log_level.clone())
    }

    fn uris(&self, server: &str) -> Vec<String> {
        self.lock()
            .get(server)
            .map(|s| s.uris.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn changed(&self, server: &str) -> Arc<Notify> {
        self.lock()
            .entry(server.to_string())
            .or_default()
            .changed
            .clone()
    }
}

/// Where a log level stands, the most detailed (`debug`) first: RFC 5424's
/// levels as MCP names them; an unknown one counts as the most severe.
pub fn log_rank(level: &str) -> u8 {
    match level {
        "debug" => 0,
        "info" => 1,
        "notice" => 2,
        "warning" => 3,
        "error" => 4,
        "critical" => 5,
        "alert" => 6,
        _ => 7,
    }
}

fn new_era(info: &crate::status::ServerInfo) -> bool {
    info.protocol_version.as_str() >= "2026"
}

impl Workbench {
    /// Subscribe to (or unsubscribe from) a resource's updates: on a
    /// 2026-07-28 server through its listen stream, before that with
    /// `resources/subscribe`. Kept across the server's restarts.
    pub async fn subscribe_resource(&self, server: &str, uri: &str, on: bool) -> Result<()> {
        let handle = self.server(server)?;
        let info = handle.status().info.ok_or_else(|| Error::ServerNotReady {
            server: server.to_string(),
            state: "not connected".into(),
        })?;
        if on && info.capabilities["resources"]["subscribe"] != true {
            return Err(Error::Refused(format!(
                "{server} does not offer resource subscriptions (its capabilities.resources.subscribe is not true)"
            )));
        }
        if new_era(&info) {
            self.inner.listens.set(server, uri, on);
            return Ok(());
        }
        let listens = &self.inner.listens;
        if !on {
            let params = json!({ "uri": uri });
            self.request(server, "resources/unsubscribe", params, Default::default())
                .await?;
            listens.set(server, uri, false);
            return Ok(());
        }
        // Taken as sent on this session before it goes out, so the
        // follower (handling this session's Ready late) does not send it too.
        let session = handle.live().map_or(0, |l| l.session);
        if listens.claim(server, uri, session) {
            let params = json!({ "uri": uri });
            let sent = self
                .request(server, "resources/subscribe", params, Default::default())
                .await;
            if let Err(e) = sent {
                listens.set(server, uri, false);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Ask `server` for log messages at `level` and above: with
    /// `logging/setLevel` up to 2025-11-25; from 2026-07-28 on, in each
    /// request's `_meta` from now on. Kept across the server's restarts.
    pub async fn set_log_level(&self, server: &str, level: &str) -> Result<()> {
        let handle = self.server(server)?;
        let legacy = handle.status().info.is_some_and(|i| !new_era(&i));
        if legacy {
            self.request(
                server,
                "logging/setLevel",
                json!({ "level": level }),
                Default::default(),
            )
            .await?;
        }
        self.inner
            .listens
            .lock()
            .entry(server.to_string())
            .or_default()
            .log_level = Some(level.to_string());
        Ok(())
    }

    /// The log level asked of `server`, if one was.
    pub fn log_level(&self, server: &str) -> Option<String> {
        self.inner.listens.log_level(server)
    }

    /// Ask `server` for log messages at `level` or more detailed ones, on
    /// behalf of someone else (a bridge's caller): the level is set when the
    /// server offers logging and no level as detailed is asked already.
    /// Whether it was set.
    pub async fn want_log_level(&self, server: &str, level: &str) -> Result<bool> {
        let handle = self.server(server)?;
        let offers = handle
            .status()
            .info
            .is_some_and(|i| i.capabilities["logging"].is_object());
        if !offers
            || self
                .log_level(server)
                .is_some_and(|set| log_rank(&set) <= log_rank(level))
        {
            return Ok(false);
        }
        self.set_log_level(server, level).await?;
        Ok(true)
    }

    /// The resources of `server` subscribed to.
    pub fn subscriptions(&self, server: &str) -> Vec<String> {
        self.inner.listens.uris(server)
    }
}

/// What a stream to a server with these capabilities asks for.
fn filter(caps: &Value, uris: Vec<String>) -> Option<SubscriptionFilter> {
    let lists = |key: &str| (caps[key]["listChanged"] == true).then_some(true);
    let uris = (caps["resources"]["subscribe"] == true && !uris.is_empty()).then_some(uris);
    let wanted = json!({
        "toolsListChanged": lists("tools"),
        "promptsListChanged": lists("prompts"),
        "resourcesListChanged": lists("resources"),
        "resourceSubscriptions": uris,
    });
    let filter: SubscriptionFilter = serde_json::from_value(wanted).ok()?;
    (filter != SubscriptionFilter::default()).then_some(filter)
}

fn publish(events: &broadcast::Sender<Event>, server: &str, notification: ServerNotification) {
    let list = |list: &str| Event::ListChanged {
        server: server.to_string(),
        list: list.into(),
    };
    let event = match notification {
        ServerNotification::ToolListChangedNotification(_) => list("tools"),
        ServerNotification::PromptListChangedNotification(_) => list("prompts"),
        ServerNotification::ResourceListChangedNotification(_) => list("resources"),
        ServerNotification::ResourceUpdatedNotification(n) => Event::ResourceUpdated {
            server: server.to_string(),
            uri: n.params.uri,
        },
        _ => return,
    };
    let _ = events.send(event);
}

/// Keep each Ready server's changes followed (the workbench's lifetime).
pub(super) async fn follow(
    servers: Servers,
    events: broadcast::Sender<Event>,
    listens: Arc<Listens>,
    traffic: TrafficLog,
    ct: CancellationToken,
) {
    let mut rx = events.subscribe();
    // A Streamable HTTP session the server forgot is renewed by rmcp; what
    // the old one held is sent again (the traffic log says when).
    let mut notes = traffic.subscribe_notes();
    let mut streams: HashMap<String, CancellationToken> = HashMap::new();
    let start = |s: &crate::connect::ServerHandle,
                 streams: &mut HashMap<String, CancellationToken>| {
        let (Some(live), Some(info)) = (s.live(), s.status().info) else {
            return;
        };
        let name = s.name().to_string();
        let stop = ct.child_token();
        if let Some(old) = streams.insert(name.clone(), stop.clone()) {
            old.cancel();
        }
        if new_era(&info) {
            let (events, listens, traffic) = (events.clone(), listens.clone(), traffic.clone());
            tokio::spawn(listen(
                Listened {
                    server: name,
                    peer: live.peer,
                    open: s.open_streams(),
                },
                info.capabilities,
                listens,
                events,
                traffic,
                stop,
            ));
        } else {
            // No state survives a restart: the log level and the
            // subscriptions are sent again.
            let standing = Standing {
                live,
                again: false,
                wait: Duration::ZERO,
            };
            tokio::spawn(resend_standing(standing, listens.clone(), name));
        }
    };
    for s in read(&servers).clone() {
        if s.status().state == ServerState::Ready {
            start(&s, &mut streams);
        }
    }
    loop {
        let event = tokio::select! {
            _ = ct.cancelled() => return,
            e = rx.recv() => e,
            note = notes.recv() => {
                match note {
                    Ok(n) if n.body == crate::connect::httptap::SESSION_RENEWED => {
                        // Sessions are the 2025-11-25 era's: what the old one
                        // held is sent again after the new one's handshake,
                        // which the worker runs before the request that met
                        // the 404 (nothing here waits for it).
                        let live = read(&servers)
                            .iter()
                            .find(|s| *s.name() == *n.server)
                            .and_then(|s| s.live());
                        if let Some(live) = live {
                            let name = n.server.to_string();
                            let standing = Standing {
                                live,
                                again: true,
                                wait: Duration::from_millis(200),
                            };
                            tokio::spawn(resend_standing(standing, listens.clone(), name));
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                    _ => {}
                }
                continue;
            }
        };
        match event {
            Ok(Event::Status { status }) => {
                if let Some(old) = streams.remove(&status.name) {
                    old.cancel();
                }
                if status.state == ServerState::Ready {
                    let found = read(&servers)
                        .iter()
                        .find(|s| s.name() == status.name)
                        .cloned();
                    if let Some(s) = found {
                        start(&s, &mut streams);
                    }
                }
            }
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(_) => return,
        }
    }
}

/// Where a 2025-11-25 server's standing requests go again.
struct Standing {
    /// The session they go on.
    live: crate::connect::Live,
    /// Each one, even those already sent on it: the server forgot the
    /// HTTP session they were sent on.
    again: bool,
    /// How long to wait first.
    wait: Duration,
}

/// What a 2025-11-25 session held, sent again on a new one: the log level
/// and each subscription not already sent on it.
async fn resend_standing(standing: Standing, listens: Arc<Listens>, server: String) {
    tokio::time::sleep(standing.wait).await;
    let peer = standing.live.peer;
    if let Some(level) = listens.log_level(&server) {
        tokio::spawn(set_level(peer.clone(), level));
    }
    for uri in listens.unsent(&server, standing.live.session, standing.again) {
        let peer = peer.clone();
        tokio::spawn(async move {
            // A session renewed again while this went out (the worker
            // re-initializing) fails it before the server saw it: tried
            // again, a few times; the server's own refusal is final.
            for attempt in 1..=5u32 {
                #[allow(deprecated)] // resources/subscribe: the 2025-11-25 way
                let sent = peer
                    .subscribe(rmcp::model::SubscribeRequestParams::new(uri.clone()))
                    .await;
                match sent {
                    Ok(_) | Err(rmcp::ServiceError::McpError(_)) => return,
                    Err(_) => tokio::time::sleep(Duration::from_millis(200) * attempt).await,
                }
            }
        });
    }
}

/// `logging/setLevel`: the 2025-11-25 way.
#[allow(deprecated)]
async fn set_level(peer: rmcp::Peer<rmcp::RoleClient>, level: String) {
    if let Ok(level) = serde_json::from_value(Value::String(level)) {
        let _ = peer
            .set_level(rmcp::model::SetLevelRequestParams::new(level))
            .await;
    }
}

/// One server's stream: opened, followed, opened again (with what is
/// wanted now) when it drops or the subscriptions change, until `stop`.
/// The server a listen stream is kept open on, in its current session.
struct Listened {
    server: String,
    peer: rmcp::Peer<rmcp::RoleClient>,
    /// Where the open stream is noted, to be cancelled before the session
    /// closes.
    open: crate::connect::streams::OpenStreams,
}

async fn listen(
    on: Listened,
    caps: Value,
    listens: Arc<Listens>,
    events: broadcast::Sender<Event>,
    traffic: TrafficLog,
    stop: CancellationToken,
) {
    let Listened { server, peer, open } = on;
    let mut retry = FIRST_RETRY;
    let changed = listens.changed(&server);
    loop {
        let notified = changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let Some(wanted) = filter(&caps, listens.uris(&server)) else {
            // Nothing to follow until a subscription is made.
            tokio::select! {
                _ = &mut notified => continue,
                _ = stop.cancelled() => return,
            }
        };
        let opened = tokio::select! {
            r = peer.listen(wanted) => r,
            _ = stop.cancelled() => return,
        };
        let mut subscription = match opened {
            Ok(s) => s,
            Err(rmcp::ServiceError::McpError(e))
                if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND =>
            {
                traffic.record_note(
                    &server,
                    "the server does not answer subscriptions/listen: its list changes and resource updates are not followed",
                );
                return;
            }
            Err(e) => {
                traffic.record_note(
                    &server,
                    &format!(
                        "subscriptions/listen failed ({}); trying again in {:.1} s",
                        crate::connect::error_chain(&e),
                        retry.as_secs_f64()
                    ),
                );
                tokio::select! {
                    _ = tokio::time::sleep(retry) => {}
                    _ = stop.cancelled() => return,
                }
                retry = (retry * 2).min(LAST_RETRY);
                continue;
            }
        };
        retry = FIRST_RETRY;
        // Cancelled before the session closes, if still open then.
        let _open = open.open(subscription.id().clone());
        let again_now = loop {
            tokio::select! {
                next = subscription.next() => match next {
                    Ok(Some(n)) => publish(&events, &server, n),
                    // Ended by the server, or broken: open it again.
                    Ok(None) | Err(_) => break false,
                },
                _ = &mut notified => {
                    let _ = subscription.cancel().await;
                    break true;
                }
                _ = stop.cancelled() => {
                    let _ = subscription.cancel().await;
                    return;
                }
            }
        };
        if !again_now {
            traffic.record_note(
                &server,
                "the subscriptions/listen stream ended: opening it again",
            );
            tokio::select! {
                _ = tokio::time::sleep(retry) => {}
                _ = stop.cancelled() => return,
            }
            retry = (retry * 2).min(LAST_RETRY);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_asks_only_for_what_the_server_offers() {
        let caps = json!({ "tools": { "listChanged": true }, "prompts": { "listChanged": false }, "resources": { "subscribe": true } });
        let f = filter(&caps, vec!["demo://counter".into()]).unwrap();
        assert_eq!(f.tools_list_changed, Some(true));
        assert_eq!(f.prompts_list_changed, None);
        assert_eq!(f.resources_list_changed, None);
        assert_eq!(
            f.resource_subscriptions,
            Some(vec!["demo://counter".to_string()])
        );
        // A server without subscribe gets no URIs; nothing wanted: no stream.
        let none = json!({ "resources": {} });
        assert!(filter(&none, vec!["x://y".into()]).is_none());
    }

    #[test]
    fn a_subscription_goes_once_per_session_whoever_sends_it_first() {
        let l = Listens::default();
        // The person subscribes on session 1; the follower, handling that
        // session's Ready late, has nothing left to send on it.
        assert!(l.claim("s", "a://1", 1));
        assert!(l.unsent("s", 1, false).is_empty());
        // Subscribing again on the same session sends nothing.
        assert!(!l.claim("s", "a://1", 1));
        // After a restart (session 2) the follower sends it, once.
        assert_eq!(l.unsent("s", 2, false), vec!["a://1".to_string()]);
        assert!(l.unsent("s", 2, false).is_empty());
        assert!(!l.claim("s", "a://1", 2));
        // A session the server forgot gets every one again.
        assert_eq!(l.unsent("s", 2, true), vec!["a://1".to_string()]);
        // Unsubscribed: nothing to send, and a new subscribe goes out.
        l.set("s", "a://1", false);
        assert!(l.unsent("s", 3, false).is_empty());
        assert!(l.claim("s", "a://1", 3));
    }
}
