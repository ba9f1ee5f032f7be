//! No server outlives the process that started it, however that process
//! ends.
//!
//! A workbench that exits runs every server's shutdown (stdin closed, then
//! SIGTERM and SIGKILL to its process group). One that is killed (SIGKILL,
//! the OOM killer, a crash in the window's toolkit) runs nothing: each
//! server's stdin closes, and a server that does not end on that (a timer
//! or a connection of its own keeps Node alive; a process it started in the
//! background) would run on with nobody to stop it.
//!
//! So the first server started also starts a watcher: a POSIX shell, in a
//! process group of its own (a Ctrl-C or a closed terminal does not reach
//! it), reading a pipe whose writing end only this process holds. It is
//! told each server's process group as it starts (`+PGID`) and as it is
//! gone (`-PGID`). When the pipe ends (this process is gone, whichever way)
//! it gives each group it still holds two seconds to end by itself (its
//! stdin closed with this process), then sends SIGTERM, and SIGKILL to what
//! is left three seconds later. A workbench that ended its servers itself has told
//! it of each, and the watcher just exits.
//!
//! A group is forgotten when the workbench lets go of its server (after its
//! shutdown or its own end is seen), so a number the system reuses for a
//! new group is not in the list. Where no shell can be started the servers
//! run as before, and the reason is logged once.
//!
//! Both ways a server is started watch it: core's stdio spawn (the window,
//! `mcpwb`, the bridge) and the tap's own (`mcpwb tap`, which a host runs).

#![forbid(unsafe_code)]

