//! A server's skills (SEP-2640) against the extension's rules, from its
//! listing: names (1–64 lowercase letters, digits and single hyphens, equal
//! to the folder the SKILL.md is in), `skill://…/SKILL.md` URIs, frontmatter
//! with a name and a description, every file with a `sha256:` digest and a
//! size and inside the skill's folder, the skill's own SKILL.md listed, the
//! limits (512 files, 16 MiB). Loading each skill (its SKILL.md read and
//! compared with the listing) is `examine`'s, with a connection.

use serde_json::Value;
use workbench_core::skills::{folder_of, name_of};

use crate::finding::{Finding, Severity, quote};

const SPEC: &str = "the skills extension (SEP-2640)";

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

fn valid_digest(d: &str) -> bool {
    d.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The findings of one listing.
pub fn check(skills: &[Value]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, skill) in skills.iter().enumerate() {
        let uri = skill["uri"].as_str().unwrap_or_default();
        let item = format!(
            "skill {}",
            if uri.is_empty() {
                format!("#{i}")
            } else {
                uri.to_string()
            }
        );
        if !uri.ends_with("/SKILL.md") {
            out.push(
                Finding::new("skill.uri-not-skill-md", Severity::Error, &item)
                    .at("/uri")
                    .seen(quote(&skill["uri"]))
                    .why(format!("{SPEC}: a skill's URI is its SKILL.md's; hosts find the skill's name and folder from it"))
                    .fix("List the skill as skill://<path>/SKILL.md"),
            );
            continue;
        }
        let name = name_of(skill);
        *seen.entry(name.clone()).or_default() += 1;
        names(skill, &name, &item, &mut out);
        let Some(files) = skill["resources"].as_array() else {
            if skill["resources"] != "dynamic" {
                out.push(
                    Finding::new("skill.resources-missing", Severity::Error, &item)
                        .at("/resources")
                        .seen(quote(&skill["resources"]))
                        .why(format!("{SPEC}: each skill lists its files with digests and sizes (or says \"dynamic\")"))
                        .fix("List every file of the skill with its sha256 digest and size"),
                );
            }
            continue;
        };
        resources(skill, uri, files, &item, &mut out);
    }
    for (name, n) in seen {
        if n > 1 {
            out.push(
                Finding::new(
                    "skill.name-repeated",
                    Severity::Warning,
                    format!("skill {name}"),
                )
                .seen(format!("{n} skills named \"{name}\""))
                .why(format!(
                    "{SPEC}: names should be unique in a listing; hosts must tell them apart by URI"
                ))
                .fix("Give each skill its own name"),
            );
        }
    }
    out
}

/// A skill's name: valid, in its frontmatter with a description, the
/// same as its folder's.
fn names(skill: &Value, name: &str, item: &str, out: &mut Vec<Finding>) {
    if !valid_name(name) {
        out.push(
            Finding::new("skill.name-invalid", Severity::Error, item)
                .at("/uri")
                .seen(format!("\"{name}\""))
                .why(format!("{SPEC}: a skill's name is 1–64 lowercase letters, digits and hyphens, no leading, trailing or double hyphen; hosts refuse others"))
                .fix("Rename the skill's folder (and its frontmatter name) to e.g. pdf-processing"),
        );
    }
    let fm = &skill["frontmatter"];
    for key in ["name", "description"] {
        if fm[key].as_str().is_none_or(str::is_empty) {
            out.push(
                Finding::new("skill.frontmatter-incomplete", Severity::Error, item)
                    .at(format!("/frontmatter/{key}"))
                    .seen(quote(fm))
                    .why(format!("{SPEC}: SKILL.md's frontmatter has at least a name and a description; the listing repeats it"))
                    .fix(format!("Give the SKILL.md a `{key}:` in its frontmatter")),
            );
        }
    }
    if let Some(fm_name) = fm["name"].as_str()
        && !fm_name.is_empty()
        && fm_name != name
    {
        out.push(
            Finding::new("skill.name-mismatch", Severity::Error, item)
                .at("/frontmatter/name")
                .seen(format!("folder \"{name}\", frontmatter \"{fm_name}\""))
                .why(format!(
                    "{SPEC}: the segment before SKILL.md must equal the frontmatter's name"
                ))
                .fix("Name the folder as the skill, or the skill as its folder"),
        );
    }
}

