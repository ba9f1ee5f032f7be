//! Adding a case to a suite file (Save to suite): appended to `cases`
//! through the JSON-with-comments tree, so the rest of the file — comments,
//! order, spacing — stays as the person wrote it; a new file is made with
//! the case's server. The result is read back before it is written.

use std::path::Path;

use jsonc_parser::cst::CstRootNode;
use serde_json::json;
use workbench_core::config::edit::input;

use workbench_core::{ErrorCode, ErrorInfo};

use super::trust::{SuiteTrust, fingerprint};

fn invalid(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Invalid, message)
}

fn storage(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Storage, message)
}
use super::{Case, PromptCase, parse};

/// A case to add: a call, or a prompt case (Save to suite from a chat).
#[derive(Clone)]
enum Saved {
    Call(Case),
    Prompt(PromptCase),
}

impl Saved {
    fn name(&mut self) -> &mut String {
        match self {
            Saved::Call(c) => &mut c.name,
            Saved::Prompt(p) => &mut p.name,
        }
    }

    /// The case names its server(s) only where the suite's is another.
    fn fit(&mut self, suite_server: Option<&str>, server: &str) {
        match self {
            Saved::Call(c) => c.server = (suite_server != Some(server)).then(|| server.to_string()),
            Saved::Prompt(p) => {
                if p.servers
                    .as_deref()
                    .is_some_and(|s| suite_server.is_some_and(|own| s.len() == 1 && s[0] == own))
                {
                    p.servers = None;
                }
            }
        }
    }

    fn value(&self) -> Result<serde_json::Value, String> {
        match self {
            Saved::Call(c) => serde_json::to_value(c),
            Saved::Prompt(p) => serde_json::to_value(p),
        }
        .map_err(|e| e.to_string())
    }
}

/// Add `case` (a call of `server`'s) to the suite at `path` (made, with
/// that server, if missing); a name already taken gets " (2)", " (3)", ...
/// Returns the name it got.
/// A new suite, or one the person trusted, is trusted as written (they
/// wrote this case); an untrusted one stays untrusted.
pub fn append_case(
    path: &Path,
    server: &str,
    case: Case,
    trust: &SuiteTrust,
) -> Result<String, ErrorInfo> {
    // Recorded arguments are data: a `${...}` in them stays text.
    let mut case = case;
    case.arguments = super::vars::literal(&case.arguments);
    append(path, server, Saved::Call(case), &[], trust)
}

/// Add a prompt case to the suite at `path`, as [`append_case`] does; a new
/// suite's server is the case's first and its models `models`.
pub fn append_prompt_case(
    path: &Path,
    case: PromptCase,
    models: &[String],
    trust: &SuiteTrust,
) -> Result<String, ErrorInfo> {
    let server = case
        .servers
        .as_ref()
        .and_then(|s| s.first())
        .cloned()
        .ok_or_else(|| invalid("which servers may the model use? The case names none"))?;
    append(path, &server, Saved::Prompt(case), models, trust)
}

fn append(
    path: &Path,
    server: &str,
    case: Saved,
    models: &[String],
    trust: &SuiteTrust,
) -> Result<String, ErrorInfo> {
    // Read, added to and written under the file's lock: another workbench
    // saving a case at once waits and adds to this one's. A file changed
    // meanwhile by something else (a pull) is read again, never written over.
    let mut tries = 0;
    loop {
        match append_once(path, server, case.clone(), models, trust) {
            Err(e) if e.code == ErrorCode::ConfigConflict && tries < 8 => tries += 1,
            done => return done,
        }
    }
}

