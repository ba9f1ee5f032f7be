//! The last sign-in refusal (401/403 with a challenge) of each server: said
//! in the traffic view as it happens and kept for the sign-in that answers it.

use crate::challenge::Refusal;

use super::TrafficLog;

impl TrafficLog {
    /// Note that `server` refused a request for want of sign-in or scope.
    pub fn note_refusal(&self, server: &str, refusal: Refusal) {
        self.record_note(server, &refusal.describe());
        self.refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(server.to_string(), refusal);
    }

    /// The last refusal of `server` not yet answered by a sign-in.
    pub fn refusal(&self, server: &str) -> Option<Refusal> {
        self.refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
            .cloned()
    }

    /// Forget `server`'s refusal (it was answered: signed in again).
    pub fn take_refusal(&self, server: &str) -> Option<Refusal> {
        self.refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(server)
    }
}
