//! A file against the shape its format documents (a JSON Schema written for
//! the check: `server.schema.json`, `manifest.schema.json`): each violation
//! one finding at its JSON pointer, unless a rule has one there already.

use serde_json::Value;

use crate::finding::{Finding, escape};

/// The violations of `schema` (JSON text) in `doc`, each made a finding by
/// `finding(pointer, what the validator says)`. A place one of `found` is
/// at is not said twice.
pub(crate) fn shape(
    schema: &str,
    doc: &Value,
    found: &[Finding],
    finding: impl Fn(String, String) -> Finding,
) -> Vec<Finding> {
    let schema: Value = serde_json::from_str(schema).expect("the format's schema is JSON");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the format's schema compiles");
    let mut out: Vec<Finding> = Vec::new();
    for e in validator.iter_errors(doc) {
        let mut at = e.instance_path().to_string();
        if let jsonschema::error::ValidationErrorKind::Required { property } = e.kind() {
            at = format!("{at}/{}", escape(property.as_str().unwrap_or_default()));
        }
        if found.iter().chain(out.iter()).any(|f| f.pointer == at) {
            continue;
        }
        let message = e.to_string();
        let message = if message.chars().count() > 200 {
            format!("{}…", message.chars().take(199).collect::<String>())
        } else {
            message
        };
        out.push(finding(
            if at.is_empty() { "/".to_string() } else { at },
            message,
        ));
    }
    out
}
