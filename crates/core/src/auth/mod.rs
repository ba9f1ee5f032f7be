//! Signing in to remote servers with OAuth 2.1 as the MCP authorization
//! specification describes, done natively (exact bytes, no CORS) and
//! recorded step by step for the person debugging it.
//!
//! - `discover`: Protected Resource Metadata (from `WWW-Authenticate`, then
//!   the well-known URLs) and Authorization Server metadata (RFC 8414 and
//!   OpenID discovery, path-insertion variants first); the 2025-03-26
//!   fallback to the server's own origin.
//! - `flow`: client identity (pre-registered, Client ID Metadata Document,
//!   Dynamic Client Registration), PKCE S256, `resource` (RFC 8707),
//!   `state` and `iss` (RFC 9207), token exchange and refresh.
//! - `callback`: the one-shot loopback listener the browser comes back to.
//! - `refusal`: a server's 401/403 mid-session, and what signing in again
//!   would ask for.
//! - `dpop`: sender-constrained tokens (RFC 9449): a key per sign-in, a
//!   proof on the token request and on every request to the server.
//! - `store`: tokens in the OS keychain, per entry (a DPoP key with them).

pub mod callback;
pub mod discover;
pub mod dpop;
pub mod flow;
mod probe;
pub mod refusal;
mod step;
pub mod tokens;

use std::time::Instant;
use workbench_codes::{ErrorCode, ErrorInfo};

use serde::{Deserialize, Serialize};

/// One HTTP exchange of the flow, as sent and received (secrets masked).
#[derive(Debug, Clone, Serialize)]
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
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timeline {
    pub steps: Vec<Step>,
}

impl Timeline {
    pub(crate) fn push(&mut self, name: &str, request: String, started: Instant) -> &mut Step {
        self.steps.push(Step {
            name: name.to_string(),
            request,
            status: None,
            response: String::new(),
            ms: started.elapsed().as_secs_f64() * 1000.0,
            problems: Vec::new(),
        });
        self.steps.last_mut().expect("just pushed")
    }

    /// Whether any step broke a MUST.
    pub fn failed(&self) -> bool {
        self.steps.iter().any(|s| !s.problems.is_empty())
    }
}

/// What sign-in produced, kept in the keychain for the entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Tokens {
    pub access_token: String,
    #[serde(default)]
    pub refresh_token: Option<String>,
    /// Seconds since the Unix epoch (absolute: refreshed ahead of it).
    #[serde(default)]
    pub expires_at: Option<u64>,
    #[serde(default)]
    pub scope: Option<String>,
    pub issuer: String,
    pub token_endpoint: String,
    #[serde(default)]
    pub revocation_endpoint: Option<String>,
    pub resource: String,
    pub client_id: String,
    #[serde(default)]
    pub client_secret: Option<String>,
    /// none, client_secret_basic or client_secret_post
    pub auth_method: String,
    /// When these tokens were last obtained or refreshed (seconds since the
    /// epoch): a 401 soon after is not answered with another refresh.
    #[serde(default)]
    pub refreshed_at: Option<u64>,
    /// The sign-in's DPoP key when its tokens are bound to it (RFC 9449):
    /// every request then carries a proof made with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop: Option<dpop::DpopKey>,
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Tokens {
    /// Whether the access token expires within `margin` seconds.
    pub fn expiring(&self, margin: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now() + margin)
    }
}

/// Text with the values of `secrets` masked (for the timeline).
pub(crate) fn mask(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_string();
    for s in secrets.iter().filter(|s| s.len() >= 4) {
        out = out.replace(s, "••••");
    }
    out
}

/// Random bytes as unpadded base64url (PKCE verifiers, state).
pub(crate) fn random_token(bytes: usize) -> String {
    use base64::Engine;
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the OS gives random bytes");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(buf)
}

/// An HTTP client for the flow: no configured headers (the server's own
/// credentials stay with the server), redirects not followed.
pub fn http() -> reqwest::Client {
    workbench_http::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(std::time::Duration::from_secs(10))
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .expect("a plain HTTP client builds")
}

