//! A stdio server: the child in its own process group, its stdout and stdin
//! tapped line by line below rmcp (so the traffic log holds the exact bytes),
//! its stderr drained into the traffic log, and a shutdown that leaves no
//! process of the group behind (nor does this process's death: `workbench_reaper`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessGroup};
use tokio::process::{ChildStdin, ChildStdout};

use super::tapio::{TapReader, TapWriter};
use super::unread::Unread;

use super::resolve::resolve_command;
use crate::traffic::TrafficLog;

/// How a stdio child ended.
#[derive(Debug, Clone)]
pub struct Exit {
    pub description: String,
    /// What ended it, when it was stopped.
    pub ended_by: EndedBy,
}

/// What ended a stdio server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndedBy {
    /// It ended by itself: on its own, or within the grace after its
    /// stdin closed (the spec's way to stop a stdio server).
    Itself,
    /// It was still running a grace after its stdin closed: SIGTERM.
    Sigterm,
    /// It outlived SIGTERM too: SIGKILL.
    Sigkill,
}

impl EndedBy {
    /// The signal that ended it (None: it ended by itself).
    pub fn signal(self) -> Option<&'static str> {
        match self {
            EndedBy::Itself => None,
            EndedBy::Sigterm => Some("SIGTERM"),
            EndedBy::Sigkill => Some("SIGKILL"),
        }
    }
}

/// The running child: its process group and a receiver for its exit.
pub struct StdioChild {
    pub pid: u32,
    pub pgid: u32,
    child: Box<dyn ChildWrapper>,
    /// Where its stderr goes: a stop that needed a signal is said there.
    stderr: (TrafficLog, String),
}

/// The two ends rmcp reads and writes: the child's stdout and stdin, tapped.
/// rmcp owns them; when its session ends they drop and the child's stdin
/// closes, while its stdout is read to its end (the child may still write
/// as it exits).
pub struct StdioPipes {
    pub read: TapReader<DrainedStdout>,
    pub write: TapWriter<ChildStdin>,
}

/// The child's stdout, read to its end once dropped: a server that writes
/// while it shuts down (the Python SDK does, on stdin's end) would otherwise
/// meet a closed pipe and print a BrokenPipeError traceback into its stderr
/// at every reload.
pub struct DrainedStdout(Option<ChildStdout>);

impl tokio::io::AsyncRead for DrainedStdout {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.0.as_mut() {
            Some(out) => std::pin::Pin::new(out).poll_read(cx, buf),
            None => std::task::Poll::Ready(Ok(())),
        }
    }
}

/// How long a dropped stdout is read for at most (the shutdown kills the
/// group well before).
const DRAIN_FOR: Duration = Duration::from_secs(30);

impl Drop for DrainedStdout {
    fn drop(&mut self) {
        let (Some(mut out), Ok(rt)) = (self.0.take(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        rt.spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut sink = vec![0u8; 8 * 1024];
            let _ = tokio::time::timeout(DRAIN_FOR, async {
                while matches!(out.read(&mut sink).await, Ok(n) if n > 0) {}
            })
            .await;
        });
    }
}

pub struct StdioSpec<'a> {
    pub server: &'a str,
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: Option<&'a str>,
    pub base_dir: &'a Path,
    /// The longest stdout line (message) accepted.
    pub max_line: usize,
}

/// Variables the app set in its own environment for itself (e.g. how its
/// window paints): servers start without them, as from the person's shell,
/// unless the entry's `env` gives them. Set once, before any server starts.
static APP_ONLY_ENV: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();

/// Keep `keys` (set by the app for itself) out of every server's environment.
pub fn hide_from_servers(keys: Vec<&'static str>) {
    let _ = APP_ONLY_ENV.set(keys);
}

/// Which of the app's own variables (`keys`) a server with this `env`
/// starts without: all but those its entry gives.
fn hidden_for<'k>(keys: &[&'k str], env: &BTreeMap<String, String>) -> Vec<&'k str> {
    keys.iter()
        .copied()
        .filter(|k| !env.contains_key(*k))
        .collect()
}

