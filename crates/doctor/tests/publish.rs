//! `publish check` on folders with planted faults (each found, with its
//! fix) and on a clean one (nothing found).

use std::path::Path;

use serde_json::json;
use workbench_doctor::finding::{Finding, Severity};
use workbench_doctor::publish::check_dir;

const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn codes(found: &[Finding]) -> Vec<&str> {
    let mut c: Vec<&str> = found.iter().map(|f| f.code.as_str()).collect();
    c.sort_unstable();
    c.dedup();
    c
}

fn clean(dir: &Path) {
    write(
        dir,
        "server.json",
        &json!({
            "$schema": SCHEMA,
            "name": "io.github.example/weather",
            "description": "Forecasts and alerts from a weather service.",
            "version": "1.2.0",
            "repository": { "url": "https://github.com/example/weather", "source": "github" },
            "packages": [{
                "registryType": "npm", "registryBaseUrl": "https://registry.npmjs.org",
                "identifier": "@example/weather-mcp", "version": "1.2.0", "runtimeHint": "npx",
                "transport": { "type": "stdio" },
                "environmentVariables": [{ "name": "WEATHER_API_KEY", "isRequired": true, "isSecret": true }]
            }],
            "remotes": [{ "type": "streamable-http", "url": "https://weather.example.com/mcp" }]
        })
        .to_string(),
    );
    write(
        dir,
        "package.json",
        r#"{"name": "@example/weather-mcp", "version": "1.2.0", "mcpName": "io.github.example/weather"}"#,
    );
}

#[test]
fn a_clean_folder_has_nothing_to_say() {
    let dir = tempfile::tempdir().unwrap();
    clean(dir.path());
    let checked = check_dir(dir.path());
    assert!(checked.findings.is_empty(), "{:#?}", checked.findings);
    assert!(checked.server_json.is_some());
}

#[test]
fn every_planted_fault_in_a_server_json_is_found_with_its_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "server.json",
        &json!({
            "$schema": "https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json",
            "name": "weather server",
            "description": "x".repeat(140),
            "version": "^1.2.0",
            "packages": [
                { "registryType": "npm", "identifier": "@example/weather-mcp", "version": "1.2.0",
                  "transport": { "type": "stdio" },
                  "runtimeArguments": [{ "type": "named", "name": "--inspect" }],
                  "environmentVariables": [{ "name": "TOKEN", "isSecret": true, "value": "sk-live-123" }] },
                { "registryType": "pypi", "registryBaseUrl": "https://test.pypi.org", "identifier": "weather-mcp",
                  "version": "latest", "transport": { "type": "stdio" } },
                { "registryType": "mcpb", "identifier": "https://github.com/example/weather/releases/download/v1/weather.zip",
                  "transport": { "type": "stdio" } }
            ],
            "remotes": [{ "type": "streamable-http", "url": "http://weather.example.com/mcp" }],
            "_meta": { "com.example/stats": { "stars": 3 } }
        })
        .to_string(),
    );
    write(
        d,
        "package.json",
        r#"{"name": "@example/weather-mcp", "version": "1.1.0"}"#,
    );
    let found = check_dir(d).findings;
    for (code, fix) in [
        ("publish.schema-old", "2025-12-11"),
        ("publish.name-format", "io.github.OWNER/NAME"),
        ("publish.description-length", "100 characters"),
        ("publish.version-range", "exact version"),
        ("publish.registry-not-allowed", "publish the package there"),
        ("publish.sha256", "sha256sum"),
        ("publish.bundle-url", "mcp"),
        ("publish.runtime-arguments-without-hint", "runtimeHint"),
        ("publish.secret-fixed", "drop \"value\""),
        ("publish.url-plain-http", "https"),
        ("publish.meta-dropped", "publisher-provided"),
        (
            "publish.ownership-missing",
            "\"mcpName\": \"weather server\"",
        ),
        ("publish.version-mismatch", "every file"),
    ] {
        let f = found
            .iter()
            .find(|f| f.code == code)
            .unwrap_or_else(|| panic!("{code} not found: {:?}", codes(&found)));
        assert!(f.fix.contains(fix), "{code}'s fix says {:?}", f.fix);
        assert!(
            !f.why.is_empty() || f.code == "publish.version-range",
            "{code} says why"
        );
    }
    // The PyPI package's README marker is missing too.
    assert!(
        found
            .iter()
            .filter(|f| f.code == "publish.ownership-missing")
            .count()
            >= 2
    );
}

