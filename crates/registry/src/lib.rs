//! workbench-registry: reading an MCP Registry — the official one
//! (`https://registry.modelcontextprotocol.io`), an organisation's
//! sub-registry speaking the same v0.1 API, or a folder of `server.json`
//! files (`file:/path`, what a team keeps in a repository).
//!
//! Search (`search`, `version=latest`, cursor paging), a server's versions
//! and one version. Deleted entries are never listed; deprecated ones are
//! listed with their status and message. Answers are kept in a cache
//! folder: fresh for a few minutes, and the last answer is used (said) when
//! the registry cannot be reached — the registry promises no uptime.

#![forbid(unsafe_code)]

pub mod bundle;
mod cache;
mod folder;
pub mod signature;

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use workbench_codes::reach::Unreached;
use workbench_codes::{ErrorCode, ErrorInfo};

/// The official registry.
pub const OFFICIAL: &str = "https://registry.modelcontextprotocol.io";

/// The key of the registry's own metadata beside each server.
const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// A version's status in the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    Deprecated,
    Deleted,
}

/// One version of a server as the registry lists it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    pub description: String,
    pub status: Status,
    /// Why it was deprecated or deleted, as the publisher said.
    pub status_message: Option<String>,
    pub published_at: Option<String>,
    pub is_latest: bool,
    /// The `server.json` itself.
    pub server: Value,
}

impl Listed {
    /// From a `ServerResponse` (`{server, _meta}`) or a bare `server.json`.
    pub fn from_response(v: &Value) -> Option<Listed> {
        let (server, meta) = match v.get("server") {
            Some(s) if s.is_object() => (s, v.pointer("/_meta").and_then(|m| m.get(OFFICIAL_META))),
            _ => (v, None),
        };
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let name = text(server.get("name"))?;
        let version = text(server.get("version"))?;
        let status = match meta.and_then(|m| m.get("status")).and_then(Value::as_str) {
            Some("deprecated") => Status::Deprecated,
            Some("deleted") => Status::Deleted,
            _ => Status::Active,
        };
        Some(Listed {
            name,
            version,
            title: text(server.get("title")),
            description: text(server.get("description")).unwrap_or_default(),
            status,
            status_message: text(meta.and_then(|m| m.get("statusMessage")))
                .filter(|m| !m.is_empty()),
            published_at: text(meta.and_then(|m| m.get("publishedAt"))),
            is_latest: meta
                .and_then(|m| m.get("isLatest"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            server: server.clone(),
        })
    }
}

/// An answer taken from the cache, and how old it was.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cached {
    pub age_secs: u64,
    /// The registry could not be reached: this is the last answer it gave.
    pub stale: bool,
}

/// A page of a search.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub servers: Vec<Listed>,
    /// Give it back to get the next page (None: the last page).
    pub next_cursor: Option<String>,
    /// Deleted entries left out of this page.
    pub hidden: usize,
    pub cached: Option<Cached>,
}

/// What to search for.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Part of a name or a description (None: every server).
    pub search: Option<String>,
    /// Where the page starts (a page's `next_cursor`).
    pub cursor: Option<String>,
    /// At most this many a page (the registry may give fewer).
    pub limit: Option<u32>,
    /// Every version, not only each server's latest.
    pub all_versions: bool,
}

enum Source {
    /// The registry's address, without the API's version.
    Http(url::Url),
    Folder(PathBuf),
}

/// A registry to read.
pub struct Registry {
    source: Source,
    cache: Option<PathBuf>,
    /// How long an answer is used again without asking.
    fresh: Duration,
    http: reqwest::Client,
}

/// How long an answer is fresh by default.
pub const FRESH: Duration = Duration::from_secs(300);

