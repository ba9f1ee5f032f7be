//! One entry point that runs every loader and importer over arbitrary text:
//! the fuzz target (`fuzz/`) and a property test both drive it, and neither
//! may see a panic.

use std::path::Path;

use super::ConfigFile;
use super::dialects::{self, ALL};
use super::edit::{EditOp, apply};
use super::vars::Vars;

/// Feed `text` to the config loader, every dialect's importer, the editor
/// and the variable expander. Errors are fine; panics are bugs.
pub fn exercise(text: &str) {
    let path = Path::new("/fuzz/mcp.json");
    if let Ok(cfg) = ConfigFile::parse(path, text) {
        let vars = Vars {
            env: Some(Default::default()),
            ..Vars::default()
        };
        for entry in &cfg.servers {
            let _ = entry.expanded(&vars);
        }
    }
    for d in ALL {
        if let Ok(imported) = dialects::import(d, text) {
            let _ = dialects::export(
                dialects::Dialect::Vscode,
                &imported.servers,
                &imported.inputs,
            );
        }
    }
    let ops = [
        EditOp::Remove { name: "a".into() },
        EditOp::SetDisabled {
            name: "a".into(),
            disabled: true,
        },
        EditOp::Rename {
            from: "a".into(),
            to: "b".into(),
        },
        EditOp::Upsert {
            name: "n".into(),
            fields: serde_json::json!({ "command": "x", "env": { "K": "${V:-d}" } })
                .as_object()
                .cloned()
                .unwrap_or_default(),
        },
    ];
    for op in &ops {
        if let Ok(out) = apply(path, text, op) {
            // What an edit returns always loads.
            assert!(
                ConfigFile::parse(path, &out).is_ok(),
                "an edit produced text that does not load"
            );
        }
    }
    let _ = Vars::default().expand(text);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::exercise;

    /// Text that looks like config: JSON/YAML punctuation, keys the loaders
    /// look for, references, comments.
    fn configish() -> impl Strategy<Value = String> {
        let atoms = prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "\"mcpServers\"",
            "\"servers\"",
            "\"a\"",
            "\"command\"",
            "\"url\"",
            "\"type\"",
            "\"http\"",
            "\"env\"",
            "\"headers\"",
            "\"args\"",
            "\"inputs\"",
            "\"context_servers\"",
            "\"extensions\"",
            "\"packages\"",
            "\"${VAR:-x}\"",
            "\"${input:k}\"",
            "${",
            "}",
            "// c\n",
            "/* c */",
            "\n",
            " ",
            "true",
            "null",
            "1e999",
            "-0",
            "\"\\u0000\"",
            "mcpServers:",
            "  - name: a\n",
            "\"disabled\"",
            "\"enabled\"",
            "\"registryType\"",
            "\"identifier\"",
        ]);
        prop::collection::vec(atoms, 0..60).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
        #[test]
        fn loaders_and_importers_never_panic_on_configish_text(text in configish()) {
            exercise(&text);
        }

        #[test]
        fn loaders_and_importers_never_panic_on_any_text(text in any::<String>()) {
            exercise(&text);
        }
    }
}