#[test]
fn a_bundle_manifest_is_held_to_its_versions_rules_and_a_cargo_readme_marker_must_be_visible() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "manifest.json",
        &json!({
            "manifest_version": "0.4",
            "name": "weather", "version": "1.2.0", "description": "Forecasts",
            "author": { "name": "Example" },
            "icon": "${__dirname}/icon.png",
            "colour": "blue",
            "server": {
                "type": "node", "entry_point": "server/index.js",
                "mcp_config": { "command": "node", "args": ["${__dirname}/server/index.js"],
                                 "env": { "API_KEY": "${user_config.api_key}" } }
            },
            "user_config": { "workspace": { "type": "directory", "title": "Workspace", "required": true } }
        })
        .to_string(),
    );
    let found = check_dir(d).findings;
    for code in [
        "bundle.icon-path",
        "bundle.unknown-key",
        "bundle.user-config-undeclared",
        "bundle.required-unused",
        "bundle.entry-point-missing",
        "bundle.user-config-text",
    ] {
        assert!(
            found.iter().any(|f| f.code == code),
            "{code} not found: {:?}",
            codes(&found)
        );
    }
    // The entry point built, the icon fixed, the key declared and the folder used: clean.
    std::fs::create_dir_all(d.join("server")).unwrap();
    write(d, "server/index.js", "");
    write(d, "icon.png", "png");
    write(
        d,
        "manifest.json",
        &json!({
            "manifest_version": "0.3",
            "name": "weather", "version": "1.2.0", "description": "Forecasts",
            "author": { "name": "Example" }, "icon": "icon.png",
            "server": {
                "type": "node", "entry_point": "server/index.js",
                "mcp_config": { "command": "node", "args": ["${__dirname}/server/index.js", "${user_config.workspace}"],
                                 "env": { "API_KEY": "${user_config.api_key}" } }
            },
            "user_config": {
                "workspace": { "type": "directory", "title": "Workspace", "description": "Where notes are", "required": true },
                "api_key": { "type": "string", "title": "API key", "description": "The service's key", "sensitive": true }
            }
        })
        .to_string(),
    );
    let found = check_dir(d).findings;
    assert!(found.is_empty(), "{found:#?}");

    // crates.io drops HTML comments: the marker must be visible text.
    let crate_dir = tempfile::tempdir().unwrap();
    let c = crate_dir.path();
    write(
        c,
        "server.json",
        &json!({ "$schema": SCHEMA, "name": "io.github.example/rusty", "description": "Rust", "version": "0.3.1",
                 "packages": [{ "registryType": "cargo", "identifier": "rusty-mcp", "version": "0.3.1",
                                "transport": { "type": "stdio" } }] })
        .to_string(),
    );
    write(
        c,
        "Cargo.toml",
        "[package]\nname = \"rusty-mcp\"\nversion = \"0.3.1\"\n",
    );
    write(
        c,
        "README.md",
        "# rusty\n<!-- mcp-name: io.github.example/rusty -->\n",
    );
    let found = check_dir(c).findings;
    let f = found
        .iter()
        .find(|f| f.code == "publish.ownership-missing")
        .expect("a hidden marker is not enough");
    assert!(f.fix.contains("visible text"));
    assert_eq!(f.severity, Severity::Error);
    write(
        c,
        "README.md",
        "# rusty\nmcp-name: io.github.example/rusty\n",
    );
    assert!(
        check_dir(c).findings.is_empty(),
        "{:#?}",
        check_dir(c).findings
    );
}

#[test]
fn a_link_in_the_folder_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    clean(elsewhere.path());
    std::os::unix::fs::symlink(
        elsewhere.path().join("server.json"),
        dir.path().join("server.json"),
    )
    .unwrap();
    let checked = check_dir(dir.path());
    assert!(checked.server_json.is_none());
    assert!(checked.findings.iter().any(|f| f.code == "publish.link"));
}

#[test]
fn a_folder_that_is_not_there_is_said_so() {
    let found = check_dir(Path::new("/nonexistent/server")).findings;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, "publish.no-folder");
}

