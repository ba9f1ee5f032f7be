//! Running suites: read afresh, and run only once the person has trusted
//! each (a suite they did not write calls their servers' tools with
//! arguments of its choosing); the window's Run suite and `mcpwb test`
//! both come through here, so neither can run one unread.

use std::path::{Path, PathBuf};
pub use workbench_calls::suite::DEFAULT_DIR;

use serde::Serialize;
use workbench_calls::Calls;
use workbench_calls::suite::trust::{SuiteTrust, review};
use workbench_core::{ErrorCode, ErrorInfo};

pub use workbench_calls::suite::trust::Review;
pub use workbench_calls::suite::{Broken, CaseOutcome, CasePick, Report, RunOptions, Suite};

/// Suites that may not run yet: each one's review (what it calls and
/// reads), for the person to read and trust.
#[derive(Debug, Clone)]
pub struct NotTrusted {
    pub reviews: Vec<Review>,
}

impl From<NotTrusted> for ErrorInfo {
    fn from(n: NotTrusted) -> ErrorInfo {
        let paths: Vec<&str> = n.reviews.iter().map(|r| r.path.as_str()).collect();
        ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "{} not trusted: look at what it calls and reads, then trust it",
                paths.join(", ")
            ),
        )
    }
}

/// Whether the person trusts, with this run, the suites not yet trusted
/// (`mcpwb test --trust-suites`, for their own repository's CI).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unread {
    /// Refused: they are read and trusted first (the window's Trust).
    Refuse,
    /// Trusted as they are now, and recorded.
    TrustThem,
}

/// The suites at `paths` (files or folders), read afresh: those that
/// parse, and those that do not with where and why (nothing runs of them).
pub fn load(paths: &[PathBuf]) -> (Vec<Suite>, Vec<Broken>) {
    workbench_calls::suite::load(paths)
}

/// Where a run with no paths looks for suites, in order: the project's
/// folder (under `base`), then the person's own.
pub fn folders(base: &Path) -> Vec<PathBuf> {
    workbench_calls::suite::folders(Some(base))
        .into_iter()
        .map(|(_, d)| d)
        .collect()
}

/// The suites found where a run with no paths looks (the project's
/// folder, then the person's own); an invalid request naming the folders
/// looked in when none exists.
pub fn found(base: &Path) -> Result<Vec<PathBuf>, ErrorInfo> {
    let folders = folders(base);
    let found: Vec<PathBuf> = folders.iter().filter(|d| d.is_dir()).cloned().collect();
    if found.is_empty() {
        let looked: Vec<String> = folders.iter().map(|d| d.display().to_string()).collect();
        return Err(crate::invalid(format!(
            "no suites: none of {} exists (name suite files or folders, or save a call to a suite in the window: it saves into the first)",
            looked.join(", ")
        )));
    }
    Ok(found)
}

/// The servers of `config` the suites' cases and prompts name (`server`
/// overriding each case's), each once: what a run starts. The others'
/// cases fail with that reason.
pub fn servers_needed(
    suites: &[Suite],
    server: Option<&str>,
    config: &workbench_core::config::ConfigFile,
) -> Vec<String> {
    let mut wanted: Vec<String> = suites
        .iter()
        .flat_map(|s| {
            let calls = s.cases.iter().map(|c| {
                server
                    .map(str::to_string)
                    .or_else(|| c.server.clone())
                    .or_else(|| s.server.clone())
                    .unwrap_or_default()
            });
            let prompts = s
                .prompts
                .iter()
                .flat_map(|p| p.servers_with(s.server.as_deref()));
            calls.chain(prompts).collect::<Vec<_>>()
        })
        .filter(|n| config.servers.iter().any(|e| e.name == *n))
        .collect();
    wanted.sort();
    wanted.dedup();
    wanted
}

