//! A stand-in for the MCP Registry: the v0.1 read API over real loopback
//! HTTP, answered from fixture files (`crates/testkit/registry/*.json`,
//! each a `ServerResponse` written from the published schema and the API's
//! documentation). `GET /v0.1/servers` with `search` (name or description),
//! `version=latest`, `limit` and an opaque `cursor` (`metadata.nextCursor`,
//! absent on the last page), deleted versions left out unless
//! `include_deleted=true`; `/v0.1/servers/{name}/versions` newest first;
//! `/v0.1/servers/{name}/versions/{version|latest}`; a 404 otherwise.
//! Files under the folder's `files/` are served at `/files/NAME` (a
//! bundle a registry entry points to). The folder is read at each request,
//! so a test may add an entry that names the stand-in's own address.
//! It counts the requests it answered. Binds 127.0.0.1 only.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Json;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_util::sync::{CancellationToken, DropGuard};

/// The fixtures shipped with the test kit.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("registry")
}

struct Shared {
    dir: PathBuf,
    requests: AtomicUsize,
}

impl Shared {
    /// Every version, as `ServerResponse`s: by name, then newest first (the
    /// fixtures' versions compare as text within a name: they are written so).
    fn all(&self) -> Vec<Value> {
        let mut all: Vec<Value> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .filter_map(|p| serde_json::from_slice(&std::fs::read(p).ok()?).ok())
            .collect();
        all.sort_by(|a, b| {
            text(a, "/server/name")
                .cmp(text(b, "/server/name"))
                .then(text(b, "/server/version").cmp(text(a, "/server/version")))
        });
        all
    }
}

/// A running stand-in; dropping it stops it.
pub struct StandIn {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    _stop: DropGuard,
}

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn status(v: &Value) -> &str {
    v.get("_meta")
        .and_then(|m| m.get("io.modelcontextprotocol.registry/official"))
        .and_then(|m| m.get("status"))
        .and_then(Value::as_str)
        .unwrap_or("active")
}

fn is_latest(v: &Value) -> bool {
    v.pointer("/_meta/io.modelcontextprotocol.registry~1official/isLatest")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

impl StandIn {
    /// Serve the `ServerResponse` files of `dir`.
    pub async fn start(dir: &Path) -> std::io::Result<StandIn> {
        let shared = Arc::new(Shared {
            dir: dir.to_path_buf(),
            requests: AtomicUsize::new(0),
        });
        let app = axum::Router::new()
            .route("/v0.1/servers", axum::routing::get(list))
            .route(
                "/v0.1/servers/{name}/versions",
                axum::routing::get(versions),
            )
            .route(
                "/v0.1/servers/{name}/versions/{version}",
                axum::routing::get(one),
            )
            .route("/files/{name}", axum::routing::get(file))
            .fallback(|| async { not_found("no such endpoint") })
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let stop = CancellationToken::new();
        let until = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(until.cancelled_owned())
                .await;
        });
        Ok(StandIn {
            addr,
            shared,
            _stop: stop.drop_guard(),
        })
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// How many requests it answered.
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }
}

fn not_found(detail: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({ "title": "Not Found", "status": 404, "detail": detail })),
    )
        .into_response()
}

async fn list(
    State(shared): State<Arc<Shared>>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Response {
    shared.requests.fetch_add(1, Ordering::SeqCst);
    let search = q.get("search").map(|s| s.to_lowercase());
    let latest = q.get("version").map(String::as_str) == Some("latest");
    let deleted = q.get("include_deleted").map(String::as_str) == Some("true");
    let limit: usize = q
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let all = shared.all();
    let matching: Vec<&Value> = all
        .iter()
        .filter(|v| deleted || status(v) != "deleted")
        .filter(|v| !latest || is_latest(v))
        .filter(|v| {
            search.as_deref().is_none_or(|s| {
                text(v, "/server/name").to_lowercase().contains(s)
                    || text(v, "/server/description").to_lowercase().contains(s)
            })
        })
        .collect();
    // The cursor is opaque to clients: here, the name and version last given.
    let key = |v: &Value| format!("{}:{}", text(v, "/server/name"), text(v, "/server/version"));
    let start = match q.get("cursor") {
        Some(c) => match matching.iter().position(|v| key(v) == *c) {
            Some(at) => at + 1,
            None => {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({ "title": "Bad Request", "status": 400, "detail": "invalid cursor" })),
                )
                    .into_response();
            }
        },
        None => 0,
    };
    let page: Vec<Value> = matching[start..]
        .iter()
        .take(limit)
        .map(|v| (*v).clone())
        .collect();
    let mut metadata = json!({ "count": page.len() });
    if start + page.len() < matching.len()
        && let Some(last) = page.last()
    {
        metadata["nextCursor"] = json!(key(last));
    }
    Json(json!({ "servers": page, "metadata": metadata })).into_response()
}

async fn versions(State(shared): State<Arc<Shared>>, UrlPath(name): UrlPath<String>) -> Response {
    shared.requests.fetch_add(1, Ordering::SeqCst);
    let found: Vec<Value> = shared
        .all()
        .into_iter()
        .filter(|v| text(v, "/server/name") == name)
        .collect();
    if found.is_empty() {
        return not_found("Server not found");
    }
    let count = found.len();
    Json(json!({ "servers": found, "metadata": { "count": count } })).into_response()
}

async fn one(
    State(shared): State<Arc<Shared>>,
    UrlPath((name, version)): UrlPath<(String, String)>,
) -> Response {
    shared.requests.fetch_add(1, Ordering::SeqCst);
    let all = shared.all();
    let found = all.iter().find(|v| {
        text(v, "/server/name") == name
            && if version == "latest" {
                is_latest(v)
            } else {
                text(v, "/server/version") == version
            }
    });
    match found {
        Some(v) => Json(v.clone()).into_response(),
        None => not_found("Server not found"),
    }
}

async fn file(State(shared): State<Arc<Shared>>, UrlPath(name): UrlPath<String>) -> Response {
    shared.requests.fetch_add(1, Ordering::SeqCst);
    if name.contains('/') || name.starts_with('.') {
        return not_found("no such file");
    }
    match std::fs::read(shared.dir.join("files").join(&name)) {
        Ok(bytes) => bytes.into_response(),
        Err(_) => not_found("no such file"),
    }
}
