//! OAuth sign-in against an authorization server on loopback: the whole
//! authorization code flow with PKCE, refresh with rotation, and the
//! refusals a client MUST make, each naming its step.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Form, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use workbench_core::auth::refusal::Grants;
use workbench_core::auth::{Timeline, flow};
use workbench_core::connect::{FailureCode, ServerState};
use workbench_core::testing::RawCalls;

#[derive(Default)]
pub(super) struct As {
    pub(super) base: String,
    pub(super) no_s256: bool,
    pub(super) wrong_iss: bool,
    /// No Protected Resource Metadata anywhere (a 2025-03-26 server).
    pub(super) no_prm: bool,
    /// The 401 names no metadata URL; it is only at the root well-known.
    pub(super) prm_at_root_only: bool,
    pub(super) dcr_refused: bool,
    /// The authorization endpoint sends the browser somewhere else.
    pub(super) foreign_redirect: bool,
    pub(super) refresh_expired: bool,
    /// The AS metadata URL redirects (as hosts do for a trailing slash).
    pub(super) metadata_redirects: bool,
    /// ...or redirects to this URL (another origin).
    pub(super) metadata_elsewhere: Option<String>,
    /// The registration endpoint the metadata names (default: its own).
    pub(super) registration_endpoint: Option<String>,
    pub(super) challenge: Option<String>,
}

type Shared = Arc<Mutex<As>>;

pub(super) async fn serve(state: As) -> (String, Shared, tokio_util::sync::DropGuard) {
    let shared = Arc::new(Mutex::new(state));
    let app = axum::Router::new()
        .route("/mcp", post(|State(s): State<Shared>| async move {
            let s = s.lock().unwrap();
            let base = s.base.clone();
            let challenge = if s.no_prm || s.prm_at_root_only {
                "Bearer".to_string()
            } else {
                format!(r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#)
            };
            (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)])
        }))
        .route("/.well-known/oauth-protected-resource/mcp", get(|State(s): State<Shared>| async move { prm(&s, false) }))
        .route("/.well-known/oauth-protected-resource", get(|State(s): State<Shared>| async move { prm(&s, true) }))
        .route("/.well-known/oauth-authorization-server", get(|State(s): State<Shared>| async move {
            let s = s.lock().unwrap();
            if let Some(to) = &s.metadata_elsewhere {
                return (StatusCode::FOUND, [(header::LOCATION, to.clone())]).into_response();
            }
            if s.metadata_redirects {
                return (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/moved/metadata".to_string())]).into_response();
            }
            metadata(&s)
        }))
        .route("/moved/metadata", get(|State(s): State<Shared>| async move { metadata(&s.lock().unwrap()) }))
        .route("/register", post(|State(s): State<Shared>| async move {
            if s.lock().unwrap().dcr_refused {
                return (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "invalid_client_metadata", "error_description": "registration is closed" })));
            }
            (StatusCode::CREATED, axum::Json(json!({ "client_id": "c1" })))
        }))
        .route("/authorize", get(|State(s): State<Shared>, Query(q): Query<std::collections::HashMap<String, String>>| async move {
            let mut s = s.lock().unwrap();
            s.challenge = q.get("code_challenge").cloned();
            let iss = if s.wrong_iss { "https://evil.example".to_string() } else { s.base.clone() };
            let back = if s.foreign_redirect { format!("{}/elsewhere", s.base) } else { q["redirect_uri"].clone() };
            let to = format!(
                "{}?code=the-code&state={}&iss={}",
                back,
                q["state"],
                url::form_urlencoded::byte_serialize(iss.as_bytes()).collect::<String>()
            );
            (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
        }))
        .route("/token", post(|State(s): State<Shared>, Form(f): Form<std::collections::HashMap<String, String>>| async move {
            let grant = f.get("grant_type").map(String::as_str).unwrap_or("");
            let out: Response = match grant {
                "authorization_code" => {
                    use base64::Engine;
                    use sha2::Digest;
                    let verifier = f.get("code_verifier").cloned().unwrap_or_default();
                    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()));
                    if Some(computed) != s.lock().unwrap().challenge {
                        return (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "invalid_grant", "error_description": "PKCE verification failed" }))).into_response();
                    }
                    axum::Json(json!({ "access_token": "at-1", "refresh_token": "rt-1", "token_type": "Bearer", "expires_in": 3600 })).into_response()
                }
                "refresh_token" if s.lock().unwrap().refresh_expired => {
                    (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "invalid_grant", "error_description": "the refresh token has expired" }))).into_response()
                }
                "refresh_token" if f.get("refresh_token").map(String::as_str) == Some("rt-1") => {
                    axum::Json(json!({ "access_token": "at-2", "refresh_token": "rt-2", "token_type": "Bearer", "expires_in": 3600 })).into_response()
                }
                _ => (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "invalid_grant" }))).into_response(),
            };
            out
        }))
        .route("/revoke", post(|| async { StatusCode::OK }))
        .with_state(shared.clone());
    let (addr, stop) = super::hostile::serve(app).await;
    let base = format!("http://{addr}");
    shared.lock().unwrap().base = base.clone();
    (base, shared, stop)
}

