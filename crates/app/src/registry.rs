//! Servers from the MCP Registry: search it, look at one (its versions, the
//! ways it runs, the entry it would become and what that entry will ask),
//! and add one to the person's mcp.json (or, in its shape, a host's own
//! file: each value given then, a secret as text only with the person's
//! word, VS Code's kept as its inputs). Adding is the person's own act:
//! the entry is written as shown (version pinned, the inputs it asks for
//! declared — secrets answered into the keychain, never the file), trusted
//! as written, and starts. What the server's publisher wrote (post-install
//! steps, a `runtimeHint`) is shown, never run: the mapping refuses a
//! launcher it does not know.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use workbench_core::config::Error;
pub use workbench_core::config::Scope;
pub use workbench_core::config::dialects::registry::Pick;
use workbench_core::config::dialects::registry::{import_pick, ways};
use workbench_core::config::edit::EditOp;
use workbench_core::settings::SettingsFile;
use workbench_core::{ErrorCode, ErrorInfo};
pub use workbench_registry::{Cached, Listed, OFFICIAL, Page, Query, Registry, Status};

use crate::config::Place;

mod answers;
mod host;
use answers::{answers, with_defaults};
pub(crate) use host::fill;

/// The registry to read: the one given, else `$MCPWB_REGISTRY`, else the
/// settings file's `"registry"`, else the official one. Its answers are
/// cached in the data folder.
pub fn open(given: Option<&str>, refresh: bool) -> Result<Registry, ErrorInfo> {
    let settings = SettingsFile::new(workbench_core::settings::default_path());
    open_with(given, &settings, refresh)
}

/// [`open`] with the settings file given.
pub fn open_with(
    given: Option<&str>,
    settings: &SettingsFile,
    refresh: bool,
) -> Result<Registry, ErrorInfo> {
    let base = given
        .map(str::to_string)
        .or_else(|| std::env::var("MCPWB_REGISTRY").ok())
        .or_else(|| {
            settings
                .section::<Option<String>>("registry")
                .ok()
                .flatten()
        })
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| OFFICIAL.to_string());
    let cache = workbench_core::paths::data_dir().join("registry-cache");
    let registry = Registry::open(&base, Some(cache))?;
    Ok(if refresh {
        registry.refreshed()
    } else {
        registry
    })
}

/// A server's version as the window and `--json` show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryServer {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    pub description: String,
    /// Deprecated by its publisher (deleted ones are never shown).
    pub deprecated: bool,
    /// Why, as the publisher said.
    pub status_message: Option<String>,
    pub published_at: Option<String>,
    pub is_latest: bool,
    pub website_url: Option<String>,
    pub repository: Option<String>,
}

impl From<&Listed> for RegistryServer {
    fn from(l: &Listed) -> Self {
        let text = |p: &str| {
            l.server
                .pointer(p)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        RegistryServer {
            name: l.name.clone(),
            version: l.version.clone(),
            title: l.title.clone(),
            description: l.description.clone(),
            deprecated: l.status == Status::Deprecated,
            status_message: l.status_message.clone(),
            published_at: l.published_at.clone(),
            is_latest: l.is_latest,
            website_url: text("/websiteUrl"),
            repository: text("/repository/url"),
        }
    }
}

/// A page of a search.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryPage {
    /// The registry read.
    pub base: String,
    pub servers: Vec<RegistryServer>,
    pub next_cursor: Option<String>,
    /// The registry could not be reached: this is its last answer, this
    /// many minutes old.
    pub stale_minutes: Option<u32>,
}

/// A page of servers (each one's latest unless `all_versions`).
pub async fn search(registry: &Registry, query: &Query) -> Result<RegistryPage, ErrorInfo> {
    let page = registry.search(query).await?;
    Ok(RegistryPage {
        base: registry.base(),
        servers: page.servers.iter().map(RegistryServer::from).collect(),
        next_cursor: page.next_cursor,
        stale_minutes: stale(page.cached),
    })
}

