//! A `server.json` against the MCP Registry's 2025-12-11 shape and the
//! rules its publish step adds (written from the registry's documentation:
//! the field table, the publish requirements, the package types). Each
//! finding says what the registry would do with it.

use serde_json::Value;

use crate::finding::{Finding, Severity, escape, quote};

/// The schema the registry takes now.
pub const SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

const ITEM: &str = "server.json";

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn missing(out: &mut Vec<Finding>, at: &str, field: &str, fix: &str) {
    out.push(
        Finding::new("publish.missing-field", Severity::Error, ITEM)
            .at(at)
            .seen(format!("no \"{field}\""))
            .why("the registry refuses a server.json without it")
            .fix(fix),
    );
}

/// A version range or a moving tag where the registry wants one version.
fn not_one_version(v: &str) -> Option<&'static str> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("latest") {
        return Some("\"latest\" is a moving tag");
    }
    if v.starts_with(['^', '~', '>', '<', '=']) || v.contains("||") || v.contains(' ') {
        return Some("a range");
    }
    if v.split('.')
        .any(|p| p == "*" || p.eq_ignore_ascii_case("x"))
    {
        return Some("a wildcard");
    }
    None
}

fn name_ok(name: &str) -> bool {
    let Some((space, last)) = name.split_once('/') else {
        return false;
    };
    let in_set = |s: &str, extra: &[char]| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || extra.contains(&c))
    };
    (3..=200).contains(&name.len()) && in_set(space, &[]) && in_set(last, &['_'])
}

/// The registries each package type may come from.
fn registry_allowed(kind: &str, base: &str) -> Option<bool> {
    let host = base
        .trim_end_matches('/')
        .strip_prefix("https://")
        .unwrap_or(base);
    Some(match kind {
        "npm" => host == "registry.npmjs.org",
        "pypi" => host == "pypi.org",
        "nuget" => host == "api.nuget.org/v3/index.json" || host == "api.nuget.org",
        "cargo" => host == "crates.io",
        "oci" => {
            let h = host.split('/').next().unwrap_or(host);
            ["docker.io", "ghcr.io", "quay.io", "mcr.microsoft.com"].contains(&h)
                || h.ends_with(".pkg.dev")
                || h.ends_with(".azurecr.io")
        }
        _ => return None,
    })
}

const RUNTIME_HINTS: &[&str] = &["npx", "uvx", "docker", "dnx"];
const TYPES: &[&str] = &["npm", "pypi", "oci", "nuget", "mcpb", "cargo"];

/// Every problem of `doc` (a parsed server.json).
pub fn check(doc: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    if !doc.is_object() {
        out.push(
            Finding::new("publish.not-an-object", Severity::Error, ITEM)
                .why("a server.json is one JSON object")
                .fix("start from `mcp-publisher init`, or the registry's example"),
        );
        return out;
    }
    schema(doc, &mut out);
    identity(doc, &mut out);
    version(doc, &mut out);
    if let Some(repo) = doc.get("repository")
        && (text(repo, "url").is_none() || text(repo, "source").is_none())
    {
        missing(
            &mut out,
            "/repository",
            "url\" and \"source",
            "give both: {\"url\": \"https://github.com/OWNER/REPO\", \"source\": \"github\"}",
        );
    }
    icons(doc, &mut out);
    let packages = doc.get("packages").and_then(Value::as_array);
    let remotes = doc.get("remotes").and_then(Value::as_array);
    if packages.is_none_or(Vec::is_empty) && remotes.is_none_or(Vec::is_empty) {
        out.push(
            Finding::new("publish.nothing-to-run", Severity::Error, ITEM)
                .why("with neither packages nor remotes, no client can run or reach it")
                .fix("add a package (npm, pypi, oci, nuget, mcpb, cargo) or a remote URL"),
        );
    }
    for (i, p) in packages.into_iter().flatten().enumerate() {
        package(p, &format!("/packages/{i}"), &mut out);
    }
    for (i, r) in remotes.into_iter().flatten().enumerate() {
        let at = format!("/remotes/{i}");
        transport(r, &at, true, &mut out);
        keyvalues(r.get("headers"), &format!("{at}/headers"), &mut out);
    }
    meta(doc, &mut out);
    let shaped = shape(doc, &out);
    out.extend(shaped);
    out
}

