//! A new entry written into a host's own config file (Claude Desktop's,
//! VS Code's, Cursor's, …) in that host's dialect: the entry exported as
//! the host spells it (what it cannot express named in a note), added
//! through the lossless edits (comments, order and every other byte kept),
//! the file written only if nobody changed it meanwhile. A name the file
//! has already is refused, never replaced; a file that is a symbolic link
//! is not edited (an atomic write would replace the link). The JSON
//! dialects are written through the JSONC edits (`mcpServers`, `servers`,
//! Zed's `context_servers`); Goose's and Continue's YAML as text, read back
//! before writing (`yaml.rs`); Codex's TOML through `toml_edit`
//! (`toml_file.rs`).

use std::path::Path;

use jsonc_parser::cst::CstRootNode;
use serde_json::{Map, Value};

use super::tapping::HostFile;
use super::{Dialect, export};
use crate::edit::{EditOp, apply};
use crate::error::{Error, Result};

mod yaml;

fn refused(message: String) -> Error {
    Error::ConfigEdit { message }
}

/// Where a secret value goes when an entry is added into a host's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Secrets {
    /// The host asks for it and keeps it (VS Code's `inputs`).
    HostAsks,
    /// The host reads it from its own environment: the file names the
    /// variable (Codex, Gemini CLI, Claude Code, started from a shell).
    Environment,
    /// Only as plain text in the file, with the person's word.
    PlainText,
}

/// Where a secret goes in `d`'s files.
pub fn secrets(d: Dialect) -> Secrets {
    match d {
        Dialect::Vscode => Secrets::HostAsks,
        Dialect::Codex | Dialect::Gemini | Dialect::ClaudeCode => Secrets::Environment,
        _ => Secrets::PlainText,
    }
}

/// Whether entries can be added to `d`'s files here.
pub fn writable(d: Dialect) -> bool {
    !matches!(d, Dialect::Registry | Dialect::OpenCode)
}

/// Add `name` (our on-disk shape; `inputs` the declarations it refers to)
/// to the host's file `path` of dialect `d`, creating the file when there
/// is none. What the host's dialect dropped or changed, one note each.
pub fn add(
    path: &Path,
    d: Dialect,
    name: &str,
    entry: &Map<String, Value>,
    inputs: &[Value],
) -> Result<Vec<String>> {
    if d == Dialect::OpenCode {
        return Err(refused(format!(
            "{} is OpenCode's: it keeps its servers in one of two shapes the workbench does not add to in place; print the entry with `mcpwb config export --to opencode` and paste it under \"mcp\"",
            path.display()
        )));
    }
    if !writable(d) {
        return Err(refused(format!(
            "{} is a registry's server.json, not a host's config",
            path.display()
        )));
    }
    let exported = export::export(d, &[(name.to_string(), entry.clone())], inputs)?;
    if matches!(d, Dialect::Goose | Dialect::Continue) {
        return add_yaml(path, d, name, exported);
    }
    if d == Dialect::Codex {
        let Some(file) = existing(path, &exported.text)? else {
            return Ok(exported.notes);
        };
        let text = super::toml_file::add(path, &file.text, &exported.text, name)?;
        file.write(path, &text)?;
        return Ok(exported.notes);
    }
    let doc: Value = crate::parse_jsonc(path, &exported.text)?;
    let key = ["mcpServers", "servers", "context_servers"]
        .into_iter()
        .find(|k| doc[*k].get(name).is_some())
        .ok_or_else(|| {
            refused(if exported.notes.is_empty() {
                format!("{} cannot hold this server", d.id())
            } else {
                exported.notes.join("; ")
            })
        })?;
    let written = doc[key][name].as_object().cloned().unwrap_or_default();
    let declared = doc["inputs"].as_array().cloned().unwrap_or_default();
    let Some(file) = existing(path, &exported.text)? else {
        return Ok(exported.notes);
    };
    let before = file.text.clone();
    let now = crate::parse_jsonc(path, &before).ok();
    if now.as_ref().is_some_and(|v| {
        ["mcpServers", "servers", "context_servers"]
            .iter()
            .any(|k| v[*k].get(name).is_some())
    }) {
        return Err(refused(format!(
            "{} has a server named \"{name}\" already: give this one another name",
            path.display()
        )));
    }
    if key == "context_servers" {
        // Zed's settings: the entry appended to its own object, the rest
        // of the settings as they were.
        crate::parse_jsonc(path, &before)?;
        let root = CstRootNode::parse(&before, &crate::parse::jsonc_options())
            .map_err(|e| refused(format!("{}: {e}", path.display())))?;
        let settings = root
            .object_value()
            .ok_or_else(|| refused(format!("{} must hold a JSON object", path.display())))?;
        let servers = settings.object_value_or_set("context_servers");
        servers.append(name, crate::edit::input(&Value::Object(written)));
        file.write(path, &root.to_string())?;
        return Ok(exported.notes);
    }
    // A file with no servers yet gets the host's own key (VS Code reads
    // only `servers`); the edits add to whichever the file has.
    let mut text = before.clone();
    let holds = now
        .as_ref()
        .is_some_and(|v| v.get("mcpServers").is_some() || v.get("servers").is_some());
    if !holds && key == "servers" {
        let root = CstRootNode::parse(&text, &crate::parse::jsonc_options())
            .map_err(|e| refused(format!("{}: {e}", path.display())))?;
        root.object_value_or_set().object_value_or_set("servers");
        text = root.to_string();
    }
    text = apply(
        path,
        &text,
        &EditOp::Upsert {
            name: name.to_string(),
            fields: written,
        },
    )?;
    for decl in declared {
        text = apply(path, &text, &EditOp::AddInput { decl })?;
    }
    file.write(path, &text)?;
    Ok(exported.notes)
}

