use std::path::Path;

use serde_json::{Map, Value, json};

use super::{EditOp, apply};
use crate::ConfigFile;

const FILE: &str = r#"// My servers. Do not remove this comment.
{
    "$schema": "https://example.invalid/schema.json",
    "mcpServers": {
        /* the local one */
        "files": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], // trailing
            "env": {
                "DEBUG": "1", // keep me
                "TOKEN": "${env:TOKEN}"
            },
            "x-unknown": { "kept": true }
        },
        "remote": { "type": "http", "url": "https://example.invalid/mcp" },
    },
    "otherClientSetting": 42
}
"#;

fn p() -> &'static Path {
    Path::new("/tmp/mcp.json")
}

fn fields(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn updating_one_value_changes_only_that_value() {
    let op = EditOp::Upsert {
        name: "files".into(),
        fields: fields(json!({ "command": "bunx" })),
    };
    let out = apply(p(), FILE, &op).unwrap();
    assert_eq!(out, FILE.replacen("\"npx\"", "\"bunx\"", 1));
}

#[test]
fn an_unchanged_env_keeps_its_comments_and_a_changed_key_only_that_key() {
    let op = EditOp::Upsert {
        name: "files".into(),
        fields: fields(json!({
            "env": { "DEBUG": "1", "TOKEN": "${env:OTHER}" },
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
        })),
    };
    let out = apply(p(), FILE, &op).unwrap();
    assert_eq!(out, FILE.replace("${env:TOKEN}", "${env:OTHER}"));
}

#[test]
fn adding_a_server_appends_it_and_keeps_everything_else() {
    let op = EditOp::Upsert {
        name: "new one".into(),
        fields: fields(json!({ "command": "uvx", "args": ["mcp-server-time"] })),
    };
    let out = apply(p(), FILE, &op).unwrap();
    let cfg = ConfigFile::parse(p(), &out).unwrap();
    let names: Vec<_> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["files", "remote", "new one"]);
    // Everything before the new entry is byte-identical.
    let cut = FILE.find("\"remote\"").unwrap();
    assert_eq!(&out[..cut], &FILE[..cut]);
    assert!(out.contains("// keep me") && out.contains("\"otherClientSetting\": 42"));
    assert!(out.ends_with("}\n"));
}

#[test]
fn removing_renaming_and_disabling() {
    let out = apply(
        p(),
        FILE,
        &EditOp::Remove {
            name: "remote".into(),
        },
    )
    .unwrap();
    assert!(!out.contains("example.invalid/mcp"));
    assert!(out.contains("/* the local one */") && out.contains("// keep me"));

    let out = apply(
        p(),
        FILE,
        &EditOp::Rename {
            from: "files".into(),
            to: "fs".into(),
        },
    )
    .unwrap();
    assert_eq!(out, FILE.replacen("\"files\":", "\"fs\":", 1));

    let out = apply(
        p(),
        FILE,
        &EditOp::SetDisabled {
            name: "remote".into(),
            disabled: true,
        },
    )
    .unwrap();
    let cfg = ConfigFile::parse(p(), &out).unwrap();
    assert!(
        cfg.servers
            .iter()
            .find(|s| s.name == "remote")
            .unwrap()
            .disabled
    );
    let back = apply(
        p(),
        &out,
        &EditOp::SetDisabled {
            name: "remote".into(),
            disabled: false,
        },
    )
    .unwrap();
    let cfg = ConfigFile::parse(p(), &back).unwrap();
    assert!(
        !cfg.servers
            .iter()
            .find(|s| s.name == "remote")
            .unwrap()
            .disabled
    );
}

#[test]
fn impossible_edits_say_why_and_a_broken_file_is_not_touched() {
    let e = apply(
        p(),
        FILE,
        &EditOp::Remove {
            name: "nope".into(),
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("no server named \"nope\""), "{e}");
    let e = apply(
        p(),
        FILE,
        &EditOp::Rename {
            from: "files".into(),
            to: "remote".into(),
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    let broken = "{ \"mcpServers\": { \"a\": } }";
    let e = apply(p(), broken, &EditOp::Remove { name: "a".into() }).unwrap_err();
    assert!(e.to_string().contains(":1:"), "{e}");
    // An edit whose result would not load is refused.
    let e = apply(
        p(),
        FILE,
        &EditOp::Upsert {
            name: "files".into(),
            fields: fields(json!({ "env": "not a map" })),
        },
    );
    assert!(
        e.is_ok(),
        "a semantic problem is reported by the model, not the editor"
    );
}

#[test]
fn an_empty_file_gets_an_mcp_servers_object() {
    let op = EditOp::Upsert {
        name: "a".into(),
        fields: fields(json!({ "command": "x" })),
    };
    let out = apply(p(), "", &op).unwrap();
    let cfg = ConfigFile::parse(p(), &out).unwrap();
    assert_eq!(cfg.servers[0].name, "a");
    assert!(out.ends_with('\n'));
}

/// A removed entry takes the inputs only it used: a bundle's or a registry
/// server's own `NAME-api-key` does not stay behind, declared for nobody.
/// An input another entry uses stays, and so does one nobody used before.
#[test]
fn removing_an_entry_takes_the_inputs_only_it_used() {
    let text = r#"{
  "mcpServers": {
    "notes": { "command": "node", "env": { "API_KEY": "${input:notes-api-key}", "T": "${input:shared}" } },
    "other": { "url": "https://h/mcp", "headers": { "Authorization": "Bearer ${input:shared}" } }
  },
  "inputs": [
    { "type": "promptString", "id": "notes-api-key", "description": "API key", "password": true },
    // asked once for both
    { "type": "promptString", "id": "shared", "password": true },
    { "type": "promptString", "id": "for-later" }
  ]
}
"#;
    let out = apply(
        p(),
        text,
        &EditOp::Remove {
            name: "notes".into(),
        },
    )
    .unwrap();
    let ids: Vec<String> = ConfigFile::parse(p(), &out)
        .unwrap()
        .inputs
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(ids, ["shared", "for-later"], "{out}");
    assert!(out.contains("// asked once for both"), "{out}");
    // The last user of `shared` gone, it goes too.
    let out = apply(
        p(),
        &out,
        &EditOp::Remove {
            name: "other".into(),
        },
    )
    .unwrap();
    let left: Vec<String> = ConfigFile::parse(p(), &out)
        .unwrap()
        .inputs
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(left, ["for-later"], "{out}");
}