/// A stored sign-in given to a connection.
pub struct Attached {
    /// The access token (for the masker).
    pub token: String,
    /// Its DPoP binding, when the token is bound to the sign-in's key:
    /// each request then carries a fresh proof.
    pub dpop: Option<std::sync::Arc<dpop::Binding>>,
}

/// Give a remote entry its stored access token (refreshed first when it
/// expires within a minute), unless it sends its own Authorization header:
/// `Bearer`, or `DPoP` with the binding that makes each request's proof.
pub(crate) async fn attach(
    entry: &mut crate::config::ServerEntry,
    vars: &crate::config::vars::Vars,
) -> Result<Option<Attached>, String> {
    use crate::config::Transport;
    let Some(keychain) = &vars.keychain else {
        return Ok(None);
    };
    let headers = match &mut entry.transport {
        Transport::StreamableHttp { headers, .. }
        | Transport::Sse { headers, .. }
        | Transport::RemoteAuto { headers, .. } => headers,
        Transport::Stdio { .. } => return Ok(None),
    };
    if headers
        .keys()
        .any(|k| k.eq_ignore_ascii_case("authorization"))
    {
        return Ok(None);
    }
    let owner =
        crate::config::secrets::owner_prefix(entry.scope, vars.workspace.as_deref(), &entry.name);
    let Some(mut tokens) = tokens::load(keychain, &owner) else {
        return Ok(None);
    };
    if tokens.expiring(60) && tokens.refresh_token.is_some() {
        let mut tl = Timeline::default();
        match flow::refresh(&http(), &tokens, &mut tl).await {
            Ok(fresh) => {
                tokens = fresh;
                let _ = tokens::save(keychain, &owner, &tokens);
            }
            Err(e) => {
                return Err(format!(
                    "the sign-in has expired and could not be refreshed ({e}); sign in again"
                ));
            }
        }
    }
    let dpop = tokens
        .dpop
        .clone()
        .map(|key| dpop::Binding::new(key, tokens.access_token.clone()));
    let authorization = match &dpop {
        Some(binding) => binding.authorization(),
        None => format!("Bearer {}", tokens.access_token),
    };
    headers.insert("Authorization".into(), authorization);
    Ok(Some(Attached {
        token: tokens.access_token,
        dpop,
    }))
}

/// Where an entry signs in: its (expanded) URL and the keychain prefix its
/// tokens live under. A server that runs a command does not sign in.
pub fn target(
    entry: &crate::config::ServerEntry,
    vars: &crate::config::vars::Vars,
) -> Result<(String, String), ErrorInfo> {
    use crate::config::Transport;
    let expanded = entry
        .expanded(vars)
        .map_err(|e| ErrorInfo::new(ErrorCode::Variable, e.to_string()))?;
    let url = match &expanded.transport {
        Transport::StreamableHttp { url, .. }
        | Transport::Sse { url, .. }
        | Transport::RemoteAuto { url, .. } => url.clone(),
        Transport::Stdio { .. } => {
            return Err(ErrorInfo::new(
                ErrorCode::Invalid,
                format!("{} runs a command; only remote servers sign in", entry.name),
            ));
        }
    };
    let owner =
        crate::config::secrets::owner_prefix(entry.scope, vars.workspace.as_deref(), &entry.name);
    Ok((url, owner))
}

/// Why an entry may not sign in yet: the person has not trusted it (a
/// sign-in sends its `oauth` block's values, secrets included, to the
/// addresses it names).
pub fn untrusted(entry: &crate::config::ServerEntry) -> Option<String> {
    (!entry.trusted).then(|| {
        format!(
            "{0} is not trusted yet, so it does not sign in: read where it sends what (the trust card in the window, `mcpwb config trust {1} --dry-run`), then trust it (`mcpwb config trust {1}`)",
            entry.name,
            crate::config::shell_quote(&entry.name)
        )
    })
}