fn metadata(s: &As) -> Response {
    let base = &s.base;
    axum::Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": s.registration_endpoint.clone().unwrap_or_else(|| format!("{base}/register")),
        "revocation_endpoint": format!("{base}/revoke"),
        "code_challenge_methods_supported": if s.no_s256 { json!(["plain"]) } else { json!(["S256"]) },
        "authorization_response_iss_parameter_supported": true,
        "scopes_supported": ["files", "offline_access"]
    }))
    .into_response()
}

fn prm(s: &Shared, root: bool) -> Response {
    let s = s.lock().unwrap();
    if s.no_prm || (s.prm_at_root_only && !root) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let base = &s.base;
    axum::Json(json!({ "resource": format!("{base}/mcp"), "authorization_servers": [base], "scopes_supported": ["files"] })).into_response()
}

/// A sign-in as the keychain keeps it: access token `at-1` (which the demo
/// server refuses), refresh token `rt-1` (which the AS turns into `at-2`).
fn stored(base: &str, resource: &str, expires_at: u64) -> workbench_core::auth::Tokens {
    workbench_core::auth::Tokens {
        access_token: "at-1".into(),
        refresh_token: Some("rt-1".into()),
        expires_at: Some(expires_at),
        scope: None,
        issuer: base.to_string(),
        token_endpoint: format!("{base}/token"),
        revocation_endpoint: None,
        resource: resource.to_string(),
        client_id: "c1".into(),
        client_secret: None,
        auth_method: "none".into(),
        refreshed_at: None,
        dpop: None,
    }
}

/// A workbench with one remote entry `remote` at `url`, signed in with
/// `tokens` in a keychain namespace of its own (`ns`), started and Ready.
async fn signed_in(
    ns: &str,
    url: &str,
    tokens: &workbench_core::auth::Tokens,
) -> (
    super::Workbench,
    workbench_core::config::secrets::Keychain,
    tempfile::TempDir,
) {
    use workbench_core::config::secrets::{Backend, Keychain};
    let kc = Keychain::new(
        &format!("{ns}-{}", std::process::id()),
        Backend::KernelKeyring,
    );
    workbench_core::auth::tokens::save(&kc, "remote/", tokens).unwrap();
    let mut options = super::fast();
    options.supervisor.vars.keychain = Some(kc.clone());
    let dir = tempfile::tempdir().unwrap();
    let cfg = super::config(
        dir.path(),
        &[("remote".into(), json!({ "type": "http", "url": url }))],
    );
    let wb = super::Workbench::start(&cfg, options);
    super::ready(&wb, "remote").await;
    (wb, kc, dir)
}

/// A stand-in browser: opens the page, follows its redirect back.
pub(super) fn browser() -> flow::LoginOptions {
    flow::LoginOptions {
        client_id: None,
        client_secret: None,
        client_metadata_url: None,
        scope: None,
        open: Box::new(|url| {
            let url = url.to_string();
            tokio::spawn(async move {
                let http = workbench_http::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .unwrap();
                let page = http.get(&url).send().await.unwrap();
                let back = page.headers()["location"].to_str().unwrap().to_string();
                let _ = http.get(&back).send().await;
            });
            Ok(())
        }),
        timeout: Duration::from_secs(3),
        challenge: None,
        gate: None,
    }
}

