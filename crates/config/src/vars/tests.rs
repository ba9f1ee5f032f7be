use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::json;

use super::{Vars, input_id, keychain_refs};
use crate::secrets::{Backend, Keychain};
use crate::{Transport, parse_entry};

fn vars(keychain: Option<Keychain>) -> Vars {
    let env: BTreeMap<String, String> = [("TOKEN", "t0k"), ("EMPTY", ""), ("PORT", "8080")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Vars {
        env: Some(env),
        home: Some(PathBuf::from("/home/ada")),
        workspace: Some(PathBuf::from("/src/app")),
        keychain,
        owner: None,
    }
}

#[test]
fn every_reference_form_expands() {
    let v = vars(None);
    let cases = [
        ("Bearer ${TOKEN}", "Bearer t0k"),
        ("${env:TOKEN}", "t0k"),
        ("${MISSING:-fallback}", "fallback"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${env:MISSING:-x}", "x"),
        ("${userHome}/.cache", "/home/ada/.cache"),
        ("${workspaceFolder}/data", "/src/app/data"),
        ("http://127.0.0.1:${PORT}/mcp", "http://127.0.0.1:8080/mcp"),
        ("literal $${TOKEN} stays", "literal ${TOKEN} stays"),
        ("no references", "no references"),
        ("$HOME is not ours", "$HOME is not ours"),
    ];
    for (input, want) in cases {
        assert_eq!(v.expand(input).unwrap(), want, "{input}");
    }
}

#[test]
fn an_unset_variable_is_an_error_naming_the_server_and_key() {
    let entry = parse_entry(
        "github",
        &json!({ "command": "gh-mcp", "env": { "GITHUB_TOKEN": "${GITHUB_PAT}" } }),
    )
    .unwrap();
    let e = entry.expanded(&vars(None)).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("\"github\""), "{text}");
    assert!(text.contains("env.GITHUB_TOKEN"), "{text}");
    assert!(text.contains("GITHUB_PAT is not set"), "{text}");
    assert_eq!(e.code(), crate::error::ErrorCode::Variable);
    for bad in ["${unclosed", "${not a name}"] {
        assert!(vars(None).expand(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_file_keeps_the_text_and_the_entry_expands_where_it_runs() {
    let raw = json!({ "type": "http", "url": "${BASE:-http://127.0.0.1:9}/mcp",
                      "headers": { "Authorization": "Bearer ${TOKEN}" } });
    let entry = parse_entry("r", &raw).unwrap();
    let Transport::StreamableHttp { url, .. } = &entry.transport else {
        panic!()
    };
    assert_eq!(url, "${BASE:-http://127.0.0.1:9}/mcp");
    let e = entry.expanded(&vars(None)).unwrap();
    let Transport::StreamableHttp { url, headers } = &e.transport else {
        panic!()
    };
    assert_eq!(url, "http://127.0.0.1:9/mcp");
    assert_eq!(headers["Authorization"], "Bearer t0k");
    // A URL that expands to something that is not http(s) is refused.
    let bad = parse_entry("r", &json!({ "type": "http", "url": "${PORT}" })).unwrap();
    assert!(
        bad.expanded(&vars(None))
            .unwrap_err()
            .to_string()
            .contains("not an http")
    );
}

#[test]
fn inputs_and_secrets_come_from_the_keychain() {
    let ns = format!("mcpwb-test-vars-{}", std::process::id());
    let kc = Keychain::new(&ns, Backend::KernelKeyring);
    let mut v = vars(Some(kc.clone()));
    // Outside an entry an input has no owner.
    let e = v.expand("${input:api-key}").unwrap_err().message;
    assert!(e.contains("belongs to a server entry"), "{e}");
    v.owner = Some("srv/".into());
    let e = v.expand("${input:api-key}").unwrap_err().message;
    assert!(
        e.contains("\"api-key\" has not been given yet (give it in the window, or with `mcpwb config input api-key`)"),
        "{e}"
    );
    kc.set(&input_id("srv/", "api-key"), "from-the-user")
        .unwrap();
    kc.set("srv/env/TOKEN", "kept-secret").unwrap();
    assert_eq!(v.expand("${input:api-key}").unwrap(), "from-the-user");
    assert_eq!(v.expand("${secret:srv/env/TOKEN}").unwrap(), "kept-secret");
    // Another entry's answer is not this one's.
    v.owner = Some("other/".into());
    assert!(v.expand("${input:api-key}").is_err());
    assert_eq!(
        keychain_refs("a ${input:api-key} b ${secret:srv/env/TOKEN} ${HOME}"),
        ["input/api-key".to_string(), "srv/env/TOKEN".to_string()]
    );
    kc.delete(&input_id("srv/", "api-key")).unwrap();
    kc.delete("srv/env/TOKEN").unwrap();
}

#[test]
fn missing_inputs_are_listed_once_with_their_declaration_and_users() {
    let cfg = crate::ConfigFile::parse(
        std::path::Path::new("/t/mcp.json"),
        r#"{ "inputs": [ { "id": "key", "description": "API key", "password": false } ],
             "mcpServers": {
               "a": { "command": "x", "env": { "K": "${input:key}", "T": "${input:token}" } },
               "b": { "url": "https://h/mcp", "headers": { "A": "Bearer ${input:key}" } },
               "c": { "command": "y", "args": ["${input:given}"] } } }"#,
    )
    .unwrap();
    let missing = cfg.missing_inputs(None, |id| id == input_id("c/", "given"));
    let ids: Vec<_> = missing
        .iter()
        .map(|n| (n.id.as_str(), n.servers.clone(), n.password))
        .collect();
    assert_eq!(
        ids,
        [
            ("key", vec!["a".to_string(), "b".to_string()], false),
            ("token", vec!["a".to_string()], true),
        ]
    );
    assert_eq!(missing[0].description.as_deref(), Some("API key"));
}

#[test]
fn an_entry_reads_only_its_own_secrets() {
    use crate::Scope;
    use crate::secrets::{owner_prefix, secret_id_for};
    let ns = format!("mcpwb-test-scoped-{}", std::process::id());
    let kc = Keychain::new(&ns, Backend::KernelKeyring);
    let project = std::env::temp_dir();
    let mut v = vars(Some(kc.clone()));
    v.workspace = Some(project.clone());
    let github = secret_id_for(Scope::User, None, "github", "headers", "Authorization");
    kc.set(&github, "Bearer ghp_user").unwrap();
    let team = secret_id_for(Scope::Project, Some(&project), "team", "env", "KEY");
    kc.set(&team, "team-key").unwrap();
    let cfg = crate::ConfigFile::parse(
        std::path::Path::new("/t/mcp.json"),
        &format!(
            r#"{{ "mcpServers": {{
               "github": {{ "url": "https://gh/mcp", "headers": {{ "Authorization": "${{secret:{github}}}" }} }},
               "thief": {{ "command": "x", "env": {{ "T": "${{secret:{github}}}" }} }},
               "literal": {{ "command": "x", "args": ["$${{secret:{github}}}"] }} }} }}"#
        ),
    )
    .unwrap();
    let by = |n: &str| cfg.servers.iter().find(|e| e.name == n).unwrap().clone();
    // Its own: read.
    let own = by("github").expanded(&v).unwrap();
    assert!(format!("{:?}", own.transport).contains("ghp_user"));
    // Another server's: refused, saying why; the value is not in the error.
    let e = by("thief").expanded(&v).unwrap_err().to_string();
    assert!(
        e.contains("not this server's") && !e.contains("ghp_user"),
        "{e}"
    );
    // An escaped reference is text, not a read.
    assert!(by("literal").expanded(&v).is_ok());
    // A project's entry of the same name cannot read the user's secret…
    let mut project_github = by("github");
    project_github.scope = Scope::Project;
    let e = project_github.expanded(&v).unwrap_err().to_string();
    assert!(
        e.contains(&owner_prefix(Scope::Project, Some(&project), "github")),
        "{e}"
    );
    // …but reads its own.
    let mut team_entry = by("thief");
    team_entry.name = "team".into();
    team_entry.scope = Scope::Project;
    if let crate::Transport::Stdio { env, .. } = &mut team_entry.transport {
        env.insert("T".into(), format!("${{secret:{team}}}"));
    }
    let ok = team_entry.expanded(&v).unwrap();
    assert!(format!("{:?}", ok.transport).contains("team-key"));
    kc.delete(&github).unwrap();
    kc.delete(&team).unwrap();
}

