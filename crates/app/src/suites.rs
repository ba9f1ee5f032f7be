//! Running suites: read afresh, and run only once the person has trusted
//! each (a suite they did not write calls their servers' tools with
//! arguments of its choosing); the window's Run suite and `mcpwb test`
//! both come through here, so neither can run one unread.

use std::path::{Path, PathBuf};

use workbench_calls::Calls;
use workbench_calls::suite::trust::{SuiteTrust, review};
use workbench_core::{ErrorCode, ErrorInfo};

pub use workbench_calls::suite::trust::Review;
pub use workbench_calls::suite::{Broken, CasePick, Report, RunOptions, Suite};

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
    SuiteTrust::app()
        .trust(path, fingerprint)
        .map_err(|message| ErrorInfo::new(ErrorCode::Refused, message))
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
