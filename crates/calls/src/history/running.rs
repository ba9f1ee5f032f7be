//! The calls running now, and the processes running them. A call still
//! running after [`KEEP_AFTER`] is kept as a `pending` row naming its
//! process by id and start, so a call a crash or a kill cuts short is not
//! lost: the next process to look finds that process gone and marks the
//! row interrupted ([`mark_interrupted`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use workbench_store::{CallStatus, Process, Store};

use super::{Begun, History};

/// A call's entry among those running, by key: whether its running row is
/// kept yet.
pub(super) struct Entry {
    pub begun: Begun,
    pub since: Instant,
    pub kept: bool,
}

/// The calls running now, by key. A call still running after
/// [`KEEP_AFTER`] is kept as a `pending` row with this process's id, so a
/// call a crash or a kill cuts short is not lost: its row says it was
/// interrupted (the next process to open the History finds its process
/// gone).
pub(super) type Running = Arc<Mutex<std::collections::HashMap<String, Entry>>>;

/// How long a call runs before its row is kept while it runs.
pub(super) const KEEP_AFTER: Duration = Duration::from_secs(1);

/// A running call's place among those running ([`History::begin`]). Ended
/// with [`Ticket::end`]; dropped unended (the call's future dropped), its
/// running row, if kept, is replaced by a cancelled one.
pub(crate) struct Ticket {
    pub(super) history: History,
    pub(super) key: String,
}

impl Ticket {
    /// The call ended: its start back for its row, and whether a row was
    /// kept while it ran (its end replaces it).
    pub fn end(self) -> Option<(Begun, bool)> {
        let entry = self.history.lock_running().remove(&self.key);
        std::mem::forget(self);
        entry.map(|e| (e.begun, e.kept))
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let Some(entry) = self.history.lock_running().remove(&self.key) else {
            return;
        };
        if entry.kept {
            let why = Some("stopped before it finished".to_string());
            let stopped = entry.begun.row(&self.key, CallStatus::Cancelled, why, true);
            drop(self.history.write(stopped));
        }
    }
}

/// When process `pid` started, in ticks since boot (`/proc/PID/stat`'s
/// 22nd field; None: no such process, one that has ended and is not yet
/// reaped (a zombie), or no /proc).
fn started_at(pid: u32) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name (which may hold spaces and
    // parentheses) start at the 3rd, its state: the 22nd is the 20th.
    let (_, after) = stat.rsplit_once(')')?;
    let mut fields = after.split_whitespace();
    if matches!(fields.next(), Some("Z" | "X")) {
        return None;
    }
    fields.nth(18)?.parse().ok()
}

/// This process, as its running calls' rows name it.
pub(super) fn this_process() -> Process {
    static ME: std::sync::OnceLock<Process> = std::sync::OnceLock::new();
    *ME.get_or_init(|| {
        let pid = std::process::id();
        Process {
            pid,
            started: started_at(pid),
        }
    })
}

/// The calls in `store` left running by a process that is gone (killed,
/// crashed) marked as interrupted; how many.
pub fn mark_interrupted(store: &Store) -> usize {
    let me = this_process();
    // Without /proc (a bare container) no process can be told gone: none is.
    let can_tell = std::path::Path::new("/proc/self").exists();
    let alive = |p: Process| {
        !can_tell
            || match p.started {
                // The same id and the same start: the same process.
                Some(started) => started_at(p.pid) == Some(started),
                // Kept by a build that did not say when it started.
                None => p.pid == me.pid || started_at(p.pid).is_some(),
            }
    };
    match store.interrupted(alive) {
        Ok(n) => {
            if n > 0 {
                tracing::info!("history: {n} call(s) cut short by a process that ended");
            }
            n
        }
        Err(e) => {
            tracing::warn!("history: the calls left running could not be read: {e}");
            0
        }
    }
}

#[cfg(test)]
mod tests {
    /// A process's start as its rows keep it: this one's stays the same, a
    /// child started later has a later (or the same) one, a process that
    /// is not there has none. A row of a process gone is marked; of one
    /// running, not.
    #[test]
    fn a_process_is_told_by_its_id_and_its_start() {
        let me = super::this_process();
        assert!(me.started.is_some(), "/proc/self/stat read");
        assert_eq!(super::started_at(me.pid), me.started);
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let later = super::started_at(child.id());
        assert!(later >= me.started, "{later:?} {:?}", me.started);
        let _ = child.kill();
        // Ended, not yet reaped: a zombie has ended.
        for _ in 0..100 {
            if super::started_at(child.id()).is_none() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(super::started_at(child.id()), None, "a zombie");
        let _ = child.wait();
        assert_eq!(
            super::started_at(child.id()),
            None,
            "reaped: no such process"
        );

        let store = workbench_store::Store::in_memory().unwrap();
        let row = |key: &str| workbench_store::NewCall {
            key: Some(key.into()),
            origin: "cli".into(),
            server: "demo".into(),
            tool: "slow".into(),
            arguments: "{}".into(),
            status: Some(workbench_store::CallStatus::Pending),
            started_at: 1,
            ..workbench_store::NewCall::default()
        };
        store.keep_running(&[row("mine")], me).unwrap();
        // The same id, an earlier start: another process, gone.
        let before = workbench_store::Process {
            pid: me.pid,
            started: me.started.map(|s| s - 1),
        };
        store.keep_running(&[row("reused")], before).unwrap();
        assert_eq!(super::mark_interrupted(&store), 1);
        let status = |key: &str| store.call_by_key(key).unwrap().unwrap().status;
        assert_eq!(status("mine"), workbench_store::CallStatus::Pending);
        assert_eq!(status("reused"), workbench_store::CallStatus::Failed);
    }
}
