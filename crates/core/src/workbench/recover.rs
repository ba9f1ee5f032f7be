//! A request whose server is restarting, or dies under it, is not lost
//! when the workbench can help it: one that arrives while its server
//! restarts waits for it (up to the call's own timeout); one whose
//! connection had closed before it was written is sent on the new
//! connection; one in flight when the server died is sent again once only
//! when it cannot have acted (a read, or a tool marked read-only or
//! idempotent) — each said in the outcome's notes. Anything else fails with
//! the reason and is never sent twice.

use std::time::Duration;

use super::Workbench;
use super::calls::{CallOptions, Params, state_name};
use super::rounds::Sent;
use crate::connect::{ServerHandle, ServerState};
use crate::error::{Error, Result};
use crate::status::FailureCode;

/// How often a waiting call looks again when no state change woke it.
const LOOK_AGAIN: Duration = Duration::from_millis(50);

/// Where to send: the live session, or a fresh one for a transient server.
enum Route {
    Peer(rmcp::Peer<rmcp::RoleClient>),
    Transient,
}

impl Workbench {
    /// Send `method` as [`Workbench::send`] does, waiting for a restarting
    /// server and recovering what may be recovered (see the module's note).
    /// The answer and what happened on the way.
    pub(super) async fn request_recovering(
        &self,
        handle: &ServerHandle,
        method: &str,
        params: Params,
        options: CallOptions,
    ) -> Result<(Sent, Vec<String>)> {
        let timeout = options.timeout.unwrap_or(handle.options().call_timeout);
        let deadline = tokio::time::Instant::now() + timeout;
        let mut notes = Vec::new();
        let mut resent = false;
        loop {
            let route = self.route(handle, deadline, &options, &mut notes).await?;
            let peer = match route {
                Route::Peer(peer) => peer,
                Route::Transient => {
                    // Boxed: this path is rare and its future large; the hot
                    // path's future stays small.
                    let sent =
                        Box::pin(self.transient_request(handle, method, params, options)).await?;
                    return Ok((sent, notes));
                }
            };
            match self.send(handle, &peer, method, &params, &options).await {
                Ok(sent) => return Ok((sent, notes)),
                Err(Error::ConnectionLost { sent: false, .. })
                    if tokio::time::Instant::now() < deadline => {}
                Err(Error::ConnectionLost { sent: true, .. })
                    if !resent && tokio::time::Instant::now() < deadline =>
                {
                    let Some(why) = self.harmless_again(handle, method, &params) else {
                        return Err(Error::ConnectionLost {
                            server: handle.name().to_string(),
                            method: method.to_string(),
                            sent: true,
                        });
                    };
                    resent = true;
                    notes.push(format!(
                        "{} died while {method} was in flight; sent again once after it restarted ({why})",
                        handle.name()
                    ));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Why sending `method` again cannot act twice, if it cannot.
    fn harmless_again(
        &self,
        handle: &ServerHandle,
        method: &str,
        params: &Params,
    ) -> Option<&'static str> {
        if workbench_codes::methods::only_reads(method) {
            return Some("it only reads");
        }
        if method != "tools/call" {
            return None;
        }
        let (Some(tool), _) = params.tool_call() else {
            return None;
        };
        let definition = self.catalog().tool(handle.name(), &tool)?;
        let hint = |name: &str| definition["annotations"][name].as_bool() == Some(true);
        if hint("readOnlyHint") {
            Some("the tool is marked read-only")
        } else if hint("idempotentHint") {
            Some("the tool is marked idempotent")
        } else {
            None
        }
    }

    /// The live connection to send on, waiting while the server starts or
    /// restarts (until `deadline`); a server that will not come back by
    /// itself (stopped, failed, turned off, not trusted) is not waited for.
    async fn route(
        &self,
        handle: &ServerHandle,
        deadline: tokio::time::Instant,
        options: &CallOptions,
        notes: &mut Vec<String>,
    ) -> Result<Route> {
        let mut waiting_since = None;
        let mut status = handle.watch_status();
        loop {
            if let Some(peer) = handle.peer()
                && !peer.is_transport_closed()
            {
                if let Some(since) = waiting_since {
                    let waited: tokio::time::Instant = since;
                    notes.push(format!(
                        "waited {:.1} s for {} to restart",
                        waited.elapsed().as_secs_f64(),
                        handle.name()
                    ));
                }
                return Ok(Route::Peer(peer));
            }
            let state = status.borrow_and_update().state.clone();
            if handle.is_transient() && state == ServerState::Ready {
                return Ok(Route::Transient);
            }
            let comes_back = match &state {
                ServerState::Starting { .. }
                | ServerState::Restarting { .. }
                | ServerState::Ready => true,
                // Said just before the restart is planned; a refusal for
                // want of sign-in waits for the person instead.
                ServerState::Failed { code, .. } => {
                    handle.options().auto_restart
                        && !matches!(code, FailureCode::SignIn | FailureCode::Scope)
                }
                _ => false,
            };
            let now = tokio::time::Instant::now();
            if !comes_back || now >= deadline {
                let mut said = state_name(&state);
                if let Some(since) = waiting_since {
                    let since: tokio::time::Instant = since;
                    said = format!(
                        "{said}; waited {:.1} s for it to restart",
                        since.elapsed().as_secs_f64()
                    );
                }
                return Err(Error::ServerNotReady {
                    server: handle.name().to_string(),
                    state: said,
                });
            }
            if waiting_since.is_none() {
                waiting_since = Some(now);
                if let Some(sink) = &options.sink {
                    sink.waiting(handle.name(), &state_name(&state));
                }
                tracing::info!(server = handle.name(), state = %state_name(&state), "a call waits for its server");
            }
            let cancelled = async {
                match &options.cancel {
                    Some(c) => c.cancelled().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = status.changed() => {}
                _ = tokio::time::sleep_until(deadline.min(now + LOOK_AGAIN)) => {}
                _ = cancelled => {
                    return Err(Error::Cancelled {
                        server: handle.name().to_string(),
                        method: String::new(),
                    });
                }
            }
        }
    }
}

/// The requests a server sends its client in the 2025-11-25 era; the
/// 2026-07-28 era carries none (a server asks with `input_required`).
const SERVER_INITIATED: &[&str] = &["elicitation/create", "sampling/createMessage", "roots/list"];

/// The era trap, explained: a 2026-07-28 server whose tool asked the
/// 2025-11-25 way (a server-initiated request, e.g. the Python SDK's
/// `ctx.elicit`) fails with the SDK's "no back-channel" error. Said with
/// what happened and the two ways out; any other error is as it came.
pub(super) fn explain_era_trap(handle: &ServerHandle, error: Error) -> Error {
    let Error::ServerError {
        server,
        method,
        code,
        message,
        data,
    } = error
    else {
        return error;
    };
    let new_era = handle
        .protocol_version()
        .is_some_and(|v| v.as_str() >= "2026");
    let asked = SERVER_INITIATED.iter().find(|m| message.contains(*m));
    let trapped = new_era && (message.contains("back-channel") || asked.is_some());
    if !trapped {
        return Error::ServerError {
            server,
            method,
            code,
            message,
            data,
        };
    }
    let what = asked.map_or("a request of its own".to_string(), |m| m.to_string());
    let message = format!(
        "{message} — the server tried to send {what} while answering, the 2025-11-25 way; \
         the 2026-07-28 era this session speaks has no server-initiated requests. Two ways out: \
         pin the entry to the older era (\"protocolVersion\": \"2025-11-25\" in its mcp.json entry), \
         or have the tool ask with input_required (a multi-round call, SEP-2322)"
    );
    Error::ServerError {
        server,
        method,
        code,
        message,
        data,
    }
}