/// Every version of server `name`, newest first.
pub async fn versions(registry: &Registry, name: &str) -> Result<RegistryPage, ErrorInfo> {
    let (versions, cached) = registry.versions(name).await?;
    Ok(RegistryPage {
        base: registry.base(),
        servers: versions.iter().map(RegistryServer::from).collect(),
        next_cursor: None,
        stale_minutes: stale(cached),
    })
}

fn stale(cached: Option<Cached>) -> Option<u32> {
    cached
        .filter(|c| c.stale)
        .map(|c| u32::try_from(c.age_secs / 60).unwrap_or(u32::MAX))
}

/// One version of a server, as it would be added.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryShown {
    pub server: RegistryServer,
    /// Its `server.json` as the registry has it.
    pub document: Value,
    /// The packages it ships as (`npm @scope/pkg 1.2.0`), in order.
    pub packages: Vec<String>,
    /// The remotes it serves at (`streamable-http https://…`), in order.
    pub remotes: Vec<String>,
    /// The way chosen and the entry it becomes (None: it cannot be run from
    /// an mcp.json entry, and why is in `refusal`).
    pub preview: Option<RegistryPreview>,
    pub refusal: Option<String>,
    pub stale_minutes: Option<u32>,
}

/// The entry a server.json becomes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryPreview {
    /// The name it gets in mcp.json.
    pub name: String,
    pub entry: Map<String, Value>,
    /// What the person will be asked for (`${input:…}` declarations).
    pub inputs: Vec<Value>,
    /// What was left out, written as plain text, or is to be done by hand.
    pub notes: Vec<String>,
    /// The inputs whose value is a file path (a picker beside them).
    pub path_inputs: Vec<String>,
    /// What the entry and its inputs are, in short: the window sends it
    /// back when the person adds, and an entry the registry now makes
    /// otherwise is not added unseen.
    pub fingerprint: String,
}

/// What the entry of `listed` would be, run the way `pick` says.
pub fn preview(listed: &Listed, pick: Pick) -> Result<RegistryPreview, ErrorInfo> {
    let mut imported = import_pick(&listed.server, pick).map_err(|e| {
        ErrorInfo::new(
            ErrorCode::Invalid,
            format!("{} {}: {}", listed.name, listed.version, plain(&e)),
        )
    })?;
    let (name, entry) = imported.servers.remove(0);
    let fingerprint = crate::fingerprint(&(&name, &entry, &imported.inputs));
    Ok(RegistryPreview {
        name,
        entry,
        inputs: imported.inputs,
        notes: imported.notes,
        path_inputs: imported.path_inputs,
        fingerprint,
    })
}

fn plain(e: &Error) -> String {
    e.to_string()
}

/// A version of server `name` (None: its latest) with the entry it would be.
pub async fn show(
    registry: &Registry,
    name: &str,
    version: Option<&str>,
    pick: Pick,
) -> Result<RegistryShown, ErrorInfo> {
    let (listed, cached) = registry.version(name, version).await?;
    let (packages, remotes) = ways(&listed.server);
    let (preview, refusal) = match preview(&listed, pick) {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e.message)),
    };
    Ok(RegistryShown {
        server: RegistryServer::from(&listed),
        document: listed.server,
        packages,
        remotes,
        preview,
        refusal,
        stale_minutes: stale(cached),
    })
}

/// What adding wrote.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryAdded {
    pub name: String,
    pub file: String,
    pub version: String,
    /// The inputs the entry asks for that have no answer yet: it starts once
    /// they are given (the window asks; `mcpwb config input ID`).
    pub inputs: Vec<Value>,
    pub notes: Vec<String>,
}

