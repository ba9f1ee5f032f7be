//! An MCP bundle's `manifest.json` (versions 0.1 to 0.4) against what its
//! version requires — its keys (every version is strict), its server types,
//! then every field's shape (`manifest.schema.json`) — and the rules `mcpb
//! validate` adds: the icon a local PNG, every `${user_config.X}` declared,
//! every required value used, the entry point there. Written from the
//! bundle format's documentation; the tests hold it to `mcpb validate`.

use std::path::Path;

use serde_json::Value;

use crate::finding::{Finding, Severity, escape};

const ITEM: &str = "manifest.json";

/// The keys every manifest version may have; each version refuses others.
const KNOWN: &[&str] = &[
    "$schema",
    "manifest_version",
    "dxt_version",
    "name",
    "display_name",
    "version",
    "description",
    "long_description",
    "author",
    "repository",
    "homepage",
    "documentation",
    "support",
    "icon",
    "screenshots",
    "server",
    "tools",
    "tools_generated",
    "prompts",
    "prompts_generated",
    "keywords",
    "license",
    "compatibility",
    "user_config",
];

/// The keys later versions added, and the version each came in.
const ADDED: &[(&str, &str)] = &[
    ("privacy_policies", "0.2"),
    ("icons", "0.3"),
    ("localization", "0.3"),
    ("_meta", "0.3"),
];

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The `${user_config.KEY}` references in `v`.
fn references(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            let mut rest = s.as_str();
            while let Some(at) = rest.find("${user_config.") {
                let after = &rest[at + "${user_config.".len()..];
                if let Some(end) = after.find('}') {
                    out.push(after[..end].to_string());
                    rest = &after[end..];
                } else {
                    break;
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| references(x, out)),
        Value::Object(o) => o.values().for_each(|x| references(x, out)),
        _ => {}
    }
}

pub fn check(dir: &Path, m: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let version = text(m, "manifest_version").or_else(|| text(m, "dxt_version"));
    match version {
        Some("0.1" | "0.2" | "0.3" | "0.4") => {}
        other => out.push(
            Finding::new("bundle.manifest-version", Severity::Error, ITEM)
                .at("/manifest_version")
                .seen(other.unwrap_or("none"))
                .why("hosts read manifest versions 0.1 to 0.4")
                .fix("set \"manifest_version\": \"0.3\" (what most bundles use) or \"0.4\""),
        ),
    }
    if m.get("manifest_version").is_none() && m.get("dxt_version").is_some() {
        out.push(
            Finding::new("bundle.dxt-version", Severity::Warning, ITEM)
                .at("/dxt_version")
                .why("dxt_version is the old name, kept only as an alias")
                .fix("rename it manifest_version"),
        );
    }
    for field in ["name", "version", "description"] {
        if text(m, field).is_none() {
            out.push(
                Finding::new("bundle.missing-field", Severity::Error, ITEM)
                    .at(format!("/{field}"))
                    .seen(format!("no \"{field}\""))
                    .why("every manifest version requires it")
                    .fix(format!("add \"{field}\"")),
            );
        }
    }
    if m.get("author").and_then(|a| text(a, "name")).is_none() {
        out.push(
            Finding::new("bundle.missing-field", Severity::Error, ITEM)
                .at(if m.get("author").is_some() {
                    "/author/name"
                } else {
                    "/author"
                })
                .seen("no author name")
                .why("hosts show who published it (unverified unless signed)")
                .fix("add \"author\": {\"name\": \"…\"}"),
        );
    }
    keys(m, version, &mut out);
    server(dir, m, version, &mut out);
    icon(dir, m, &mut out);
    user_config(m, &mut out);
    let shaped = super::shape::shape(
        include_str!("manifest.schema.json"),
        m,
        &out,
        |at, message| {
            Finding::new("bundle.schema", Severity::Error, ITEM)
            .at(at)
            .seen(message)
            .why("mcpb validate and pack check the manifest against its version's schema, and hosts refuse what does not match it")
            .fix("give it the type and value the bundle format documents there")
        },
    );
    out.extend(shaped);
    out
}

/// Every version is strict: a key it does not have is refused, one a later
/// version added said so.
fn keys(m: &Value, version: Option<&str>, out: &mut Vec<Finding>) {
    let Some(o) = m.as_object() else {
        return;
    };
    for key in o.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        let at = format!("/{}", escape(key));
        match ADDED.iter().find(|(k, _)| k == key) {
            // Versions are "0.N": compared as text they sort as numbers.
            Some((_, since)) if version.is_none_or(|v| v >= *since) => {}
            Some((_, since)) => out.push(
                Finding::new("bundle.unknown-key", Severity::Error, ITEM)
                    .at(at)
                    .seen(format!("manifest_version {}", version.unwrap_or("none")))
                    .why(format!("\"{key}\" came in manifest 0.{}: this version refuses it", &since[2..]))
                    .fix(format!("set \"manifest_version\": \"{since}\" or later, or remove it")),
            ),
            None => out.push(
                Finding::new("bundle.unknown-key", Severity::Error, ITEM)
                    .at(at)
                    .why("manifests are strict: mcpb validate and hosts refuse a key they do not know")
                    .fix("remove it, or (manifest 0.3 and later) keep it under _meta with a reverse-DNS key"),
            ),
        }
    }
}

