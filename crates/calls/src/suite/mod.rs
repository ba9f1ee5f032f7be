//! Suites: saved calls with assertions, kept in the project as JSON files
//! (`.mcp-workbench/suites/*.json`, reviewable in a pull request) and run
//! headless (`mcpwb test`) or from the window, through the one call path
//! (origin `suite`).
//!
//! ```json
//! { "server": "demo",
//!   "cases": [
//!     { "name": "adds", "tool": "add", "arguments": {"a": 2, "b": 3},
//!       "expect": { "json": { "/sum": { "equals": 5 } }, "outputSchema": true } },
//!     { "name": "echoes the sum", "tool": "echo",
//!       "arguments": { "message": "${case.adds.json./sum}" },
//!       "expect": { "text": { "contains": "5" } } },
//!     { "name": "add is still there", "surface": { "tool": "add", "schemaHash": "…" } } ] }
//! ```
//!
//! - [`load`]: a file or a folder of them; a broken file is reported with its
//!   line and column (or the case and key) and nothing runs from it.
//! - `expect`: the assertions; `run`: cases of one server in order, servers
//!   in parallel; `junit`: the report as JUnit XML.

mod expect;
pub mod junit;
pub mod prompt;
mod report;
mod run;
mod save;
pub mod trust;
mod vars;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use expect::{Failure, schema_hash};
pub use prompt::PromptCase;
pub use report::{CaseOutcome, CaseResult, Report, SuiteResult};
pub use run::{CasePick, RunOptions, glob, run, selects};
pub use save::{append_case, append_prompt_case, create};
pub(crate) use vars::joined_text;

/// The folder suites live in, inside a project.
pub const DEFAULT_DIR: &str = ".mcp-workbench/suites";

/// The largest suite or snapshot file read (a bigger one is refused).
pub const MAX_FILE: u64 = 16 << 20;

/// Where suites live, one rule for the window and `mcpwb test`: the
/// project's `.mcp-workbench/suites` (the open project, or for the CLI
/// `--project` or the current folder), then the person's own `suites/`
/// beside the workbench's mcp.json. Save to suite writes into the first.
pub fn folders(project: Option<&Path>) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    if let Some(p) = project {
        out.push(("project", p.join(DEFAULT_DIR)));
    }
    if let Some(dir) = workbench_core::config::default_user_config().parent() {
        out.push(("user", dir.join("suites")));
    }
    out
}

/// One suite file.
#[derive(Debug, Clone)]
pub struct Suite {
    pub path: PathBuf,
    /// The file's name without `.json`.
    pub name: String,
    /// The server its cases call unless a case names its own.
    pub server: Option<String>,
    pub cases: Vec<Case>,
    /// The prompt cases (evals), from the same `cases` list.
    pub prompts: Vec<PromptCase>,
    /// The models prompt cases are run with (`PROVIDER:MODEL`).
    pub models: Vec<String>,
    /// Of the file's bytes ([`trust::fingerprint`]).
    pub fingerprint: String,
    /// What it was made from when recorded data made it (`"madeFrom"`: a
    /// host's session): such a suite is trusted only by its fingerprint,
    /// never by the folder it lies in.
    pub made_from: Option<String>,
}

/// One case: a call with what its result must be, or a check of a tool's
/// presence and input schema (`surface`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Case {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub arguments: Value,
    #[serde(default)]
    pub expect: Expect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<Surface>,
    /// Cut the call after this long without an answer or a progress
    /// notification (default: the runner's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Cut the call after this long however it progresses (default: the
    /// entry's maxCallTime, else 10 minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_ms: Option<u64>,
    /// Not run (a reason, or true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<Value>,
    /// Its share of a load run's mix (`mcpwb load --suite`; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u32>,
}

