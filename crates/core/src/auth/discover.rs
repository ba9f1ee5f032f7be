//! Where to sign in: the server's Protected Resource Metadata (RFC 9728)
//! and its authorization server's metadata (RFC 8414, OpenID discovery).

use std::time::Instant;

use serde_json::Value;

use super::Timeline;

pub use crate::challenge::{Challenge, parse_challenge};

/// GET a JSON document, recording the step (and each redirect it follows,
/// at most 3); `Ok(None)` when it is not there. A redirect is followed only
/// within the origin asked (or from http to https on the same host): a
/// metadata document that sends the sign-in elsewhere is refused.
pub(crate) async fn get_json(
    http: &reqwest::Client,
    url: &str,
    step: &str,
    tl: &mut Timeline,
) -> Result<Option<Value>, String> {
    let mut url = url.to_string();
    for _ in 0..4 {
        let started = Instant::now();
        let sent = http
            .get(&url)
            .header("Accept", "application/json")
            .send()
            .await;
        let s = tl.push(step, format!("GET {url}"), started);
        let response = match sent {
            Ok(r) => r,
            Err(e) => {
                s.response = crate::error::error_chain(&e);
                return Err(format!("{step}: GET {url} failed: {}", s.response));
            }
        };
        let status = response.status();
        s.status = Some(status.as_u16());
        if status.is_redirection()
            && let Some(next) = response
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .and_then(|l| url::Url::parse(&url).ok()?.join(l).ok())
        {
            s.response = format!("location: {next}");
            if !same_site(&url, &next) {
                let why = format!(
                    "{step}: {url} redirects to {next}, another origin: not followed (metadata is read only where it was asked for)"
                );
                s.problems.push(why.clone());
                return Err(why);
            }
            url = next.to_string();
            continue;
        }
        let body = response.text().await.unwrap_or_default();
        s.response = body.chars().take(4000).collect();
        s.ms = started.elapsed().as_secs_f64() * 1000.0;
        if !status.is_success() {
            return Ok(None);
        }
        return match serde_json::from_str::<Value>(&body) {
            Ok(v) if v.is_object() => Ok(Some(v)),
            _ => {
                s.problems
                    .push(format!("{url} did not answer with a JSON object"));
                Ok(None)
            }
        };
    }
    Err(format!("{step}: more than 3 redirects from {url}"))
}

/// `next` is on the origin of `from`, or is its https upgrade (same host,
/// default port).
fn same_site(from: &str, next: &url::Url) -> bool {
    let Ok(from) = url::Url::parse(from) else {
        return false;
    };
    if from.origin() == next.origin() {
        return true;
    }
    from.scheme() == "http"
        && next.scheme() == "https"
        && from.host_str() == next.host_str()
        && next.port().is_none()
}

fn origin_and_path(url: &str) -> Option<(String, String)> {
    let u = url::Url::parse(url).ok()?;
    let origin = u.origin().ascii_serialization();
    let path = u.path().trim_end_matches('/').to_string();
    Some((origin, path))
}

/// The server's Protected Resource Metadata: where the challenge says,
/// else the well-known URL with the server's path, else at its root.
pub(crate) async fn protected_resource(
    http: &reqwest::Client,
    server_url: &str,
    challenge: &Challenge,
    tl: &mut Timeline,
) -> Result<Option<Value>, String> {
    let (origin, path) = origin_and_path(server_url).ok_or("the server URL is not valid")?;
    let mut candidates = Vec::new();
    if let Some(u) = &challenge.resource_metadata {
        candidates.push(u.clone());
    }
    if !path.is_empty() {
        candidates.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    for url in candidates {
        if let Some(v) = get_json(http, &url, "discovery", tl).await? {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

/// The authorization server's metadata, from the URLs the specification
/// lists in its order; its `issuer` must be the one asked for.
pub(crate) async fn authorization_server(
    http: &reqwest::Client,
    issuer: &str,
    tl: &mut Timeline,
) -> Result<Option<Value>, String> {
    let (origin, path) = origin_and_path(issuer).ok_or("the issuer URL is not valid")?;
    let candidates = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    for url in candidates {
        if let Some(v) = get_json(http, &url, "metadata", tl).await? {
            let said = v["issuer"].as_str().unwrap_or_default();
            if said != issuer {
                let rule = format!(
                    "the metadata's issuer \"{said}\" is not \"{issuer}\" (RFC 8414 §3.3: the issuer MUST be identical to the one the metadata was asked for)"
                );
                if let Some(s) = tl.steps.last_mut() {
                    s.problems.push(rule.clone());
                }
                return Err(format!("metadata: {rule}"));
            }
            return Ok(Some(v));
        }
    }
    Ok(None)
}
