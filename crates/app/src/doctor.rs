//! The doctor: a server examined on demand (probes and both eras when
//! asked), each server's last full run kept while its surface is the same,
//! and what it finds counted for a badge (the shape checks alone when no run
//! is current: no request sent). The window's Doctor and sidebar adapt
//! these; `mcpwb doctor` runs the same examination.

use std::collections::HashMap;
use std::sync::Mutex;

use workbench_calls::Calls;
use workbench_core::ErrorInfo;

pub use workbench_doctor::follow::{SurfaceChange, Surfaces};
pub use workbench_doctor::{DoctorReport, Finding, Options, Severity, Surface};

/// `server`'s surface as it is now (None: not ready, its lists not read;
/// an error when no server has that name).
pub fn surface(wb: &workbench_core::Workbench, server: &str) -> Result<Option<Surface>, ErrorInfo> {
    wb.server(server)?;
    Ok(Surface::live(wb, server))
}

/// What changed in `server`'s surface from `before` to `after`, with what
/// the doctor finds new in it (None: nothing changed).
pub fn change(server: &str, before: &Surface, after: &Surface) -> Option<SurfaceChange> {
    workbench_doctor::follow::change(server, before, after)
}

/// Each server's last full run, with the surface it examined: what the
/// sidebar counts and the Doctor shows while the surface is the same.
#[derive(Default)]
pub struct LastRuns(Mutex<HashMap<String, (String, DoctorReport)>>);

impl LastRuns {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, DoctorReport)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The last run of `server`, while its surface is still `now`.
    pub fn current(&self, server: &str, now: &str) -> Option<DoctorReport> {
        self.lock()
            .get(server)
            .filter(|(seen, _)| seen == now)
            .map(|(_, r)| r.clone())
    }
}

/// Examine `server` with `options`; kept in `runs` (when given) as its
/// last run while its surface stays what it examined.
pub async fn examine(
    calls: &Calls,
    runs: Option<&LastRuns>,
    server: &str,
    options: Options,
) -> Result<DoctorReport, ErrorInfo> {
    let report = workbench_doctor::examine(calls, server, options).await?;
    if let (Some(runs), Some(surface)) = (runs, Surface::live(calls.workbench(), server)) {
        runs.lock()
            .insert(server.to_string(), (surface.to_text(), report.clone()));
    }
    Ok(report)
}

/// What a probe of `server` would call: the read-only tools the person's
/// rules let run unasked, of how many read-only tools (None: its lists are
/// not read).
pub fn probe_plan(calls: &Calls, server: &str) -> Option<(Vec<String>, usize)> {
    let surface = Surface::live(calls.workbench(), server)?;
    let plan = workbench_doctor::probe::plan(calls, server, &surface.tools);
    let will = plan
        .iter()
        .filter(|(_, why)| why.is_none())
        .filter_map(|(t, _)| t["name"].as_str().map(str::to_string))
        .collect();
    Some((will, plan.len()))
}

/// `server`'s surface as a snapshot's text.
pub fn snapshot(wb: &workbench_core::Workbench, server: &str) -> Result<String, ErrorInfo> {
    Surface::live(wb, server)
        .map(|s| s.to_text())
        .ok_or_else(|| {
            ErrorInfo::new(
                workbench_core::ErrorCode::ServerNotReady,
                format!("{server} is ready but its lists could not be read"),
            )
        })
}

/// A snapshot file someone wrote (read without following a link, bounded).
pub fn read_snapshot(path: &std::path::Path) -> Result<Surface, ErrorInfo> {
    let bytes = workbench_core::files::read_no_follow(path, 64 << 20)
        .map_err(|e| crate::invalid(format!("cannot read {}: {e}", path.display())))?;
    Surface::from_text(&String::from_utf8_lossy(&bytes))
        .map_err(|e| crate::invalid(format!("{}: {e}", path.display())))
}

/// What changed between two surfaces, breaking first.
pub use workbench_doctor::{Change, Impact, diff};

/// The changes as a JUnit report.
pub fn junit(changes: &[Change]) -> String {
    workbench_doctor::diff::junit(changes)
}

/// Write a snapshot or report the person asked for.
pub use crate::write_out;

