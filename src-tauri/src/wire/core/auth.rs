#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// One HTTP exchange of the flow, as sent and received (secrets masked).
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Step {
    /// discovery, metadata, registration, authorization, callback, token, refresh
    pub name: String,
    pub request: String,
    pub status: Option<u16>,
    pub response: String,
    pub ms: f64,
    /// MUSTs of the specification this step broke, each with the rule.
    pub problems: Vec<String>,
}
/// The flow so far.
#[derive(Debug, Clone, Default, Serialize, specta::Type)]
pub struct Timeline {
    pub steps: Vec<Step>,
}
/// What the window and `mcpwb auth status` show of a sign-in.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Status {
    pub signed_in: bool,
    pub issuer: Option<String>,
    pub scope: Option<String>,
    /// Seconds until the access token expires (None: not said).
    pub expires_in: Option<u32>,
    pub refreshable: bool,
    /// The thumbprint (RFC 7638) of the key the tokens are bound to (DPoP,
    /// RFC 9449); None: bearer tokens.
    pub dpop_key: Option<String>,
    /// The server's last refusal for want of sign-in or scope, while the
    /// app runs (the window offers to sign in with the wider scope).
    pub refusal: Option<Refusal>,
}
/// Which step of a sign-in failed: a stable code the window, `mcpwb` and
/// the doctor switch on (never the message's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, specta::Type)]
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
crate::wire::to_wire!(workbench_core::auth::Timeline => Timeline);
impl From<workbench_core::auth::Timeline> for Timeline {
    fn from(v: workbench_core::auth::Timeline) -> Self {
        let workbench_core::auth::Timeline { steps } = v;
        Self {
            steps: steps.into_iter().map(|v| v.into()).collect(),
        }
    }
}
crate::wire::to_wire!(workbench_core::auth::Status => Status);
impl From<workbench_core::auth::Status> for Status {
    fn from(v: workbench_core::auth::Status) -> Self {
        let workbench_core::auth::Status {
            signed_in,
            issuer,
            scope,
            expires_in,
            refreshable,
            dpop_key,
            refusal,
        } = v;
        Self {
            signed_in,
            issuer,
            scope,
            expires_in,
            refreshable,
            dpop_key,
            refusal: refusal.map(|v| v.into()),
        }
    }
}
crate::wire::to_wire!(workbench_core::auth::flow::SignInStep => SignInStep);
impl From<workbench_core::auth::flow::SignInStep> for SignInStep {
    fn from(v: workbench_core::auth::flow::SignInStep) -> Self {
        match v {
            workbench_core::auth::flow::SignInStep::Discovery => Self::Discovery,
            workbench_core::auth::flow::SignInStep::Metadata => Self::Metadata,
            workbench_core::auth::flow::SignInStep::Registration => Self::Registration,
            workbench_core::auth::flow::SignInStep::Browser => Self::Browser,
            workbench_core::auth::flow::SignInStep::Callback => Self::Callback,
            workbench_core::auth::flow::SignInStep::Token => Self::Token,
            workbench_core::auth::flow::SignInStep::Refresh => Self::Refresh,
            workbench_core::auth::flow::SignInStep::Revocation => Self::Revocation,
            workbench_core::auth::flow::SignInStep::Stopped => Self::Stopped,
            workbench_core::auth::flow::SignInStep::Cancelled => Self::Cancelled,
        }
    }
}
crate::wire::to_wire!(workbench_core::auth::Step => Step);
impl From<workbench_core::auth::Step> for Step {
    fn from(v: workbench_core::auth::Step) -> Self {
        let workbench_core::auth::Step {
            name,
            request,
            status,
            response,
            ms,
            problems,
        } = v;
        Self {
            name,
            request,
            status,
            response,
            ms,
            problems,
        }
    }
}