/// What a call's result must be. Every key is optional.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Expect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Over the text blocks joined with newlines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<TextExpect>,
    /// JSON pointer into `structuredContent` → what it must be.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub json: BTreeMap<String, JsonExpect>,
    /// `structuredContent` valid against the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ms: Option<f64>,
    /// The whole result compared with the stored one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotExpect>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TextExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<OneOrMany>,
    /// A regular expression (Rust's `regex` syntax).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub fn all(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(s) => vec![s.as_str()],
            OneOrMany::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JsonExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<Value>,
    /// A regular expression the value (a string, or the JSON text of any
    /// other value) must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    /// `string`, `number`, `integer`, `boolean`, `object`, `array`, `null`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// `true`, or which parts of the result change from run to run.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum SnapshotExpect {
    On(bool),
    Ignoring {
        /// JSON pointers into the result left out of the comparison.
        ignore: Vec<String>,
    },
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Surface {
    pub tool: String,
    /// [`schema_hash`] of the tool's input schema; absent: only its presence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_hash: Option<String>,
}

/// A suite file that cannot be run: where and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Broken {
    pub path: PathBuf,
    /// 1-based; 0 when the problem has no one place (a missing key).
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path.display(),
                self.line,
                self.column,
                self.message
            )
        } else {
            write!(f, "{}: {}", self.path.display(), self.message)
        }
    }
}

fn broken(path: &Path, message: impl Into<String>) -> Broken {
    Broken {
        path: path.to_path_buf(),
        line: 0,
        column: 0,
        message: message.into(),
    }
}

/// Read one suite from its text.
pub fn parse(path: &Path, text: &str) -> Result<Suite, Broken> {
    if text.trim().is_empty() {
        return Err(broken(
            path,
            "the file is empty; a suite is {\"server\": ..., \"cases\": [...]}",
        ));
    }
    let Value::Object(mut top) = json_of(path, text)? else {
        return Err(broken(
            path,
            "a suite is a JSON object: {\"server\": ..., \"cases\": [...]}",
        ));
    };
    let server = match top.remove("server") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            return Err(broken(
                path,
                "\"server\" must be a server's name (a string)",
            ));
        }
    };
    let cases = match top.remove("cases") {
        Some(Value::Array(cases)) => cases,
        None => {
            return Err(broken(
                path,
                "no \"cases\": a suite lists its cases in \"cases\": [...]",
            ));
        }
        Some(_) => return Err(broken(path, "\"cases\" must be an array")),
    };
    let made_from = match top.remove("madeFrom") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => return Err(broken(path, "\"madeFrom\" must be a string")),
    };
    let models = models_of(top.remove("models")).map_err(|why| broken(path, why))?;
    let mut out: Vec<Case> = Vec::with_capacity(cases.len());
    let mut prompts: Vec<PromptCase> = Vec::new();
    let mut names: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (i, raw) in cases.into_iter().enumerate() {
        let label = raw
            .get("name")
            .and_then(Value::as_str)
            .map(|n| format!("cases[{i}] (\"{n}\")"))
            .unwrap_or_else(|| format!("cases[{i}]"));
        let named = |name: &str, names: &mut std::collections::HashSet<String>| {
            if name.trim().is_empty() {
                return Err(broken(path, format!("{label}: a case needs a name")));
            }
            if !names.insert(name.to_string()) {
                return Err(broken(
                    path,
                    format!("{label}: another case has this name (a case is referred to by it)"),
                ));
            }
            Ok(())
        };
        if raw.get("prompt").is_some() {
            let case: PromptCase =
                serde_json::from_value(raw).map_err(|e| broken(path, format!("{label}: {e}")))?;
            named(&case.name, &mut names)?;
            prompt::check(&case, server.as_deref())
                .map_err(|e| broken(path, format!("{label}: {e}")))?;
            prompts.push(case);
            continue;
        }
        let case: Case =
            serde_json::from_value(raw).map_err(|e| broken(path, format!("{label}: {e}")))?;
        named(&case.name, &mut names)?;
        check_case(&case, server.as_deref()).map_err(|e| broken(path, format!("{label}: {e}")))?;
        out.push(case);
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "suite".into());
    Ok(Suite {
        path: path.to_path_buf(),
        name,
        server,
        cases: out,
        prompts,
        models,
        fingerprint: trust::fingerprint(text.as_bytes()),
        made_from,
    })
}

/// The file's JSON (comments allowed), or where and why it is not.
fn json_of(path: &Path, text: &str) -> Result<Value, Broken> {
    workbench_core::config::parse_jsonc(path, text).map_err(|e| match e {
        workbench_core::config::Error::ConfigSyntax {
            line,
            column,
            message,
            ..
        } => Broken {
            path: path.to_path_buf(),
            line,
            column,
            message,
        },
        other => broken(path, other.to_string()),
    })
}

