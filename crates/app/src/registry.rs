//! Servers from the MCP Registry: search it, look at one (its versions, the
//! ways it runs, the entry it would become and what that entry will ask),
//! and add one to the person's mcp.json. Adding is the person's own act:
//! the entry is written as shown (version pinned, the inputs it asks for
//! declared — secrets answered into the keychain, never the file), trusted
//! as written, and starts. What the server's publisher wrote (post-install
//! steps, a `runtimeHint`) is shown, never run: the mapping refuses a
//! launcher it does not know.

use std::path::PathBuf;

use serde::Serialize;
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

/// One version of a server, as it would be added.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    pub listed: Listed,
    /// The packages it ships as (`npm @scope/pkg 1.2.0`), in order.
    pub packages: Vec<String>,
    /// The remotes it serves at (`streamable-http https://…`), in order.
    pub remotes: Vec<String>,
    /// The way chosen and the entry it becomes (None: it cannot be run from
    /// an mcp.json entry, and why is in `refusal`).
    pub preview: Option<Preview>,
    pub refusal: Option<String>,
    pub cached: Option<Cached>,
}

/// The entry a server.json becomes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    /// The name it gets in mcp.json.
    pub name: String,
    pub entry: Map<String, Value>,
    /// What the person will be asked for (`${input:…}` declarations).
    pub inputs: Vec<Value>,
    /// What was left out, written as plain text, or is to be done by hand.
    pub notes: Vec<String>,
}

/// What the entry of `listed` would be, run the way `pick` says.
pub fn preview(listed: &Listed, pick: Pick) -> Result<Preview, ErrorInfo> {
    let mut imported = import_pick(&listed.server, pick).map_err(|e| {
        ErrorInfo::new(
            ErrorCode::Invalid,
            format!("{} {}: {}", listed.name, listed.version, plain(&e)),
        )
    })?;
    let (name, entry) = imported.servers.remove(0);
    Ok(Preview {
        name,
        entry,
        inputs: imported.inputs,
        notes: imported.notes,
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
) -> Result<Shown, ErrorInfo> {
    let (listed, cached) = registry.version(name, version).await?;
    let (packages, remotes) = ways(&listed.server);
    let (preview, refusal) = match preview(&listed, pick) {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e.message)),
    };
    Ok(Shown {
        listed,
        packages,
        remotes,
        preview,
        refusal,
        cached,
    })
}

/// What adding wrote.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Added {
    pub name: String,
    pub file: PathBuf,
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
) -> Result<Added, ErrorInfo> {
    let (listed, _) = registry.version(request.name, request.version).await?;
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
    let mut preview = preview(&listed, request.pick)?;
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
    let answers = answers(&preview.inputs, request.answers)?;
    for decl in &preview.inputs {
        place.edit_in(&file, &EditOp::AddInput { decl: decl.clone() })?;
    }
    place.add_to(&file, &preview.name, preview.entry.clone())?;
    for (id, value) in answers {
        place.provide_input(id, value, std::slice::from_ref(&preview.name))?;
    }
    let needed: Vec<String> = place
        .needed_inputs()
        .into_iter()
        .filter(|n| n.servers.contains(&preview.name))
        .map(|n| n.id)
        .collect();
    Ok(Added {
        name: preview.name,
        file,
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
        notes: preview.notes,
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
}

/// The answers checked against the inputs: each names one, a pick list's
/// value is one of its options.
fn answers<'a>(
    inputs: &[Value],
    given: &'a [(String, String)],
) -> Result<Vec<(&'a str, &'a str)>, ErrorInfo> {
    given
        .iter()
        .map(|(id, value)| {
            let decl = inputs
                .iter()
                .find(|i| i.get("id").and_then(Value::as_str) == Some(id.as_str()))
                .ok_or_else(|| {
                    let ids: Vec<&str> = inputs
                        .iter()
                        .filter_map(|i| i.get("id").and_then(Value::as_str))
                        .collect();
                    crate::invalid(format!(
                        "it asks for no input \"{id}\" (it asks for: {})",
                        if ids.is_empty() {
                            "nothing".into()
                        } else {
                            ids.join(", ")
                        }
                    ))
                })?;
            if let Some(options) = decl.get("options").and_then(Value::as_array)
                && !options.iter().any(|o| o.as_str() == Some(value.as_str()))
            {
                return Err(crate::invalid(format!(
                    "\"{value}\" is not one of {id}'s choices: {}",
                    options
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            Ok((id.as_str(), value.as_str()))
        })
        .collect()
}