#[test]
fn an_entry_reads_only_its_own_input_answers() {
    use crate::Scope;
    let ns = format!("mcpwb-test-inputs-{}", std::process::id());
    let kc = Keychain::new(&ns, Backend::KernelKeyring);
    let project = std::env::temp_dir();
    let mut v = vars(Some(kc.clone()));
    v.workspace = Some(project.clone());
    let cfg = crate::ConfigFile::parse(
        std::path::Path::new("/t/mcp.json"),
        r#"{ "mcpServers": {
               "github": { "url": "https://gh/mcp", "headers": { "Authorization": "Bearer ${input:token}" } },
               "cloned": { "command": "x", "env": { "T": "${input:token}" } } } }"#,
    )
    .unwrap();
    let by = |n: &str| cfg.servers.iter().find(|e| e.name == n).unwrap().clone();
    // The person answered for their own github entry.
    let github = by("github");
    kc.set(&github.input_key(Some(&project), "token"), "ghp_user")
        .unwrap();
    assert!(format!("{:?}", github.expanded(&v).unwrap().transport).contains("ghp_user"));
    // Another entry naming the same input does not get that answer…
    let e = by("cloned").expanded(&v).unwrap_err().to_string();
    assert!(
        e.contains("has not been given") && !e.contains("ghp_user"),
        "{e}"
    );
    // …nor does a project's entry of the same name.
    let mut project_github = github.clone();
    project_github.scope = Scope::Project;
    assert!(project_github.expanded(&v).is_err());
    // The window asks once and stores the answer for each entry that uses it.
    let keys = cfg.input_keys(Some(&project), "token");
    assert_eq!(
        keys.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(),
        ["github", "cloned"]
    );
    let missing = cfg.missing_inputs(Some(&project), |k| kc.get(k).unwrap().is_some());
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].servers, ["cloned"]);
    kc.delete(&github.input_key(Some(&project), "token"))
        .unwrap();
}

