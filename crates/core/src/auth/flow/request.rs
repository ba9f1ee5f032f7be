//! The authorization request of a sign-in: PKCE (S256 or no sign-in), the
//! URL the browser opens, and the callback it comes back to, checked
//! before its code is used (no error, the state sent, the issuer's `iss`).

use std::time::Instant;

use serde_json::Value;

use super::super::callback::Callback;
use super::super::step::SignInStep;
use super::super::{Timeline, mask};
use super::LoginOptions;

/// PKCE with S256, or no sign-in: MCP authorization says clients MUST
/// refuse an authorization server that does not list it.
pub(super) fn pkce_offered(asm: &Value, tl: &mut Timeline) -> Result<(), String> {
    let s256 = asm["code_challenge_methods_supported"]
        .as_array()
        .is_some_and(|m| m.iter().any(|x| x == "S256"));
    if s256 {
        return Ok(());
    }
    let rule = "the authorization server does not list S256 in code_challenge_methods_supported (MCP authorization: clients MUST use PKCE with S256 and MUST refuse otherwise)".to_string();
    if let Some(s) = tl.steps.last_mut() {
        s.problems.push(rule.clone());
    }
    Err(format!("metadata: {rule}"))
}

/// PKCE's S256 challenge of `verifier`.
pub(super) fn s256_of(verifier: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()))
}

/// The authorization request: `authorize` with the code flow's parameters
/// (`pairs`: client, redirect, challenge, state, resource) and the scope.
pub(super) fn authorization_url(
    authorize: &str,
    pairs: &[(&str, &str)],
    scope: Option<&str>,
) -> Result<url::Url, String> {
    let mut url = url::Url::parse(authorize)
        .map_err(|_| "metadata: the authorization endpoint is not a URL")?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("code_challenge_method", "S256");
        for (k, v) in pairs {
            q.append_pair(k, v);
        }
        if let Some(scope) = scope {
            q.append_pair("scope", scope);
        }
    }
    Ok(url)
}

/// The code the callback brought, once it is the answer to this request:
/// no error, the state sent, the issuer's `iss` (compared exactly,
/// SEP-2468; required when the server says it sends one). What breaks a
/// rule is added to `problems`.
fn code_of<'p>(
    params: &'p std::collections::HashMap<String, String>,
    state: &str,
    issuer: &str,
    iss_advertised: bool,
    problems: &mut Vec<String>,
) -> Result<&'p String, String> {
    if let Some(error) = params.get("error") {
        return Err(format!(
            "authorization: the server said {error}: {}",
            params
                .get("error_description")
                .map(String::as_str)
                .unwrap_or("")
        ));
    }
    if params.get("state").map(String::as_str) != Some(state) {
        let rule =
            "the callback's state is not the one sent (RFC 6749 §10.12: the client MUST check it)"
                .to_string();
        problems.push(rule.clone());
        return Err(format!("callback: {rule}"));
    }
    match params.get("iss") {
        Some(iss) if iss != issuer => {
            let rule = format!(
                "the callback's iss \"{iss}\" is not the issuer \"{issuer}\" (RFC 9207 §2.4: the client MUST reject it; compared exactly, SEP-2468)"
            );
            problems.push(rule.clone());
            return Err(format!("callback: {rule}"));
        }
        None if iss_advertised => {
            let rule = "the authorization server says it sends iss, and the callback has none (RFC 9207 §2.4: the client MUST reject it)".to_string();
            problems.push(rule.clone());
            return Err(format!("callback: {rule}"));
        }
        _ => {}
    }
    params
        .get("code")
        .ok_or_else(|| "callback: no code in the callback".to_string())
}

/// Open `url` in the browser and wait for the callback; its code, once
/// the callback is the answer to this request (`state`, and the `issuer`
/// whose `iss` it must carry when the server says it sends one).
pub(super) async fn in_the_browser(
    opts: &LoginOptions,
    callback: Callback,
    url: &url::Url,
    (state, issuer, iss_advertised): (&str, &str, bool),
    tl: &mut Timeline,
    at: &mut SignInStep,
) -> Result<String, String> {
    let started = Instant::now();
    *at = SignInStep::Browser;
    (opts.open)(url.as_str())?;
    tl.push(
        "authorization",
        format!("GET {url} (in the browser)"),
        started,
    );
    let redirect_uri = callback.redirect_uri.clone();
    *at = SignInStep::Callback;
    let params = callback.wait(opts.timeout, state).await?;
    let s = tl.push("callback", format!("GET {redirect_uri}?…"), started);
    s.response = mask(
        &format!("{params:?}"),
        &[params.get("code").map(String::as_str).unwrap_or("")],
    );
    code_of(&params, state, issuer, iss_advertised, &mut s.problems).cloned()
}