/// The last run of `server` while its surface is what it examined (None:
/// What changed in `server`'s surface at its last restart (and what the
/// doctor found new then), if it changed since the window opened.
pub fn last_change(surfaces: &Surfaces, server: &str) -> Option<SurfaceChange> {
    surfaces.last_change(server)
}

/// never run, or the server changed since).
pub fn last_run(calls: &Calls, runs: &LastRuns, server: &str) -> Option<DoctorReport> {
    let surface = Surface::live(calls.workbench(), server)?;
    runs.current(server, &surface.to_text())
}

/// What the doctor finds of a server, counted (the sidebar's badge): each
/// code once, however many tools or pointers it is found at.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DoctorCount {
    pub server: String,
    /// Distinct codes found as errors.
    pub errors: u32,
    /// Distinct codes found as warnings, those of portability left out.
    pub warnings: u32,
    /// Distinct codes of portability: how one LLM provider would rewrite a
    /// schema (`provider.*`), not what is wrong with the server. The badge
    /// does not alarm for them.
    pub portability: u32,
    /// How many items (tools, resources, ...) those findings are about.
    pub items: u32,
    /// From the last full run (else the shape checks alone).
    pub from_run: bool,
}

/// `findings` counted: distinct codes per severity, distinct items.
fn count(server: &str, findings: &[Finding], from_run: bool) -> DoctorCount {
    use std::collections::BTreeSet;
    let portable = |f: &&Finding| f.code.starts_with("provider.");
    let codes = |s: Severity, portability: bool| {
        findings
            .iter()
            .filter(|f| f.severity == s && (s == Severity::Error || portable(f) == portability))
            .map(|f| f.code.as_str())
            .collect::<BTreeSet<_>>()
            .len() as u32
    };
    let items = findings
        .iter()
        .filter(|f| {
            f.severity == Severity::Error || (f.severity == Severity::Warning && !portable(f))
        })
        .map(|f| f.item.as_str())
        .collect::<BTreeSet<_>>()
        .len() as u32;
    DoctorCount {
        server: server.to_string(),
        errors: codes(Severity::Error, false),
        warnings: codes(Severity::Warning, false),
        portability: codes(Severity::Warning, true),
        items,
        from_run,
    }
}

/// Every server counted: its last full run while its surface is the same,
/// else the shape checks (fast: no request is sent).
pub fn counts(calls: &Calls, runs: &LastRuns) -> Vec<DoctorCount> {
    let wb = calls.workbench();
    wb.servers()
        .iter()
        .filter_map(|h| {
            let surface = Surface::live(wb, h.name())?;
            if let Some(run) = runs.current(h.name(), &surface.to_text()) {
                return Some(count(h.name(), &run.findings, true));
            }
            let duplicates = wb
                .catalog()
                .server(h.name())
                .map(|c| c.duplicate_tools)
                .unwrap_or_default();
            let findings = workbench_doctor::shape_findings(h.name(), &surface, &duplicates);
            Some(count(h.name(), &findings, false))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use workbench_doctor::{Finding, Severity};

    #[test]
    fn a_code_counts_once_however_many_tools_it_is_found_in() {
        let draft07: Vec<Finding> = (0..9)
            .map(|i| Finding::new("schema.draft-07", Severity::Warning, format!("tool t{i}")))
            .chain([Finding::new("name.invalid", Severity::Error, "tool t0")])
            .collect();
        let c = super::count("fs", &draft07, true);
        assert_eq!((c.errors, c.warnings, c.items, c.from_run), (1, 1, 9, true));
    }

    /// The walk: the shipped example's servers wore ⚠2 on a newcomer's first
    /// window for how Gemini would rewrite one schema. Portability is
    /// counted apart and does not make the badge.
    #[test]
    fn portability_is_counted_apart_from_what_is_wrong() {
        let found = [
            Finding::new(
                "provider.gemini-enum",
                Severity::Warning,
                "tool create_order",
            ),
            Finding::new(
                "provider.gemini-rewrites",
                Severity::Warning,
                "tool create_order",
            ),
        ];
        let c = super::count("demo", &found, false);
        assert_eq!((c.errors, c.warnings, c.portability, c.items), (0, 0, 2, 0));
    }
}
