//! The tapped server's process group: a group of its own (so what the
//! server starts, as `npx` and `uvx` do, goes with it), watched by
//! `workbench_reaper` (a tap a host kills outright leaves none of it
//! running), a signal for the server passed to the whole group, and what
//! is left of it when the server's own process ends, ended with it.

use std::time::Duration;

use nix::sys::signal::Signal;

/// A server process's group, watched from its start.
pub(crate) struct Group(u32);

impl Group {
    /// The group `pid` leads (started with `process_group(0)`).
    pub fn led_by(pid: u32) -> Group {
        workbench_reaper::watch(pid);
        Group(pid)
    }

    pub fn signal(&self, signal: Signal) {
        workbench_reaper::signal_group(self.0, signal);
    }

    fn alive(&self) -> bool {
        workbench_reaper::group_alive(self.0)
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