/// Spawn the child and start the pumps.
pub(crate) fn spawn(
    spec: &StdioSpec<'_>,
    traffic: &TrafficLog,
) -> Result<(StdioChild, StdioPipes), String> {
    let program = resolve_command(spec.command, spec.base_dir, spec.env)?;
    let cwd: Option<PathBuf> = spec.cwd.map(|c| {
        let p = PathBuf::from(c);
        if p.is_relative() {
            spec.base_dir.join(p)
        } else {
            p
        }
    });
    let mut cmd = CommandWrap::with_new(&program, |c| {
        let app_only = APP_ONLY_ENV.get().map(Vec::as_slice).unwrap_or_default();
        for key in hidden_for(app_only, spec.env) {
            c.env_remove(key);
        }
        c.args(spec.args)
            .envs(spec.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = &cwd {
            c.current_dir(cwd);
        }
    });
    cmd.wrap(ProcessGroup::leader());
    let mut child = cmd.spawn().map_err(|e| match &cwd {
        Some(cwd) if !cwd.is_dir() => format!("working folder {} does not exist", cwd.display()),
        _ => format!("could not start {}: {e}", program.display()),
    })?;
    let pid = child
        .id()
        .ok_or("the child exited before it could be watched")?;
    let stdin = child.stdin().take().ok_or("no stdin pipe")?;
    let stdout = child.stdout().take().ok_or("no stdout pipe")?;
    let stderr = child.stderr().take().ok_or("no stderr pipe")?;
    // Its group is ended should this process die without a shutdown.
    workbench_reaper::watch(pid);

    let name = spec.server.to_string();
    // Where one process of this server ends and the next begins, in its
    // stderr (a restart, a reload).
    if !traffic.last_stderr(&name, 1).is_empty() {
        traffic.record_stderr(&name, &format!("──── restarted: process {pid} ────"));
    }
    // What the server never read, should it die with requests in its pipe.
    let unread = Unread::new(&stdin, &name, traffic.clone());
    let read = TapReader::new(
        DrainedStdout(Some(stdout)),
        &name,
        traffic.clone(),
        spec.max_line,
    )
    .with_unread(unread.clone());
    let write = TapWriter::new(stdin, &name, traffic.clone()).with_unread(unread);

    // stderr → traffic, continuously (a full pipe would stall the server).
    let (t, n) = (traffic.clone(), name.clone());
    tokio::spawn(async move {
        drain_stderr(stderr, STDERR_LINE_CAP, |line| {
            t.record_stderr(&n, line);
        })
        .await;
    });

    Ok((
        StdioChild {
            pid,
            pgid: pid,
            child,
            stderr: (traffic.clone(), name),
        },
        StdioPipes { read, write },
    ))
}

/// The most of one stderr line kept; the rest is counted and dropped.
pub const STDERR_LINE_CAP: usize = 64 * 1024;

/// Read `reader` to its end in bytes, handing each line to `line` decoded
/// lossily (a stray byte that is not UTF-8 does not stop the drain: a server
/// whose stderr is no longer read dies on a full pipe). A line longer than
/// `cap` keeps its first `cap` bytes and says how many were dropped; memory
/// stays bounded whatever the server writes.
pub async fn drain_stderr<R: tokio::io::AsyncRead + Unpin>(
    mut reader: R,
    cap: usize,
    mut line: impl FnMut(&str),
) {
    use tokio::io::AsyncReadExt;
    let mut chunk = vec![0u8; 16 * 1024];
    let mut held: Vec<u8> = Vec::new();
    let mut dropped: u64 = 0;
    let mut emit = |held: &mut Vec<u8>, dropped: &mut u64| {
        let mut text = String::from_utf8_lossy(held).into_owned();
        if *dropped > 0 {
            text.push_str(&format!(" […{dropped} more bytes of this line dropped]"));
        }
        line(&text);
        held.clear();
        *dropped = 0;
    };
    loop {
        let n = match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut rest = &chunk[..n];
        while !rest.is_empty() {
            let (part, ended) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], Some(i + 1)),
                None => (rest, None),
            };
            let room = cap.saturating_sub(held.len());
            held.extend_from_slice(&part[..part.len().min(room)]);
            dropped += part.len().saturating_sub(room) as u64;
            match ended {
                Some(next) => {
                    emit(&mut held, &mut dropped);
                    rest = &rest[next..];
                }
                None => rest = &[],
            }
        }
    }
    if !held.is_empty() || dropped > 0 {
        emit(&mut held, &mut dropped);
    }
}

