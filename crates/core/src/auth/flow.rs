//! The authorization code flow with PKCE, step by step.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::discover::{Challenge, authorization_server, protected_resource};
use super::dpop::DpopKey;
pub use super::step::{SignInError, SignInStep};
use super::{Timeline, Tokens, mask, random_token};
use workbench_codes::{ErrorCode, ErrorInfo};

/// Shows the person the sign-in page: opens a browser, or prints it.
pub type Opener = Box<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// What the person (or the entry) gives the flow.
pub struct LoginOptions {
    /// A client registered ahead with the authorization server.
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// A Client ID Metadata Document URL this client is known by.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for instead of what the server says.
    pub scope: Option<String>,
    /// Show the person the sign-in page (open a browser, or print it).
    pub open: Opener,
    /// How long to wait for the person to come back.
    pub timeout: Duration,
    /// The challenge a server already answered with (a 401 or 403 in a
    /// session): the flow starts from it instead of probing.
    pub challenge: Option<Challenge>,
    /// Step by step: awaited after each step with the timeline so far;
    /// `false` stops the flow.
    pub gate: Option<Gate>,
}

/// Lets a step-by-step sign-in go on (true) or stop (false).
pub type Gate = Box<
    dyn Fn(&Timeline) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send>>
        + Send
        + Sync,
>;

impl LoginOptions {
    /// Between steps: wait for the person in step-by-step mode.
    async fn pause(&self, tl: &Timeline) -> Result<(), String> {
        match &self.gate {
            Some(gate) if !gate(tl).await => Err("stopped after the step \"".to_string()
                + tl.steps.last().map(|s| s.name.as_str()).unwrap_or("start")
                + "\""),
            _ => Ok(()),
        }
    }
}

fn is_loopback(url: &url::Url) -> bool {
    matches!(
        url.host_str(),
        Some("127.0.0.1" | "localhost" | "[::1]" | "::1")
    )
}

/// `https`, or `http` on this machine.
fn check_secure(what: &str, url: &str) -> Result<(), String> {
    let u = url::Url::parse(url).map_err(|_| format!("{what} \"{url}\" is not a URL"))?;
    if u.scheme() == "https" || (u.scheme() == "http" && is_loopback(&u)) {
        Ok(())
    } else {
        Err(format!(
            "{what} \"{url}\" is not https (only a server on this machine may use plain http)"
        ))
    }
}

