use serde::Serialize;
use serde_json::Map;
use serde_json::Value;
/// What one protocol era answered.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct EraAnswer {
    /// `2025-11-25` (`initialize`) or `2026-07-28` (`server/discover`).
    pub era: String,
    pub ready: bool,
    /// The protocol version it agreed to, or why it did not connect.
    pub answer: String,
    pub ms: f64,
}
/// What one way of finding the era ends with.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ClientEra {
    /// Whose way it is.
    pub client: String,
    /// What it sends and when it falls back.
    pub how: String,
    /// The version it ends up speaking (None: it fails).
    pub speaks: Option<String>,
    /// How it got there, or why it fails.
    pub why: String,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Impact {
    Compatible,
    Breaking,
}
/// One change.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct Change {
    pub impact: Impact,
    /// Stable: `tool.removed`, `input.required-added`, ...
    pub code: String,
    /// `tool echo`, `prompt greet`, `capabilities`.
    pub item: String,
    /// Where in the item (a JSON pointer), when inside it.
    pub pointer: String,
    pub message: String,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
    Error,
}
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct Finding {
    /// Stable, dotted: `name.invalid-characters`, `schema.array-without-items`.
    pub code: String,
    pub severity: Severity,
    /// What it is about: `tool echo`, `prompt greet`, `server`.
    pub item: String,
    /// A JSON pointer into the item (empty: the item itself).
    pub pointer: String,
    /// What was seen, quoted.
    pub seen: String,
    /// Why it matters: which clients or providers it breaks.
    pub why: String,
    /// How to fix it.
    pub fix: String,
}
/// What changed in a server's surface since it was last ready.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SurfaceChange {
    pub server: String,
    /// Milliseconds since the Unix epoch.
    pub at_ms: f64,
    pub changes: Vec<Change>,
    /// Findings of the shape checks the surface did not have before.
    pub new_findings: Vec<Finding>,
    /// Tools added, and tools changed (their names).
    pub added_tools: Vec<String>,
    pub changed_tools: Vec<String>,
    /// Set when the server's lists were read again later (a reload) and
    /// nothing had changed: this change is from an earlier reload.
    pub unchanged_at_ms: Option<f64>,
}
/// The doctor's report on one server.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct DoctorReport {
    pub server: String,
    /// Worst first, then by item.
    pub findings: Vec<Finding>,
    /// Milliseconds from its last start to ready.
    pub ready_ms: Option<f64>,
    pub eras: Vec<EraAnswer>,
    /// With `--eras`: how each real client's way of finding the era ends
    /// on this server (None: not played, or the transport has one era).
    pub clients: Vec<ClientEra>,
    pub tokens: TokenCost,
    pub probed: Vec<Probed>,
    /// How long the doctor took, in milliseconds.
    pub took_ms: f64,
}
/// One probed call.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct Probed {
    pub tool: String,
    pub arguments: Value,
    /// ok, error (an `isError` result) or failed (no result).
    pub outcome: String,
    pub ms: f64,
}
/// A host and the PATH it gives the servers it starts.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PublishHost {
    pub name: String,
    /// Its PATH, as it starts servers (None: the environment it was started
    /// with, as a terminal's).
    pub path: Option<String>,
    pub note: String,
}
/// One way the server runs, as an mcp.json entry.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PublishWay {
    /// `server.json package 1 (npm …)`, `manifest.json mcp_config`.
    pub label: String,
    pub entry: Map<String, Value>,
}
/// What the tool list costs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, specta::Type)]
pub struct TokenCost {
    pub total: u32,
    /// The costliest tools first: (name, tokens).
    pub tools: Vec<(String, u32)>,
    pub tokenizer: String,
}
crate::wire::to_wire!(workbench_doctor::follow::SurfaceChange => SurfaceChange);
impl From<workbench_doctor::follow::SurfaceChange> for SurfaceChange {
    fn from(v: workbench_doctor::follow::SurfaceChange) -> Self {
        let workbench_doctor::follow::SurfaceChange {
            server,
            at_ms,
            changes,
            new_findings,
            added_tools,
            changed_tools,
            unchanged_at_ms,
        } = v;
        Self {
            server,
            at_ms,
            changes: changes.into_iter().map(|v| v.into()).collect(),
            new_findings: new_findings.into_iter().map(|v| v.into()).collect(),
            added_tools,
            changed_tools,
            unchanged_at_ms,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::DoctorReport => DoctorReport);
impl From<workbench_doctor::DoctorReport> for DoctorReport {
    fn from(v: workbench_doctor::DoctorReport) -> Self {
        let workbench_doctor::DoctorReport {
            server,
            findings,
            ready_ms,
            eras,
            clients,
            tokens,
            probed,
            took_ms,
        } = v;
        Self {
            server,
            findings: findings.into_iter().map(|v| v.into()).collect(),
            ready_ms,
            eras: eras.into_iter().map(|v| v.into()).collect(),
            clients: clients.into_iter().map(|v| v.into()).collect(),
            tokens: tokens.into(),
            probed: probed.into_iter().map(|v| v.into()).collect(),
            took_ms,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::behaviour::EraAnswer => EraAnswer);
impl From<workbench_doctor::behaviour::EraAnswer> for EraAnswer {
    fn from(v: workbench_doctor::behaviour::EraAnswer) -> Self {
        let workbench_doctor::behaviour::EraAnswer {
            era,
            ready,
            answer,
            ms,
            tools: _,
        } = v;
        Self {
            era,
            ready,
            answer,
            ms,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::clients::ClientEra => ClientEra);
impl From<workbench_doctor::clients::ClientEra> for ClientEra {
    fn from(v: workbench_doctor::clients::ClientEra) -> Self {
        let workbench_doctor::clients::ClientEra {
            client,
            how,
            speaks,
            why,
        } = v;
        Self {
            client,
            how,
            speaks,
            why,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::diff::Change => Change);
impl From<workbench_doctor::diff::Change> for Change {
    fn from(v: workbench_doctor::diff::Change) -> Self {
        let workbench_doctor::diff::Change {
            impact,
            code,
            item,
            pointer,
            message,
        } = v;
        Self {
            impact: impact.into(),
            code,
            item,
            pointer,
            message,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::finding::Finding => Finding);
impl From<workbench_doctor::finding::Finding> for Finding {
    fn from(v: workbench_doctor::finding::Finding) -> Self {
        let workbench_doctor::finding::Finding {
            code,
            severity,
            item,
            pointer,
            seen,
            why,
            fix,
        } = v;
        Self {
            code,
            severity: severity.into(),
            item,
            pointer,
            seen,
            why,
            fix,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::probe::Probed => Probed);
impl From<workbench_doctor::probe::Probed> for Probed {
    fn from(v: workbench_doctor::probe::Probed) -> Self {
        let workbench_doctor::probe::Probed {
            tool,
            arguments,
            outcome,
            ms,
        } = v;
        Self {
            tool,
            arguments,
            outcome,
            ms,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::publish::hosts::PublishHost => PublishHost);
impl From<workbench_doctor::publish::hosts::PublishHost> for PublishHost {
    fn from(v: workbench_doctor::publish::hosts::PublishHost) -> Self {
        let workbench_doctor::publish::hosts::PublishHost { name, path, note } = v;
        Self { name, path, note }
    }
}
crate::wire::to_wire!(workbench_doctor::publish::hosts::PublishWay => PublishWay);
impl From<workbench_doctor::publish::hosts::PublishWay> for PublishWay {
    fn from(v: workbench_doctor::publish::hosts::PublishWay) -> Self {
        let workbench_doctor::publish::hosts::PublishWay { label, entry } = v;
        Self { label, entry }
    }
}
crate::wire::to_wire!(workbench_doctor::texts::TokenCost => TokenCost);
impl From<workbench_doctor::texts::TokenCost> for TokenCost {
    fn from(v: workbench_doctor::texts::TokenCost) -> Self {
        let workbench_doctor::texts::TokenCost {
            total,
            tools,
            tokenizer,
        } = v;
        Self {
            total,
            tools,
            tokenizer,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::diff::Impact => Impact);
impl From<workbench_doctor::diff::Impact> for Impact {
    fn from(v: workbench_doctor::diff::Impact) -> Self {
        match v {
            workbench_doctor::diff::Impact::Compatible => Self::Compatible,
            workbench_doctor::diff::Impact::Breaking => Self::Breaking,
        }
    }
}
crate::wire::to_wire!(workbench_doctor::finding::Severity => Severity);
impl From<workbench_doctor::finding::Severity> for Severity {
    fn from(v: workbench_doctor::finding::Severity) -> Self {
        match v {
            workbench_doctor::finding::Severity::Info => Self::Info,
            workbench_doctor::finding::Severity::Warning => Self::Warning,
            workbench_doctor::finding::Severity::Error => Self::Error,
        }
    }
}