use std::io::Write;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// The watcher: reads `+PGID` and `-PGID` lines, keeps the set, and at the
/// pipe's end gives the groups still in it what a shutdown gives a server:
/// two seconds to end on their stdin's close, SIGTERM, three seconds more,
/// SIGKILL. dash's `kill` takes `-PGID` after the signal (no `--`); `kill
/// -0` tells whether a group has members.
const WATCHER: &str = r#"trap '' HUP INT PIPE
g=' '
while IFS= read -r l; do
  case $l in
    +*) g="$g${l#+} " ;;
    -*) p=${l#-}; case $g in *" $p "*) g="${g%%" $p "*} ${g#*" $p "}" ;; esac ;;
  esac
done
set -- $g
# Whether every group given ends within $1 tenths of a second.
ended_within() {
  n=$1
  shift
  while :; do
    a=
    for p; do kill -0 "-$p" 2>/dev/null && a=1; done
    [ -z "$a" ] && return 0
    [ "$n" -le 0 ] && return 1
    sleep 0.1
    n=$((n - 1))
  done
}
[ $# -eq 0 ] && exit 0
ended_within 20 "$@" && exit 0
for p; do kill -TERM "-$p" 2>/dev/null; done
ended_within 30 "$@" && exit 0
for p; do kill -KILL "-$p" 2>/dev/null; done
"#;

enum Watcher {
    NotYet,
    Running(ChildStdin),
    /// It could not be started, or it ended under us: servers run unwatched.
    Gone,
}

static WATCHER_PIPE: Mutex<Watcher> = Mutex::new(Watcher::NotYet);

/// The watcher's process: its stdin the pipe, nothing else of ours, in a
/// process group of its own.
fn spawn_watcher() -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    Command::new("/bin/sh")
        .args(["-c", WATCHER])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
}

fn start() -> Watcher {
    match spawn_watcher() {
        Ok(mut child) => match child.stdin.take() {
            Some(pipe) => Watcher::Running(pipe),
            None => Watcher::Gone,
        },
        Err(e) => {
            tracing::warn!(
                "servers are not watched for this process's end (no /bin/sh: {e}); \
                 a server that ignores its stdin closing may outlive a crash"
            );
            Watcher::Gone
        }
    }
}

fn tell(line: &str) {
    let mut watcher = WATCHER_PIPE.lock().unwrap_or_else(|p| p.into_inner());
    if matches!(*watcher, Watcher::NotYet) {
        *watcher = start();
    }
    if let Watcher::Running(pipe) = &mut *watcher
        && let Err(e) = pipe.write_all(line.as_bytes())
    {
        tracing::warn!("the watcher of this process's servers ended: {e}");
        *watcher = Watcher::Gone;
    }
}

/// Watch the process group `pgid`: ended should this process end first.
pub fn watch(pgid: u32) {
    tell(&format!("+{pgid}\n"));
}

/// The group `pgid` is ended, or its end seen: no longer watched.
pub fn forget(pgid: u32) {
    // Before the first watch there is nothing to forget, and no watcher to
    // start for it.
    if matches!(
        *WATCHER_PIPE.lock().unwrap_or_else(|p| p.into_inner()),
        Watcher::NotYet
    ) {
        return;
    }
    tell(&format!("-{pgid}\n"));
}

/// The process group `pgid` as a signal takes it; never 0 (which would be
/// the caller's own group).
fn group(pgid: u32) -> Option<nix::unistd::Pid> {
    i32::try_from(pgid)
        .ok()
        .filter(|p| *p > 0)
        .map(nix::unistd::Pid::from_raw)
}

/// Send `signal` to every process of the group `pgid`.
pub fn signal_group(pgid: u32, signal: nix::sys::signal::Signal) {
    if let Some(group) = group(pgid) {
        let _ = nix::sys::signal::killpg(group, signal);
    }
}

/// Whether any process of the group `pgid` is alive (it has members).
pub fn group_alive(pgid: u32) -> bool {
    group(pgid).is_some_and(|g| nix::sys::signal::killpg(g, None).is_ok())
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::spawn_watcher;

    /// A process group of its own, a shell and a `sleep` it started beside
    /// it (both ignoring SIGTERM when `stubborn`): returns the group's number.
    fn group(stubborn: bool) -> u32 {
        use std::os::unix::process::CommandExt;
        let trap = if stubborn { "trap '' TERM; " } else { "" };
        let child = Command::new("/bin/sh")
            .args(["-c", &format!("{trap}sleep 300 & wait")])
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = child.id();
        // Reaped by a thread so the leader does not linger as a zombie.
        std::thread::spawn(move || {
            let mut child = child;
            let _ = child.wait();
        });
        pgid
    }

    fn alive(pgid: u32) -> bool {
        super::group_alive(pgid)
    }

    fn until(what: impl Fn() -> bool, within: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < within {
            if what() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        what()
    }

    /// The watcher as it runs: told of three groups, one forgotten, its
    /// pipe closed. The two it holds end (one despite ignoring SIGTERM, by
    /// SIGKILL after five seconds); the forgotten one is left running.
    #[test]
    fn at_the_pipes_end_the_groups_still_held_are_ended_and_the_forgotten_one_is_not() {
        let (held, stubborn, forgotten) = (group(false), group(true), group(false));
        let mut watcher = spawn_watcher().unwrap();
        let mut pipe = watcher.stdin.take().unwrap();
        write!(pipe, "+{held}\n+{forgotten}\n+{stubborn}\n-{forgotten}\n").unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(alive(held) && alive(stubborn) && alive(forgotten));
        drop(pipe);
        assert!(
            until(|| !alive(held) && !alive(stubborn), Duration::from_secs(10)),
            "the held groups outlived the pipe"
        );
        watcher.wait().unwrap();
        assert!(alive(forgotten), "a forgotten group was ended");
        super::signal_group(forgotten, nix::sys::signal::Signal::SIGKILL);
    }

    /// Nothing held: the watcher exits at once.
    #[test]
    fn with_every_group_forgotten_the_watcher_just_exits() {
        let mut watcher = spawn_watcher().unwrap();
        let mut pipe = watcher.stdin.take().unwrap();
        write!(pipe, "+123456\n-123456\n").unwrap();
        drop(pipe);
        let start = Instant::now();
        assert!(watcher.wait().unwrap().success());
        assert!(start.elapsed() < Duration::from_secs(1));
    }
}