/// The window's Run suite: the suite at `path` read afresh (one case when
/// `only` names it), refused while not trusted (never trusted here: the
/// person trusts it in the Suites room first); `update_snapshots` takes
/// the results as the stored snapshots.
pub async fn run_file(
    calls: &Calls,
    path: &Path,
    only: Option<String>,
    update_snapshots: bool,
) -> Result<Report, ErrorInfo> {
    let (loaded, broken) = load(&[path.to_path_buf()]);
    if let Some(b) = broken.first() {
        return Err(ErrorInfo {
            code: ErrorCode::ConfigSyntax,
            message: b.to_string(),
        });
    }
    let options = RunOptions {
        case: only.map(CasePick::Named),
        update_snapshots,
        ..RunOptions::default()
    };
    let (report, _) = run(calls, &loaded, &options, Unread::Refuse).await?;
    Ok(report)
}

/// The report as JUnit XML (for CI).
pub fn junit(report: &Report) -> String {
    workbench_calls::suite::junit::xml(report)
}

/// Whether `suites` may run: each trusted in `record` (the machine's:
/// [`SuiteTrust::app`]), or, with `Unread::TrustThem`, trusted as they are
/// now (those trusted so are returned). Else the reviews of those not
/// trusted. A caller may ask before it starts anything; [`run_in`] asks
/// again, so nothing runs unasked whoever calls it.
pub fn admit_in(
    record: &SuiteTrust,
    suites: &[Suite],
    unread: Unread,
) -> Result<Vec<Review>, NotTrusted> {
    let reviews: Vec<Review> = suites
        .iter()
        .map(|s| review(s, record))
        .filter(|r| !r.trusted)
        .collect();
    if reviews.is_empty() {
        return Ok(reviews);
    }
    if unread == Unread::Refuse {
        return Err(NotTrusted { reviews });
    }
    for r in &reviews {
        // A file changed since it was read is not trusted: refused.
        if record.trust(Path::new(&r.path), &r.fingerprint).is_err() {
            return Err(NotTrusted {
                reviews: vec![r.clone()],
            });
        }
    }
    Ok(reviews)
}

/// [`admit_in`] the machine's trust record.
pub fn admit(suites: &[Suite], unread: Unread) -> Result<Vec<Review>, NotTrusted> {
    admit_in(&SuiteTrust::app(), suites, unread)
}

/// Run `suites` through the one call path once [`admit_in`] lets them:
/// the report and the suites this run trusted, or the reviews of those
/// not trusted (nothing ran).
pub async fn run_in(
    record: &SuiteTrust,
    calls: &Calls,
    suites: &[Suite],
    options: &RunOptions,
    unread: Unread,
) -> Result<(Report, Vec<Review>), NotTrusted> {
    let trusted = admit_in(record, suites, unread)?;
    Ok((
        workbench_calls::suite::run(calls, suites, options).await,
        trusted,
    ))
}

/// [`run_in`] the machine's trust record.
pub async fn run(
    calls: &Calls,
    suites: &[Suite],
    options: &RunOptions,
    unread: Unread,
) -> Result<(Report, Vec<Review>), NotTrusted> {
    run_in(&SuiteTrust::app(), calls, suites, options, unread).await
}

/// Trust the suite at `path` as the person saw it (`fingerprint` from its
/// review); a file changed since is refused.
pub fn trust(path: &Path, fingerprint: &str) -> Result<(), ErrorInfo> {
    SuiteTrust::app().trust(path, fingerprint)
}

/// A case of a suite, as the Suites room lists it.
#[derive(Debug, Clone, Serialize)]
pub struct CaseInfo {
    pub name: String,
    pub server: Option<String>,
    /// The tool it calls, or the tool whose surface it checks.
    pub tool: String,
    pub surface: bool,
}

/// A prompt case of a suite (an eval), as the Suites room lists it.
#[derive(Debug, Clone, Serialize)]
pub struct PromptInfo {
    pub name: String,
    pub prompt: String,
    /// The servers whose tools the model gets.
    pub servers: Vec<String>,
    pub runs: u32,
    pub pass_rate: f64,
}

/// A suite file of the project or the user.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteInfo {
    pub path: String,
    pub name: String,
    /// `project` or `user`.
    pub scope: String,
    pub server: Option<String>,
    pub cases: Vec<CaseInfo>,
    /// Its prompt cases, run with `models`.
    pub prompts: Vec<PromptInfo>,
    pub models: Vec<String>,
    /// Why it cannot run (with line and column).
    pub broken: Option<String>,
    /// What it would call and read, and whether the person trusts it (a
    /// suite they did not write runs only once trusted).
    pub review: Option<Review>,
}