/// The scopes to ask for: the challenge's, else what the resource lists,
/// plus `offline_access` where the authorization server offers it.
fn scope_for(opts: &LoginOptions, c: &Challenge, prm: &Value, asm: &Value) -> Option<String> {
    let listed = |v: &Value| -> Vec<String> {
        v["scopes_supported"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let mut scopes: Vec<String> = match (&opts.scope, &c.scope) {
        (Some(s), _) | (None, Some(s)) => s.split_whitespace().map(str::to_string).collect(),
        _ => listed(prm),
    };
    if !scopes.is_empty()
        && listed(asm).iter().any(|s| s == "offline_access")
        && !scopes.iter().any(|s| s == "offline_access")
    {
        scopes.push("offline_access".into());
    }
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

/// Who the client is at the authorization server and how it proves it:
/// `none` and `client_secret_post` put it in the form, `client_secret_basic`
/// in an Authorization header.
pub(crate) struct Client<'a> {
    pub id: &'a str,
    pub secret: Option<&'a str>,
    pub method: &'a str,
    /// The sign-in's DPoP key: each request to the token endpoint carries
    /// a proof made with it.
    pub dpop: Option<&'a DpopKey>,
}

impl<'a> Client<'a> {
    fn of(t: &'a Tokens) -> Client<'a> {
        Client {
            id: &t.client_id,
            secret: t.client_secret.as_deref(),
            method: &t.auth_method,
            dpop: t.dpop.as_ref(),
        }
    }
}

/// POST a form as `client`, recording the step (secrets masked); the JSON
/// answer.
pub(crate) async fn post_form(
    http: &reqwest::Client,
    url: &str,
    step: &str,
    form: &[(&str, &str)],
    client: &Client<'_>,
    secrets: &[&str],
    tl: &mut Timeline,
) -> Result<Value, String> {
    let secret = client.secret.unwrap_or_default();
    let mut pairs = form.to_vec();
    if client.method != "client_secret_basic" {
        pairs.push(("client_id", client.id));
    }
    if client.method == "client_secret_post" {
        pairs.push(("client_secret", secret));
    }
    let basic = (client.method == "client_secret_basic").then_some((client.id, secret));
    let secrets: Vec<&str> = secrets.iter().copied().chain([secret]).collect();
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&pairs)
        .finish();
    // With DPoP, a server that wants a nonce answers use_dpop_nonce once:
    // the request is made again with it (RFC 9449 §8).
    let mut nonce: Option<String> = None;
    let (status, v) = loop {
        let mut req = http
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .body(body.clone());
        if let Some((id, secret)) = basic {
            use base64::Engine;
            let enc =
                |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", enc(id), enc(secret));
            req = req.header(
                "Authorization",
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                ),
            );
        }
        let mut shown = format!("POST {url}\n{body}");
        if let Some(key) = client.dpop {
            let proof = key.proof("POST", url, None, nonce.as_deref())?;
            shown = format!("{shown}\n{}", proof.describe(key));
            req = req.header("DPoP", proof.jwt);
        }
        let started = Instant::now();
        let sent = req.send().await;
        let s = tl.push(step, mask(&shown, &secrets), started);
        let r = sent.map_err(|e| format!("{step}: {}", crate::error::error_chain(&e)))?;
        let status = r.status();
        s.status = Some(status.as_u16());
        let headers = r.headers().clone();
        let text = r.text().await.unwrap_or_default();
        s.ms = started.elapsed().as_secs_f64() * 1000.0;
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let tokens: Vec<&str> = ["access_token", "refresh_token", "client_secret", "id_token"]
            .iter()
            .filter_map(|k| v[*k].as_str())
            .chain(secrets.iter().copied())
            .collect();
        s.response = mask(&text.chars().take(4000).collect::<String>(), &tokens);
        if client.dpop.is_some()
            && nonce.is_none()
            && let Some(asked) =
                super::dpop::nonce_asked(status.as_u16(), &headers, v["error"].as_str())
        {
            s.response.push_str(&format!(
                "\n(the server wants a DPoP nonce: asked again with {asked})"
            ));
            nonce = Some(asked);
            continue;
        }
        break (status, v);
    };
    if !status.is_success() {
        let why = v["error_description"]
            .as_str()
            .or(v["error"].as_str())
            .unwrap_or("");
        return Err(format!("{step}: {url} answered {status} {why}"));
    }
    Ok(v)
}

/// The client's identity at this authorization server.
async fn client_identity(
    http: &reqwest::Client,
    opts: &LoginOptions,
    asm: &Value,
    redirect_uri: &str,
    tl: &mut Timeline,
) -> Result<(String, Option<String>, String), String> {
    let methods: Vec<&str> = asm["token_endpoint_auth_methods_supported"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let with_secret = |secret: &Option<String>, said: Option<&str>| -> String {
        match (secret, said) {
            (None, _) => "none".into(),
            (Some(_), Some(m)) => m.to_string(),
            (Some(_), None) if methods.is_empty() || methods.contains(&"client_secret_basic") => {
                "client_secret_basic".into()
            }
            (Some(_), None) => "client_secret_post".into(),
        }
    };
    if let Some(id) = &opts.client_id {
        return Ok((
            id.clone(),
            opts.client_secret.clone(),
            with_secret(&opts.client_secret, None),
        ));
    }
    if asm["client_id_metadata_document_supported"] == true
        && let Some(url) = &opts.client_metadata_url
    {
        return Ok((url.clone(), None, "none".into()));
    }
    let Some(endpoint) = asm["registration_endpoint"].as_str() else {
        return Err("registration: the authorization server offers no dynamic client registration and no client id was given (set one with --client-id or the entry's oauth.clientId)".into());
    };
    check_secure("the registration endpoint", endpoint)?;
    let body = json!({
        "client_name": "MCP Workbench",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        // A desktop app coming back on a loopback address (SEP-837).
        "application_type": "native",
    });
    let started = Instant::now();
    let sent = http
        .post(endpoint)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await;
    let s = tl.push("registration", format!("POST {endpoint}\n{body}"), started);
    let r = sent.map_err(|e| format!("registration: {}", crate::error::error_chain(&e)))?;
    let status = r.status();
    s.status = Some(status.as_u16());
    let text = r.text().await.unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let secret = v["client_secret"].as_str().map(str::to_string);
    s.response = mask(&text, &[secret.as_deref().unwrap_or("")]);
    if !status.is_success() {
        return Err(format!(
            "registration: {endpoint} refused to register this client ({status}): {}",
            v["error_description"]
                .as_str()
                .or(v["error"].as_str())
                .unwrap_or("")
        ));
    }
    let id = v["client_id"]
        .as_str()
        .ok_or("registration: the answer has no client_id")?;
    let said = v["token_endpoint_auth_method"].as_str();
    Ok((id.to_string(), secret.clone(), with_secret(&secret, said)))
}

/// Sign in to the server at `server_url`; every step lands in `tl`.
pub async fn login(
    http: &reqwest::Client,
    server_url: &str,
    opts: &LoginOptions,
    tl: &mut Timeline,
) -> Result<Tokens, SignInError> {
    let mut at = SignInStep::Discovery;
    login_steps(http, server_url, opts, tl, &mut at)
        .await
        .map_err(|message| SignInError { step: at, message })
}

/// The sign-in, saying in `at` which step it is at (an error is that step's).
async fn login_steps(
    http: &reqwest::Client,
    server_url: &str,
    opts: &LoginOptions,
    tl: &mut Timeline,
    at: &mut SignInStep,
) -> Result<Tokens, String> {
    // A stop between steps is said as such, whichever step came before.
    macro_rules! pause {
        () => {
            opts.pause(tl).await.map_err(|e| {
                *at = SignInStep::Stopped;
                e
            })?
        };
    }
    let challenge = match &opts.challenge {
        Some(c) => c.clone(),
        None => super::probe::probe(http, server_url, tl).await?,
    };
    pause!();
    let prm = protected_resource(http, server_url, &challenge, tl).await?;
    pause!();
    *at = SignInStep::Metadata;
    let origin = url::Url::parse(server_url)
        .map_err(|_| "the server URL is not valid")?
        .origin()
        .ascii_serialization();
    let (issuer, resource) = issuer_and_resource(prm.as_ref(), server_url, &origin, tl)?;
    let asm = metadata(http, &issuer, &origin, prm.is_some(), tl).await?;
    pause!();
    request::pkce_offered(&asm, tl)?;
    let authorize = asm["authorization_endpoint"]
        .as_str()
        .ok_or("metadata: no authorization_endpoint")?;
    let token_endpoint = asm["token_endpoint"]
        .as_str()
        .ok_or("metadata: no token_endpoint")?
        .to_string();
    check_secure("the authorization endpoint", authorize)?;
    check_secure("the token endpoint", &token_endpoint)?;
    *at = SignInStep::Callback;
    let callback = super::callback::Callback::open().await?;
    *at = SignInStep::Registration;
    let (client_id, client_secret, auth_method) =
        client_identity(http, opts, &asm, &callback.redirect_uri, tl).await?;
    pause!();
    let verifier = random_token(48);
    let state = random_token(24);
    let scope = scope_for(opts, &challenge, prm.as_ref().unwrap_or(&Value::Null), &asm);
    let url = request::authorization_url(
        authorize,
        &[
            ("client_id", &client_id),
            ("redirect_uri", &callback.redirect_uri),
            ("code_challenge", &request::s256_of(&verifier)),
            ("state", &state),
            ("resource", &resource),
        ],
        scope.as_deref(),
    )?;
    let redirect_uri = callback.redirect_uri.clone();
    let iss_advertised = asm["authorization_response_iss_parameter_supported"] == true;
    let code = request::in_the_browser(
        opts,
        callback,
        &url,
        (&state, &issuer, iss_advertised),
        tl,
        at,
    )
    .await?;
    pause!();
    *at = SignInStep::Token;
    let tokens = Tokens {
        access_token: String::new(),
        refresh_token: None,
        expires_at: None,
        scope,
        issuer,
        token_endpoint,
        revocation_endpoint: asm["revocation_endpoint"].as_str().map(str::to_string),
        resource,
        client_id,
        client_secret,
        auth_method,
        refreshed_at: None,
        dpop: None,
    };
    exchange(http, &asm, tokens, (&code, &redirect_uri, &verifier), tl).await
}

/// The authorization server's metadata for `issuer`; without any, and
/// without resource metadata either (the 2025-03-26 way), the endpoints
/// under the server's `origin`.
async fn metadata(
    http: &reqwest::Client,
    issuer: &str,
    origin: &str,
    has_resource_metadata: bool,
    tl: &mut Timeline,
) -> Result<Value, String> {
    match authorization_server(http, issuer, tl).await? {
        Some(m) => Ok(m),
        None if !has_resource_metadata => Ok(json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{origin}/authorize"),
            "token_endpoint": format!("{origin}/token"),
            "registration_endpoint": format!("{origin}/register"),
            "code_challenge_methods_supported": ["S256"],
        })),
        None => Err(format!(
            "metadata: no authorization server metadata found for {issuer}"
        )),
    }
}

