#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
/// Latencies in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct LoadLatency {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    pub mean: f64,
}
/// Calls that did not succeed, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct LoadErrors {
    /// The tool answered `isError: true`.
    pub tool: u64,
    /// A JSON-RPC error, or an answer that is not one.
    pub protocol: u64,
    /// No answer within the call's timeout.
    pub timeout: u64,
    /// The connection went (the server crashed, restarted, is not ready).
    pub disconnect: u64,
}
/// What failed calls said: one message, its kind (`tool`, `protocol`,
/// `timeout`, `disconnect`) and how many calls said it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct LoadErrorSaid {
    pub kind: String,
    pub message: String,
    pub count: u64,
}
/// One second of the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct LoadSecond {
    /// Seconds since the start (1 = the first second).
    pub at: u32,
    pub concurrency: u32,
    /// Calls that ended in this second.
    pub calls: u64,
    pub errors: u64,
    pub p50: f64,
    pub p99: f64,
}
/// One step of a ramp.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct RampStep {
    pub concurrency: u32,
    /// Calls a second.
    pub throughput: f64,
    pub p50: f64,
    pub p99: f64,
    pub errors: u64,
}
/// A bucket of the histogram: calls that took up to `le` ms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct LoadBucket {
    pub le: f64,
    pub count: u64,
}
/// One call of a mix and how many times it was made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct MixShare {
    pub server: String,
    pub tool: String,
    pub calls: u64,
}
/// How a run was asked for: what two runs compared must share for their
/// figures to mean the same.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct LoadSettings {
    /// Calls at once (with a ramp: `from` and `to`).
    pub concurrency: u32,
    pub ramp_to: Option<u32>,
    /// Seconds it ran for (None: stopped after a number of calls).
    pub seconds: Option<f64>,
    /// Calls it made at most (None: for a time).
    pub calls: Option<u64>,
    /// At most this many calls a second (None: as fast as answered).
    pub rate: Option<f64>,
}
/// A load run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct LoadReport {
    /// How it was asked for (a run kept before this was recorded has none).
    #[serde(default)]
    pub settings: Option<LoadSettings>,
    pub server: String,
    /// The tool, or `mix` for a suite's cases.
    pub tool: String,
    pub started_at: i64,
    pub duration_ms: f64,
    /// Calls made (ended), and of them those that succeeded.
    pub calls: u64,
    pub ok: u64,
    pub errors: LoadErrors,
    /// What the failed calls said, the commonest first (a run kept before
    /// this was recorded has none).
    #[serde(default)]
    pub errors_said: Vec<LoadErrorSaid>,
    /// Calls a second over the whole run.
    pub throughput: f64,
    pub latency: LoadLatency,
    pub histogram: Vec<LoadBucket>,
    pub seconds: Vec<LoadSecond>,
    /// With a ramp: each concurrency's numbers.
    pub steps: Vec<RampStep>,
    /// With a ramp: where throughput stopped growing and latency bent.
    pub knee: Option<String>,
    /// The client's CPU, as a share of one core (1.0 = a whole core).
    pub client_cpu: f64,
    /// The server's process, when the workbench runs it (stdio).
    pub server_cpu: Option<f64>,
    /// What a person should know about these numbers (the client was the limit, ...).
    pub warnings: Vec<String>,
    /// Why it stopped early (Stop, every call failing).
    pub stopped: Option<String>,
    /// With a mix: each call's count.
    #[serde(default)]
    pub mix: Vec<MixShare>,
}
crate::wire::to_wire!(workbench_calls::load::LoadSecond => LoadSecond);
impl From<workbench_calls::load::LoadSecond> for LoadSecond {
    fn from(v: workbench_calls::load::LoadSecond) -> Self {
        let workbench_calls::load::LoadSecond {
            at,
            concurrency,
            calls,
            errors,
            p50,
            p99,
        } = v;
        Self {
            at,
            concurrency,
            calls,
            errors,
            p50,
            p99,
        }
    }
}
crate::wire::to_wire!(workbench_calls::load::LoadReport => LoadReport);
impl From<workbench_calls::load::LoadReport> for LoadReport {
    fn from(v: workbench_calls::load::LoadReport) -> Self {
        let workbench_calls::load::LoadReport {
            settings,
            server,
            tool,
            started_at,
            duration_ms,
            calls,
            ok,
            errors,
            errors_said,
            throughput,
            latency,
            histogram,
            seconds,
            steps,
            knee,
            client_cpu,
            server_cpu,
            warnings,
            stopped,
            mix,
        } = v;
        Self {
            settings: settings.map(|v| v.into()),
            server,
            tool,
            started_at,
            duration_ms,
            calls,
            ok,
            errors: errors.into(),
            errors_said: errors_said.into_iter().map(|v| v.into()).collect(),
            throughput,
            latency: latency.into(),
            histogram: histogram.into_iter().map(|v| v.into()).collect(),
            seconds: seconds.into_iter().map(|v| v.into()).collect(),
            steps: steps.into_iter().map(|v| v.into()).collect(),
            knee,
            client_cpu,
            server_cpu,
            warnings,
            stopped,
            mix: mix.into_iter().map(|v| v.into()).collect(),
        }
    }
}
crate::wire::to_wire!(workbench_calls::load::LoadLatency => LoadLatency);
impl From<workbench_calls::load::LoadLatency> for LoadLatency {
    fn from(v: workbench_calls::load::LoadLatency) -> Self {
        let workbench_calls::load::LoadLatency {
            p50,
            p90,
            p99,
            p999,
            max,
            mean,
        } = v;
        Self {
            p50,
            p90,
            p99,
            p999,
            max,
            mean,
        }
    }
}
crate::wire::to_wire!(workbench_calls::load::LoadErrors => LoadErrors);
impl From<workbench_calls::load::LoadErrors> for LoadErrors {
    fn from(v: workbench_calls::load::LoadErrors) -> Self {
        let workbench_calls::load::LoadErrors {
            tool,
            protocol,
            timeout,
            disconnect,
        } = v;
        Self {
            tool,
            protocol,
            timeout,
            disconnect,
        }
    }
}
crate::wire::to_wire!(workbench_calls::load::LoadErrorSaid => LoadErrorSaid);
impl From<workbench_calls::load::LoadErrorSaid> for LoadErrorSaid {
    fn from(v: workbench_calls::load::LoadErrorSaid) -> Self {
        let workbench_calls::load::LoadErrorSaid {
            kind,
            message,
            count,
        } = v;
        Self {
            kind,
            message,
            count,
        }
    }
}
crate::wire::to_wire!(workbench_calls::load::RampStep => RampStep);
impl From<workbench_calls::load::RampStep> for RampStep {
    fn from(v: workbench_calls::load::RampStep) -> Self {
        let workbench_calls::load::RampStep {
            concurrency,
            throughput,
            p50,
            p99,
            errors,
        } = v;
        Self {
            concurrency,
            throughput,
            p50,
            p99,
            errors,
        }
    }
}
crate::wire::to_wire!(workbench_calls::load::LoadBucket => LoadBucket);
impl From<workbench_calls::load::LoadBucket> for LoadBucket {
    fn from(v: workbench_calls::load::LoadBucket) -> Self {
        let workbench_calls::load::LoadBucket { le, count } = v;
        Self { le, count }
    }
}
crate::wire::to_wire!(workbench_calls::load::MixShare => MixShare);
impl From<workbench_calls::load::MixShare> for MixShare {
    fn from(v: workbench_calls::load::MixShare) -> Self {
        let workbench_calls::load::MixShare {
            server,
            tool,
            calls,
        } = v;
        Self {
            server,
            tool,
            calls,
        }
    }
}
crate::wire::to_wire!(workbench_calls::load::LoadSettings => LoadSettings);
impl From<workbench_calls::load::LoadSettings> for LoadSettings {
    fn from(v: workbench_calls::load::LoadSettings) -> Self {
        let workbench_calls::load::LoadSettings {
            concurrency,
            ramp_to,
            seconds,
            calls,
            rate,
        } = v;
        Self {
            concurrency,
            ramp_to,
            seconds,
            calls,
            rate,
        }
    }
}
