//! `subscriptions/listen` (2026-07-28): a client opens a stream naming the
//! changes it wants (tool list, resource updates for some URIs); the demo
//! sends each change on every open stream that accepted it. Up to
//! 2025-11-25 the same changes go out as plain notifications (the session's
//! own, and `resources/subscribe` for updates).

use std::sync::Mutex;

use rmcp::RoleServer;
use rmcp::model::*;
use rmcp::service::SubscriptionSink;

/// The open streams of this process (over HTTP each 2026-07-28 request has
/// a server value of its own, so they are kept here rather than in one).
fn sinks() -> &'static Mutex<Vec<SubscriptionSink>> {
    static SINKS: Mutex<Vec<SubscriptionSink>> = Mutex::new(Vec::new());
    &SINKS
}

pub fn add(sink: SubscriptionSink) {
    sinks().lock().unwrap_or_else(|e| e.into_inner()).push(sink);
}

pub fn remove(sink: &SubscriptionSink) {
    sinks()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|s| s.id() != sink.id());
}

/// Send `notification` on every open stream that accepted it.
async fn send(notification: ServerNotification) {
    let open: Vec<SubscriptionSink> = sinks().lock().unwrap_or_else(|e| e.into_inner()).clone();
    for sink in open {
        // A stream that did not accept this kind refuses it: that is fine.
        let _ = sink.send(notification.clone()).await;
    }
}

/// The tool list changed: on the streams, and to this session's peer
/// (a 2025-11-25 client hears it there).
pub async fn tools_changed(peer: &rmcp::Peer<RoleServer>, new_era: bool) {
    if new_era {
        send(ServerNotification::ToolListChangedNotification(
            ToolListChangedNotification::default(),
        ))
        .await;
    } else {
        let _ = peer.notify_tool_list_changed().await;
    }
}

/// A resource changed: on the streams that subscribed to it, and to this
/// session's peer when it subscribed (2025-11-25).
pub async fn resource_updated(peer: &rmcp::Peer<RoleServer>, uri: &str, subscribed: bool) {
    let param = ResourceUpdatedNotificationParam::new(uri);
    send(ServerNotification::ResourceUpdatedNotification(
        ResourceUpdatedNotification::new(param.clone()),
    ))
    .await;
    if subscribed {
        let _ = peer.notify_resource_updated(param).await;
    }
}
