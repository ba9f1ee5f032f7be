//! The author's check before publishing (`mcpwb publish check [DIR]`):
//! the folder's `server.json` against the registry's shape and publish
//! rules, the ownership marker each package type needs (`mcpName` in
//! package.json, `mcp-name:` in a README, the OCI label), versions the
//! same across server.json, package.json, pyproject.toml, Cargo.toml and a
//! bundle's `manifest.json`, and the manifest against its version's rules.
//! What runs it — each host's entry with each host's PATH, the manifest's
//! tools against the live list — is the application layer's (it starts
//! servers); this part reads files only, never through a link.

pub mod hosts;
pub mod manifest;
pub mod server_json;
mod shape;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::finding::{Finding, Severity};

/// What the folder holds, and what is wrong with it.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    pub server_json: Option<Value>,
    pub manifest: Option<Value>,
    pub findings: Vec<Finding>,
}

/// A file of the folder: its text, None when absent. A link is refused (a
/// finding), as is a file that cannot be read.
fn read(dir: &Path, name: &str, out: &mut Vec<Finding>) -> Option<String> {
    let path = dir.join(name);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if meta.file_type().is_symlink() {
        out.push(
            Finding::new("publish.link", Severity::Error, name)
                .why("a link is not followed: it could point anywhere on this machine")
                .fix("put the file itself in the folder"),
        );
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) => {
            out.push(
                Finding::new("publish.unreadable", Severity::Error, name)
                    .seen(e.to_string())
                    .fix("make it readable UTF-8"),
            );
            None
        }
    }
}

fn json(name: &str, text: &str, out: &mut Vec<Finding>) -> Option<Value> {
    match serde_json::from_str(text) {
        Ok(v) => Some(v),
        Err(e) => {
            out.push(
                Finding::new("publish.json-invalid", Severity::Error, name)
                    .seen(format!("line {}, column {}: {e}", e.line(), e.column()))
                    .why("it does not parse")
                    .fix("fix the JSON at that place"),
            );
            None
        }
    }
}

/// Check the folder `dir`.
pub fn check_dir(dir: &Path) -> Checked {
    let mut findings = Vec::new();
    if !dir.is_dir() {
        findings.push(
            Finding::new(
                "publish.no-folder",
                Severity::Error,
                dir.display().to_string(),
            )
            .why("there is no folder here")
            .fix("give the server's folder (where server.json or manifest.json is)"),
        );
        return Checked {
            findings,
            ..Default::default()
        };
    }
    let server_json = read(dir, "server.json", &mut findings)
        .and_then(|t| json("server.json", &t, &mut findings));
    let manifest = read(dir, "manifest.json", &mut findings)
        .and_then(|t| json("manifest.json", &t, &mut findings));
    if server_json.is_none() && manifest.is_none() && findings.is_empty() {
        findings.push(
            Finding::new("publish.nothing-here", Severity::Error, dir.display().to_string())
                .why("there is neither a server.json (the MCP Registry) nor a manifest.json (an MCP bundle)")
                .fix("run `mcp-publisher init` (server.json) or `mcpb init` (manifest.json) in the folder"),
        );
    }
    if let Some(doc) = &server_json {
        findings.extend(server_json::check(doc));
        ownership(dir, doc, &mut findings);
    }
    if let Some(m) = &manifest {
        findings.extend(manifest::check(dir, m));
    }
    versions(dir, server_json.as_ref(), manifest.as_ref(), &mut findings);
    Checked {
        server_json,
        manifest,
        findings,
    }
}

/// `mcp-name: NAME` as a README shows it; `visible`: not inside an HTML
/// comment (crates.io drops comments).
fn readme_marker(dir: &Path, name: &str, visible: bool, out: &mut Vec<Finding>) -> bool {
    let Some(text) = ["README.md", "README.rst", "README.txt", "README"]
        .iter()
        .find_map(|f| dir.join(f).is_file().then(|| read(dir, f, out)).flatten())
    else {
        return false;
    };
    let marker = format!("mcp-name: {name}");
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&marker) {
        let after = &rest[at + marker.len()..];
        // A boundary after it: not a longer name.
        let bounded = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || "._-/".contains(c)));
        let in_comment = {
            let before = &text[..text.len() - rest.len() + at];
            before
                .rfind("<!--")
                .is_some_and(|o| before[o..].find("-->").is_none())
        };
        if bounded && !(visible && in_comment) {
            return true;
        }
        rest = after;
    }
    false
}