/// The schema it names: present, and the one the registry takes.
fn schema(doc: &Value, out: &mut Vec<Finding>) {
    match text(doc, "$schema") {
        None => out.push(
            Finding::new("publish.schema-missing", Severity::Warning, ITEM)
                .at("/$schema")
                .why("editors and the publisher validate against the schema it names")
                .fix(format!("add \"$schema\": \"{SCHEMA}\"")),
        ),
        Some(s) if s != SCHEMA => out.push(
            Finding::new("publish.schema-old", Severity::Error, ITEM)
                .at("/$schema")
                .seen(s)
                .why("the registry takes the 2025-12-11 schema; older ones are refused at publish")
                .fix(format!("set \"$schema\" to {SCHEMA} and rename what changed (camelCase fields, remotes' variables)")),
        ),
        _ => {}
    }
}

/// Its name, description and title, in the registry's forms and lengths.
fn identity(doc: &Value, out: &mut Vec<Finding>) {
    match text(doc, "name") {
        None => missing(out, "/name", "name", "add \"name\": \"io.github.OWNER/NAME\" (reverse-DNS, a namespace you can prove)"),
        Some(n) if !name_ok(n) => out.push(
            Finding::new("publish.name-format", Severity::Error, ITEM)
                .at("/name")
                .seen(n)
                .why("a name is NAMESPACE/NAME, 3-200 characters: letters, digits, '.', '-' (and '_' after the slash)")
                .fix("name it like io.github.OWNER/NAME or com.example/NAME"),
        ),
        _ => {}
    }
    match text(doc, "description") {
        None => missing(
            out,
            "/description",
            "description",
            "add a one-line description (at most 100 characters)",
        ),
        Some(d) if d.is_empty() || d.chars().count() > 100 => out.push(
            Finding::new("publish.description-length", Severity::Error, ITEM)
                .at("/description")
                .seen(format!("{} characters", d.chars().count()))
                .why("the registry takes 1 to 100 characters")
                .fix("say it in one line of at most 100 characters; the rest goes in the README"),
        ),
        _ => {}
    }
    if let Some(t) = text(doc, "title")
        && (t.is_empty() || t.chars().count() > 100)
    {
        out.push(
            Finding::new("publish.title-length", Severity::Error, ITEM)
                .at("/title")
                .seen(format!("{} characters", t.chars().count()))
                .why("the registry takes 1 to 100 characters")
                .fix("shorten the title"),
        );
    }
}

/// The one version published.
fn version(doc: &Value, out: &mut Vec<Finding>) {
    match text(doc, "version") {
        None => missing(
            out,
            "/version",
            "version",
            "add the version you publish, e.g. \"1.0.0\"",
        ),
        Some(v) => {
            if let Some(what) = not_one_version(v) {
                out.push(
                    Finding::new("publish.version-range", Severity::Error, ITEM)
                        .at("/version")
                        .seen(v)
                        .why(format!(
                            "{what}: the registry wants the one version published"
                        ))
                        .fix("write the exact version, e.g. 1.2.0"),
                );
            }
            if v.len() > 255 {
                out.push(
                    Finding::new("publish.version-range", Severity::Error, ITEM)
                        .at("/version")
                        .why("longer than 255 characters")
                        .fix("shorten it"),
                );
            }
        }
    }
}

/// The document against the format's shape (`server.schema.json`: field
/// types, allowed values, what each object requires).
fn shape(doc: &Value, found: &[Finding]) -> Vec<Finding> {
    super::shape::shape(
        include_str!("server.schema.json"),
        doc,
        found,
        |at, message| {
            Finding::new("publish.schema", Severity::Error, ITEM)
            .at(at)
            .seen(message)
            .why("the registry validates server.json against the 2025-12-11 schema and refuses what does not match it")
            .fix("give it the type and value the format documents there (its $schema names it; editors check as you type)")
        },
    )
}

fn icons(doc: &Value, out: &mut Vec<Finding>) {
    for (i, icon) in doc
        .get("icons")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("/icons/{i}");
        let src = text(icon, "src").unwrap_or_default();
        if !src.starts_with("https://") || src.len() > 255 {
            out.push(
                Finding::new("publish.icon-src", Severity::Error, ITEM)
                    .at(format!("{at}/src"))
                    .seen(src)
                    .why("an icon is an https:// address of at most 255 characters")
                    .fix("host the icon over https and give its address"),
            );
        }
        if let Some(m) = text(icon, "mimeType")
            && ![
                "image/png",
                "image/jpeg",
                "image/jpg",
                "image/svg+xml",
                "image/webp",
            ]
            .contains(&m)
        {
            out.push(
                Finding::new("publish.icon-type", Severity::Error, ITEM)
                    .at(format!("{at}/mimeType"))
                    .seen(m)
                    .why("the registry takes png, jpeg, svg+xml or webp")
                    .fix("convert the icon to one of them"),
            );
        }
    }
}