#[test]
fn a_server_json_of_the_wrong_shape_is_found_where_it_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    clean(d);
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("server.json")).unwrap()).unwrap();
    doc["repository"] = json!({ "url": 5, "source": "github" });
    doc["icons"] = json!([{ "src": "https://example.com/i.png", "theme": "sepia" }]);
    let p = &mut doc["packages"][0];
    p["environmentVariables"] = json!([{ "description": "a key with no name", "isSecret": "yes" }]);
    p["packageArguments"] = json!([{ "type": "named", "value": "--fast" }]);
    doc["remotes"] =
        json!([{ "type": "streamable-http", "headers": [{ "name": "X-Key", "choices": "a,b" }] }]);
    write(d, "server.json", &doc.to_string());
    let found = check_dir(d).findings;
    let shaped: Vec<(&str, &str)> = found
        .iter()
        .filter(|f| f.code == "publish.schema")
        .map(|f| (f.pointer.as_str(), f.seen.as_str()))
        .collect();
    for at in [
        "/repository/url",
        "/icons/0/theme",
        "/packages/0/environmentVariables/0/name",
        "/packages/0/environmentVariables/0/isSecret",
        "/packages/0/packageArguments/0/name",
        "/remotes/0/url",
        "/remotes/0/headers/0/choices",
    ] {
        assert!(
            shaped.iter().any(|(p, _)| *p == at),
            "{at} not found: {shaped:#?}"
        );
    }
    for f in found.iter().filter(|f| f.code == "publish.schema") {
        assert_eq!(f.severity, Severity::Error);
        assert!(!f.fix.is_empty() && !f.why.is_empty());
    }
    // Said once per place: a rule's finding there stands alone.
    let mut places: Vec<&str> = found.iter().map(|f| f.pointer.as_str()).collect();
    let all = places.len();
    places.sort_unstable();
    places.dedup();
    assert!(all - places.len() <= found.iter().filter(|f| f.code != "publish.schema").count());
}

#[test]
fn the_registrys_own_examples_are_of_the_right_shape() {
    // The stand-in registry's fixtures, written from the published format.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/registry");
    let mut seen = 0;
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let path = entry.unwrap().path();
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let server = doc.get("server").unwrap_or(&doc);
        let found = workbench_doctor::publish::server_json::check(server);
        let shaped: Vec<&Finding> = found
            .iter()
            .filter(|f| f.code == "publish.schema")
            .collect();
        assert!(shaped.is_empty(), "{}: {shaped:#?}", path.display());
        seen += 1;
    }
    assert!(seen >= 5);
}

/// Manifests of every version, each clean or with one thing changed: what
/// the official `mcpb validate` (from npm) says of each.
fn manifest_variants() -> Vec<(String, serde_json::Value)> {
    let base = json!({
        "name": "demo", "version": "1.0.0", "description": "d", "author": { "name": "A" },
        "server": { "type": "node", "entry_point": "server/index.js",
            "mcp_config": { "command": "node", "args": ["${__dirname}/server/index.js"] } }
    });
    type Change = fn(&mut serde_json::Value);
    let changes: &[(&str, Change)] = &[
        ("clean", |_| {}),
        ("no name", |m| {
            drop(m.as_object_mut().unwrap().remove("name"))
        }),
        ("no author", |m| {
            drop(m.as_object_mut().unwrap().remove("author"))
        }),
        ("no server", |m| {
            drop(m.as_object_mut().unwrap().remove("server"))
        }),
        ("author without name", |m| m["author"] = json!({})),
        ("author's email", |m| {
            m["author"]["email"] = json!("not-an-email")
        }),
        ("author's url", |m| m["author"]["url"] = json!("not a url")),
        ("name a number", |m| m["name"] = json!(5)),
        ("an unknown key", |m| m["unknown_key"] = json!(1)),
        ("server type ruby", |m| m["server"]["type"] = json!("ruby")),
        ("server type uv", |m| m["server"]["type"] = json!("uv")),
        ("no mcp_config", |m| {
            drop(m["server"].as_object_mut().unwrap().remove("mcp_config"))
        }),
        ("no entry_point", |m| {
            drop(m["server"].as_object_mut().unwrap().remove("entry_point"))
        }),
        ("mcp_config without command", |m| {
            m["server"]["mcp_config"] = json!({ "args": [] })
        }),
        ("a platform override", |m| {
            m["server"]["mcp_config"]["platform_overrides"] =
                json!({ "win32": { "command": "node.exe" } })
        }),
        ("a platform override's unknown key", |m| {
            m["server"]["mcp_config"]["platform_overrides"] = json!({ "win32": { "cmd": "x" } })
        }),
        ("a tool without name", |m| {
            m["tools"] = json!([{ "description": "x" }])
        }),
        ("a tool without description", |m| {
            m["tools"] = json!([{ "name": "t" }])
        }),
        ("a prompt without text", |m| {
            m["prompts"] = json!([{ "name": "p" }])
        }),
        ("keywords a string", |m| m["keywords"] = json!("a")),
        ("repository without url", |m| {
            m["repository"] = json!({ "type": "git" })
        }),
        ("user_config without title", |m| {
            m["user_config"] = json!({ "k": { "type": "string" } })
        }),
        (
            "user_config of a wrong type",
            |m| {
                m["user_config"] =
                    json!({ "k": { "type": "weird", "title": "K", "description": "d" } })
            },
        ),
        (
            "user_config",
            |m| m["user_config"] = json!({ "k": { "type": "string", "title": "K", "description": "d", "default": ["a"] } }),
        ),
        ("a platform beos", |m| {
            m["compatibility"] = json!({ "platforms": ["beos"] })
        }),
        ("runtimes", |m| {
            m["compatibility"] = json!({ "runtimes": { "python": ">=3.8" } })
        }),
        ("icons", |m| {
            m["icons"] = json!([{ "src": "i.png", "size": "16x16" }])
        }),
        ("icons of a bad size", |m| {
            m["icons"] = json!([{ "src": "i.png", "size": "big" }])
        }),
        ("privacy_policies", |m| {
            m["privacy_policies"] = json!(["https://x.example/p"])
        }),
        (
            "localization",
            |m| {
                m["localization"] =
                    json!({ "resources": "l/${locale}.json", "default_locale": "en-US" })
            },
        ),
        (
            "localization without ${locale}",
            |m| m["localization"] = json!({ "resources": "l.json", "default_locale": "en-US" }),
        ),
        ("_meta", |m| m["_meta"] = json!({ "com.example": {} })),
        ("display_name a number", |m| m["display_name"] = json!(3)),
        ("a homepage that is no URL", |m| {
            m["homepage"] = json!("home")
        }),
    ];
    let mut out = Vec::new();
    for version in ["0.1", "0.2", "0.3", "0.4"] {
        for (what, change) in changes {
            let mut m = base.clone();
            m["manifest_version"] = json!(version);
            change(&mut m);
            out.push((format!("{version}: {what}"), m));
        }
    }
    let mut dxt = base.clone();
    dxt["dxt_version"] = json!("0.2");
    out.push(("dxt_version 0.2".into(), dxt));
    let mut later = base.clone();
    later["manifest_version"] = json!("0.5");
    out.push(("0.5".into(), later));
    out
}

