//! The tapped server's process group: a group of its own (so what the
//! server starts, as `npx` and `uvx` do, goes with it), watched by
//! `workbench_reaper` (a tap a host kills outright leaves none of it
//! running), a signal for the server passed to the whole group, and what
//! is left of it when the server's own process ends, ended with it.

use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// A server process's group, watched from its start.
pub(crate) struct Group(u32);

impl Group {
    /// The group `pid` leads (started with `process_group(0)`).
    pub fn led_by(pid: u32) -> Group {
        workbench_reaper::watch(pid);
        Group(pid)
    }

    /// The group's number as a signal takes it; never 0 (which would be
    /// the tap's own group).
    fn pgid(&self) -> Option<Pid> {
        i32::try_from(self.0)
            .ok()
            .filter(|p| *p > 0)
            .map(Pid::from_raw)
    }

    pub fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid() {
            let _ = killpg(pgid, signal);
        }
    }

    fn alive(&self) -> bool {
        self.pgid().is_some_and(|p| killpg(p, None).is_ok())
    }

    /// The leader has ended: what it left running gets SIGTERM and `grace`
    /// to end, then SIGKILL.
    pub async fn end(self, grace: Duration) {
        if !self.alive() {
            return;
        }
        self.signal(Signal::SIGTERM);
        let step = Duration::from_millis(50);
        let mut waited = Duration::ZERO;
        while waited < grace && self.alive() {
            tokio::time::sleep(step).await;
            waited += step;
        }
    }
}

impl Drop for Group {
    /// Nothing of the group outlives its handle (a process replaced, the tap
    /// ending): SIGKILL to what is left, and the watcher told.
    fn drop(&mut self) {
        if self.alive() {
            self.signal(Signal::SIGKILL);
        }
        workbench_reaper::forget(self.0);
    }
}
