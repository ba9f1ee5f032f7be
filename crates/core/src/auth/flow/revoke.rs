//! Signing out where the server offers it: the refresh (or access) token
//! revoked at the revocation endpoint (RFC 7009), held to the same rule as
//! the token endpoint (https, or loopback), without a DPoP proof.

use super::{Client, Timeline, Tokens, check_secure, post_form};

/// Revoke the refresh (or access) token where the server offers revocation.
pub async fn revoke(
    http: &reqwest::Client,
    t: &Tokens,
    tl: &mut Timeline,
) -> Result<(), crate::ErrorInfo> {
    use crate::{ErrorCode, ErrorInfo};
    let Some(endpoint) = &t.revocation_endpoint else {
        return Ok(());
    };
    // The token goes there: held to the same rule as the token endpoint.
    check_secure("the revocation endpoint", endpoint)
        .map_err(|m| ErrorInfo::new(ErrorCode::Refused, m))?;
    let token = t.refresh_token.as_deref().unwrap_or(&t.access_token);
    // No proof: revocation (RFC 7009) is not a token request.
    let client = Client {
        dpop: None,
        ..Client::of(t)
    };
    post_form(
        http,
        endpoint,
        "revocation",
        &[("token", token)],
        &client,
        &[token],
        tl,
    )
    .await
    .map(|_| ())
    .map_err(|m| ErrorInfo::new(ErrorCode::Transport, m))
}