/// A suite's `models`: PROVIDER:MODEL strings.
fn models_of(raw: Option<Value>) -> Result<Vec<String>, String> {
    let Some(v) = raw.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let models: Vec<String> = serde_json::from_value(v).map_err(|_| {
        "\"models\" must be a list of PROVIDER:MODEL strings, e.g. [\"openai:gpt-5-mini\"]"
            .to_string()
    })?;
    if let Some(bad) = models.iter().find(|m| prompt::split_model(m).is_none()) {
        return Err(format!(
            "models: {bad:?} is not PROVIDER:MODEL (e.g. \"openai:gpt-5-mini\")"
        ));
    }
    Ok(models)
}

/// A tool case is whole: a tool or a surface (one of them), a server (its
/// own or the suite's `server`), arguments that are an object, patterns
/// that compile.
fn check_case(case: &Case, server: Option<&str>) -> Result<(), String> {
    match (&case.tool, &case.surface) {
        (None, None) => return Err("a case calls a \"tool\" or checks a \"surface\"".into()),
        (Some(_), Some(_)) => {
            return Err("\"tool\" and \"surface\" are two kinds of case; give one".into());
        }
        _ => {}
    }
    if case.server.is_none() && server.is_none() {
        return Err("which server? Give \"server\" in the suite or in the case".into());
    }
    if !(case.arguments.is_null() || case.arguments.is_object()) {
        return Err("\"arguments\" must be a JSON object".into());
    }
    expect::check_patterns(&case.expect)
}

/// The suites at `paths` (files, or folders whose `*.json` files are read,
/// not recursing into `__snapshots__`), in name order; the broken ones apart.
/// A link inside a folder is not followed (reported as broken); no file is
/// read through a link or past [`MAX_FILE`].
pub fn load(paths: &[PathBuf]) -> (Vec<Suite>, Vec<Broken>) {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut problems = Vec::new();
    for p in paths {
        if p.is_dir() {
            match std::fs::read_dir(p) {
                Ok(entries) => {
                    let mut found: Vec<PathBuf> = entries
                        .filter_map(|e| e.ok())
                        .filter(|e| {
                            e.path().extension().is_some_and(|x| x == "json")
                                && e.file_type().is_ok_and(|t| !t.is_dir())
                        })
                        .map(|e| e.path())
                        .collect();
                    found.sort();
                    files.extend(found);
                }
                Err(e) => problems.push(broken(p, format!("cannot read the folder: {e}"))),
            }
        } else {
            files.push(p.clone());
        }
    }
    let mut suites = Vec::new();
    for f in files {
        let read = workbench_core::files::read_no_follow(&f, MAX_FILE).and_then(|b| {
            String::from_utf8(b).map_err(|_| std::io::Error::other("it is not UTF-8 text"))
        });
        match read {
            Ok(text) => match parse(&f, &text) {
                Ok(s) => suites.push(s),
                Err(b) => problems.push(b),
            },
            Err(e) => problems.push(broken(&f, format!("cannot read it: {e}"))),
        }
    }
    (suites, problems)
}

/// Where a suite's snapshots are kept: `__snapshots__/<suite>.json` beside it.
pub fn snapshot_path(suite: &Suite) -> PathBuf {
    let dir = suite
        .path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    dir.join("__snapshots__")
        .join(format!("{}.json", suite.name))
}

/// Err(why) when the snapshots folder of `suite` is a link or resolves
/// outside the suite's folder (a planted `__snapshots__ -> ~/.ssh`).
pub(crate) fn snapshot_folder_ok(suite: &Suite) -> Result<(), String> {
    let path = snapshot_path(suite);
    let Some(folder) = path.parent() else {
        return Ok(());
    };
    match std::fs::symlink_metadata(folder) {
        Err(_) => Ok(()),
        Ok(_) => {
            let home = folder.parent().unwrap_or(Path::new("."));
            if workbench_core::files::stays_inside(folder, home) {
                Ok(())
            } else {
                Err(format!(
                    "{} is a link or leads outside the suite's folder: snapshots are neither read nor written there",
                    folder.display()
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests;
