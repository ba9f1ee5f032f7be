//! How long a call may take: its timeout, started again at each progress
//! notification, and the longest it may take however it progresses. One
//! timer per call; the progress that resets it is looked up in the traffic
//! log only when it fires.

use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Sleep;

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

/// The last finished call's timer, left set. Tokio wakes its driver (an
/// eventfd write, then an `epoll_wait` that returns at once) whenever a
/// timer is set earlier than the wake the driver planned. Between calls made
/// one after another no timer was left, the driver planned no wake, and so
/// every call's timer woke it (seen under strace of `mcpwb serve`: one
/// eventfd write a call, from `send_once`'s timer). With the last timer kept
/// the planned wake is no later than a new call's deadline of the same
/// length, and setting that one wakes nothing. A kept timer that fires wakes
/// a finished task: nothing.
#[derive(Default)]
pub(super) struct KeptTimer(Mutex<Option<Pin<Box<Sleep>>>>);

impl KeptTimer {
    /// Keep `timer` (a finished call's), letting the one kept before go.
    pub(super) fn keep(&self, timer: Pin<Box<Sleep>>) {
        let old = self
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .replace(timer);
        drop(old);
    }
}
