//! What is wrong with a server, and what a change to it broke.
//!
//! - `finding`: a finding (stable code, severity, item and JSON pointer,
//!   what was seen, why it matters, how to fix it).
//! - `names`, `schemas`, `texts`, `listings`: checks of the surface's shape
//!   (pure functions of what the server listed).
//! - `behaviour`: what the server did (life events, traffic) and what it
//!   answers when asked on purpose (subscribe, each protocol era).
//! - `probe`: read-only tools called through the one call path.
//! - `surface`, `diff`: the surface as a stable snapshot, and the changes
//!   between two, classified breaking or compatible.
//!
//! It sits above the call path (probes are calls like any other, kept in
//! History) and the agent (the provider checks use the agent's own
//! adaptation of schemas), so it is a crate of its own rather than a
//! module of core.
#![forbid(unsafe_code)]

pub mod behaviour;
pub mod cache;
pub mod clients;
pub mod diff;
pub mod finding;
pub mod follow;
pub mod listings;
pub mod names;
pub mod probe;
pub mod publish;
pub mod schemas;
pub mod skills;
pub mod surface;
pub mod texts;
pub mod tokenizer;

use std::time::{Duration, Instant};

use serde::Serialize;
use workbench_calls::Calls;
use workbench_core::connect::ServerState;

pub use diff::{Change, Impact, diff};
pub use finding::{Finding, Severity};
pub use surface::Surface;

/// What the doctor is asked to do beyond reading the surface.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Call the read-only tools (only when asked).
    pub probe: bool,
    /// Connect again once per protocol era.
    pub eras: bool,
    /// The tools (their own names) the probe may call at most: a caller
    /// bound to some of them (an agent under `serve --tools`). None: any
    /// the person's rules let it.
    pub probe_only: Option<Vec<String>>,
}

/// The doctor's report on one server.
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    pub server: String,
    /// Worst first, then by item.
    pub findings: Vec<Finding>,
    /// Milliseconds from its last start to ready.
    pub ready_ms: Option<f64>,
    pub eras: Vec<behaviour::EraAnswer>,
    /// With `--eras`: how each real client's way of finding the era ends
    /// on this server (None: not played, or the transport has one era).
    pub clients: Vec<clients::ClientEra>,
    pub tokens: texts::TokenCost,
    pub probed: Vec<probe::Probed>,
    /// How long the doctor took, in milliseconds.
    pub took_ms: f64,
}

impl DoctorReport {
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// The shape checks of a surface (no server needed): names (as the server
/// is called in the config), schemas, texts, resources and prompts; and
/// what its tools cost in tokens.
pub fn shape(
    server: &str,
    surface: &Surface,
    duplicates: &[String],
) -> (Vec<Finding>, texts::TokenCost) {
    let cost = texts::cost(&surface.tools);
    let texts = texts::check(&surface.tools, &cost);
    (shape_with(server, surface, duplicates, texts), cost)
}

/// The shape checks' findings, the tools counted only when one of them or
/// the list could cost too much (`texts::check_costs_if_over`): for what
/// runs often — the servers' badges, each change of a surface.
pub fn shape_findings(server: &str, surface: &Surface, duplicates: &[String]) -> Vec<Finding> {
    let texts = texts::check_costs_if_over(&surface.tools);
    shape_with(server, surface, duplicates, texts)
}

fn shape_with(
    server: &str,
    surface: &Surface,
    duplicates: &[String],
    texts: Vec<Finding>,
) -> Vec<Finding> {
    let mut out = names::check(server, &surface.tools, duplicates);
    for tool in &surface.tools {
        out.extend(schemas::check(tool));
    }
    out.extend(texts);
    out.extend(listings::check(
        &surface.resources,
        &surface.resource_templates,
        &surface.prompts,
    ));
    out.extend(skills::check(&surface.skills));
    out
}

fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.item.cmp(&b.item))
            .then_with(|| a.code.cmp(&b.code))
    });
}

/// The eras played on connections of their own, what each client's way
/// makes of the server's raw answers, and the era traps the History saw.
async fn eras(
    calls: &Calls,
    handle: &workbench_core::connect::ServerHandle,
    report: &mut DoctorReport,
) {
    let wb = calls.workbench();
    let server = handle.name();
    report.eras = behaviour::eras(wb, handle).await;
    report
        .findings
        .extend(behaviour::era_findings(&report.eras));
    if let Some(store) = calls.store() {
        report
            .findings
            .extend(behaviour::era_trapped(store, server));
    }
    if let Ok(h) = wb.handshakes(server).await {
        report.clients = clients::play(&h);
        report.findings.extend(clients::findings(&report.clients));
        report.findings.extend(clients::stopping(&h));
    }
}

