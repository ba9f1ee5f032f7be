//! Adding a case to a suite file (Save to suite): appended to `cases`
//! through the JSON-with-comments tree, so the rest of the file — comments,
//! order, spacing — stays as the person wrote it; a new file is made with
//! the case's server. The result is read back before it is written.

use std::path::Path;

use jsonc_parser::cst::CstRootNode;
use serde_json::json;
use workbench_core::config::edit::input;

use super::{Case, parse};

/// Add `case` (a call of `server`'s) to the suite at `path` (made, with
/// that server, if missing); a name already taken gets " (2)", " (3)", ...
/// Returns the name it got.
pub fn append_case(path: &Path, server: &str, mut case: Case) -> Result<String, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let out = if text.trim().is_empty() {
        case.server = None;
        let suite = json!({ "server": server, "cases": [case] });
        serde_json::to_string_pretty(&suite).map_err(|e| e.to_string())? + "\n"
    } else {
        let existing = parse(path, &text)
            .map_err(|b| format!("the suite cannot be read, so nothing was added: {b}"))?;
        let base = case.name.clone();
        let mut n = 1;
        while existing.cases.iter().any(|c| c.name == case.name) {
            n += 1;
            case.name = format!("{base} ({n})");
        }
        // The case names its server only where the suite's is another.
        case.server = (existing.server.as_deref() != Some(server)).then(|| server.to_string());
        let root = CstRootNode::parse(&text, &Default::default())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let cases = root.object_value_or_set().array_value_or_set("cases");
        let value = serde_json::to_value(&case).map_err(|e| e.to_string())?;
        cases.append(input(&value));
        let mut out = root.to_string();
        if text.ends_with('\n') && !out.ends_with('\n') {
            out.push('\n');
        }
        out
    };
    parse(path, &out)
        .map_err(|b| format!("the suite would not read back, so nothing was written: {b}"))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    workbench_core::config::store::write_atomic(path, out.as_bytes(), false)
        .map_err(|e| e.to_string())?;
    Ok(case.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str) -> Case {
        serde_json::from_value(json!({"name": name, "tool": "echo", "arguments": {"message": "hi"}, "expect": {"text": {"equals": "hi"}}})).unwrap()
    }

    #[test]
    fn a_case_is_added_keeping_the_file_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        assert_eq!(append_case(&path, "demo", case("echo")).unwrap(), "echo");
        let made = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(made.server.as_deref(), Some("demo"));
        assert_eq!(made.cases.len(), 1);
        assert!(made.cases[0].server.is_none());
        let hand = "// my checks\n{ \"server\": \"demo\",\n  \"cases\": [\n    { \"name\": \"echo\", \"tool\": \"echo\" } // first\n  ]\n}\n";
        std::fs::write(&path, hand).unwrap();
        assert_eq!(
            append_case(&path, "demo", case("echo")).unwrap(),
            "echo (2)"
        );
        assert_eq!(append_case(&path, "other", case("x")).unwrap(), "x");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("// my checks\n{ \"server\": \"demo\",\n"),
            "{text}"
        );
        assert!(text.contains("// first"), "{text}");
        let s = parse(&path, &text).unwrap();
        let names: Vec<&str> = s.cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["echo", "echo (2)", "x"]);
        assert_eq!(s.cases[2].server.as_deref(), Some("other"));
        // A broken file is left alone.
        std::fs::write(&path, "{ \"cases\": [").unwrap();
        assert!(
            append_case(&path, "demo", case("y"))
                .unwrap_err()
                .contains("nothing was added")
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ \"cases\": [");
    }
}
