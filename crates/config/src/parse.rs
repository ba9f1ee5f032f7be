//! JSON with comments and trailing commas (as VS Code writes it) to a value,
//! with line:column on error.

use std::path::Path;

use jsonc_parser::ParseOptions;

use crate::error::{Error, Result};

/// What we accept: `//` and `/* */` comments and trailing commas (as VS Code
/// writes them); everything else strict JSON, since other clients read the file.
pub(crate) fn jsonc_options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        ..ParseOptions::default()
    }
}

/// Parse JSONC (see [`jsonc_options`]) with line:column on error.
pub fn parse_jsonc(path: &Path, text: &str) -> Result<serde_json::Value> {
    let options = jsonc_options();
    if text.trim().is_empty() {
        return Err(Error::ConfigSyntax {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: "the file is empty; it should hold a JSON object with \"mcpServers\""
                .to_string(),
        });
    }
    jsonc_parser::parse_to_serde_value::<serde_json::Value>(text, &options).map_err(|e| {
        Error::ConfigSyntax {
            path: path.to_path_buf(),
            line: e.line_display(),
            column: e.column_display(),
            message: e.kind().to_string(),
        }
    })
}