impl Registry {
    /// The registry at `base`: an `http(s)://` address (with or without its
    /// `/v0.1`) or `file:` and a folder of `server.json` files. Answers are
    /// kept in `cache` when given.
    pub fn open(base: &str, cache: Option<PathBuf>) -> Result<Registry, ErrorInfo> {
        let base = base.trim();
        let source = if let Some(path) = base.strip_prefix("file:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            Source::Folder(PathBuf::from(path))
        } else {
            let mut url = url::Url::parse(base).map_err(|e| {
                invalid(format!(
                    "the registry \"{base}\" is not an address ({e}): give https://… or file:/folder"
                ))
            })?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(invalid(format!(
                    "the registry \"{base}\" is neither http(s) nor file:"
                )));
            }
            let path = url.path().trim_end_matches('/');
            let path = path
                .strip_suffix("/v0.1")
                .or_else(|| path.strip_suffix("/v0"))
                .unwrap_or(path)
                .to_string();
            url.set_path(&path);
            url.set_query(None);
            Source::Http(url)
        };
        let http = workbench_http::builder()
            .timeout(Duration::from_secs(20))
            .user_agent(concat!("mcp-workbench/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| internal(format!("no HTTP client: {e}")))?;
        Ok(Registry {
            source,
            cache,
            fresh: FRESH,
            http,
        })
    }

    /// Ask the registry again whatever the cache holds.
    pub fn refreshed(mut self) -> Registry {
        self.fresh = Duration::ZERO;
        self
    }

    /// Where it reads, as the person gave it.
    pub fn base(&self) -> String {
        match &self.source {
            Source::Http(u) => u.as_str().trim_end_matches('/').to_string(),
            Source::Folder(p) => format!("file:{}", p.display()),
        }
    }

    /// A page of servers (each one's latest version unless `all_versions`).
    pub async fn search(&self, query: &Query) -> Result<Page, ErrorInfo> {
        let url = match &self.source {
            Source::Folder(dir) => return folder::Folder::read(dir)?.search(query),
            Source::Http(root) => {
                let mut url = api(root, &["servers"]);
                {
                    let mut q = url.query_pairs_mut();
                    if let Some(s) = query.search.as_deref().filter(|s| !s.is_empty()) {
                        q.append_pair("search", s);
                    }
                    if let Some(c) = &query.cursor {
                        q.append_pair("cursor", c);
                    }
                    if let Some(l) = query.limit {
                        q.append_pair("limit", &l.to_string());
                    }
                    if !query.all_versions {
                        q.append_pair("version", "latest");
                    }
                }
                url
            }
        };
        let (body, cached) = self.get(&url).await?;
        let (servers, hidden) = listed(&body, &url)?;
        let next_cursor = body
            .pointer("/metadata/nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        Ok(Page {
            servers,
            next_cursor,
            hidden,
            cached,
        })
    }

    /// Every version of server `name`, newest first (deleted ones left out).
    pub async fn versions(&self, name: &str) -> Result<(Vec<Listed>, Option<Cached>), ErrorInfo> {
        match &self.source {
            Source::Folder(dir) => Ok((folder::Folder::read(dir)?.versions(name)?, None)),
            Source::Http(root) => {
                let url = api(root, &["servers", name, "versions"]);
                let (body, cached) = self.get(&url).await.map_err(|e| unknown(e, name))?;
                let (servers, _) = listed(&body, &url)?;
                if servers.is_empty() {
                    return Err(not_found(name, None));
                }
                Ok((servers, cached))
            }
        }
    }

    /// One version of server `name` (None: its latest).
    pub async fn version(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<(Listed, Option<Cached>), ErrorInfo> {
        match &self.source {
            Source::Folder(dir) => Ok((folder::Folder::read(dir)?.version(name, version)?, None)),
            Source::Http(root) => {
                let url = api(
                    root,
                    &["servers", name, "versions", version.unwrap_or("latest")],
                );
                let (body, cached) = self.get(&url).await.map_err(|e| match e.code {
                    ErrorCode::NotFound => not_found(name, version),
                    _ => e,
                })?;
                let listed = Listed::from_response(&body).ok_or_else(|| {
                    invalid(format!(
                        "{url} did not answer with a server (name and version)"
                    ))
                })?;
                if listed.status == Status::Deleted {
                    return Err(ErrorInfo::new(
                        ErrorCode::NotFound,
                        format!(
                            "{name} {} was deleted from the registry{}",
                            listed.version,
                            said(&listed.status_message)
                        ),
                    ));
                }
                Ok((listed, cached))
            }
        }
    }

    async fn get(&self, url: &url::Url) -> Result<(Value, Option<Cached>), ErrorInfo> {
        let kept = self
            .cache
            .as_deref()
            .and_then(|dir| cache::read(dir, url.as_str()));
        if let Some((body, age)) = &kept
            && *age < self.fresh
        {
            return Ok((
                body.clone(),
                Some(Cached {
                    age_secs: age.as_secs(),
                    stale: false,
                }),
            ));
        }
        let asked = self
            .http
            .get(url.clone())
            .header("Accept", "application/json")
            .send()
            .await;
        let response = match asked {
            Ok(r) => r,
            Err(e) => {
                return match kept {
                    Some((body, age)) => Ok((
                        body,
                        Some(Cached {
                            age_secs: age.as_secs(),
                            stale: true,
                        }),
                    )),
                    None => {
                        // Why, in a person's words where they can be had (a
                        // name that does not resolve: this machine offline).
                        let why = match (url.host_str(), url.port_or_known_default()) {
                            (Some(host), Some(port)) => Unreached::of(&e).said(host, port),
                            _ => None,
                        };
                        let why = why.unwrap_or_else(|| format!("{}.", chain(&e)));
                        Err(ErrorInfo::new(
                            ErrorCode::Transport,
                            format!(
                                "cannot reach the registry at {}: {why} Check the network, or the address \
                                 (--registry, $MCPWB_REGISTRY, the settings file's \"registry\")",
                                &url[..url::Position::AfterPath]
                            ),
                        ))
                    }
                };
            }
        };
        let status = response.status();
        let text = response.text().await.map_err(|e| {
            ErrorInfo::new(
                ErrorCode::Transport,
                format!("the registry's answer to {url} broke off: {}", chain(&e)),
            )
        })?;
        if status == reqwest::StatusCode::NOT_FOUND {
            return Err(ErrorInfo::new(
                ErrorCode::NotFound,
                format!("{url}: not found"),
            ));
        }
        if !status.is_success() {
            let snippet: String = text.chars().take(200).collect();
            return Err(ErrorInfo::new(
                ErrorCode::Transport,
                format!("the registry answered {status} to {url}: {snippet}"),
            ));
        }
        let body: Value = serde_json::from_str(&text)
            .map_err(|e| invalid(format!("the registry's answer to {url} is not JSON: {e}")))?;
        if let Some(dir) = &self.cache {
            // A cache that cannot be written costs only the next request.
            let _ = cache::write(dir, url.as_str(), &body);
        }
        Ok((body, None))
    }
}

/// `{root}/v0.1/{segments…}`, each segment encoded whole (a name's `/`
/// and a version's `+` too, as the API asks).
fn api(root: &url::Url, segments: &[&str]) -> url::Url {
    let mut url = root.clone();
    let mut path = root.path().trim_end_matches('/').to_string();
    path.push_str("/v0.1");
    for s in segments {
        path.push('/');
        path.extend(url::form_urlencoded::byte_serialize(s.as_bytes()));
    }
    url.set_path(&path);
    url
}

/// The versions of a `ServerList`, deleted ones counted and left out.
fn listed(body: &Value, url: &url::Url) -> Result<(Vec<Listed>, usize), ErrorInfo> {
    let list = body
        .get("servers")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid(format!("{url} did not answer with a list of servers")))?;
    let all: Vec<Listed> = list.iter().filter_map(Listed::from_response).collect();
    let hidden = all.iter().filter(|l| l.status == Status::Deleted).count();
    Ok((
        all.into_iter()
            .filter(|l| l.status != Status::Deleted)
            .collect(),
        hidden,
    ))
}

