//! What a load run reports: latencies from an HDR histogram (percentiles
//! and the histogram's buckets), throughput, errors by kind, a line a
//! second, each ramp step and where throughput stops growing and latency
//! bends, the CPU the client and the server used; and a run compared with a
//! saved one (a regression past a stated share fails).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Latencies in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadLatency {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    pub mean: f64,
}

/// Calls that did not succeed, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
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

impl LoadErrors {
    pub fn total(&self) -> u64 {
        self.tool + self.protocol + self.timeout + self.disconnect
    }

    pub(super) fn add(&mut self, o: &LoadErrors) {
        self.tool += o.tool;
        self.protocol += o.protocol;
        self.timeout += o.timeout;
        self.disconnect += o.disconnect;
    }
}

/// What failed calls said: one message, its kind (`tool`, `protocol`,
/// `timeout`, `disconnect`) and how many calls said it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadErrorSaid {
    pub kind: String,
    pub message: String,
    pub count: u64,
}

/// The most messages a run keeps (the commonest), and a worker gathers.
pub(super) const SAID_KEPT: usize = 3;
const SAID_GATHERED: usize = 8;

/// Count `message` of `kind` among what a worker's failed calls said (a
/// message not seen before is kept while there is room).
pub(super) fn tell(said: &mut Vec<LoadErrorSaid>, kind: &str, message: &str) {
    if let Some(s) = said
        .iter_mut()
        .find(|s| s.kind == kind && s.message == message)
    {
        s.count += 1;
    } else if said.len() < SAID_GATHERED {
        said.push(LoadErrorSaid {
            kind: kind.to_string(),
            message: message.to_string(),
            count: 1,
        });
    }
}

/// Every worker's messages added up, the commonest first, at most
/// [`SAID_KEPT`].
pub(super) fn commonest(all: impl IntoIterator<Item = LoadErrorSaid>) -> Vec<LoadErrorSaid> {
    let mut out: Vec<LoadErrorSaid> = Vec::new();
    for s in all {
        match out
            .iter_mut()
            .find(|o| o.kind == s.kind && o.message == s.message)
        {
            Some(o) => o.count += s.count,
            None => out.push(s),
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.count));
    out.truncate(SAID_KEPT);
    out
}

/// One second of the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RampStep {
    pub concurrency: u32,
    /// Calls a second.
    pub throughput: f64,
    pub p50: f64,
    pub p99: f64,
    pub errors: u64,
}

/// A bucket of the histogram: calls that took up to `le` ms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadBucket {
    pub le: f64,
    pub count: u64,
}

/// One call of a mix and how many times it was made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MixShare {
    pub server: String,
    pub tool: String,
    pub calls: u64,
}

/// How a run was asked for: what two runs compared must share for their
/// figures to mean the same.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

impl LoadSettings {
    /// The settings in a few words: "8 at once × 2 s, at most 100 calls/s".
    pub fn said(&self) -> String {
        let at_once = match self.ramp_to {
            Some(to) => format!("{} to {to} at once", self.concurrency),
            None => format!("{} at once", self.concurrency),
        };
        let length = match (self.seconds, self.calls) {
            (Some(s), _) => format!(" × {s} s"),
            (None, Some(n)) => format!(" × {n} calls"),
            (None, None) => String::new(),
        };
        let rate = self
            .rate
            .map(|r| format!(", at most {r} calls/s"))
            .unwrap_or_default();
        format!("{at_once}{length}{rate}")
    }
}

/// A load run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// The percentiles of `h` (microseconds) in milliseconds.
pub(super) fn latency_of(h: &Histogram<u64>) -> LoadLatency {
    if h.is_empty() {
        return LoadLatency::default();
    }
    LoadLatency {
        p50: ms(h.value_at_quantile(0.50)),
        p90: ms(h.value_at_quantile(0.90)),
        p99: ms(h.value_at_quantile(0.99)),
        p999: ms(h.value_at_quantile(0.999)),
        max: ms(h.max()),
        mean: h.mean() / 1000.0,
    }
}

/// The histogram in at most ~40 log-spaced buckets (for a chart).
pub(super) fn buckets_of(h: &Histogram<u64>) -> Vec<LoadBucket> {
    if h.is_empty() {
        return Vec::new();
    }
    let lo = h.min().max(1) as f64;
    let hi = h.max().max(2) as f64;
    let steps = 40usize;
    let ratio = (hi / lo).powf(1.0 / steps as f64).max(1.0001);
    let mut out = Vec::new();
    let mut below = 0u64;
    let mut edge = lo;
    for _ in 0..=steps {
        let upper = edge.ceil() as u64;
        let count = h.count_between(0, upper).saturating_sub(below);
        below += count;
        if count > 0 {
            out.push(LoadBucket {
                le: ms(upper),
                count,
            });
        }
        edge *= ratio;
    }
    let rest = h.len().saturating_sub(below);
    if rest > 0 {
        out.push(LoadBucket {
            le: ms(h.max()),
            count: rest,
        });
    }
    out
}