/// The code exchanged at the token endpoint for `tokens` (bound to a key
/// of this sign-in when the server offers DPoP).
async fn exchange(
    http: &reqwest::Client,
    asm: &Value,
    mut tokens: Tokens,
    (code, redirect_uri, verifier): (&str, &str, &str),
    tl: &mut Timeline,
) -> Result<Tokens, String> {
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri),
        ("code_verifier", verifier),
        ("resource", &tokens.resource),
    ];
    tokens.dpop = if super::dpop::offered(asm) {
        Some(DpopKey::generate()?)
    } else {
        None
    };
    let client = Client {
        id: &tokens.client_id,
        secret: tokens.client_secret.as_deref(),
        method: &tokens.auth_method,
        dpop: tokens.dpop.as_ref(),
    };
    let v = post_form(
        http,
        &tokens.token_endpoint,
        "token",
        &form,
        &client,
        &[code],
        tl,
    )
    .await?;
    tokens_from(&v, None, tokens)
}

/// The issuer to sign in with and the resource to ask for, from the
/// resource metadata (`prm`); without it (the 2025-03-26 way) the server's
/// origin is the issuer. A resource that is not this server is refused.
fn issuer_and_resource(
    prm: Option<&Value>,
    server_url: &str,
    origin: &str,
    tl: &mut Timeline,
) -> Result<(String, String), String> {
    let Some(p) = prm else {
        return Ok((origin.to_string(), server_url.to_string()));
    };
    let resource = p["resource"].as_str().unwrap_or(server_url).to_string();
    let same = |a: &str, b: &str| a.trim_end_matches('/') == b.trim_end_matches('/');
    if !same(&resource, server_url) && !server_url.starts_with(resource.trim_end_matches('/')) {
        let rule = format!(
            "the resource metadata names \"{resource}\", not this server \"{server_url}\" (RFC 9728 §3.3: the resource MUST match the URL used)"
        );
        if let Some(s) = tl.steps.last_mut() {
            s.problems.push(rule.clone());
        }
        return Err(format!("discovery: {rule}"));
    }
    let issuer = p["authorization_servers"][0]
        .as_str()
        .ok_or("discovery: the resource metadata lists no authorization server")?
        .to_string();
    Ok((issuer, resource))
}