/// The entry's `"oauth"` block with its `${...}` references expanded (its
/// secrets read under its own keychain prefix); empty when it has none.
/// Only for a sign-in, so refused for an entry not trusted.
pub fn client_of(
    entry: &crate::config::ServerEntry,
    vars: &crate::config::vars::Vars,
) -> Result<crate::config::OAuthClient, ErrorInfo> {
    if let Some(why) = untrusted(entry) {
        return Err(ErrorInfo::refused(why));
    }
    let Some(o) = &entry.oauth else {
        return Ok(Default::default());
    };
    let vars = crate::config::vars::Vars {
        owner: Some(crate::config::secrets::owner_prefix(
            entry.scope,
            vars.workspace.as_deref(),
            &entry.name,
        )),
        ..vars.clone()
    };
    let ex = |key: &str, v: &Option<String>| -> Result<Option<String>, ErrorInfo> {
        v.as_deref()
            .map(|t| {
                vars.expand(t)
                    .map_err(|e| ErrorInfo::new(ErrorCode::Variable, format!("oauth.{key}: {e}")))
            })
            .transpose()
    };
    Ok(crate::config::OAuthClient {
        client_id: ex("clientId", &o.client_id)?,
        client_secret: ex("clientSecret", &o.client_secret)?,
        scope: ex("scope", &o.scope)?,
        client_metadata_url: ex("clientMetadataUrl", &o.client_metadata_url)?,
    })
}

/// What the window and `mcpwb auth status` show of a sign-in.
#[derive(Debug, Clone, Serialize)]
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
    pub refusal: Option<refusal::Refusal>,
}

impl Status {
    pub fn of(tokens: Option<&Tokens>) -> Status {
        match tokens {
            None => Status {
                signed_in: false,
                issuer: None,
                scope: None,
                expires_in: None,
                refreshable: false,
                dpop_key: None,
                refusal: None,
            },
            Some(t) => Status {
                signed_in: true,
                issuer: Some(t.issuer.clone()),
                scope: t.scope.clone(),
                expires_in: t
                    .expires_at
                    .map(|at| at.saturating_sub(now()).min(u64::from(u32::MAX)) as u32),
                refreshable: t.refresh_token.is_some(),
                dpop_key: t.dpop.as_ref().map(dpop::DpopKey::thumbprint),
                refusal: None,
            },
        }
    }
}

/// After `entry`'s server refused the connection for want of sign-in: a
/// stored sign-in with a refresh token not used in the last minute is
/// marked expired, so the next attempt refreshes it (once on a 401).
/// Returns whether it was.
pub fn on_refused(entry: &crate::config::ServerEntry, vars: &crate::config::vars::Vars) -> bool {
    let Some(keychain) = &vars.keychain else {
        return false;
    };
    let owner =
        crate::config::secrets::owner_prefix(entry.scope, vars.workspace.as_deref(), &entry.name);
    let Some(mut tokens) = tokens::load(keychain, &owner) else {
        return false;
    };
    let recent = tokens
        .refreshed_at
        .is_some_and(|at| now().saturating_sub(at) < 60);
    if tokens.refresh_token.is_none() || recent || tokens.expiring(60) {
        return false;
    }
    tokens.expires_at = Some(1);
    tokens::save(keychain, &owner, &tokens).is_ok()
}

#[cfg(test)]
mod client_tests {
    #[test]
    fn an_oauth_blocks_references_expand_under_the_entrys_own_secrets() {
        let cfg = crate::config::ConfigFile::parse(
            std::path::Path::new("/x/mcp.json"),
            r#"{"mcpServers": {"gh": {"url": "https://h/mcp", "oauth": {"clientId": "abc", "clientSecret": "${CLIENT_SECRET}", "scope": "repo read:org"}}}}"#,
        )
        .unwrap();
        let gh = cfg.servers.iter().find(|s| s.name == "gh").unwrap();
        let vars = crate::config::vars::Vars {
            env: Some([("CLIENT_SECRET".to_string(), "s3cret".to_string())].into()),
            ..Default::default()
        };
        let expanded = super::client_of(gh, &vars).unwrap();
        assert_eq!(expanded.client_secret.as_deref(), Some("s3cret"));
        assert_eq!(expanded.scope.as_deref(), Some("repo read:org"));
    }
}