#[tokio::test]
async fn sign_in_with_pkce_then_refresh_with_rotation() {
    let (base, _as, _stop) = serve(As::default()).await;
    let http = workbench_core::auth::http();
    let mut tl = Timeline::default();
    let tokens = flow::login(&http, &format!("{base}/mcp"), &browser(), &mut tl)
        .await
        .unwrap_or_else(|e| panic!("{e}: {tl:#?}"));
    assert_eq!(tokens.access_token, "at-1");
    assert_eq!(tokens.client_id, "c1");
    assert_eq!(tokens.issuer, base);
    assert_eq!(tokens.resource, format!("{base}/mcp"));
    assert_eq!(
        tokens.scope.as_deref(),
        Some("files offline_access"),
        "offline_access added where offered"
    );
    let names: Vec<&str> = tl.steps.iter().map(|s| s.name.as_str()).collect();
    for step in [
        "discovery",
        "metadata",
        "registration",
        "authorization",
        "callback",
        "token",
    ] {
        assert!(names.contains(&step), "{names:?}");
    }
    assert!(!tl.failed());
    let shown = serde_json::to_string(&tl).unwrap();
    for secret in ["at-1", "rt-1", "the-code"] {
        assert!(!shown.contains(secret), "{secret} in the timeline: {shown}");
    }
    let mut tl = Timeline::default();
    let fresh = flow::refresh(&http, &tokens, &mut tl).await.unwrap();
    assert_eq!(
        (fresh.access_token.as_str(), fresh.refresh_token.as_deref()),
        ("at-2", Some("rt-2"))
    );
    assert!(fresh.expires_at.unwrap() > tokens.expires_at.unwrap() - 5);
    flow::revoke(&http, &fresh, &mut tl).await.unwrap();
}

#[tokio::test]
async fn a_server_without_s256_or_a_wrong_iss_is_refused_naming_the_step() {
    for (state, step, rule) in [
        (
            As {
                no_s256: true,
                ..As::default()
            },
            "metadata",
            "S256",
        ),
        (
            As {
                wrong_iss: true,
                ..As::default()
            },
            "callback",
            "iss",
        ),
    ] {
        let (base, _as, _stop) = serve(state).await;
        let mut tl = Timeline::default();
        let e = flow::login(
            &workbench_core::auth::http(),
            &format!("{base}/mcp"),
            &browser(),
            &mut tl,
        )
        .await
        .expect_err("refused");
        assert!(e.starts_with(step) && e.contains(rule), "{e}");
        // The step is a code too (what the window and the doctor switch on).
        let code = serde_json::to_value(e.step).unwrap();
        assert_eq!(code, step, "{e:?}");
        assert!(tl.failed(), "the broken MUST is in the timeline");
        let v: Value = serde_json::to_value(&tl).unwrap();
        assert!(v.to_string().contains("MUST"));
    }
}

/// A signed-in entry gets its token; one past its expiry is refreshed first
/// (from the absolute expiry time), the rotated tokens kept; the token
/// reaches neither the traffic log nor its exports.
#[tokio::test]
async fn a_stored_sign_in_is_used_and_refreshed_ahead_of_expiry() {
    let (base, _as, _stop) = serve(As::default()).await;
    let demo = super::http_demo(&["--token", "at-2"]).await;
    let expired = stored(&base, &demo.url, 1);
    let (wb, kc, _dir) = signed_in("mcpwb-test-oauth", &demo.url, &expired).await;
    let out = wb
        .call_tool(
            "remote",
            "echo",
            json!({ "message": "signed in" }),
            workbench_core::CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.result["content"][0]["text"], "signed in");
    let kept = workbench_core::auth::tokens::load(&kc, "remote/").unwrap();
    assert_eq!(
        (kept.access_token.as_str(), kept.refresh_token.as_deref()),
        ("at-2", Some("rt-2"))
    );
    let exported = wb.traffic().entries(Some("remote"));
    assert!(!format!("{exported:?}").contains("at-2"));
    workbench_core::auth::tokens::forget(&kc, "remote/").unwrap();
    wb.shutdown().await;
}