fn package(p: &Value, at: &str, out: &mut Vec<Finding>) {
    let kind = text(p, "registryType");
    let Some(kind) = kind else {
        missing(
            out,
            at,
            "registryType",
            "say where it is published: npm, pypi, oci, nuget, mcpb or cargo",
        );
        return;
    };
    if !TYPES.contains(&kind) {
        out.push(
            Finding::new("publish.registry-type", Severity::Error, ITEM)
                .at(format!("{at}/registryType"))
                .seen(kind)
                .why("the registry knows npm, pypi, oci, nuget, mcpb and cargo")
                .fix("use one of them"),
        );
    }
    if text(p, "identifier").is_none() {
        missing(
            out,
            at,
            "identifier",
            "the package's name in its registry (npm: @scope/name)",
        );
    }
    if p.get("transport").is_none() {
        missing(
            out,
            at,
            "transport",
            "add \"transport\": {\"type\": \"stdio\"}",
        );
    } else if let Some(t) = p.get("transport") {
        transport(t, &format!("{at}/transport"), false, out);
    }
    version_and_registry(p, kind, at, out);
    if kind == "mcpb" {
        bundle(p, at, out);
    }
    runtime_hint(p, at, out);
    arguments(p, at, out);
    keyvalues(
        p.get("environmentVariables"),
        &format!("{at}/environmentVariables"),
        out,
    );
}

/// The version pinned (an exact one, not a range), and the registry the
/// package comes from one the Registry takes.
fn version_and_registry(p: &Value, kind: &str, at: &str, out: &mut Vec<Finding>) {
    match text(p, "version") {
        None if ["npm", "pypi", "nuget", "cargo"].contains(&kind) => missing(
            out,
            at,
            "version",
            "pin the package's version (the same as the server's, as published)",
        ),
        Some(v) if not_one_version(v).is_some() => out.push(
            Finding::new("publish.version-range", Severity::Error, ITEM)
                .at(format!("{at}/version"))
                .seen(v)
                .why("a package's version is the one published, not a range or a tag")
                .fix("write the exact version"),
        ),
        _ => {}
    }
    if let Some(base) = text(p, "registryBaseUrl")
        && registry_allowed(kind, base) == Some(false)
    {
        out.push(
            Finding::new("publish.registry-not-allowed", Severity::Error, ITEM)
                .at(format!("{at}/registryBaseUrl"))
                .seen(base)
                .why(format!(
                    "the registry takes {kind} packages only from its public registry"
                ))
                .fix("publish the package there, or drop registryBaseUrl"),
        );
    }
}

/// A bundle's file hash and its release URL.
fn bundle(p: &Value, at: &str, out: &mut Vec<Finding>) {
    let sha = text(p, "fileSha256").unwrap_or_default();
    if sha.len() != 64
        || !sha
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    {
        out.push(
            Finding::new("publish.sha256", Severity::Error, ITEM)
                .at(format!("{at}/fileSha256"))
                .seen(sha)
                .why("a bundle needs its file's SHA-256 (64 lowercase hex digits): clients check the download against it")
                .fix("sha256sum the .mcpb you release and write it here"),
        );
    }
    let id = text(p, "identifier").unwrap_or_default();
    if !id.to_ascii_lowercase().contains("mcp") {
        out.push(
            Finding::new("publish.bundle-url", Severity::Error, ITEM)
                .at(format!("{at}/identifier"))
                .seen(id)
                .why("a bundle's release URL must contain \"mcp\"")
                .fix("name the release asset NAME-mcp.mcpb or similar"),
        );
    }
}

/// The launcher named is one clients know, and runtime arguments have one.
fn runtime_hint(p: &Value, at: &str, out: &mut Vec<Finding>) {
    match text(p, "runtimeHint") {
        Some(h) if !RUNTIME_HINTS.contains(&h) => out.push(
            Finding::new("publish.runtime-hint", Severity::Warning, ITEM)
                .at(format!("{at}/runtimeHint"))
                .seen(h)
                .why("clients know npx, uvx, docker and dnx; another is refused or ignored")
                .fix("use the launcher of the package's type, or drop the hint"),
        ),
        None if p
            .get("runtimeArguments")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty()) =>
        {
            out.push(
                Finding::new(
                    "publish.runtime-arguments-without-hint",
                    Severity::Warning,
                    ITEM,
                )
                .at(format!("{at}/runtimeArguments"))
                .why("runtime arguments are for a launcher, and none is named")
                .fix("add the runtimeHint they are for"),
            )
        }
        _ => {}
    }
}