/// Where a ramp's throughput stops growing (a step adds less than 10%)
/// and its latency bends (p50 past twice the first step's).
pub(super) fn knee_of(steps: &[RampStep]) -> Option<String> {
    if steps.len() < 2 {
        return None;
    }
    let mut said = Vec::new();
    if let Some(w) = steps
        .windows(2)
        .find(|w| w[1].throughput < w[0].throughput * 1.10)
    {
        said.push(format!(
            "throughput stops growing at concurrency {} ({:.0} calls/s; {} gives {:.0})",
            w[0].concurrency, w[0].throughput, w[1].concurrency, w[1].throughput
        ));
    }
    let base = steps[0].p50.max(0.001);
    if let Some(s) = steps.iter().find(|s| s.p50 > base * 2.0) {
        said.push(format!(
            "latency bends at concurrency {} (p50 {:.2} ms, {:.1}× the first step's)",
            s.concurrency,
            s.p50,
            s.p50 / base
        ));
    }
    (!said.is_empty()).then(|| said.join("; "))
}

/// One figure against a saved run's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Regression {
    /// `p50`, `p99`, `throughput`, `errors`.
    pub figure: String,
    pub before: f64,
    pub after: f64,
    /// After against before, as a share (+0.25 = 25% worse).
    pub worse_by: f64,
    /// Past the allowed share.
    pub failed: bool,
}

/// `after` against `before`: each figure and whether it got worse by more
/// than `allowed` (0.20 = 20%). Throughput is worse when lower; latency and
/// the error share when higher.
pub fn compare(before: &LoadReport, after: &LoadReport, allowed: f64) -> Vec<Regression> {
    let share = |r: &LoadReport| {
        if r.calls == 0 {
            0.0
        } else {
            r.errors.total() as f64 / r.calls as f64
        }
    };
    let figures = [
        ("p50", before.latency.p50, after.latency.p50, false),
        ("p99", before.latency.p99, after.latency.p99, false),
        ("throughput", before.throughput, after.throughput, true),
        ("errors", share(before), share(after), false),
    ];
    figures
        .into_iter()
        .map(|(figure, b, a, higher_is_better)| {
            let worse_by = if b <= 0.0 {
                if a > 0.0 && !higher_is_better {
                    1.0
                } else {
                    0.0
                }
            } else if higher_is_better {
                (b - a) / b
            } else {
                (a - b) / b
            };
            // An error share that was 0 and is now tiny is still a change
            // worth failing on only past the allowed share of calls.
            let failed = if figure == "errors" {
                a - b > allowed.min(0.01)
            } else {
                worse_by > allowed
            };
            Regression {
                figure: figure.into(),
                before: b,
                after: a,
                worse_by,
                failed,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_buckets_come_from_the_histogram() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
        for us in 1..=1000u64 {
            h.record(us * 10).unwrap();
        }
        let l = latency_of(&h);
        assert!((l.p50 - 5.0).abs() < 0.01, "{l:?}");
        assert!((l.p99 - 9.9).abs() < 0.02, "{l:?}");
        assert!((l.max - 10.0).abs() < 0.01, "{l:?}");
        let b = buckets_of(&h);
        assert_eq!(b.iter().map(|b| b.count).sum::<u64>(), 1000);
        assert!(b.windows(2).all(|w| w[0].le < w[1].le));
    }

    #[test]
    fn the_knee_is_where_throughput_stops_and_latency_bends() {
        let step = |c, t, p50| RampStep {
            concurrency: c,
            throughput: t,
            p50,
            ..Default::default()
        };
        let steps = [
            step(1, 100.0, 1.0),
            step(2, 195.0, 1.05),
            step(4, 380.0, 1.1),
            step(8, 400.0, 2.5),
            step(16, 402.0, 5.0),
        ];
        let k = knee_of(&steps).unwrap();
        assert!(
            k.starts_with("throughput stops growing at concurrency 4"),
            "{k}"
        );
        assert!(k.contains("latency bends at concurrency 8"), "{k}");
        assert_eq!(knee_of(&steps[..1]), None);
    }

    #[test]
    fn a_regression_past_the_allowed_share_fails() {
        let run = |p99, t| LoadReport {
            calls: 100,
            throughput: t,
            latency: LoadLatency {
                p50: 1.0,
                p99,
                ..Default::default()
            },
            ..Default::default()
        };
        let r = compare(&run(10.0, 1000.0), &run(13.0, 950.0), 0.20);
        let failed: Vec<&str> = r
            .iter()
            .filter(|r| r.failed)
            .map(|r| r.figure.as_str())
            .collect();
        assert_eq!(failed, ["p99"]);
        assert!((r[1].worse_by - 0.30).abs() < 1e-9);
        assert!(
            compare(&run(10.0, 1000.0), &run(10.5, 990.0), 0.20)
                .iter()
                .all(|r| !r.failed)
        );
    }
}
