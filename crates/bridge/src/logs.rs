//! A 2026-07-28 caller's log messages, asked for with its call (`_meta`
//! `io.modelcontextprotocol/logLevel`; there is no `logging/setLevel`): the
//! server's messages at that level or above go to that caller while the
//! call runs, and all those sent before the server's answer go before the
//! bridge's answer (the follower is drained, not raced; it costs such a
//! call a quiet 50 ms at its end).

use rmcp::{Peer, RoleServer};
use tokio::sync::{broadcast, oneshot};
use workbench_core::Workbench;
use workbench_core::events::Event;

pub(crate) struct Following {
    done: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Following {
    /// The call answered: what came before is passed on, then it stops.
    pub(crate) async fn finish(self) {
        let _ = self.done.send(());
        let _ = self.task.await;
    }
}

/// Follow `server`'s log messages of `level` and above for `peer`.
pub(crate) fn follow(
    wb: &Workbench,
    server: &str,
    level: &str,
    peer: Peer<RoleServer>,
) -> Following {
    let mut rx = wb.subscribe();
    let (done, mut stop) = oneshot::channel();
    let server = server.to_string();
    let min = crate::log_rank(level);
    let task = tokio::spawn(async move {
        #[allow(deprecated)] // server logging (SEP-2577), still in 2026-07-28 per request
        async fn pass(peer: &Peer<RoleServer>, server: &str, min: u8, event: Event) {
            if let Event::ServerLog {
                server: from,
                level,
                logger,
                data,
            } = event
                && from == server
                && crate::log_rank(&level) >= min
                && let Some(note) = crate::log_note(from, level, logger, data)
            {
                let _ = peer.notify_logging_message(note).await;
            }
        }
        loop {
            tokio::select! {
                biased;
                event = rx.recv() => match event {
                    Ok(event) => pass(&peer, &server, min, event).await,
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return,
                },
                _ = &mut stop => break,
            }
        }
        // What is already here, and what the core is still handing over
        // (a notification handled beside the answer): until a quiet 50 ms.
        // A server that never stops talking holds the answer 500 ms at most.
        let quiet = std::time::Duration::from_millis(50);
        let until = tokio::time::Instant::now() + std::time::Duration::from_millis(500);
        while tokio::time::Instant::now() < until
            && let Ok(Ok(event)) = tokio::time::timeout(quiet, rx.recv()).await
        {
            pass(&peer, &server, min, event).await;
        }
    });
    Following { done, task }
}
