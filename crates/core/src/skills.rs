//! Skills (SEP-2640, `io.modelcontextprotocol/skills`): what a listed skill
//! promises and the checks a loaded one must pass. A skill is a folder a
//! server serves as resources (`skill://<path>/SKILL.md` and its files);
//! `skills/list` gives each skill's frontmatter and its files' digests and
//! sizes. The bytes a client reads must be what the listing promised, and
//! the SKILL.md's frontmatter identical to the listing's: a mismatch is the
//! server's fault, said as such. A leaf: knows nothing of connections.

use serde_json::Value;

/// The extension's id, declared by a client that reads skills and by a
/// server that serves them.
pub const SKILLS_EXTENSION_ID: &str = "io.modelcontextprotocol/skills";

/// A skill's name: the folder its `SKILL.md` is in (the URI's segment
/// before `SKILL.md`), else its frontmatter's `name`.
pub fn name_of(skill: &Value) -> String {
    let uri = skill["uri"].as_str().unwrap_or_default();
    uri.strip_suffix("/SKILL.md")
        .and_then(|dir| dir.rsplit('/').next())
        .filter(|n| !n.is_empty() && !n.contains(':'))
        .map(str::to_string)
        .or_else(|| skill["frontmatter"]["name"].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The folder URI of a skill (its SKILL.md's URI less `/SKILL.md`).
pub fn folder_of(skill: &Value) -> String {
    let uri = skill["uri"].as_str().unwrap_or_default();
    uri.strip_suffix("/SKILL.md").unwrap_or(uri).to_string()
}

/// One file a listing promises: its URI, size and digest.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Promised {
    pub uri: String,
    /// Its path inside the skill (`references/FORMS.md`).
    pub path: String,
    pub size: Option<u64>,
    pub digest: Option<String>,
}

/// The files `skill` lists (none for `"resources": "dynamic"`).
pub fn promised(skill: &Value) -> Vec<Promised> {
    let folder = folder_of(skill);
    skill["resources"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|r| {
                    let uri = r["uri"].as_str()?.to_string();
                    let path = uri
                        .strip_prefix(&folder)
                        .map(|p| p.trim_start_matches('/').to_string())
                        .unwrap_or_else(|| uri.clone());
                    Some(Promised {
                        path,
                        size: r["size"].as_u64(),
                        digest: r["digest"].as_str().map(str::to_string),
                        uri,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `sha256:` and the 64 lowercase hex digits of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in hash {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// What is wrong with `bytes` against what the listing promised for them
/// (None: they are as promised).
pub fn check_file(promise: &Promised, bytes: &[u8]) -> Option<String> {
    if let Some(size) = promise.size
        && size != bytes.len() as u64
    {
        return Some(format!(
            "the server's fault: {} is {} bytes, its skills/list says {size}",
            promise.path,
            bytes.len()
        ));
    }
    let actual = digest(bytes);
    match &promise.digest {
        Some(d) if *d != actual => Some(format!(
            "the server's fault: {} has digest {actual}, its skills/list says {d}",
            promise.path
        )),
        None => Some(format!(
            "the server's fault: skills/list gives {} no digest to verify it by",
            promise.path
        )),
        _ => None,
    }
}

/// The YAML frontmatter a SKILL.md begins with (`---` … `---`), as JSON.
pub(crate) fn frontmatter(text: &str) -> Result<Value, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("SKILL.md does not begin with a --- frontmatter block")?;
    let end = rest
        .find("\n---")
        .ok_or("SKILL.md's frontmatter block has no closing ---")?;
    let yaml = &rest[..end];
    let value: Value = serde_yaml_ng::from_str(yaml)
        .map_err(|e| format!("SKILL.md's frontmatter is not YAML: {e}"))?;
    if !value.is_object() {
        return Err("SKILL.md's frontmatter is not a mapping".into());
    }
    for key in ["name", "description"] {
        if value[key].as_str().is_none_or(str::is_empty) {
            return Err(format!("SKILL.md's frontmatter has no {key}"));
        }
    }
    Ok(value)
}

/// What differs between the file's frontmatter and the listing's (empty:
/// identical in content, as the extension requires).
pub fn frontmatter_differences(file: &Value, listed: &Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let (a, b) = (
        file.as_object().unwrap_or(&empty),
        listed.as_object().unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            format!(
                "{k}: the file says {}, skills/list says {}",
                a.get(k).unwrap_or(&Value::Null),
                b.get(k).unwrap_or(&Value::Null)
            )
        })
        .collect()
}

/// The bytes of a `resources/read` result's first content (its text, or its
/// base64 blob decoded).
pub fn bytes_of(result: &Value) -> Option<Vec<u8>> {
    let c = result["contents"].as_array()?.first()?;
    if let Some(t) = c["text"].as_str() {
        return Some(t.as_bytes().to_vec());
    }
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(c["blob"].as_str()?)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_skill_is_checked_against_its_listing() {
        let md = "---\nname: pdf\ndescription: PDFs\nlicense: MIT\n---\n# PDF\n";
        let skill = json!({
            "uri": "skill://pdf/SKILL.md",
            "frontmatter": { "name": "pdf", "description": "PDFs", "license": "MIT" },
            "resources": [
                { "uri": "skill://pdf/SKILL.md", "digest": digest(md.as_bytes()), "size": md.len() },
                { "uri": "skill://pdf/references/FORMS.md", "digest": "sha256:00", "size": 3 }
            ]
        });
        assert_eq!(name_of(&skill), "pdf");
        let files = promised(&skill);
        assert_eq!(files[1].path, "references/FORMS.md");
        assert_eq!(check_file(&files[0], md.as_bytes()), None);
        let said = check_file(&files[1], b"abc").unwrap();
        assert!(
            said.contains("the server's fault") && said.contains("digest"),
            "{said}"
        );
        assert!(check_file(&files[1], b"ab").unwrap().contains("2 bytes"));
        let fm = frontmatter(md).unwrap();
        assert!(frontmatter_differences(&fm, &skill["frontmatter"]).is_empty());
        let other = frontmatter("---\nname: pdf\ndescription: other\n---\n").unwrap();
        let diff = frontmatter_differences(&other, &skill["frontmatter"]);
        assert_eq!(diff.len(), 2, "{diff:?}");
        assert!(frontmatter("# no frontmatter").is_err());
        assert!(
            frontmatter("---\nname: x\n---\n")
                .unwrap_err()
                .contains("description")
        );
    }
}