/// The host file as it is now, read under its lock (not through a link);
/// when there is no file yet, `whole` (the host's whole shape with the
/// entry) is written as it and None says nothing is left to do. A file
/// made meanwhile (the host's first start, another add) is read and added
/// to, never written over.
fn existing(path: &Path, whole: &str) -> Result<Option<HostFile>> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match crate::document::write_new(path, whole.as_bytes()) {
                Ok(()) => Ok(None),
                Err(Error::ConfigConflict { .. }) => Ok(Some(HostFile::open(path)?)),
                Err(e) => Err(e),
            }
        }
        _ => Ok(Some(HostFile::open(path)?)),
    }
}

/// Into Goose's or Continue's YAML: the entry as the export spelled it,
/// inserted as text (see `yaml.rs`).
fn add_yaml(
    path: &Path,
    d: Dialect,
    name: &str,
    exported: export::Exported,
) -> Result<Vec<String>> {
    let doc: Value = serde_yaml_ng::from_str(&exported.text).map_err(|e| refused(e.to_string()))?;
    let (holder, written) = if d == Dialect::Goose {
        (
            yaml::Holder::Mapping("extensions"),
            doc["extensions"][name].clone(),
        )
    } else {
        (
            yaml::Holder::List("mcpServers"),
            doc["mcpServers"][0].clone(),
        )
    };
    if written.is_null() {
        return Err(refused(if exported.notes.is_empty() {
            format!("{} cannot hold this server", d.id())
        } else {
            exported.notes.join("; ")
        }));
    }
    let Some(file) = existing(path, &exported.text)? else {
        return Ok(exported.notes);
    };
    let before = &file.text;
    let paste = format!(
        "{} is left as it was; print the entry in its shape with `mcpwb config export --to {}` and paste it",
        path.display(),
        d.id()
    );
    let text = yaml::add(before, &holder, name, &written, &paste)
        .map_err(|e| refused(format!("{}: {e}", path.display())))?;
    file.write(path, &text)?;
    Ok(exported.notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry() -> Map<String, Value> {
        json!({ "command": "npx", "args": ["-y", "@acme/server@1.2.0"], "env": { "TOKEN": "${input:token}" } })
            .as_object()
            .unwrap()
            .clone()
    }

    fn token() -> Vec<Value> {
        vec![
            json!({ "type": "promptString", "id": "token", "description": "Token", "password": true }),
        ]
    }

    /// OpenCode's file is not added to in place: said, with the way to
    /// paste the entry, and left as it is.
    #[test]
    fn an_opencode_file_is_left_as_it_is_and_the_way_to_paste_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.json");
        std::fs::write(&path, "{ \"mcp\": {} }\n").unwrap();
        let e = add(&path, Dialect::OpenCode, "acme", &entry(), &[]).unwrap_err();
        assert!(
            e.to_string().contains("mcpwb config export --to opencode"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ \"mcp\": {} }\n");
    }

    #[test]
    fn into_an_existing_file_every_other_byte_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claude_desktop_config.json");
        let original = "{\n  // mine\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"fs\" }\n  },\n  \"other\": true\n}\n";
        std::fs::write(&path, original).unwrap();
        let mut e = entry();
        e.insert("env".into(), json!({ "TOKEN": "abc" }));
        add(&path, Dialect::ClaudeDesktop, "acme", &e, &[]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n  // mine\n"), "{text}");
        assert!(text.contains("\"other\": true"));
        let v = crate::parse_jsonc(&path, &text).unwrap();
        assert_eq!(v["mcpServers"]["fs"]["command"], "fs");
        assert_eq!(v["mcpServers"]["acme"]["args"][1], "@acme/server@1.2.0");
        assert_eq!(v["mcpServers"]["acme"]["env"]["TOKEN"], "abc");
        let again = add(&path, Dialect::ClaudeDesktop, "acme", &e, &[]).unwrap_err();
        assert!(again.to_string().contains("already"), "{again}");
    }

    /// The window and `mcpwb` adding into one host's file at once: each
    /// adds to what the other wrote, none refused or lost.
    #[test]
    fn adds_at_once_into_one_host_file_all_land() {
        let dir = tempfile::tempdir().unwrap();
        // No file yet: the first add makes it, the others add to it.
        let path = dir.path().join("claude_desktop_config.json");
        let file = path.clone();
        crate::tests::at_once(4, move |w| {
            for i in 0..10 {
                let name = format!("s{w}-{i}");
                add(&file, Dialect::ClaudeDesktop, &name, &entry(), &token()).unwrap();
            }
        });
        let text = std::fs::read_to_string(&path).unwrap();
        let v = crate::parse_jsonc(&path, &text).unwrap();
        assert_eq!(v["mcpServers"].as_object().unwrap().len(), 40, "{text}");
    }

    #[test]
    fn vscode_gets_servers_and_its_inputs_declared() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, "{\n  \"inputs\": []\n}\n").unwrap();
        add(&path, Dialect::Vscode, "acme", &entry(), &token()).unwrap();
        let v = crate::parse_jsonc(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["servers"]["acme"]["env"]["TOKEN"], "${input:token}");
        assert!(v.get("mcpServers").is_none(), "{v:#}");
        assert_eq!(v["inputs"][0]["id"], "token");
        // A new file: the host's whole shape.
        let fresh = dir.path().join("new/.vscode/mcp.json");
        add(&fresh, Dialect::Vscode, "acme", &entry(), &token()).unwrap();
        let v = crate::parse_jsonc(&fresh, &std::fs::read_to_string(&fresh).unwrap()).unwrap();
        assert_eq!(v["servers"]["acme"]["command"], "npx");
        assert_eq!(v["inputs"][0]["password"], true);
    }

    #[test]
    fn goose_and_continue_get_the_entry_in_their_yaml_with_every_other_byte_kept() {
        let dir = tempfile::tempdir().unwrap();
        let goose = dir.path().join("config.yaml");
        let original = "# mine\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n";
        std::fs::write(&goose, original).unwrap();
        add(&goose, Dialect::Goose, "acme", &entry(), &[]).unwrap();
        let text = std::fs::read_to_string(&goose).unwrap();
        assert!(
            text.starts_with("# mine\nGOOSE_PROVIDER: openai\nextensions:\n"),
            "{text}"
        );
        assert!(
            text.ends_with("  developer:\n    enabled: true\n    type: builtin\n"),
            "{text}"
        );
        let v: Value = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(v["extensions"]["acme"]["cmd"], "npx");
        assert_eq!(v["extensions"]["acme"]["envs"]["TOKEN"], "${input:token}");
        assert!(
            add(&goose, Dialect::Goose, "acme", &entry(), &[]).is_err(),
            "a name taken"
        );
        let cont = dir.path().join("continue.yaml");
        std::fs::write(&cont, "name: Mine\nversion: 0.0.1\nschema: v1\n").unwrap();
        add(&cont, Dialect::Continue, "acme", &entry(), &[]).unwrap();
        let text = std::fs::read_to_string(&cont).unwrap();
        assert!(
            text.starts_with("name: Mine\nversion: 0.0.1\nschema: v1\nmcpServers:\n"),
            "{text}"
        );
        let v: Value = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(v["mcpServers"][0]["name"], "acme");
        assert_eq!(v["mcpServers"][0]["command"], "npx");
    }

    #[test]
    fn a_link_a_yaml_host_and_a_broken_file_are_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "{}").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(add(&link, Dialect::Cursor, "acme", &entry(), &[]).is_err());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "{}");
        let zed = dir.path().join("settings.json");
        std::fs::write(
            &zed,
            "// Zed settings\n{\n  \"theme\": \"One Dark\",\n  \"context_servers\": {}\n}\n",
        )
        .unwrap();
        add(&zed, Dialect::Zed, "acme", &entry(), &[]).unwrap();
        let text = std::fs::read_to_string(&zed).unwrap();
        assert!(
            text.starts_with("// Zed settings\n") && text.contains("\"theme\": \"One Dark\""),
            "{text}"
        );
        let v = crate::parse_jsonc(&zed, &text).unwrap();
        assert_eq!(v["context_servers"]["acme"]["command"], "npx", "{text}");
        assert!(
            add(&zed, Dialect::Zed, "acme", &entry(), &[]).is_err(),
            "a name taken"
        );
        let goose = dir.path().join("config.yaml");
        let flow = "extensions: { developer: { enabled: true } }\n";
        std::fs::write(&goose, flow).unwrap();
        let e = add(&goose, Dialect::Goose, "acme", &entry(), &[]).unwrap_err();
        assert!(e.to_string().contains("config export --to goose"), "{e}");
        assert_eq!(std::fs::read_to_string(&goose).unwrap(), flow);
        let linked = dir.path().join("linked.yaml");
        std::os::unix::fs::symlink(&goose, &linked).unwrap();
        assert!(add(&linked, Dialect::Goose, "acme", &entry(), &[]).is_err());
        // A host that cannot run it says why.
        let desktop = dir.path().join("claude_desktop_config.json");
        let remote = json!({ "type": "http", "url": "https://x.example/mcp" });
        let e = add(
            &desktop,
            Dialect::ClaudeDesktop,
            "web",
            remote.as_object().unwrap(),
            &[],
        )
        .unwrap_err();
        assert!(e.to_string().contains("only local servers"), "{e}");
        assert!(!desktop.exists());
        let broken = dir.path().join("broken.json");
        std::fs::write(&broken, "{ \"mcpServers\": { ").unwrap();
        assert!(add(&broken, Dialect::Cursor, "acme", &entry(), &[]).is_err());
        assert_eq!(
            std::fs::read_to_string(&broken).unwrap(),
            "{ \"mcpServers\": { "
        );
    }
}
