//! Which step of a sign-in failed, and the failure: what the window,
//! `mcpwb` and the doctor switch on (a stable code, never the text).

/// Which step of a sign-in failed: a stable code the window, `mcpwb` and
/// the doctor switch on (never the message's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SignInStep {
    /// Finding the server's protected-resource metadata (or the probe).
    Discovery,
    /// The authorization server's metadata and its rules (PKCE S256, https).
    Metadata,
    /// The client's identity: dynamic registration, CIMD or a given id.
    Registration,
    /// Opening the browser at the authorization page.
    Browser,
    /// The loopback callback: its listener, the redirect, state and issuer.
    Callback,
    /// Trading the code for tokens.
    Token,
    /// Refreshing a stored sign-in.
    Refresh,
    /// Revoking a sign-in at the authorization server (sign out).
    Revocation,
    /// Stopped by the person between steps (step by step).
    Stopped,
    /// Cancelled before it finished.
    Cancelled,
}

/// A failed sign-in: the step and what went wrong there.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SignInError {
    pub step: SignInStep,
    pub message: String,
}

impl std::fmt::Display for SignInError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SignInError {}

/// The message, for callers that show or search it.
impl std::ops::Deref for SignInError {
    type Target = str;
    fn deref(&self) -> &str {
        &self.message
    }
}