/// Each failure of the test kit's authorization server gives its own clear
/// error naming the step; the fallbacks the specification allows work.
#[tokio::test]
async fn every_failure_switch_names_its_step_and_the_fallbacks_work() {
    let http = workbench_core::auth::http();
    // Allowed: no resource metadata (2025-03-26), metadata at the root only.
    for state in [
        As {
            no_prm: true,
            ..As::default()
        },
        As {
            prm_at_root_only: true,
            ..As::default()
        },
    ] {
        let (base, _as, _stop) = serve(state).await;
        let mut tl = Timeline::default();
        let t = flow::login(&http, &format!("{base}/mcp"), &browser(), &mut tl)
            .await
            .unwrap_or_else(|e| panic!("{e}: {tl:#?}"));
        assert_eq!(t.access_token, "at-1");
    }
    for (state, expected) in [
        (
            As {
                dcr_refused: true,
                ..As::default()
            },
            "registration: ",
        ),
        (
            As {
                foreign_redirect: true,
                ..As::default()
            },
            "callback: nobody came back",
        ),
    ] {
        let (base, _as, _stop) = serve(state).await;
        let mut tl = Timeline::default();
        let e = flow::login(&http, &format!("{base}/mcp"), &browser(), &mut tl)
            .await
            .expect_err("refused");
        assert!(e.starts_with(expected), "{e}");
        let code = serde_json::to_value(e.step).unwrap();
        assert!(expected.starts_with(code.as_str().unwrap()), "{e:?}");
    }
    // An expired refresh token: the refresh says so; sign in again.
    let (base, _as, _stop) = serve(As {
        refresh_expired: true,
        ..As::default()
    })
    .await;
    let mut tl = Timeline::default();
    let t = flow::login(&http, &format!("{base}/mcp"), &browser(), &mut tl)
        .await
        .unwrap();
    let e = flow::refresh(&http, &t, &mut tl)
        .await
        .expect_err("expired");
    assert!(
        e.message.starts_with("refresh: ") && e.message.contains("400"),
        "{e}"
    );
}

/// A token the server no longer accepts (revoked, or expired early): the
/// 401 marks the stored sign-in for refresh and the next try gets in.
#[tokio::test]
async fn a_401_with_a_stored_sign_in_refreshes_it_once_and_connects() {
    let (base, _as, _stop) = serve(As::default()).await;
    let demo = super::http_demo(&["--token", "at-2"]).await;
    let in_an_hour = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    let stale = stored(&base, &demo.url, in_an_hour);
    let (wb, kc, _dir) = signed_in("mcpwb-test-oauth401", &demo.url, &stale).await;
    let kept = workbench_core::auth::tokens::load(&kc, "remote/").unwrap();
    assert_eq!(kept.access_token, "at-2");
    workbench_core::auth::tokens::forget(&kc, "remote/").unwrap();
    wb.shutdown().await;
}

/// Step by step: the flow waits after each step for the person's go; a
/// stop ends it there, naming the step.
#[tokio::test]
async fn step_by_step_waits_for_each_go_and_a_stop_ends_it() {
    let (base, _as, _stop) = serve(As::default()).await;
    let http = workbench_core::auth::http();
    let seen = Arc::new(Mutex::new(Vec::<usize>::new()));
    let mut opts = browser();
    let log = seen.clone();
    opts.gate = Some(Box::new(move |tl: &Timeline| {
        log.lock().unwrap().push(tl.steps.len());
        Box::pin(async { true })
    }));
    let mut tl = Timeline::default();
    flow::login(&http, &format!("{base}/mcp"), &opts, &mut tl)
        .await
        .unwrap_or_else(|e| panic!("{e}: {tl:#?}"));
    let pauses = seen.lock().unwrap().clone();
    assert!(pauses.len() >= 5, "a pause per phase: {pauses:?}");
    assert!(
        pauses.windows(2).all(|w| w[0] < w[1]),
        "each pause comes after a new step: {pauses:?}"
    );
    // Stop after the metadata step: no registration, no browser.
    let mut opts = browser();
    opts.gate = Some(Box::new(|tl: &Timeline| {
        let go = !tl.steps.iter().any(|s| s.name == "metadata");
        Box::pin(async move { go })
    }));
    let mut tl = Timeline::default();
    let e = flow::login(&http, &format!("{base}/mcp"), &opts, &mut tl)
        .await
        .expect_err("stopped");
    assert!(e.starts_with("stopped after the step \"metadata\""), "{e}");
    assert_eq!(e.step, flow::SignInStep::Stopped);
    assert!(
        !tl.steps.iter().any(|s| s.name == "registration"),
        "{tl:#?}"
    );
}

