//! MCP bundles (`.mcpb`) installed by the person: read and shown first
//! (what it runs, who says they published it, what its signature says of
//! that — `signed` —, what it asks for), then unpacked into the data folder, checked, and added as
//! the person's own entry (trusted as written: installing is their act),
//! its sensitive values answered into the keychain. Removed cleanly: the
//! entry, its secrets and its folder.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use workbench_core::config::Scope;
use workbench_core::config::edit::EditOp;
use workbench_core::{ErrorCode, ErrorInfo};
use workbench_doctor::finding::{Finding, Severity};
use workbench_registry::bundle::{self, Bundle};

use crate::config::Place;

mod signed;
pub use signed::{SignatureShown, SignatureStatus};

/// Where bundles are unpacked: one folder each, by the entry's name.
pub fn bundles_dir() -> PathBuf {
    workbench_core::paths::data_dir().join("bundles")
}

/// A value the bundle asks for.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleField {
    pub key: String,
    pub title: String,
    pub description: Option<String>,
    /// string, number, boolean, directory or file.
    pub kind: String,
    pub required: bool,
    pub sensitive: bool,
    pub multiple: bool,
    pub default: Option<Value>,
}

/// A bundle as read, before anything is written.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleShown {
    pub name: String,
    pub display_name: Option<String>,
    pub version: String,
    pub description: String,
    /// Who the manifest says published it: not verified.
    pub author: String,
    /// What its signature says: who signed, who vouches for them.
    pub signature: SignatureShown,
    pub sha256: String,
    pub server_type: String,
    pub fields: Vec<BundleField>,
    pub tools: Vec<String>,
}

fn shown(b: &Bundle) -> BundleShown {
    let m = &b.manifest;
    let text = |p: &str| m.pointer(p).and_then(Value::as_str).map(str::to_string);
    BundleShown {
        name: b.name().to_string(),
        display_name: text("/display_name"),
        version: b.version().to_string(),
        description: text("/description").unwrap_or_default(),
        author: text("/author/name").unwrap_or_else(|| "(no author named)".into()),
        signature: signed::shown(&b.signature),
        sha256: b.sha256.clone(),
        server_type: text("/server/type").unwrap_or_default(),
        fields: b
            .user_config()
            .into_iter()
            .map(|(key, d)| BundleField {
                title: d["title"].as_str().unwrap_or(&key).to_string(),
                description: d["description"].as_str().map(str::to_string),
                kind: d["type"].as_str().unwrap_or("string").to_string(),
                required: d["required"].as_bool().unwrap_or(false),
                sensitive: d["sensitive"].as_bool().unwrap_or(false),
                multiple: d["multiple"].as_bool().unwrap_or(false),
                default: d.get("default").cloned(),
                key,
            })
            .collect(),
        tools: m
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect(),
    }
}

/// Read the bundle at `path` and say what it is.
pub fn show(path: &Path) -> Result<BundleShown, ErrorInfo> {
    Ok(shown(&bundle::read(path)?))
}

/// What to install.
pub struct Install<'a> {
    pub path: &'a Path,
    /// The SHA-256 it must have (a registry's `fileSha256`).
    pub sha256: Option<&'a str>,
    /// The SHA-256 of the bundle as it was shown to the person (the
    /// window's install): a file changed since is not installed.
    pub shown: Option<&'a str>,
    /// The entry's name (default: the bundle's).
    pub as_name: Option<&'a str>,
    /// Its `user_config` answers (KEY, value); a `multiple` key repeated.
    pub answers: &'a [(String, String)],
    pub scope: Scope,
}

/// What installing did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Installed {
    pub name: String,
    pub folder: String,
    pub file: String,
    pub shown: BundleShown,
    /// The manifest's problems, as the publish check finds them.
    pub findings: Vec<Finding>,
}

fn entry_name(given: Option<&str>, bundle: &Bundle) -> String {
    workbench_core::config::dialects::registry::short_name(given.unwrap_or(bundle.name()))
}