/// Why nothing more of a server in `state` can be checked.
fn not_ready(state: &ServerState) -> Finding {
    let why = match state.failure() {
        Some((reason, tail)) if tail.is_empty() => reason.to_string(),
        Some((reason, tail)) => format!("{reason}; its stderr ended: {}", tail.join(" │ ")),
        None if matches!(state, ServerState::Ready) => "its lists are not read yet".into(),
        None => format!(
            "it is {}",
            serde_json::to_value(state)
                .ok()
                .and_then(|v| v["state"].as_str().map(String::from))
                .unwrap_or_else(|| "not ready".into())
        ),
    };
    Finding::new("server.not-ready", Severity::Error, "server")
        .seen(why)
        .why("nothing of a server that is not ready can be checked")
        .fix("see its Events and stderr; start it by hand with the same command")
}

/// Each skill loaded (its SKILL.md read and compared with the listing;
/// none of its other files): what the server got wrong is its fault.
async fn skills_loaded(
    wb: &workbench_core::Workbench,
    server: &str,
    skills: &[serde_json::Value],
) -> Vec<Finding> {
    let mut found = Vec::new();
    for skill in skills {
        let name = workbench_core::skills::name_of(skill);
        let item = format!("skill {}", skill["uri"].as_str().unwrap_or_default());
        match wb
            .load_skill(server, &name, Some(Duration::from_secs(20)))
            .await
        {
            Ok(loaded) => found.extend(loaded.problems.into_iter().map(|p| {
                Finding::new("skill.not-as-listed", Severity::Error, &item)
                    .seen(p)
                    .why("a host verifies a skill's SKILL.md against the listing and refuses to load one that differs (SEP-2640)")
                    .fix("serve SKILL.md as listed: its digest and size from its bytes, its frontmatter as in the file")
            })),
            Err(e) => found.push(
                Finding::new("skill.unreadable", Severity::Error, &item)
                    .seen(e.to_string())
                    .why("a host cannot load a skill whose SKILL.md it cannot read")
                    .fix("serve the listed SKILL.md through resources/read (and skills/get)"),
            ),
        }
    }
    found
}

/// The tools a probe calls: all, or those `only` names.
fn probed_tools(tools: &[serde_json::Value], only: Option<&[String]>) -> Vec<serde_json::Value> {
    match only {
        None => tools.to_vec(),
        Some(only) => tools
            .iter()
            .filter(|t| {
                t["name"]
                    .as_str()
                    .is_some_and(|n| only.iter().any(|o| o == n))
            })
            .cloned()
            .collect(),
    }
}

/// Examine a server of the workbench behind `calls`. A server that is not
/// ready gets one finding saying so (and why).
pub async fn examine(
    calls: &Calls,
    server: &str,
    options: Options,
) -> workbench_core::Result<DoctorReport> {
    let started = Instant::now();
    let wb = calls.workbench();
    let handle = wb.server(server)?;
    let status = handle.status();
    let mut report = DoctorReport {
        server: server.to_string(),
        findings: Vec::new(),
        ready_ms: behaviour::ready_ms(&handle),
        eras: Vec::new(),
        clients: Vec::new(),
        tokens: texts::TokenCost::default(),
        probed: Vec::new(),
        took_ms: 0.0,
    };
    // Each era is played on connections of its own, through the one door:
    // never for a server the person has not trusted or has turned off.
    let admitted = workbench_core::connect::door::refusal(handle.entry()).is_none();
    if options.eras && admitted {
        eras(calls, &handle, &mut report).await;
    }
    let surface = match (&status.state, Surface::live(wb, server)) {
        (ServerState::Ready, Some(surface)) => surface,
        (state, _) => {
            report.findings.push(not_ready(state));
            report.took_ms = started.elapsed().as_secs_f64() * 1000.0;
            return Ok(report);
        }
    };
    let listed = wb.catalog().server(server).unwrap_or_default();
    let (shape, cost) = shape(server, &surface, &listed.duplicate_tools);
    report.findings.extend(shape);
    for problem in &listed.list_problems {
        let list = problem.split(':').next().unwrap_or("list");
        report.findings.push(
            Finding::new("list.repeated-cursor", Severity::Error, format!("{list} list"))
                .seen(problem.clone())
                .why("a nextCursor the client was already given sends it round the same pages for ever; clients stop at once (this one) or hang, and what lies past the loop is never listed")
                .fix("give each page a new cursor and leave nextCursor out of the last page"),
        );
    }
    report
        .findings
        .extend(cache::check(&surface.protocol_version, &listed.cache));
    report
        .findings
        .extend(cache::asked(wb, server, &listed.cache, &surface.tools, &report.eras).await);
    report.tokens = cost;
    report
        .findings
        .extend(skills_loaded(wb, server, &surface.skills).await);
    report
        .findings
        .extend(behaviour::seen(wb, &handle, &surface.capabilities));
    report.findings.extend(behaviour::stalls(wb, &handle).await);
    report.findings.extend(
        behaviour::asked(
            wb,
            server,
            &surface.protocol_version,
            &surface.capabilities,
            &surface.resources,
        )
        .await,
    );
    if options.probe {
        let tools = probed_tools(&surface.tools, options.probe_only.as_deref());
        let (probed, findings) = probe::probe(calls, server, &tools, Duration::from_secs(20)).await;
        report.probed = probed;
        report.findings.extend(findings);
    }
    sort(&mut report.findings);
    report.took_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(report)
}