/// Each runtime and package argument is named (with its flag) or
/// positional (with a value or a hint).
fn arguments(p: &Value, at: &str, out: &mut Vec<Finding>) {
    for key in ["runtimeArguments", "packageArguments"] {
        for (i, a) in p
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let here = format!("{at}/{key}/{i}");
            match text(a, "type") {
                Some("named") if text(a, "name").is_none() => missing(
                    out,
                    &here,
                    "name",
                    "a named argument needs its flag, e.g. \"--port\"",
                ),
                Some("positional") if a.get("value").is_none() && a.get("valueHint").is_none() => {
                    missing(
                        out,
                        &here,
                        "value\" or \"valueHint",
                        "give its value, or a hint of what it is",
                    )
                }
                Some("named" | "positional") => {}
                other => out.push(
                    Finding::new("publish.argument-type", Severity::Error, ITEM)
                        .at(format!("{here}/type"))
                        .seen(other.unwrap_or("none"))
                        .why("an argument is \"positional\" or \"named\"")
                        .fix("say which"),
                ),
            }
        }
    }
}

fn transport(t: &Value, at: &str, remote: bool, out: &mut Vec<Finding>) {
    let kind = text(t, "type").unwrap_or_default();
    let allowed: &[&str] = if remote {
        &["streamable-http", "sse"]
    } else {
        &["stdio", "streamable-http", "sse"]
    };
    if !allowed.contains(&kind) {
        out.push(
            Finding::new("publish.transport", Severity::Error, ITEM)
                .at(format!("{at}/type"))
                .seen(kind)
                .why(format!("the type is one of {}", allowed.join(", ")))
                .fix("name the transport it speaks"),
        );
        return;
    }
    if kind != "stdio" {
        match text(t, "url") {
            None => missing(out, at, "url", "give the address it answers at"),
            Some(u)
                if !(u.starts_with("https://")
                    || u.starts_with("http://")
                    || u.starts_with('{')) =>
            {
                out.push(
                    Finding::new("publish.url", Severity::Error, ITEM)
                        .at(format!("{at}/url"))
                        .seen(u)
                        .why("a URL is http(s):// or starts with a {variable}")
                        .fix("write the whole address"),
                )
            }
            Some(u) if remote && u.starts_with("http://") => out.push(
                Finding::new("publish.url-plain-http", Severity::Warning, ITEM)
                    .at(format!("{at}/url"))
                    .seen(u)
                    .why("tokens and answers cross the network unencrypted")
                    .fix("serve it over https"),
            ),
            _ => {}
        }
    }
}

fn keyvalues(list: Option<&Value>, at: &str, out: &mut Vec<Finding>) {
    for (i, kv) in list
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if text(kv, "name").is_none() {
            missing(
                out,
                &format!("{at}/{i}"),
                "name",
                "name the variable or header",
            );
        }
        if kv.get("isSecret").and_then(Value::as_bool) == Some(true)
            && let Some(v) = text(kv, "value")
            && !v.contains('{')
        {
            out.push(
                Finding::new("publish.secret-fixed", Severity::Warning, ITEM)
                    .at(format!("{at}/{i}/value"))
                    .seen(quote(&Value::String(v.into())))
                    .why("a secret with a fixed value is published for anyone to read, and written as plain text by clients")
                    .fix("drop \"value\" so each user gives their own (isRequired: true)"),
            );
        }
    }
}

fn meta(doc: &Value, out: &mut Vec<Finding>) {
    let Some(meta) = doc.get("_meta").and_then(Value::as_object) else {
        return;
    };
    const KEPT: &str = "io.modelcontextprotocol.registry/publisher-provided";
    for key in meta.keys().filter(|k| *k != KEPT) {
        out.push(
            Finding::new("publish.meta-dropped", Severity::Warning, ITEM)
                .at(format!("/_meta/{}", escape(key)))
                .why("the registry keeps only _meta's publisher-provided key and drops the rest without a word")
                .fix(format!("move it under \"{KEPT}\"")),
        );
    }
    if let Some(kept) = meta.get(KEPT) {
        let size = kept.to_string().len();
        if size > 4096 {
            out.push(
                Finding::new("publish.meta-too-large", Severity::Error, ITEM)
                    .at(format!("/_meta/{}", escape(KEPT)))
                    .seen(format!("{size} bytes"))
                    .why("the registry keeps at most 4 KB of publisher-provided metadata")
                    .fix("keep it under 4 KB"),
            );
        }
    }
}