/// The suites of the project open (`project`) and of the person, read
/// afresh: each with its cases, its prompt cases, and what it would call
/// and read with whether it is trusted; a broken one with where and why.
pub fn list(project: Option<&Path>) -> Vec<SuiteInfo> {
    let trust = SuiteTrust::app();
    let mut out = Vec::new();
    for (scope, dir) in &workbench_calls::suite::folders(project) {
        if !dir.is_dir() {
            continue;
        }
        let (loaded, broken) = load(std::slice::from_ref(dir));
        for s in loaded {
            out.push(SuiteInfo {
                path: s.path.display().to_string(),
                name: s.name.clone(),
                scope: (*scope).into(),
                server: s.server.clone(),
                cases: s
                    .cases
                    .iter()
                    .map(|c| CaseInfo {
                        name: c.name.clone(),
                        server: c.server.clone(),
                        tool: c
                            .tool
                            .clone()
                            .or_else(|| c.surface.as_ref().map(|s| s.tool.clone()))
                            .unwrap_or_default(),
                        surface: c.surface.is_some(),
                    })
                    .collect(),
                prompts: s
                    .prompts
                    .iter()
                    .map(|p| PromptInfo {
                        name: p.name.clone(),
                        prompt: p.prompt.clone(),
                        servers: p.servers_with(s.server.as_deref()),
                        runs: p.runs(),
                        pass_rate: p.pass_rate(),
                    })
                    .collect(),
                models: s.models.clone(),
                broken: None,
                review: Some(review(&s, &trust)),
            });
        }
        for b in broken {
            out.push(SuiteInfo {
                name: b
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                path: b.path.display().to_string(),
                scope: (*scope).into(),
                server: None,
                cases: Vec::new(),
                prompts: Vec::new(),
                models: Vec::new(),
                broken: Some(b.to_string()),
                review: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clone's suite: in a project, not the person's own folder.
    fn cloned(dir: &Path) -> (SuiteTrust, Vec<Suite>) {
        let suites_dir = dir.join("project/.mcp-workbench/suites");
        std::fs::create_dir_all(&suites_dir).unwrap();
        std::fs::write(
            suites_dir.join("demo.json"),
            r#"{"server": "demo", "cases": [{"name": "wipe", "tool": "delete_all", "arguments": {"key": "${env:HOME}"}}]}"#,
        )
        .unwrap();
        let record = SuiteTrust::at(dir.join("trusted.json"), Some(dir.join("own")));
        let (suites, broken) = load(&[suites_dir]);
        assert!(broken.is_empty(), "{broken:?}");
        (record, suites)
    }

    #[test]
    fn a_suite_nobody_read_is_refused_with_what_it_would_do() {
        let dir = tempfile::tempdir().unwrap();
        let (record, suites) = cloned(dir.path());
        let refused = admit_in(&record, &suites, Unread::Refuse).unwrap_err();
        assert_eq!(refused.reviews.len(), 1);
        assert!(
            refused.reviews[0]
                .calls
                .iter()
                .any(|c| c.contains("delete_all"))
        );
        assert_eq!(refused.reviews[0].env, ["HOME"]);
        assert_eq!(ErrorInfo::from(refused).code, ErrorCode::Refused);
        // Still refused: asking did not trust it.
        assert!(admit_in(&record, &suites, Unread::Refuse).is_err());
    }

    #[test]
    fn trusted_with_the_run_it_stays_trusted_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let (record, suites) = cloned(dir.path());
        let trusted = admit_in(&record, &suites, Unread::TrustThem).unwrap();
        assert_eq!(trusted.len(), 1);
        assert!(
            admit_in(&record, &suites, Unread::Refuse)
                .unwrap()
                .is_empty()
        );
        // The file changes: read again, it is refused again.
        std::fs::write(
            dir.path().join("project/.mcp-workbench/suites/demo.json"),
            r#"{"server": "demo", "cases": [{"name": "wipe", "tool": "delete_everything", "arguments": {}}]}"#,
        )
        .unwrap();
        let (again, _) = load(&[dir.path().join("project/.mcp-workbench/suites")]);
        assert!(admit_in(&record, &again, Unread::Refuse).is_err());
    }
}