fn said(message: &Option<String>) -> String {
    message
        .as_deref()
        .map(|m| format!(": \"{m}\""))
        .unwrap_or_default()
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn unknown(e: ErrorInfo, name: &str) -> ErrorInfo {
    match e.code {
        ErrorCode::NotFound => not_found(name, None),
        _ => e,
    }
}

pub(crate) fn not_found(name: &str, version: Option<&str>) -> ErrorInfo {
    ErrorInfo::new(
        ErrorCode::NotFound,
        match version {
            Some(v) => format!("the registry has no version {v} of {name}"),
            None => format!("the registry has no server named {name} (search for it first)"),
        },
    )
}

pub(crate) fn invalid(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Invalid, message)
}

fn internal(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Internal, message)
}

/// `a` newer than `b`, by their dotted numbers (then as text).
pub fn newer(a: &str, b: &str) -> bool {
    fn parts(v: &str) -> (Vec<u64>, bool, &str) {
        let (core, pre) = match v.split_once(['-', '+']) {
            Some((c, p)) => (c, p),
            None => (v, ""),
        };
        (
            core.split('.').map(|p| p.parse().unwrap_or(0)).collect(),
            pre.is_empty(),
            pre,
        )
    }
    let (an, a_release, ap) = parts(a);
    let (bn, b_release, bp) = parts(b);
    (an, a_release, ap) > (bn, b_release, bp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number_and_a_release_beats_its_prerelease() {
        assert!(newer("1.10.0", "1.9.3"));
        assert!(newer("2.0.0", "2.0.0-rc.1"));
        assert!(!newer("0.9", "0.10"));
    }

    #[test]
    fn an_address_with_its_api_version_reads_the_same_registry() {
        for base in [
            "https://r.example.org",
            "https://r.example.org/",
            "https://r.example.org/v0.1",
            "https://r.example.org/v0.1/",
        ] {
            let r = Registry::open(base, None).unwrap();
            assert_eq!(r.base(), "https://r.example.org", "{base}");
        }
        let Source::Http(root) = Registry::open("https://r.example.org/sub/v0", None)
            .unwrap()
            .source
        else {
            panic!()
        };
        assert_eq!(
            api(
                &root,
                &["servers", "io.github.a/b", "versions", "1.0.0+build"]
            )
            .as_str(),
            "https://r.example.org/sub/v0.1/servers/io.github.a%2Fb/versions/1.0.0%2Bbuild"
        );
        assert!(Registry::open("ftp://x", None).is_err());
        assert!(Registry::open("not a url", None).is_err());
    }
}