/// A skill's files: inside its folder, each with its digest and size, its
/// SKILL.md among them, within the sizes hosts take.
fn resources(skill: &Value, uri: &str, files: &[Value], item: &str, out: &mut Vec<Finding>) {
    let folder = format!("{}/", folder_of(skill));
    let mut total = 0u64;
    let mut lists_itself = false;
    for (j, f) in files.iter().enumerate() {
        let furi = f["uri"].as_str().unwrap_or_default();
        lists_itself |= furi == uri;
        if !furi.starts_with(&folder) {
            out.push(
                Finding::new("skill.resource-outside", Severity::Error, item)
                    .at(format!("/resources/{j}/uri"))
                    .seen(quote(&f["uri"]))
                    .why(format!("{SPEC}: a skill's files are inside its folder; a host will not read one elsewhere"))
                    .fix(format!("Serve the file under {folder}")),
            );
        }
        if !f["digest"].as_str().is_some_and(valid_digest) {
            out.push(
                Finding::new("skill.digest-invalid", Severity::Error, item)
                    .at(format!("/resources/{j}/digest"))
                    .seen(quote(&f["digest"]))
                    .why(format!("{SPEC}: each file's digest is sha256: and 64 lowercase hex digits; hosts verify what they read against it"))
                    .fix("Give the file's digest as sha256:<hex of SHA-256 of its bytes>"),
            );
        }
        match f["size"].as_u64() {
            Some(n) => total += n,
            None => out.push(
                Finding::new("skill.size-missing", Severity::Error, item)
                    .at(format!("/resources/{j}/size"))
                    .seen(quote(&f["size"]))
                    .why(format!("{SPEC}: each file's size in bytes is listed; a read of another length is a verification failure"))
                    .fix("List the file's size in bytes"),
            ),
        }
    }
    if !lists_itself {
        out.push(
            Finding::new("skill.skill-md-not-listed", Severity::Warning, item)
                .at("/resources")
                .why(format!(
                    "{SPEC}: the skill's files include its SKILL.md, so a host can verify it"
                ))
                .fix("List the SKILL.md among the skill's resources with its digest and size"),
        );
    }
    if files.len() > 512 || total > 16 * 1024 * 1024 {
        out.push(
            Finding::new("skill.too-large", Severity::Warning, item)
                .at("/resources")
                .seen(format!("{} files, {total} bytes", files.len()))
                .why(format!("{SPEC}: a skill should hold at most 512 files and 16 MiB; hosts may refuse a larger one"))
                .fix("Split the skill, or leave large data out of it"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_rule_is_found_where_it_is_broken() {
        let good = json!({ "uri": "skill://pdf/SKILL.md",
            "frontmatter": { "name": "pdf", "description": "PDFs" },
            "resources": [{ "uri": "skill://pdf/SKILL.md", "digest": format!("sha256:{}", "a".repeat(64)), "size": 10 }] });
        assert!(check(std::slice::from_ref(&good)).is_empty());
        let bad = json!({ "uri": "skill://x/PDF--Tools/SKILL.md",
            "frontmatter": { "name": "pdf-tools" },
            "resources": [{ "uri": "skill://elsewhere/a.md", "digest": "md5:00" }] });
        let codes: Vec<String> = check(&[bad, json!({ "uri": "file:///tmp/x" })])
            .into_iter()
            .map(|f| f.code)
            .collect();
        for c in [
            "skill.name-invalid",
            "skill.frontmatter-incomplete",
            "skill.name-mismatch",
            "skill.resource-outside",
            "skill.digest-invalid",
            "skill.size-missing",
            "skill.skill-md-not-listed",
            "skill.uri-not-skill-md",
        ] {
            assert!(codes.iter().any(|x| x == c), "{c} not in {codes:?}");
        }
        assert!(
            check(&[good.clone(), good])
                .iter()
                .any(|f| f.code == "skill.name-repeated")
        );
    }
}
