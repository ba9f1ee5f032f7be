//! How long a call may take: its timeout, started again at each progress
//! notification, and the longest it may take however it progresses. One
//! timer per call; the progress that resets it is looked up in the traffic
//! log only when it fires.

use std::time::Duration;

use super::Workbench;

/// A call's two limits: its timeout, started again at each progress
/// notification unless `fixed`, and the longest it may take however it
/// progresses.
pub(super) struct Limits {
    pub(super) timeout: Duration,
    pub(super) max_total: Duration,
    pub(super) fixed: bool,
    pub(super) started: tokio::time::Instant,
}

/// What a call's timer firing comes to.
pub(super) enum Due {
    /// Not yet: progress came since (the timeout starts again from it).
    At(tokio::time::Instant),
    /// Over: the reason told the server, the limit passed, and whether it
    /// had progressed (the longest time ran out, not the timeout).
    Over {
        reason: &'static str,
        seconds: Duration,
        progressing: bool,
    },
}

impl Limits {
    /// The progress that resets the timeout is looked up in the traffic log
    /// only here, when the timer fires: one timer per call.
    pub(super) fn due(&self, wb: &Workbench, server: &str, token: &str) -> Due {
        let now = tokio::time::Instant::now();
        let started = self.started;
        let last = if self.fixed {
            started
        } else {
            wb.traffic()
                .last_progress(server, token)
                .map_or(started, tokio::time::Instant::from_std)
                .max(started)
        };
        let next = (last + self.timeout).min(started + self.max_total);
        if next > now {
            return Due::At(next);
        }
        if now >= started + self.max_total {
            Due::Over {
                reason: "maximum total time exceeded",
                seconds: self.max_total,
                progressing: last > started,
            }
        } else {
            Due::Over {
                reason: "request timeout",
                seconds: self.timeout,
                progressing: false,
            }
        }
    }
}