/// Add version `version` (None: the latest) of server `name` to the
/// person's file of `scope`, as `as_name` (None: its short name), run the
/// way `pick` says. Refused when the name is taken, or the version is
/// deprecated unless `deprecated_ok`.
pub async fn add(
    place: &Place,
    registry: &Registry,
    request: AddRequest<'_>,
) -> Result<RegistryAdded, ErrorInfo> {
    let (listed, _) = registry.version(request.name, request.version).await?;
    // What the person saw is what is added: an answer of the registry that
    // now makes another entry (a republished version, a cache that aged
    // out) is shown again first.
    if let Some(seen) = request.shown
        && preview(&listed, request.pick)
            .map(|p| p.fingerprint)
            .ok()
            .as_deref()
            != Some(seen)
    {
        return Err(ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "what the registry says of {} {} changed since it was shown: nothing was added. Look at it again",
                listed.name, listed.version
            ),
        ));
    }
    if listed.status == Status::Deprecated && !request.deprecated_ok {
        return Err(ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "{} {} is deprecated{}: add it anyway with --deprecated, or pick another version",
                listed.name,
                listed.version,
                listed
                    .status_message
                    .as_deref()
                    .map(|m| format!(" (\"{m}\")"))
                    .unwrap_or_default()
            ),
        ));
    }
    if let Some(host) = request.host {
        if bundle_package(&listed.server, request.pick).is_some() {
            return Err(crate::invalid(
                "a bundle is unpacked into the workbench's data folder: add it to the workbench's file, not a host's",
            ));
        }
        return host::add(&listed, host, &request);
    }
    if let Some(package) = bundle_package(&listed.server, request.pick) {
        return add_bundle(place, &listed, &package, request).await;
    }
    let mut preview = preview(&listed, request.pick)?;
    // The inputs' ids are made from the name server.json gives (an
    // answer may name one by what server.json calls it).
    let named = preview.name.clone();
    if let Some(n) = request.as_name {
        preview.name = n.to_string();
    }
    let file = place.file_for(request.scope)?;
    let taken = place
        .load()
        .map(|c| c.servers.iter().any(|s| s.name == preview.name))
        .unwrap_or(false);
    if taken {
        return Err(ErrorInfo::new(
            ErrorCode::Invalid,
            format!(
                "a server named \"{}\" already exists: give it another name (--as NAME)",
                preview.name
            ),
        ));
    }
    // Everything checked before anything is written.
    let answers = with_defaults(
        &preview.inputs,
        answers(&preview.inputs, request.answers, &named)?,
    );
    // Said: a value taken from its default (changed with `mcpwb config
    // input ID`, or in the window).
    let defaults: Vec<String> = answers
        .iter()
        .filter(|a| a.by_default)
        .map(|a| {
            let (id, value) = (a.id, a.value);
            format!("{id} is {value}, its default (change it: mcpwb config input {id})")
        })
        .collect();
    for decl in &preview.inputs {
        place.edit_in(&file, &EditOp::AddInput { decl: decl.clone() })?;
    }
    place.add_to(&file, &preview.name, preview.entry.clone())?;
    for a in answers {
        place.provide_input(a.id, a.value, std::slice::from_ref(&preview.name))?;
    }
    let needed: Vec<String> = place
        .needed_inputs()
        .into_iter()
        .filter(|n| n.servers.contains(&preview.name))
        .map(|n| n.id)
        .collect();
    Ok(RegistryAdded {
        name: preview.name,
        file: file.display().to_string(),
        version: listed.version,
        inputs: preview
            .inputs
            .into_iter()
            .filter(|i| {
                i.get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| needed.iter().any(|n| n == id))
            })
            .collect(),
        notes: preview.notes.into_iter().chain(defaults).collect(),
    })
}

/// The package `pick` names when it is an MCP bundle.
fn bundle_package(server: &Value, pick: Pick) -> Option<Value> {
    let packages = server.get("packages").and_then(Value::as_array)?;
    let package = match pick {
        Pick::First => packages.first(),
        Pick::Package(i) => packages.get(i),
        Pick::Remote(_) => None,
    }?;
    (package.get("registryType").and_then(Value::as_str) == Some("mcpb")).then(|| package.clone())
}

