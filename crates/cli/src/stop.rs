//! How a long-running command is asked to stop: Ctrl-C, or SIGTERM (what
//! `kill`, a service manager and a host quitting send). Either one ends it
//! the way Ctrl-C always did: its servers shut down, the History written,
//! where SIGTERM's default would end the process with none of that.

/// Resolves at the first Ctrl-C or SIGTERM.
pub(crate) async fn asked() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        // No handler to be had: Ctrl-C alone.
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
