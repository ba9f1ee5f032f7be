//! `mcpwb serve --attach`: a client that launches `mcpwb serve` over stdio
//! is relayed to the running app's bridge instead of a second set of server
//! processes: each message from stdin goes to the bridge over Streamable
//! HTTP (with the token), each message from the bridge to stdout.

use rmcp::transport::Transport;
use rmcp::{RoleClient, RoleServer};
use workbench_core::{ErrorCode, ErrorInfo};

/// Relay stdin/stdout to the bridge at `url` (on this machine only: see
/// `workbench_core::connect::own_bridge`) until either side ends.
pub async fn relay(url: &str, token: Option<String>) -> Result<(), ErrorInfo> {
    let lost = |m: String| ErrorInfo::new(ErrorCode::Transport, m);
    let mut upstream = workbench_core::connect::own_bridge::transport(url, token)?;
    let mut local = rmcp::transport::async_rw::AsyncRwTransport::<RoleServer, _, _>::new_server(
        tokio::io::stdin(),
        tokio::io::stdout(),
    );
    loop {
        tokio::select! {
            m = Transport::<RoleServer>::receive(&mut local) => match m {
                Some(m) => Transport::<RoleClient>::send(&mut upstream, m)
                    .await
                    .map_err(|e| lost(format!(
                        "cannot reach the bridge at {url}: {} (is the window's bridge on? Bridge → On; or give its address with --attach=URL)",
                        workbench_core::connect::error_chain(&e)
                    )))?,
                None => return Ok(()),
            },
            m = Transport::<RoleClient>::receive(&mut upstream) => match m {
                Some(m) => Transport::<RoleServer>::send(&mut local, m)
                    .await
                    .map_err(|e| lost(format!("stdout: {e}")))?,
                None => return Err(lost(format!("the bridge at {url} closed the connection"))),
            },
        }
    }
}