fn describe(status: std::io::Result<std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Ok(s) if s.code().is_some() => {
            format!("exited with status {}", s.code().unwrap_or_default())
        }
        Ok(s) => match s.signal() {
            Some(sig) => format!("killed by signal {sig}"),
            None => "exited".to_string(),
        },
        Err(e) => format!("could not be waited for: {e}"),
    }
}

pub use workbench_reaper::{group_alive, signal_group};

impl StdioChild {
    /// Wait for the child to exit.
    pub async fn wait(&mut self) -> Exit {
        Exit {
            description: describe(self.child.wait().await),
            ended_by: EndedBy::Itself,
        }
    }

    /// Close stdin, wait `grace`, SIGTERM the group, wait `grace`, SIGKILL the
    /// group. Grandchildren (npx, uvx) are in the group and go with it.
    pub async fn shutdown(mut self, grace: Duration) -> Exit {
        use nix::sys::signal::Signal;
        let ended = |status, ended_by| Exit {
            description: describe(status),
            ended_by,
        };
        // stdin was closed when rmcp's session (which owns it) ended.
        let exit = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(status) => ended(status, EndedBy::Itself),
            Err(_) => {
                signal_group(self.pgid, Signal::SIGTERM);
                match tokio::time::timeout(grace, self.child.wait()).await {
                    Ok(status) => ended(status, EndedBy::Sigterm),
                    Err(_) => {
                        signal_group(self.pgid, Signal::SIGKILL);
                        ended(self.child.wait().await, EndedBy::Sigkill)
                    }
                }
            }
        };
        // A server that outlives its stdin's close: said where its stderr
        // is read (each restart of it waits; the doctor says why it matters).
        if let Some(by) = exit.ended_by.signal() {
            let (traffic, server) = &self.stderr;
            traffic.record_stderr(
                server,
                &format!(
                    "──── stopped: still running {:.1} s after its stdin closed; {by} ended it ────",
                    grace.as_secs_f64()
                ),
            );
        }
        // The leader is gone; anything left in its group is an orphan: end it.
        if group_alive(self.pgid) {
            signal_group(self.pgid, Signal::SIGTERM);
            for _ in 0..20 {
                if !group_alive(self.pgid) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(grace.as_millis().max(20) as u64 / 20))
                    .await;
            }
            signal_group(self.pgid, Signal::SIGKILL);
        }
        exit
    }
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        // Last resort when the owner was dropped without a shutdown (e.g. the
        // app is exiting): no process of the group may outlive us.
        if group_alive(self.pgid) {
            signal_group(self.pgid, nix::sys::signal::Signal::SIGKILL);
        }
        workbench_reaper::forget(self.pgid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apps_own_variables_stay_out_of_a_server_unless_its_entry_gives_them() {
        let keys = ["GDK_GL", "WEBKIT_SKIA_ENABLE_CPU_RENDERING"];
        assert_eq!(hidden_for(&keys, &BTreeMap::new()), keys);
        let entry = BTreeMap::from([("GDK_GL".to_string(), "gles".to_string())]);
        assert_eq!(
            hidden_for(&keys, &entry),
            ["WEBKIT_SKIA_ENABLE_CPU_RENDERING"]
        );
        assert!(hidden_for(&[], &entry).is_empty());
    }
}
