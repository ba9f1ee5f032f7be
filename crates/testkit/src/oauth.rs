//! The demo server's `--oauth` mode: it is its own authorization server
//! (Protected Resource Metadata, RFC 8414 metadata, dynamic registration,
//! an authorization endpoint that signs in at once and redirects back with
//! `iss`, a token endpoint checking PKCE S256, refresh with rotation) and
//! its MCP endpoint takes only the access tokens it issued.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

#[derive(Default)]
struct Inner {
    /// code → (PKCE challenge, scope asked)
    codes: HashMap<String, (String, String)>,
    access: HashSet<String>,
    /// access token → the scope it was granted
    granted: HashMap<String, String>,
    refresh: HashSet<String>,
    n: u64,
}

/// The tokens issued so far; shared by the routes and the MCP gate.
#[derive(Clone, Default)]
pub struct Issued(Arc<Mutex<Inner>>);

impl Issued {
    pub fn accepts(&self, token: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .access
            .contains(token)
    }

    /// Whether `token` was granted `scope`.
    pub fn has_scope(&self, token: &str, scope: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .granted
            .get(token)
            .is_some_and(|g| g.split_whitespace().any(|s| s == scope))
    }

    fn fresh(&self, scope: &str) -> serde_json::Value {
        let mut i = self.0.lock().unwrap_or_else(|e| e.into_inner());
        i.n += 1;
        let (at, rt) = (format!("demo-at-{}", i.n), format!("demo-rt-{}", i.n));
        i.access.insert(at.clone());
        i.refresh.insert(format!("{rt} {scope}"));
        i.granted.insert(at.clone(), scope.to_string());
        json!({ "access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": 3600, "scope": scope })
    }
}

/// This server's base URL as the client addressed it.
pub fn base(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("127.0.0.1");
    format!("http://{host}")
}

/// The 403 that asks for a wider grant (step-up).
pub fn insufficient(headers: &HeaderMap, scope: &str) -> Response {
    let base = base(headers);
    (
        StatusCode::FORBIDDEN,
        [(
            header::WWW_AUTHENTICATE,
            format!(
                r#"Bearer error="insufficient_scope", scope="{scope}", resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
            ),
        )],
        "this needs a wider grant",
    )
        .into_response()
}

/// The 401 that starts a sign-in.
pub fn challenge(headers: &HeaderMap) -> Response {
    let base = base(headers);
    (
        StatusCode::UNAUTHORIZED,
        [(
            header::WWW_AUTHENTICATE,
            format!(
                r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
            ),
        )],
        "sign in first",
    )
        .into_response()
}

fn s256(verifier: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()))
}

pub fn routes(issued: Issued) -> axum::Router {
    axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(|h: HeaderMap| async move {
                let base = base(&h);
                axum::Json(
                    json!({ "resource": format!("{base}/mcp"), "authorization_servers": [base], "scopes_supported": ["demo:read"] }),
                )
            }),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(|h: HeaderMap| async move {
                let base = base(&h);
                axum::Json(json!({
                    "issuer": base,
                    "authorization_endpoint": format!("{base}/authorize"),
                    "token_endpoint": format!("{base}/token"),
                    "registration_endpoint": format!("{base}/register"),
                    "code_challenge_methods_supported": ["S256"],
                    "authorization_response_iss_parameter_supported": true,
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"]
                }))
            }),
        )
        .route(
            "/register",
            post(|| async {
                (
                    StatusCode::CREATED,
                    axum::Json(json!({ "client_id": "demo-client" })),
                )
            }),
        )
        .route(
            "/authorize",
            get(
                |State(issued): State<Issued>,
                 h: HeaderMap,
                 Query(q): Query<HashMap<String, String>>| async move {
                    let (Some(to), Some(state), Some(challenge)) = (
                        q.get("redirect_uri"),
                        q.get("state"),
                        q.get("code_challenge"),
                    ) else {
                        return (
                            StatusCode::BAD_REQUEST,
                            "redirect_uri, state and code_challenge are required",
                        )
                            .into_response();
                    };
                    let code = {
                        let mut i = issued.0.lock().unwrap_or_else(|e| e.into_inner());
                        i.n += 1;
                        let code = format!("demo-code-{}", i.n);
                        let scope = q.get("scope").cloned().unwrap_or_default();
                        i.codes.insert(code.clone(), (challenge.clone(), scope));
                        code
                    };
                    let enc = |s: &str| url_encode(s);
                    let location = format!(
                        "{to}?code={code}&state={}&iss={}",
                        enc(state),
                        enc(&base(&h))
                    );
                    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
                },
            ),
        )
        .route(
            "/token",
            post(
                |State(issued): State<Issued>, Form(f): Form<HashMap<String, String>>| async move {
                    let bad = |why: &str| {
                        (
                            StatusCode::BAD_REQUEST,
                            axum::Json(
                                json!({ "error": "invalid_grant", "error_description": why }),
                            ),
                        )
                            .into_response()
                    };
                    match f.get("grant_type").map(String::as_str) {
                        Some("authorization_code") => {
                            let challenge = issued
                                .0
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .codes
                                .remove(f.get("code").map(String::as_str).unwrap_or(""));
                            match (challenge, f.get("code_verifier")) {
                                (Some((c, scope)), Some(v)) if c == s256(v) => {
                                    axum::Json(issued.fresh(&scope)).into_response()
                                }
                                _ => bad("unknown code or PKCE verification failed"),
                            }
                        }
                        Some("refresh_token") => {
                            // Kept as "token scope": a refresh keeps the grant.
                            let given = f.get("refresh_token").map(String::as_str).unwrap_or("");
                            let known = {
                                let mut i = issued.0.lock().unwrap_or_else(|e| e.into_inner());
                                let found = i
                                    .refresh
                                    .iter()
                                    .find(|k| k.split(' ').next() == Some(given))
                                    .cloned();
                                found.inspect(|k| {
                                    i.refresh.remove(k);
                                })
                            };
                            match known {
                                Some(k) => {
                                    let scope = k.split_once(' ').map(|(_, s)| s).unwrap_or("");
                                    axum::Json(issued.fresh(scope)).into_response()
                                }
                                None => bad("unknown refresh token"),
                            }
                        }
                        _ => bad("unsupported grant_type"),
                    }
                },
            ),
        )
        .with_state(issued)
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
