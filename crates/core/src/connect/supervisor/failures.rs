//! What the supervisor does when a server fails: tell a refusal for want
//! of sign-in from other failures (by what the transports noted, never by
//! text), publish the failure, and wait — for a restart with backoff, for
//! the person (no auto-restart), or for a sign-in.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::super::{Failure, FailureCode, ServerState};
use super::{Command, Next, Supervisor};

impl Supervisor {
    /// A failed connect, told apart by what the transports noted: a
    /// refusal for want of sign-in (or scope) during this attempt. A stored
    /// sign-in due for a refresh is marked so the next try refreshes it.
    pub(super) fn refused(&self, failure: Failure) -> Failure {
        let Some(refusal) = self.traffic.refusal(&self.entry.name) else {
            return failure;
        };
        let code = if refusal.wants_scope() {
            FailureCode::Scope
        } else {
            FailureCode::SignIn
        };
        let name = &self.entry.name;
        let refresh_next = crate::auth::on_refused(&self.entry, &self.options.vars);
        let reason = if refresh_next {
            format!(
                "{}; the stored sign-in is refreshed on the next try",
                refusal.describe()
            )
        } else {
            format!(
                "{}: sign in (the server's Sign in, or mcpwb auth login {name})",
                refusal.describe()
            )
        };
        Failure {
            refresh_next,
            ..Failure::new(code, reason)
        }
    }

    pub(super) async fn after_failure(
        &self,
        failure: Failure,
        attempt: u32,
        commands: &mut mpsc::Receiver<Command>,
        ct: &CancellationToken,
    ) -> Next {
        // Give the stderr drain a moment to record the last words.
        tokio::time::sleep(Duration::from_millis(30)).await;
        let stderr = self.traffic.last_stderr(&self.entry.name, 20);
        let masked = self.traffic.mask_text(&self.entry.name, &failure.reason);
        tracing::warn!(server = %self.entry.name, reason = %masked, code = ?failure.code, attempt, "server failed");
        let Failure {
            code,
            reason,
            refresh_next,
            ..
        } = failure;
        // A server that failed its start this many times in a row, its
        // program missing or exiting before its handshake, will not get
        // through by itself: trying every 30 s for as long as the window is
        // open only spends the machine (an `npx` offline). It waits for the
        // person (Restart), a change of its entry or of its watched files.
        let given_up = attempt >= GIVE_UP_AFTER && gives_up_on(code);
        let reason = if given_up {
            format!("{reason} ({attempt} times in a row: not tried again until it is restarted)")
        } else {
            reason
        };
        self.publish(
            ServerState::Failed {
                code,
                reason: reason.clone(),
                stderr: stderr.clone(),
            },
            None,
        );
        // A server that wants a sign-in waits for one: trying again without
        // it would only be refused again (a stored sign-in due for a
        // refresh is the exception).
        let wait_for_sign_in = code == FailureCode::SignIn && !refresh_next;
        if !self.options.auto_restart || wait_for_sign_in || given_up {
            return tokio::select! {
                _ = ct.cancelled() => Next::Exit,
                cmd = commands.recv() => match cmd {
                    Some(Command::Start | Command::Restart) => Next::Connect,
                    Some(Command::Stop(ack)) => { let _ = ack.send(()); Next::Stopped }
                    None => Next::Exit,
                },
            };
        }
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(16));
        let delay = self
            .options
            .restart_initial
            .saturating_mul(factor)
            .min(self.options.restart_max);
        self.publish(
            ServerState::Restarting {
                code,
                attempt,
                reason,
                stderr,
                next_try_in_ms: u32::try_from(delay.as_millis()).unwrap_or(u32::MAX),
            },
            None,
        );
        tokio::select! {
            _ = tokio::time::sleep(delay) => Next::Connect,
            _ = ct.cancelled() => Next::Exit,
            cmd = commands.recv() => match cmd {
                Some(Command::Start | Command::Restart) => Next::Connect,
                Some(Command::Stop(ack)) => { let _ = ack.send(()); Next::Stopped }
                None => Next::Exit,
            },
        }
    }
}

/// Failed starts in a row after which a server is not tried again by
/// itself (about 30 s of trying with the default backoff).
pub(crate) const GIVE_UP_AFTER: u32 = 5;

/// Failures that trying again does not mend by itself: the program is not
/// there, it exits before its handshake, or its entry cannot be made ready.
/// A remote server that does not answer may come back (a network that
/// returns), so it is tried for as long as it takes.
fn gives_up_on(code: FailureCode) -> bool {
    matches!(
        code,
        FailureCode::Spawn | FailureCode::Exited | FailureCode::Config
    )
}