/// Each manifest is valid for the workbench's check (no error) exactly when
/// it is for the official `mcpb validate` — run in one node process over
/// the package `cargo xtask test` installs from npm.
#[test]
fn manifests_are_judged_as_the_official_mcpb_validate_judges_them() {
    let Some(third) = std::env::var_os("MCPWB_THIRD_PARTY") else {
        eprintln!("MCPWB_THIRD_PARTY is not set (cargo xtask test sets it): skipped");
        return;
    };
    let package = Path::new(&third).join("node_modules/@anthropic-ai/mcpb/dist/node.js");
    if !package.exists() {
        eprintln!("no @anthropic-ai/mcpb under MCPWB_THIRD_PARTY: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let variants = manifest_variants();
    for (i, (_, m)) in variants.iter().enumerate() {
        let d = dir.path().join(i.to_string());
        std::fs::create_dir_all(d.join("server")).unwrap();
        write(&d, "server/index.js", "");
        write(&d, "manifest.json", &m.to_string());
    }
    let script = dir.path().join("official.mjs");
    std::fs::write(
        &script,
        format!(
            "import {{ validateManifest }} from {:?};\n\
             const out = []; const log = console.log; console.log = () => {{}}; console.error = () => {{}};\n\
             for (let i = 0; i < {}; i++) out.push(validateManifest({:?} + '/' + i + '/manifest.json') ? 1 : 0);\n\
             log(out.join(''));\n",
            format!("file://{}", package.display()),
            variants.len(),
            dir.path().display().to_string()
        ),
    )
    .unwrap();
    let run = std::process::Command::new("node")
        .arg(&script)
        .output()
        .expect("node");
    let official = String::from_utf8_lossy(&run.stdout).trim().to_string();
    assert_eq!(
        official.len(),
        variants.len(),
        "node: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut differ = Vec::new();
    for (i, ((what, m), said)) in variants.iter().zip(official.chars()).enumerate() {
        let errors: Vec<_> =
            workbench_doctor::publish::manifest::check(&dir.path().join(i.to_string()), m)
                .into_iter()
                .filter(|f| f.severity == Severity::Error)
                .collect();
        if errors.is_empty() != (said == '1') {
            differ.push(format!(
                "{what}: mcpb says {}, the check {:?}",
                if said == '1' { "valid" } else { "invalid" },
                codes(&errors)
            ));
        }
    }
    let rejected = official.chars().filter(|c| *c == '0').count();
    eprintln!(
        "{} manifests, {rejected} refused by mcpb validate; the check differs on {}",
        variants.len(),
        differ.len()
    );
    assert!(differ.is_empty(), "{differ:#?}");
    assert!(
        rejected > 40 && rejected < variants.len() - 20,
        "both kinds of manifest were tried"
    );
}