/// A registry `mcpb` package: downloaded, its `fileSha256` checked (none:
/// refused, nothing could be checked), installed as a bundle with the
/// answers as its `user_config` (KEY, value).
async fn add_bundle(
    place: &Place,
    listed: &Listed,
    package: &Value,
    request: AddRequest<'_>,
) -> Result<RegistryAdded, ErrorInfo> {
    let url = package
        .get("identifier")
        .and_then(Value::as_str)
        .ok_or_else(|| crate::invalid("the bundle package has no identifier (its URL)"))?;
    let sha = package
        .get("fileSha256")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::Refused,
                format!("{} {}'s bundle has no fileSha256: what is downloaded could not be checked, so it is not installed", listed.name, listed.version),
            )
        })?;
    if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "{}'s fileSha256 is not a SHA-256 (64 hex digits): not installed",
                listed.name
            ),
        ));
    }
    let dest = workbench_core::paths::data_dir()
        .join("downloads")
        .join(format!("{sha}.mcpb"));
    workbench_registry::bundle::download(url, &dest).await?;
    let installed = crate::bundle::install(
        place,
        crate::bundle::Install {
            path: &dest,
            sha256: Some(sha),
            shown: None,
            as_name: request.as_name,
            answers: request.answers,
            scope: request.scope,
        },
    );
    let _ = std::fs::remove_file(&dest);
    let installed = installed?;
    Ok(RegistryAdded {
        name: installed.name,
        file: installed.file,
        version: listed.version.clone(),
        inputs: Vec::new(),
        notes: vec![format!(
            "installed the bundle from {url} into {} (its SHA-256 checked); publisher: {}, not verified",
            installed.folder, installed.shown.author
        )],
    })
}

/// What to add.
#[derive(Debug, Clone, Copy)]
pub struct AddRequest<'a> {
    pub name: &'a str,
    pub version: Option<&'a str>,
    pub pick: Pick,
    pub as_name: Option<&'a str>,
    pub scope: Scope,
    pub deprecated_ok: bool,
    /// Values given now for the inputs it asks for (`id`, value): kept in
    /// the keychain, as the window's and `mcpwb config input` would.
    pub answers: &'a [(String, String)],
    /// Write it into this host's config file instead (Claude Desktop's,
    /// VS Code's, …), in that host's dialect; `scope` is then unused.
    pub host: Option<&'a Path>,
    /// The person agreed that a secret goes into the host's file as plain
    /// text (a host with no store of its own for it).
    pub plain_text_ok: bool,
    /// The fingerprint of the entry as shown to the person (the window):
    /// refused when the registry's answer now makes another.
    pub shown: Option<&'a str>,
}

/// The way a package (from 0) or remote (from 0) names; neither: the first
/// package, else the first remote.
pub fn pick(package: Option<usize>, remote: Option<usize>) -> Pick {
    match (package, remote) {
        (Some(n), _) => Pick::Package(n),
        (_, Some(n)) => Pick::Remote(n),
        _ => Pick::First,
    }
}

/// What the window asks to add (`AddRequest`, owned, as it comes over IPC).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryAdd {
    pub name: String,
    pub version: Option<String>,
    /// Run it from this package (from 0).
    pub package: Option<u32>,
    /// Connect to this remote (from 0). Neither given: its first package,
    /// else its first remote.
    pub remote: Option<u32>,
    pub as_name: Option<String>,
    pub scope: Scope,
    pub deprecated_ok: bool,
    /// (input id, value) pairs given now.
    pub answers: Vec<(String, String)>,
    /// A host's config file to write it into instead of the workbench's.
    #[serde(default)]
    pub host: Option<String>,
    /// The person agreed to a secret written into that file as plain text.
    #[serde(default)]
    pub plain_text_ok: bool,
    /// The fingerprint of the entry as it was shown.
    #[serde(default)]
    pub shown: Option<String>,
}

impl RegistryAdd {
    /// The way it picked.
    pub fn pick(&self) -> Pick {
        pick(
            self.package.map(|n| n as usize),
            self.remote.map(|n| n as usize),
        )
    }

    /// As an [`AddRequest`].
    pub fn request(&self) -> AddRequest<'_> {
        AddRequest {
            name: &self.name,
            version: self.version.as_deref(),
            pick: self.pick(),
            as_name: self.as_name.as_deref(),
            scope: self.scope,
            deprecated_ok: self.deprecated_ok,
            answers: &self.answers,
            host: self.host.as_deref().map(Path::new),
            plain_text_ok: self.plain_text_ok,
            shown: self.shown.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests;