fn append_once(
    path: &Path,
    server: &str,
    mut case: Saved,
    models: &[String],
    trust: &SuiteTrust,
) -> Result<String, ErrorInfo> {
    let held = workbench_core::files::lock_file(path);
    let text = match workbench_core::files::read_no_follow(path, super::MAX_FILE) {
        // Made by another saver after this one found no file to lock: read
        // unlocked, two savers could each add to the same text and one case
        // be lost (seen: 19 of 20 cases). Again, under the file's lock.
        Ok(_) if held.is_none() => {
            return Err(ErrorInfo::new(
                ErrorCode::ConfigConflict,
                format!("{} was made while the case was added", path.display()),
            ));
        }
        Ok(t) => String::from_utf8(t)
            .map_err(|_| invalid(format!("{}: not UTF-8 text", path.display())))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(storage(format!("{}: {e}", path.display()))),
    };
    // A suite made from a session is trusted only by its fingerprint.
    let made_from =
        !text.trim().is_empty() && parse(path, &text).is_ok_and(|s| s.made_from.is_some());
    let trusted_before = text.trim().is_empty()
        || (trust.is_own(path) && !made_from)
        || trust.is_trusted(path, &fingerprint(text.as_bytes()));
    let out = if text.trim().is_empty() {
        case.fit(Some(server), server);
        let mut suite = json!({ "server": server, "cases": [case.value().map_err(invalid)?] });
        if !models.is_empty() {
            suite["models"] = json!(models);
        }
        serde_json::to_string_pretty(&suite).map_err(|e| storage(e.to_string()))? + "\n"
    } else {
        let existing = parse(path, &text).map_err(|b| {
            ErrorInfo::new(
                ErrorCode::ConfigSyntax,
                format!("the suite cannot be read, so nothing was added: {b}"),
            )
        })?;
        let base = case.name().clone();
        let mut n = 1;
        let taken = |name: &str| {
            existing.cases.iter().any(|c| c.name == name)
                || existing.prompts.iter().any(|c| c.name == name)
        };
        while taken(case.name()) {
            n += 1;
            *case.name() = format!("{base} ({n})");
        }
        case.fit(existing.server.as_deref(), server);
        let root = CstRootNode::parse(&text, &Default::default()).map_err(|e| {
            ErrorInfo::new(ErrorCode::ConfigSyntax, format!("{}: {e}", path.display()))
        })?;
        let cases = root.object_value_or_set().array_value_or_set("cases");
        cases.append(input(&case.value().map_err(invalid)?));
        let mut out = root.to_string();
        if text.ends_with('\n') && !out.ends_with('\n') {
            out.push('\n');
        }
        out
    };
    parse(path, &out).map_err(|b| {
        invalid(format!(
            "the suite would not read back, so nothing was written: {b}"
        ))
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| storage(format!("{}: {e}", dir.display())))?;
    }
    if let Some(dir) = path.parent()
        && std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(ErrorInfo::refused(format!(
            "{}: a link, not followed",
            dir.display()
        )));
    }
    let now = match workbench_core::files::read_no_follow(path, super::MAX_FILE) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(storage(format!("{}: {e}", path.display()))),
    };
    let written = match now {
        None if text.is_empty() => {
            workbench_core::config::document::write_new(path, out.as_bytes())
        }
        Some(now) if now == text.as_bytes() => {
            workbench_core::config::document::write_atomic(path, out.as_bytes(), false)
        }
        _ => Err(workbench_core::config::Error::ConfigConflict {
            path: path.to_path_buf(),
        }),
    };
    written.map_err(|e| match e {
        workbench_core::config::Error::ConfigConflict { .. } => ErrorInfo::new(
            ErrorCode::ConfigConflict,
            format!(
                "{} changed while the case was added: nothing was written",
                path.display()
            ),
        ),
        e => storage(e.to_string()),
    })?;
    if trusted_before {
        trust
            .record(path, &fingerprint(out.as_bytes()))
            .map_err(storage)?;
    }
    Ok(case.name().clone())
}

