//! The bridge's watchers, one task each for its lifetime: what is served
//! changed (told to every caller as a list change), a server's question
//! during a bridged call (to the caller that made it, else the window),
//! and servers' log messages and resource updates (to the callers that
//! asked for them).

use std::sync::Arc;

use workbench_core::asks::{Answer, AskKind};
use workbench_core::events::Event;

use super::{Bridge, Shared, callers, log_note, log_rank};

/// Servers' log messages (once a caller set a level) and updates of
/// subscribed resources go on to the callers' sessions.
#[allow(deprecated)] // server logging (SEP-2577), still used by 2025-11-25 callers
pub(super) async fn watch_notes(shared: Arc<Shared>) {
    let bridge = Bridge::watcher(shared.clone());
    let mut events = shared.wb.subscribe();
    loop {
        let event = tokio::select! {
            _ = shared.stop.cancelled() => return,
            e = events.recv() => e,
        };
        match event {
            Ok(Event::ServerLog {
                server,
                level,
                logger,
                data,
            }) => {
                if !shared.callers.logs(log_rank(&level)) || !bridge.serving().contains(&server) {
                    continue;
                }
                if let Some(note) = log_note(server, level, logger, data) {
                    for listener in shared.callers.listeners() {
                        if let callers::Listener::Session(peer) = listener {
                            let _ = peer.notify_logging_message(note.clone()).await;
                        }
                    }
                }
            }
            Ok(Event::ResourceUpdated { server, uri }) => {
                let ours = bridge.uri_out(&server, &uri);
                for peer in shared.callers.subscribers(&ours) {
                    let _ = peer
                        .notify_resource_updated(
                            rmcp::model::ResourceUpdatedNotificationParam::new(ours.clone()),
                        )
                        .await;
                }
            }
            Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(_) => return,
        }
    }
}

/// Tell every caller when what is served changes (a server came or went,
/// its lists changed), at most every 100 ms.
pub(super) async fn watch_catalog(shared: Arc<Shared>) {
    let bridge = Bridge::watcher(shared.clone());
    let mut events = shared.wb.subscribe();
    let mut last = bridge.fingerprint();
    loop {
        let event = tokio::select! {
            _ = shared.stop.cancelled() => return,
            e = events.recv() => e,
        };
        match event {
            Ok(Event::CatalogChanged { .. } | Event::Status { .. }) => {}
            Ok(_) => continue,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(_) => return,
        }
        bridge.invalidate();
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        events = events.resubscribe();
        bridge.invalidate();
        let now = bridge.fingerprint();
        if now == last {
            continue;
        }
        last = now;
        for listener in shared.callers.listeners() {
            listener.lists_changed().await;
        }
    }
}

/// A server's question (elicitation, sampling) during a bridged call goes
/// to the client that made the call when it can answer; else the window
/// answers it, or (headless) it is refused.
pub(super) async fn watch_asks(shared: Arc<Shared>) {
    let mut events = shared.wb.subscribe();
    loop {
        let event = tokio::select! {
            _ = shared.stop.cancelled() => return,
            e = events.recv() => e,
        };
        let ask = match event {
            Ok(Event::Ask { ask }) => ask,
            Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
            Err(_) => return,
        };
        // One of the bridge's own tools is calling that server: it parks
        // the question for its caller to answer.
        if shared
            .options
            .own
            .as_ref()
            .is_some_and(|o| o.takes_ask(&ask.server))
        {
            continue;
        }
        let peer = shared.callers.caller_of(&ask.server);
        let takes = peer
            .as_ref()
            .and_then(|p| p.peer_info())
            .is_some_and(|info| {
                let old_era = info.protocol_version.as_str() < "2026-07-28";
                old_era
                    && match ask.kind {
                        AskKind::Elicitation => info.capabilities.elicitation.is_some(),
                        AskKind::Sampling => info.capabilities.sampling.is_some(),
                    }
            });
        let asks = shared.wb.asks().clone();
        match (peer, takes) {
            (Some(peer), true) => {
                tokio::spawn(async move {
                    let method = match ask.kind {
                        AskKind::Elicitation => "elicitation/create",
                        AskKind::Sampling => "sampling/createMessage",
                    };
                    let request = serde_json::from_value::<rmcp::model::ServerRequest>(
                        serde_json::json!({ "method": method, "params": ask.params }),
                    );
                    let answer = match request {
                        Ok(r) => match peer.send_request(r).await {
                            Ok(result) => {
                                Answer::Result(serde_json::to_value(result).unwrap_or_default())
                            }
                            Err(e) => Answer::Refuse(format!("the bridge's caller answered: {e}")),
                        },
                        Err(e) => Answer::Refuse(format!("cannot pass the request on: {e}")),
                    };
                    let _ = asks.answer(ask.id, answer);
                });
            }
            _ if shared.options.headless => {
                let _ = asks.answer(
                    ask.id,
                    Answer::Refuse(
                        "the bridge's caller cannot answer this request and no window is open"
                            .into(),
                    ),
                );
            }
            _ => {}
        }
    }
}