/// Step-up: a server that wants a wider scope for tools/call answers 403
/// insufficient_scope; the refusal is noted (traffic view, sign-in state),
/// and signing in again from it asks for the old scope plus the new one,
/// after which the call goes through. The tokens never reach the log.
#[tokio::test]
async fn a_403_insufficient_scope_is_noted_and_a_wider_sign_in_gets_through() {
    let demo = super::http_demo(&["--oauth", "--oauth-call-scope", "demo:write"]).await;
    let http = workbench_core::auth::http();
    let mut tl = Timeline::default();
    let first = flow::login(&http, &demo.url, &browser(), &mut tl)
        .await
        .unwrap_or_else(|e| panic!("{e}: {tl:#?}"));
    assert_eq!(
        first.scope.as_deref(),
        Some("demo:read"),
        "the resource's scopes"
    );
    let (wb, kc, _dir) = signed_in("mcpwb-test-stepup", &demo.url, &first).await;
    let echo = |wb: &super::Workbench| {
        let wb = wb.clone();
        async move {
            wb.call_tool(
                "remote",
                "echo",
                json!({ "message": "wider" }),
                workbench_core::CallOptions::default(),
            )
            .await
        }
    };
    let handshakes = |wb: &super::Workbench| {
        wb.traffic()
            .entries(Some("remote"))
            .iter()
            .filter(|e| matches!(e.method.as_deref(), Some("server/discover" | "initialize")))
            .count()
    };
    let before = handshakes(&wb);
    let refused = echo(&wb).await.expect_err("the grant is too narrow");
    assert!(
        refused.to_string().contains("sign in with the wider scope"),
        "the error says what to do: {refused}"
    );
    // Only the call was refused: the session goes on (no reconnect).
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(handshakes(&wb), before, "a 403 broke the session");
    let refusal = wb.traffic().refusal("remote").expect("the 403 is noted");
    assert_eq!(
        (
            refusal.status,
            refusal.method.as_deref(),
            refusal.scope.as_deref()
        ),
        (403, Some("tools/call"), Some("demo:write"))
    );
    let said: Vec<String> = wb
        .traffic()
        .entries(Some("remote"))
        .iter()
        .map(|e| e.body.clone())
        .collect();
    assert!(
        said.iter()
            .any(|b| b.contains("token lacks a scope") && b.contains("demo:write")),
        "the traffic view says why: {said:?}"
    );
    assert!(refusal.worth_signing_in(Some(&first)));
    let mut opts = browser();
    opts.scope = refusal.widened(Some(&first));
    opts.challenge = Some(refusal.challenge());
    let mut tl = Timeline::default();
    let wider = flow::login(&http, &demo.url, &opts, &mut tl)
        .await
        .unwrap_or_else(|e| panic!("{e}: {tl:#?}"));
    assert_eq!(wider.scope.as_deref(), Some("demo:read demo:write"));
    assert!(
        !tl.steps.iter().any(|s| s.request.contains("(no token)")),
        "started from the refusal, no probe: {tl:#?}"
    );
    workbench_core::auth::tokens::save(&kc, "remote/", &wider).unwrap();
    wb.traffic().take_refusal("remote");
    let before = handshakes(&wb);
    wb.server("remote").unwrap().restart().await.unwrap();
    for _ in 0..100 {
        if handshakes(&wb) > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    super::ready(&wb, "remote").await;
    let out = echo(&wb).await.expect("the wider grant is enough");
    assert_eq!(out.result["content"][0]["text"], "wider");
    let log = format!("{:?}", wb.traffic().entries(Some("remote")));
    for t in [&first.access_token, &wider.access_token] {
        assert!(!log.contains(t.as_str()), "a token in the traffic log");
    }
    workbench_core::auth::tokens::forget(&kc, "remote/").unwrap();
    wb.shutdown().await;
}

/// A server that only wants a sign-in is not a crash: it is failed with the
/// code `sign_in` (the window shows "needs sign-in", the doctor switches on
/// it) and waits for a sign-in instead of retrying into the same refusal.
#[tokio::test]
async fn a_server_that_needs_sign_in_says_so_by_code_and_is_not_retried() {
    let demo = super::http_demo(&["--oauth"]).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = super::config(
        dir.path(),
        &[("remote".into(), json!({ "type": "http", "url": demo.url }))],
    );
    let wb = super::Workbench::start(&cfg, super::fast());
    let handle = wb.server("remote").unwrap();
    let mut status = handle.watch_status();
    let failed = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            if let ServerState::Failed { code, reason, .. } = &status.borrow().state {
                return (*code, reason.clone());
            }
            status.changed().await.unwrap();
        }
    })
    .await
    .expect("it fails");
    assert_eq!(failed.0, FailureCode::SignIn, "{}", failed.1);
    assert!(failed.1.contains("sign in"), "{}", failed.1);
    // Past several restart delays (200 ms doubling, at most 2 s): still
    // waiting for the sign-in, never restarting.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(
        matches!(
            handle.status().state,
            ServerState::Failed {
                code: FailureCode::SignIn,
                ..
            }
        ),
        "{:?}",
        handle.status().state
    );
    wb.shutdown().await;
}
