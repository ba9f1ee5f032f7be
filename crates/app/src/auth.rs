//! Signing in to a remote server (OAuth): where an entry signs in and what
//! its `"oauth"` block says (only for an entry the person trusts: a sign-in
//! sends its values to the addresses it names), the flow run with the
//! caller's way of opening the page, tokens kept in the keychain, refreshed,
//! revoked and forgotten. The window's Sign in panel and `mcpwb auth` adapt
//! these; after a change the window restarts the running server.

use std::path::PathBuf;

use workbench_core::auth::{self, flow, tokens};
use workbench_core::config::secrets::Keychain;
use workbench_core::config::vars::Vars;
use workbench_core::config::{ConfigFile, OAuthClient};
use workbench_core::{Error, ErrorInfo};

pub use workbench_core::auth::discover::Challenge;
pub use workbench_core::auth::flow::{Gate, LoginOptions, SignInError, SignInStep};
pub use workbench_core::auth::refusal::{Grants, Refusal};
pub use workbench_core::auth::{Status, Timeline, Tokens, now};

/// Where server `server` signs in.
pub struct Target {
    pub server: String,
    /// Its URL, expanded.
    pub url: String,
    /// The keychain prefix its tokens live under.
    pub owner: String,
    /// Its `"oauth"` block, expanded (Err: it may not sign in — not
    /// trusted — and why).
    pub client: Result<OAuthClient, ErrorInfo>,
    keychain: Keychain,
}

/// A flow's steps and how it ended (new tokens kept when it worked).
pub type Run = (Timeline, Result<Tokens, SignInError>);

impl Target {
    /// Server `name` of `config` (marked with the machine's trust record),
    /// its references expanded for `project`. A server that runs a command
    /// does not sign in.
    pub fn of(
        config: &ConfigFile,
        name: &str,
        project: Option<PathBuf>,
    ) -> Result<Target, ErrorInfo> {
        let mut config = config.clone();
        workbench_core::config::trust::Trust::app().mark(&mut config);
        let entry = config
            .servers
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| Error::UnknownServer(name.to_string()))?;
        let vars = Vars::from_process(project);
        let (url, owner) = auth::target(entry, &vars)?;
        Ok(Target {
            server: name.to_string(),
            url,
            owner,
            client: auth::client_of(entry, &vars),
            keychain: Keychain::app(),
        })
    }

    /// The tokens kept for it.
    pub fn stored(&self) -> Option<Tokens> {
        tokens::load(&self.keychain, &self.owner)
    }

    /// Whether it is signed in, as whom, until when.
    pub fn status(&self) -> Status {
        Status::of(self.stored().as_ref())
    }

    /// Its `"oauth"` block, or why it may not sign in.
    pub fn client(&self) -> Result<OAuthClient, ErrorInfo> {
        self.client.clone()
    }

    /// Run the sign-in flow with `options`; new tokens are kept.
    pub async fn sign_in(&self, options: &LoginOptions) -> Result<Run, ErrorInfo> {
        self.client()?;
        let mut timeline = Timeline::default();
        let result = flow::login(&auth::http(), &self.url, options, &mut timeline).await;
        if let Ok(tokens) = &result {
            self.keep(tokens)?;
        }
        Ok((timeline, result))
    }

    /// A new access token now, with the refresh token; kept.
    pub async fn refresh(&self) -> Result<Run, ErrorInfo> {
        let stored = self.stored().ok_or_else(|| {
            ErrorInfo::refused(format!(
                "{0} is not signed in: mcpwb auth login {0} (or Sign in in the window)",
                self.server
            ))
        })?;
        let mut timeline = Timeline::default();
        let result = flow::refresh(&auth::http(), &stored, &mut timeline)
            .await
            .map_err(|e| SignInError {
                step: SignInStep::Refresh,
                message: e.message,
            });
        if let Ok(tokens) = &result {
            self.keep(tokens)?;
        }
        Ok((timeline, result))
    }

    /// Sign out: revoke where the server offers it, forget the tokens
    /// either way. The steps, and why the server did not revoke if it did
    /// not; None when it was not signed in.
    pub async fn sign_out(&self) -> Result<Option<(Timeline, Option<String>)>, ErrorInfo> {
        let Some(stored) = self.stored() else {
            return Ok(None);
        };
        let mut timeline = Timeline::default();
        let refused = flow::revoke(&auth::http(), &stored, &mut timeline)
            .await
            .err()
            .map(|e| e.message);
        tokens::forget(&self.keychain, &self.owner)?;
        Ok(Some((timeline, refused)))
    }

    /// Mark the access token expired (to watch the next connection refresh it).
    pub fn force_expiry(&self) -> Result<Status, ErrorInfo> {
        let mut stored = self
            .stored()
            .ok_or_else(|| ErrorInfo::refused(format!("{} is not signed in", self.server)))?;
        stored.expires_at = Some(1);
        self.keep(&stored)?;
        Ok(Status::of(Some(&stored)))
    }

    fn keep(&self, tokens: &Tokens) -> Result<(), ErrorInfo> {
        Ok(tokens::save(&self.keychain, &self.owner, tokens)?)
    }
}

/// The server's last refusal for want of sign-in (or scope), if any.
pub fn refusal(wb: &workbench_core::Workbench, server: &str) -> Option<Refusal> {
    wb.traffic().refusal(server)
}

/// The server's last refusal for want of sign-in, taken (a command that
/// answers it by signing in and connecting again).
pub fn take_refusal(wb: &workbench_core::Workbench, server: &str) -> Option<Refusal> {
    wb.traffic().take_refusal(server)
}

/// After a sign-in or sign-out changed the tokens: the refusal is answered,
/// and the running server restarts with them (one turned off or not
/// trusted keeps them for when it starts).
pub async fn tokens_changed(wb: &workbench_core::Workbench, server: &str) {
    wb.traffic().take_refusal(server);
    crate::servers::restart_each(wb, &[server.to_string()]).await;
}
