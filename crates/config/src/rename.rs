//! A renamed server keeps its own secrets: the `${secret:...}` and
//! `${input:...}` references of its entry follow its new name, and their
//! values are copied to the new ids in the keychain. An edit of a document
//! plus keychain copies, above both [`crate::secrets`] and [`crate::vars`].

use crate::error::Result;
use crate::secrets::{Keychain, owner_prefix, segment};

/// The id `id` would have if its server `from` were called `to` (None: the
/// id is not `from`'s own).
fn renamed_id(id: &str, from: &str, to: &str) -> Option<String> {
    let (from, to) = (segment(from), segment(to));
    if let Some(rest) = id.strip_prefix(&format!("{from}/")) {
        return Some(format!("{to}/{rest}"));
    }
    let (project, rest) = id.split_once('/')?;
    let rest = rest.strip_prefix(&format!("{from}/"))?;
    project
        .strip_prefix("project-")
        .is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("{project}/{to}/{rest}"))
}

/// After `from` was renamed `to` in `doc`: its own secrets follow it (an
/// entry reads only secrets under its name). The references are rewritten
/// in the entry (nothing else in the file is touched); the values are
/// copied to their new ids in `keychain` (the old ones are left), and so
/// are its answers to `${input:..}`.
pub fn follow_rename(
    doc: &mut crate::document::Document,
    keychain: &Keychain,
    from: &str,
    to: &str,
) -> Result<usize> {
    fn walk(v: &mut serde_json::Value, from: &str, to: &str, moved: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::String(s) => {
                let mut out = String::with_capacity(s.len());
                let mut rest = s.as_str();
                while let Some(at) = rest.find("${secret:") {
                    let after = &rest[at + 9..];
                    let Some(end) = after.find('}') else { break };
                    out.push_str(&rest[..at]);
                    let id = &after[..end];
                    match renamed_id(id, from, to) {
                        Some(new) => {
                            out.push_str(&format!("${{secret:{new}}}"));
                            moved.push((id.to_string(), new));
                        }
                        None => out.push_str(&rest[at..at + 9 + end + 1]),
                    }
                    rest = &after[end + 1..];
                }
                out.push_str(rest);
                *s = out;
            }
            serde_json::Value::Array(items) => {
                items.iter_mut().for_each(|i| walk(i, from, to, moved))
            }
            serde_json::Value::Object(m) => m.values_mut().for_each(|i| walk(i, from, to, moved)),
            _ => {}
        }
    }
    let Some((_, mut fields)) = crate::raw_entries(&doc.path, &doc.text)?
        .into_iter()
        .find(|(n, _)| n == to)
    else {
        return Ok(0);
    };
    let mut moved = Vec::new();
    for v in fields.values_mut() {
        walk(v, from, to, &mut moved);
    }
    // Its answers to `${input:..}` are its own too (the references stay).
    let inputs = crate::vars::keychain_refs(&serde_json::Value::Object(fields.clone()).to_string());
    let folder = doc.path.parent();
    let mut answers = 0;
    for id in inputs.iter().filter_map(|k| k.strip_prefix("input/")) {
        for scope in [crate::Scope::User, crate::Scope::Project] {
            let old = crate::vars::input_id(&owner_prefix(scope, folder, from), id);
            if let Some(value) = keychain.get(&old)? {
                keychain.set(
                    &crate::vars::input_id(&owner_prefix(scope, folder, to), id),
                    &value,
                )?;
                answers += 1;
            }
        }
    }
    if moved.is_empty() {
        return Ok(answers);
    }
    for (old, new) in &moved {
        if let Some(value) = keychain.get(old)? {
            keychain.set(new, &value)?;
        }
    }
    doc.edit(&crate::edit::EditOp::Upsert {
        name: to.to_string(),
        fields,
    })?;
    Ok(moved.len() + answers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::Backend;

    #[test]
    fn a_renamed_servers_secrets_follow_it() {
        assert_eq!(
            renamed_id("gh/env/K", "gh", "github").as_deref(),
            Some("github/env/K")
        );
        assert_eq!(
            renamed_id("project-0123456789abcdef/gh/env/K", "gh", "github").as_deref(),
            Some("project-0123456789abcdef/github/env/K")
        );
        assert_eq!(renamed_id("other/env/K", "gh", "github"), None);
        assert_eq!(renamed_id("ghx/env/K", "gh", "github"), None);
        let ns = format!("mcpwb-test-rename-{}", std::process::id());
        let kc = Keychain::new(&ns, Backend::KernelKeyring);
        kc.set("gh/env/K", "v4lue").unwrap();
        kc.set("input/gh/pat", "answer").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        std::fs::write(
            &path,
            "// mine\n{ \"mcpServers\": { \"gh\": { \"command\": \"x\", \"env\": { \"K\": \"${secret:gh/env/K}\", \"O\": \"${secret:other/env/O}\", \"P\": \"${input:pat}\" } } } }\n",
        )
        .unwrap();
        let mut doc = crate::document::Document::open(&path).unwrap();
        doc.edit(&crate::edit::EditOp::Rename {
            from: "gh".into(),
            to: "github".into(),
        })
        .unwrap();
        assert_eq!(follow_rename(&mut doc, &kc, "gh", "github").unwrap(), 2);
        assert!(doc.text.starts_with("// mine\n"), "{}", doc.text);
        assert!(doc.text.contains("${secret:github/env/K}"), "{}", doc.text);
        assert!(
            doc.text.contains("${secret:other/env/O}"),
            "not its own: untouched"
        );
        assert_eq!(kc.get("github/env/K").unwrap().as_deref(), Some("v4lue"));
        assert_eq!(
            kc.get("input/github/pat").unwrap().as_deref(),
            Some("answer")
        );
        kc.delete("input/gh/pat").unwrap();
        kc.delete("input/github/pat").unwrap();
        kc.delete("gh/env/K").unwrap();
        kc.delete("github/env/K").unwrap();
    }
}