fn ownership(dir: &Path, doc: &Value, out: &mut Vec<Finding>) {
    let Some(name) = doc.get("name").and_then(Value::as_str) else {
        return;
    };
    for (i, p) in doc
        .get("packages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("/packages/{i}");
        let kind = p.get("registryType").and_then(Value::as_str).unwrap_or("");
        let (found, seen, fix) = match kind {
            "npm" => {
                let mcp_name = read(dir, "package.json", out)
                    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                    .and_then(|v| v.get("mcpName").and_then(Value::as_str).map(str::to_string));
                (
                    mcp_name.as_deref() == Some(name),
                    mcp_name
                        .map(|n| format!("package.json's mcpName is {n}"))
                        .unwrap_or_else(|| "no mcpName in package.json".into()),
                    format!(
                        "add \"mcpName\": \"{name}\" to package.json and publish it to npm again"
                    ),
                )
            }
            "pypi" | "nuget" => (
                readme_marker(dir, name, false, out),
                "no \"mcp-name: NAME\" in the README".into(),
                format!(
                    "add the line `mcp-name: {name}` to the README the package ships (an HTML comment is fine)"
                ),
            ),
            "cargo" => (
                readme_marker(dir, name, true, out),
                "no visible \"mcp-name: NAME\" in the README".into(),
                format!(
                    "add the line `mcp-name: {name}` as visible text: crates.io drops HTML comments"
                ),
            ),
            "oci" => {
                let label = "io.modelcontextprotocol.server.name";
                let dockerfile = dir
                    .join("Dockerfile")
                    .is_file()
                    .then(|| read(dir, "Dockerfile", out))
                    .flatten();
                let ok = dockerfile.as_deref().is_some_and(|d| {
                    d.lines().any(|l| {
                        let l = l.trim();
                        l.to_ascii_uppercase().starts_with("LABEL")
                            && l.contains(label)
                            && l.contains(name)
                    })
                });
                (
                    ok,
                    format!("no LABEL {label}=\"{name}\" in the Dockerfile"),
                    format!(
                        "add `LABEL {label}=\"{name}\"` to the Dockerfile and push the image again"
                    ),
                )
            }
            _ => continue,
        };
        if !found {
            out.push(
                Finding::new("publish.ownership-missing", Severity::Error, "server.json")
                    .at(at)
                    .seen(seen)
                    .why(format!("the registry checks that the {kind} package names this server before it publishes"))
                    .fix(fix),
            );
        }
    }
}

/// The version a project file declares: package.json's, pyproject's
/// `[project]` (or Poetry's), Cargo.toml's `[package]`.
fn declared(dir: &Path, out: &mut Vec<Finding>) -> Vec<(&'static str, String)> {
    let mut found = Vec::new();
    if dir.join("package.json").is_file()
        && let Some(v) = read(dir, "package.json", out)
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v.get("version").and_then(Value::as_str).map(str::to_string))
    {
        found.push(("package.json", v));
    }
    let toml_version = |file: &'static str, tables: &[&[&str]], out: &mut Vec<Finding>| {
        if !dir.join(file).is_file() {
            return None;
        }
        let doc: toml::Table = read(dir, file, out)?.parse().ok()?;
        tables.iter().find_map(|path| {
            let mut t = &doc;
            for key in *path {
                t = t.get(*key)?.as_table()?;
            }
            t.get("version")?.as_str().map(str::to_string)
        })
    };
    if let Some(v) = toml_version("pyproject.toml", &[&["project"], &["tool", "poetry"]], out) {
        found.push(("pyproject.toml", v));
    }
    if let Some(v) = toml_version("Cargo.toml", &[&["package"]], out) {
        found.push(("Cargo.toml", v));
    }
    found
}

fn versions(dir: &Path, doc: Option<&Value>, manifest: Option<&Value>, out: &mut Vec<Finding>) {
    let mut said: Vec<(String, String)> = Vec::new();
    if let Some(v) = doc.and_then(|d| d.get("version")).and_then(Value::as_str) {
        said.push(("server.json".into(), v.into()));
    }
    for (i, p) in doc
        .and_then(|d| d.get("packages"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(v) = p.get("version").and_then(Value::as_str) {
            said.push((format!("server.json packages[{i}]"), v.into()));
        }
    }
    if let Some(v) = manifest
        .and_then(|m| m.get("version"))
        .and_then(Value::as_str)
    {
        said.push(("manifest.json".into(), v.into()));
    }
    said.extend(
        declared(dir, out)
            .into_iter()
            .map(|(f, v)| (f.to_string(), v)),
    );
    let Some((first_file, first)) = said.first().cloned() else {
        return;
    };
    let differ: Vec<String> = said
        .iter()
        .filter(|(_, v)| *v != first)
        .map(|(f, v)| format!("{f} {v}"))
        .collect();
    if !differ.is_empty() {
        out.push(
            Finding::new("publish.version-mismatch", Severity::Error, first_file.clone())
                .seen(format!("{first_file} {first}; {}", differ.join("; ")))
                .why("the registry points at a package version that is not the one this folder builds: clients install another release")
                .fix("give every file the version you are about to publish"),
        );
    }
}

/// Where the folder is, as given (`.` when none).
pub fn folder(given: Option<&Path>) -> PathBuf {
    given
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}