/// Tokens from a token endpoint's answer (`old`'s refresh token kept when
/// the answer has none).
fn tokens_from(v: &Value, old: Option<&str>, mut t: Tokens) -> Result<Tokens, String> {
    t.access_token = v["access_token"]
        .as_str()
        .ok_or("token: the answer has no access_token")?
        .to_string();
    t.refresh_token = v["refresh_token"]
        .as_str()
        .map(str::to_string)
        .or(old.map(str::to_string));
    t.expires_at = v["expires_in"].as_u64().map(|s| super::now() + s);
    t.refreshed_at = Some(super::now());
    if let Some(s) = v["scope"].as_str() {
        t.scope = Some(s.to_string());
    }
    // The key is kept only for tokens bound to it (RFC 9449 §5: the
    // answer's token_type says DPoP); a Bearer answer drops it.
    let bound = v["token_type"]
        .as_str()
        .is_some_and(|k| k.eq_ignore_ascii_case("DPoP"));
    if !bound {
        t.dpop = None;
    }
    Ok(t)
}

/// A new access token from the refresh token (rotation kept).
pub async fn refresh(
    http: &reqwest::Client,
    t: &Tokens,
    tl: &mut Timeline,
) -> Result<Tokens, ErrorInfo> {
    let rt = t
        .refresh_token
        .as_deref()
        .ok_or_else(|| ErrorInfo::refused("refresh: there is no refresh token; sign in again"))?;
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", rt),
        ("resource", &t.resource),
    ];
    let v = post_form(
        http,
        &t.token_endpoint,
        "refresh",
        &form,
        &Client::of(t),
        &[rt],
        tl,
    )
    .await
    .map_err(|e| ErrorInfo::new(ErrorCode::Transport, e))?;
    tokens_from(&v, Some(rt), t.clone()).map_err(|e| ErrorInfo::new(ErrorCode::ServerError, e))
}

mod request;
mod revoke;
pub use revoke::revoke;