/// Install a bundle: checked, unpacked, added, its secrets kept.
pub fn install(place: &Place, request: Install<'_>) -> Result<Installed, ErrorInfo> {
    let bundle = bundle::read(request.path)?;
    if let Some(want) = request.sha256
        && !want.trim().eq_ignore_ascii_case(&bundle.sha256)
    {
        return Err(ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "{} is not the file published: its SHA-256 is {}, the registry says {}",
                request.path.display(),
                bundle.sha256,
                want.trim()
            ),
        ));
    }
    if let Some(seen) = request.shown
        && !seen.trim().eq_ignore_ascii_case(&bundle.sha256)
    {
        return Err(ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "{} changed since it was shown: nothing was installed. Look at it again",
                request.path.display()
            ),
        ));
    }
    if let workbench_registry::signature::Signature::Broken(why) = &bundle.signature {
        return Err(ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "{} is not installed: its signature does not hold ({why}). Get the bundle again from its publisher",
                request.path.display()
            ),
        ));
    }
    let name = entry_name(request.as_name, &bundle);
    if place
        .load()
        .is_ok_and(|c| c.servers.iter().any(|s| s.name == name))
    {
        return Err(crate::invalid(format!(
            "a server named \"{name}\" already exists: give it another name (--as NAME)"
        )));
    }
    let folder = bundles_dir().join(&name);
    // The entry made before anything is written: a missing required
    // value refuses the install with nothing left behind.
    let unpacked = bundle::entry(&bundle.manifest, &folder, &name, request.answers)?;
    bundle::unpack(&bundle, &folder)?;
    let written = (|| {
        let file = place.file_for(request.scope)?;
        for decl in &unpacked.inputs {
            place.edit_in(&file, &EditOp::AddInput { decl: decl.clone() })?;
        }
        place.add_to(&file, &name, unpacked.entry.clone())?;
        for (id, value) in &unpacked.secrets {
            place.provide_input(id, value, std::slice::from_ref(&name))?;
        }
        Ok::<_, ErrorInfo>(file)
    })();
    let file = match written {
        Ok(f) => f,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&folder);
            return Err(e);
        }
    };
    let findings = workbench_doctor::publish::manifest::check(&folder, &bundle.manifest)
        .into_iter()
        .filter(|f| f.severity >= Severity::Warning)
        .collect();
    Ok(Installed {
        name,
        folder: folder.display().to_string(),
        file: file.display().to_string(),
        shown: shown(&bundle),
        findings,
    })
}

/// Remove the bundle installed as `name`: its entry (and the secrets it
/// owns) and its folder. Refused for an entry that is not a bundle's.
pub fn remove(place: &Place, name: &str) -> Result<String, ErrorInfo> {
    let entry = place.entry(name)?;
    let root = bundles_dir();
    // Only a folder the installer made: DATA/bundles/NAME, NAME a plain
    // name (an entry's `cwd` is text anyone's file can hold: never `..`).
    let folder = entry
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|p| {
            let mut parts = p.components();
            matches!(parts.next_back(), Some(std::path::Component::Normal(_)))
                && parts.as_path() == root.as_path()
        })
        .ok_or_else(|| {
            crate::invalid(format!(
                "{name} was not installed from a bundle: remove it with `mcpwb config remove {name}`"
            ))
        })?;
    let edited = place.edit(
        &EditOp::Remove {
            name: name.to_string(),
        },
        Scope::User,
    )?;
    // Never through a link planted where the folder was.
    if std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
        std::fs::remove_dir_all(&folder).map_err(|e| {
            crate::invalid(format!(
                "the entry is gone; its folder {} is not: {e}",
                folder.display()
            ))
        })?;
    } else if std::fs::symlink_metadata(&folder).is_ok() {
        let _ = std::fs::remove_file(&folder);
    }
    let mut said = format!("removed {name} and {}", folder.display());
    for left in edited.secrets_left {
        said.push_str(&format!("; {left}"));
    }
    Ok(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_takes_only_a_folder_the_installer_made() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let place = Place::with_settings(
            dir.path().join("mcp.json"),
            None,
            workbench_core::settings::SettingsFile::new(dir.path().join("settings.json")),
        );
        let root = bundles_dir();
        for cwd in [
            format!("{}/..", root.display()),
            format!("{}/.", root.display()),
            data.display().to_string(),
            "/".to_string(),
        ] {
            std::fs::write(
                &place.user,
                serde_json::json!({ "mcpServers": { "x": { "command": "x", "cwd": cwd } } })
                    .to_string(),
            )
            .unwrap();
            let refused = remove(&place, "x").unwrap_err();
            assert!(
                refused.message.contains("was not installed from a bundle"),
                "{cwd}: {refused:?}"
            );
        }
    }
}