/// Write a new suite `name` into `dir` with its snapshots (a suite made
/// from a tapped session's calls): `dir/NAME.json` and
/// `dir/__snapshots__/NAME.json`, trusted as the person's own. Its cases'
/// recorded arguments are written as text (`${` as `$${`). Refused when
/// the suite exists or the folder is a link. Returns the suite's path.
pub fn create(
    dir: &Path,
    name: &str,
    suite: &serde_json::Value,
    snapshots: &serde_json::Value,
    trust: Option<&SuiteTrust>,
) -> Result<std::path::PathBuf, ErrorInfo> {
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(invalid(format!(
            "\"{name}\" is not a suite's name (letters, digits, - and _)"
        )));
    }
    // Its cases' arguments were recorded (a host's session): data, a
    // `${...}` in them stays text, as for a case saved one by one.
    let mut suite = suite.clone();
    if let Some(cases) = suite["cases"].as_array_mut() {
        for case in cases {
            if let Some(arguments) = case.get("arguments") {
                case["arguments"] = super::vars::literal(arguments);
            }
        }
    }
    let suite = &suite;
    let snapshots_dir = dir.join("__snapshots__");
    std::fs::create_dir_all(&snapshots_dir)
        .map_err(|e| storage(format!("{}: {e}", snapshots_dir.display())))?;
    for d in [dir, snapshots_dir.as_path()] {
        if std::fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(ErrorInfo::refused(format!(
                "{}: a link, not followed",
                d.display()
            )));
        }
    }
    let path = dir.join(format!("{name}.json"));
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(ErrorInfo::refused(format!(
            "{} exists: choose another name",
            path.display()
        )));
    }
    let text = serde_json::to_string_pretty(suite).map_err(|e| storage(e.to_string()))? + "\n";
    parse(&path, &text).map_err(|b| invalid(format!("the suite would not read back: {b}")))?;
    let snaps = serde_json::to_string_pretty(snapshots).map_err(|e| storage(e.to_string()))? + "\n";
    workbench_core::files::write_private_atomic(
        &snapshots_dir.join(format!("{name}.json")),
        snaps.as_bytes(),
    )
    .map_err(|e| storage(e.to_string()))?;
    workbench_core::files::write_private_atomic(&path, text.as_bytes())
        .map_err(|e| storage(e.to_string()))?;
    // Trusted as written only when the caller says the person wrote it.
    if let Some(trust) = trust {
        trust
            .record(&path, &fingerprint(text.as_bytes()))
            .map_err(storage)?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str) -> Case {
        serde_json::from_value(json!({"name": name, "tool": "echo", "arguments": {"message": "hi"}, "expect": {"text": {"equals": "hi"}}})).unwrap()
    }

    fn trust(dir: &Path) -> SuiteTrust {
        SuiteTrust::at(dir.join("trust.json"), None)
    }

    #[test]
    fn a_case_is_added_keeping_the_file_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let trust = trust(dir.path());
        assert_eq!(
            append_case(&path, "demo", case("echo"), &trust).unwrap(),
            "echo"
        );
        let made = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(made.server.as_deref(), Some("demo"));
        assert_eq!(made.cases.len(), 1);
        assert!(made.cases[0].server.is_none());
        let hand = "// my checks\n{ \"server\": \"demo\",\n  \"cases\": [\n    { \"name\": \"echo\", \"tool\": \"echo\" } // first\n  ]\n}\n";
        std::fs::write(&path, hand).unwrap();
        assert_eq!(
            append_case(&path, "demo", case("echo"), &trust).unwrap(),
            "echo (2)"
        );
        assert_eq!(append_case(&path, "other", case("x"), &trust).unwrap(), "x");
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
            append_case(&path, "demo", case("y"), &trust)
                .unwrap_err()
                .message
                .contains("nothing was added")
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ \"cases\": [");
    }

    /// The window and `mcpwb` saving cases into one suite at once, the
    /// file made by the first: every case lands, named apart.
    #[test]
    fn cases_saved_at_once_all_land() {
        for round in 0..10 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.json");
            let start = std::sync::Arc::new(std::sync::Barrier::new(4));
            let savers: Vec<_> = (0..4)
                .map(|_| {
                    let (path, start, dir) = (path.clone(), start.clone(), dir.path().to_owned());
                    std::thread::spawn(move || {
                        start.wait();
                        for _ in 0..5 {
                            append_case(&path, "demo", case("echo"), &trust(&dir)).unwrap();
                        }
                    })
                })
                .collect();
            for s in savers {
                s.join().unwrap();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let s = parse(&path, &text).unwrap();
            assert_eq!(s.cases.len(), 20, "round {round}: {text}");
        }
    }

    fn s_case() -> PromptCase {
        serde_json::from_value(json!({"name": "p", "prompt": "hi"})).unwrap()
    }

    #[test]
    fn a_prompt_case_is_added_beside_calls() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let trust = trust(dir.path());
        append_case(&path, "demo", case("echo"), &trust).unwrap();
        let prompt: PromptCase = serde_json::from_value(json!({
            "name": "echo", "prompt": "say hi", "servers": ["demo"],
            "expect": {"calls": [{"tool": "demo/echo", "arguments": {"/message": {"equals": "hi"}}}]}
        }))
        .unwrap();
        assert_eq!(
            append_prompt_case(&path, prompt.clone(), &[], &trust).unwrap(),
            "echo (2)"
        );
        let mut elsewhere = prompt;
        elsewhere.servers = Some(vec!["other".into(), "demo".into()]);
        append_prompt_case(&path, elsewhere, &[], &trust).unwrap();
        let fresh = dir.path().join("fresh.json");
        let mut first = s_case();
        first.servers = Some(vec!["demo".into()]);
        append_prompt_case(&fresh, first, &["openai:gpt-5-mini".into()], &trust).unwrap();
        let made = parse(&fresh, &std::fs::read_to_string(&fresh).unwrap()).unwrap();
        assert_eq!(made.models, ["openai:gpt-5-mini"]);
        assert_eq!(made.server.as_deref(), Some("demo"));
        let s = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(s.prompts.len(), 2);
        assert!(
            s.prompts[0].servers.is_none(),
            "the suite's own server is not repeated"
        );
        assert_eq!(s.prompts[1].servers.as_deref().unwrap(), ["other", "demo"]);
        assert_eq!(s.prompts[0].expect.calls[0].tool, "demo/echo");
    }

    #[test]
    fn saving_keeps_a_new_or_trusted_suite_trusted_and_an_untrusted_one_untrusted() {
        let dir = tempfile::tempdir().unwrap();
        let trust = trust(dir.path());
        let trusted_now = |p: &Path| {
            let text = std::fs::read(p).unwrap();
            trust.is_trusted(p, &fingerprint(&text))
        };
        let mine = dir.path().join("mine.json");
        append_case(&mine, "demo", case("a"), &trust).unwrap();
        assert!(
            trusted_now(&mine),
            "a suite the window made is the person's"
        );
        append_case(&mine, "demo", case("b"), &trust).unwrap();
        assert!(trusted_now(&mine));
        // A suite that came with a clone stays untrusted after a save.
        let theirs = dir.path().join("theirs.json");
        std::fs::write(
            &theirs,
            r#"{"server": "demo", "cases": [{"name": "w", "tool": "wipe"}]}"#,
        )
        .unwrap();
        append_case(&theirs, "demo", case("c"), &trust).unwrap();
        assert!(!trusted_now(&theirs));
        // A planted link is not written through.
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(append_case(&link, "demo", case("d"), &trust).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
}
