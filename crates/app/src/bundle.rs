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

/// The folder a bundle was unpacked into, as entry `entry`'s `cwd` names
/// it: a folder right under DATA/bundles (an entry's `cwd` is text anyone's
/// file can hold: never `..`, never the root itself).
fn unpacked_folder(entry: &serde_json::Map<String, Value>) -> Option<PathBuf> {
    let root = bundles_dir();
    entry
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|p| {
            let mut parts = p.components();
            matches!(parts.next_back(), Some(std::path::Component::Normal(_)))
                && parts.as_path() == root.as_path()
        })
}

/// The folder of entry `name` when the installer made it for that name
/// (DATA/bundles/NAME): what removing the entry takes with it.
pub(crate) fn folder_made_for(
    name: &str,
    entry: &serde_json::Map<String, Value>,
) -> Option<PathBuf> {
    unpacked_folder(entry).filter(|f| f.file_name() == Some(std::ffi::OsStr::new(name)))
}

/// Remove a bundle's unpacked `folder` once no entry of the person's files
/// runs in it (never through a link planted where it was). What could not
/// be removed, said.
pub(crate) fn let_go(place: &Place, folder: &Path) -> Option<String> {
    // Gone already (the edit let it go): nothing to read the files for.
    let meta = std::fs::symlink_metadata(folder).ok()?;
    let still_used = place.entries(None).ok().is_some_and(|entries| {
        entries
            .values()
            .any(|e| e.get("cwd").and_then(Value::as_str) == folder.to_str())
    });
    if still_used {
        return None;
    }
    let removed = if meta.is_dir() {
        std::fs::remove_dir_all(folder)
    } else {
        std::fs::remove_file(folder)
    };
    removed.err().map(|e| {
        format!(
            "the entry is gone; its bundle's folder {} is not: {e}",
            folder.display()
        )
    })
}

/// Remove the bundle installed as `name`: its entry (and the secrets it
/// owns) and its folder. Refused for an entry that is not a bundle's.
pub fn remove(place: &Place, name: &str) -> Result<String, ErrorInfo> {
    let entry = place.entry(name)?;
    let folder = unpacked_folder(&entry).ok_or_else(|| {
        crate::invalid(format!(
            "{name} was not installed from a bundle: remove it with `mcpwb config remove {name}`"
        ))
    })?;
    // The edit takes the folder made for this name; one the entry was
    // renamed from is let go here.
    let edited = place.edit(
        &EditOp::Remove {
            name: name.to_string(),
        },
        Scope::User,
    )?;
    let left: Vec<String> = edited
        .secrets_left
        .into_iter()
        .chain(let_go(place, &folder))
        .collect();
    let mut said = if std::fs::symlink_metadata(&folder).is_err() {
        format!("removed {name} and {}", folder.display())
    } else if left.is_empty() {
        format!(
            "removed {name}; {} stays: another entry runs in it",
            folder.display()
        )
    } else {
        format!("removed {name}")
    };
    for l in left {
        said.push_str(&format!("; {l}"));
    }
    Ok(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Removing a bundle's entry the way any entry is removed (the
    /// window's Remove, `mcpwb config remove`) takes its unpacked folder;
    /// a folder another entry still runs in stays, and so does one not
    /// made for that name.
    #[test]
    fn removing_a_bundles_entry_takes_its_folder_unless_another_runs_in_it() {
        // The bundles' folder is the data folder's: one made for the tests
        // (`cargo xtask test` gives each unit-test binary its own; by hand,
        // the binary's scratch folder: workbench_config::app::test_scratch).
        let data = workbench_core::paths::data_dir();
        assert!(
            std::env::var_os("MCPWB_DATA_DIR").is_some()
                || workbench_core::config::app::test_scratch().is_some_and(|s| data.starts_with(s)),
            "a test's data folder is never the person's: {}",
            data.display()
        );
        let dir = tempfile::tempdir().unwrap();
        let place = Place::with_settings(
            dir.path().join("mcp.json"),
            None,
            workbench_core::settings::SettingsFile::new(dir.path().join("settings.json")),
        );
        let root = bundles_dir();
        let made = |name: &str| {
            let f = root.join(format!("{name}-{}", std::process::id()));
            std::fs::create_dir_all(f.join("server")).unwrap();
            f
        };
        let (own, shared, other) = (made("own"), made("shared"), made("other"));
        let name = |f: &Path| f.file_name().unwrap().to_str().unwrap().to_string();
        let entry = |f: &Path| serde_json::json!({ "command": "node", "cwd": f });
        std::fs::write(
            &place.user,
            serde_json::json!({ "mcpServers": {
                name(&own): entry(&own),
                name(&shared): entry(&shared),
                "twin": entry(&shared),
                "elsewhere": entry(&other),
            } })
            .to_string(),
        )
        .unwrap();
        let remove = |n: &str| {
            place
                .edit(
                    &EditOp::Remove {
                        name: n.to_string(),
                    },
                    Scope::User,
                )
                .unwrap()
        };
        assert!(remove(&name(&own)).secrets_left.is_empty());
        assert!(!own.exists(), "its own folder goes with it");
        remove(&name(&shared));
        assert!(shared.exists(), "twin still runs in it");
        remove("elsewhere");
        assert!(other.exists(), "not the folder made for that name");
        remove("twin");
        assert!(shared.exists(), "not the folder made for that name either");
        let _ = std::fs::remove_dir_all(&shared);
        let _ = std::fs::remove_dir_all(&other);
    }

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