fn server(dir: &Path, m: &Value, version: Option<&str>, out: &mut Vec<Finding>) {
    let Some(server) = m.get("server") else {
        out.push(
            Finding::new("bundle.missing-field", Severity::Error, ITEM)
                .at("/server")
                .seen("no \"server\"")
                .why("a host does not know what to run")
                .fix("add \"server\": {\"type\", \"entry_point\", \"mcp_config\": {\"command\", \"args\"}}"),
        );
        return;
    };
    let kind = text(server, "type").unwrap_or_default();
    let kinds: &[&str] = if version == Some("0.4") {
        &["node", "python", "binary", "uv"]
    } else {
        &["node", "python", "binary"]
    };
    if !kinds.contains(&kind) {
        out.push(
            Finding::new("bundle.server-type", Severity::Error, ITEM)
                .at("/server/type")
                .seen(kind)
                .why(format!(
                    "this manifest version's server types are {}",
                    kinds.join(", ")
                ))
                .fix("name the runtime the bundle needs"),
        );
    }
    match text(server, "entry_point") {
        None => out.push(
            Finding::new("bundle.missing-field", Severity::Error, ITEM)
                .at("/server/entry_point")
                .seen("no entry_point")
                .why("hosts need the file the server starts from")
                .fix("add \"entry_point\": \"server/index.js\" (the file in the bundle)"),
        ),
        Some(entry) => {
            let path = dir.join(entry);
            if !entry.contains("${") && !path.exists() {
                out.push(
                    Finding::new("bundle.entry-point-missing", Severity::Error, ITEM)
                        .at("/server/entry_point")
                        .seen(entry)
                        .why("the file is not in the folder: the bundle packed from it will not start")
                        .fix("build it first, or point entry_point at the built file"),
                );
            }
        }
    }
    let config = server.get("mcp_config");
    if config.and_then(|c| text(c, "command")).is_none() {
        out.push(
            Finding::new("bundle.missing-field", Severity::Error, ITEM)
                .at(if config.is_some() {
                    "/server/mcp_config/command"
                } else {
                    "/server/mcp_config"
                })
                .seen("no command")
                .why("hosts run mcp_config's command")
                .fix("add \"mcp_config\": {\"command\": \"node\", \"args\": [\"${__dirname}/server/index.js\"]}"),
        );
    }
}

fn icon(dir: &Path, m: &Value, out: &mut Vec<Finding>) {
    let Some(icon) = text(m, "icon") else {
        return;
    };
    let at = "/icon";
    if icon.starts_with("http://") || icon.starts_with("https://") {
        out.push(
            Finding::new("bundle.icon-remote", Severity::Warning, ITEM)
                .at(at)
                .seen(icon)
                .why("hosts show a bundle's own icon: a remote one is fetched or not shown")
                .fix("put icon.png in the bundle and name it"),
        );
    } else if icon.starts_with('/') || icon.contains("${") {
        out.push(
            Finding::new("bundle.icon-path", Severity::Error, ITEM)
                .at(at)
                .seen(icon)
                .why("an icon is a path inside the bundle, relative (mcpb validate refuses this one)")
                .fix("write \"icon\": \"icon.png\""),
        );
    } else if !icon.to_ascii_lowercase().ends_with(".png") {
        out.push(
            Finding::new("bundle.icon-type", Severity::Error, ITEM)
                .at(at)
                .seen(icon)
                .why("a bundle's icon is a PNG")
                .fix("convert it to PNG"),
        );
    } else if !dir.join(icon).is_file() {
        out.push(
            Finding::new("bundle.icon-missing", Severity::Error, ITEM)
                .at(at)
                .seen(icon)
                .why("the file is not in the folder")
                .fix("add the PNG, or fix the path"),
        );
    }
}

fn user_config(m: &Value, out: &mut Vec<Finding>) {
    let declared = m.get("user_config").and_then(Value::as_object);
    let mut used = Vec::new();
    if let Some(server) = m.get("server") {
        references(server, &mut used);
    }
    for key in &used {
        if !declared.is_some_and(|d| d.contains_key(key)) {
            out.push(
                Finding::new("bundle.user-config-undeclared", Severity::Error, ITEM)
                    .at("/server/mcp_config")
                    .seen(format!("${{user_config.{key}}}"))
                    .why("a host fills only what user_config declares: this stays literal text")
                    .fix(format!(
                        "declare \"{key}\" under user_config (its type, title, whether required)"
                    )),
            );
        }
    }
    for (key, decl) in declared.into_iter().flatten() {
        let at = format!("/user_config/{}", escape(key));
        let kind = text(decl, "type").unwrap_or_default();
        if !["string", "number", "boolean", "directory", "file"].contains(&kind) {
            out.push(
                Finding::new("bundle.user-config-type", Severity::Error, ITEM)
                    .at(format!("{at}/type"))
                    .seen(kind)
                    .why("a value is a string, number, boolean, directory or file")
                    .fix("give its type"),
            );
        }
        for field in ["title", "description"] {
            if text(decl, field).is_none() {
                out.push(
                    Finding::new("bundle.user-config-text", Severity::Error, ITEM)
                        .at(format!("{at}/{field}"))
                        .seen(format!("no \"{field}\""))
                        .why("hosts label the install form with it; mcpb validate and pack refuse a value without it")
                        .fix(format!("give {key} a {field}")),
                );
            }
        }
        if decl.get("required").and_then(Value::as_bool) == Some(true) && !used.contains(key) {
            out.push(
                Finding::new("bundle.required-unused", Severity::Warning, ITEM)
                    .at(at)
                    .why("the person must give it, and the server never gets it: mcp_config does not use it")
                    .fix(format!("pass it on (\"${{user_config.{key}}}\" in args or env), or make it optional")),
            );
        }
    }
}