#[test]
fn the_values_to_mask_include_references_and_url_credentials_but_not_paths() {
    let ns = format!("mcpwb-test-mask-{}", std::process::id());
    let kc = Keychain::new(&ns, Backend::KernelKeyring);
    kc.set("api/url/key", "kc-value-1234").unwrap();
    let mut v = vars(Some(kc.clone()));
    v.env
        .as_mut()
        .unwrap()
        .insert("GITHUB_TOKEN".into(), "ghp_abcdef".into());
    let remote = parse_entry(
        "api",
        &json!({
            "url": "https://bot:p%40ss-word@h.example/${secret:api/url/key}/mcp?api_key=q-value-99&format=json",
            "headers": { "X-Env": "${GITHUB_TOKEN}" }
        }),
    )
    .unwrap();
    let expanded = remote.expanded(&v).unwrap();
    let values = remote.secret_values(&expanded, &v);
    for s in [
        "kc-value-1234",
        "ghp_abcdef",
        "p%40ss-word",
        "p@ss-word",
        "q-value-99",
    ] {
        assert!(values.iter().any(|x| x == s), "{s} not in {values:?}");
    }
    // A parameter that is not a credential, and the user name beside a
    // password, stay readable.
    assert!(
        !values.iter().any(|x| x == "json" || x == "bot"),
        "{values:?}"
    );
    // A lone user name is how some servers take a token.
    let lone = parse_entry("t", &json!({ "url": "https://tok-5566@h.example/mcp" })).unwrap();
    let values = lone.secret_values(&lone.expanded(&v).unwrap(), &v);
    assert!(values.iter().any(|x| x == "tok-5566"), "{values:?}");
    // Paths and ports from the environment are not secrets.
    let local = parse_entry(
        "local",
        &json!({ "command": "${userHome}/bin/x", "args": ["--port", "${PORT}", "--key", "${GITHUB_TOKEN}"] }),
    )
    .unwrap();
    let values = local.secret_values(&local.expanded(&v).unwrap(), &v);
    assert_eq!(values, ["ghp_abcdef"]);
    kc.delete("api/url/key").unwrap();
}
