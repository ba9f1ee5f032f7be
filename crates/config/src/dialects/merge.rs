//! Bringing imported servers into one of our files, through the lossless
//! edits: new names are added, names we already have are kept (or replaced
//! when asked), declared inputs are added once.

use serde::Serialize;
use serde_json::Value;

use super::Imported;
use crate::ConfigFile;
use crate::document::Document;
use crate::edit::EditOp;
use crate::error::Result;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
/// What a merge of imported servers into a file did.
pub struct Merged {
    /// The servers added.
    pub added: Vec<String>,
    /// Names we already had, kept because `replace` was off.
    pub kept: Vec<String>,
    /// What was changed on the way in, one sentence each (a credential
    /// kept in the keychain instead of the file).
    pub notes: Vec<String>,
}

/// The servers `doc` holds now, by name.
pub fn names_in(doc: &Document) -> Result<Vec<String>> {
    if doc.text.trim().is_empty() {
        return Ok(Vec::new());
    }
    Ok(ConfigFile::parse(&doc.path, &doc.text)?
        .servers
        .iter()
        .map(|s| s.name.clone())
        .collect())
}

/// Whether imported server `name` goes into a file holding `ours`: it is
/// among `only` (when given), and new or `replace`-ing ours.
pub fn goes_in(name: &str, ours: &[String], only: &[String], replace: bool) -> bool {
    (only.is_empty() || only.iter().any(|o| o == name))
        && (replace || !ours.iter().any(|o| o == name))
}

/// Apply `imported` (only the servers named in `only`, if any) to `doc`'s
/// text. Nothing is saved: the caller saves (or shows a dry run).
pub fn merge_into(
    doc: &mut Document,
    imported: &Imported,
    only: &[String],
    replace: bool,
) -> Result<Merged> {
    let ours = names_in(doc)?;
    let mut out = Merged::default();
    for (name, fields) in &imported.servers {
        if !only.is_empty() && !only.contains(name) {
            continue;
        }
        if !goes_in(name, &ours, only, replace) {
            out.kept.push(name.clone());
            continue;
        }
        let mut fields = fields.clone();
        if ours.contains(name) {
            // Replacing: the transport keys theirs lacks are removed from ours.
            for key in [
                "type", "command", "args", "env", "cwd", "url", "headers", "disabled",
            ] {
                fields.entry(key).or_insert(Value::Null);
            }
        }
        doc.edit(&EditOp::Upsert {
            name: name.clone(),
            fields,
        })?;
        out.added.push(name.clone());
    }
    if !out.added.is_empty() {
        for decl in &imported.inputs {
            doc.edit(&EditOp::AddInput { decl: decl.clone() })?;
        }
    }
    Ok(out)
}
