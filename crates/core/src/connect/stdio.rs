//! A stdio server: the child in its own process group, its stdout and stdin
//! tapped line by line below rmcp (so the traffic log holds the exact bytes),
//! its stderr drained into the traffic log, and a shutdown that leaves no
//! process of the group behind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessGroup};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

use super::tapio::{TapReader, TapWriter};

use super::resolve::resolve_command;
use crate::traffic::TrafficLog;

/// rmcp's own limit (16 MiB) silently drops longer lines; ours is generous
/// and a line past it ends the connection with a clear reason.
pub const MAX_LINE: usize = 512 * 1024 * 1024;

/// How a stdio child ended.
#[derive(Debug, Clone)]
pub struct Exit {
    pub description: String,
}

/// The running child: its process group and a receiver for its exit.
pub struct StdioChild {
    pub pid: u32,
    pub pgid: u32,
    child: Box<dyn ChildWrapper>,
}

/// The two ends rmcp reads and writes: the child's stdout and stdin, tapped.
/// rmcp owns them; when its session ends they drop and the child's stdin closes.
pub struct StdioPipes {
    pub read: TapReader<ChildStdout>,
    pub write: TapWriter<ChildStdin>,
}

pub struct StdioSpec<'a> {
    pub server: &'a str,
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: Option<&'a str>,
    pub base_dir: &'a Path,
}

/// Spawn the child and start the pumps.
pub fn spawn(
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

    let name = spec.server.to_string();
    let read = TapReader::new(stdout, &name, traffic.clone(), MAX_LINE);
    let write = TapWriter::new(stdin, &name, traffic.clone());

    // stderr → traffic, continuously (a full pipe would stall the server).
    let (t, n) = (traffic.clone(), name);
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            t.record_stderr(&n, &line);
        }
    });

    Ok((
        StdioChild {
            pid,
            pgid: pid,
            child,
        },
        StdioPipes { read, write },
    ))
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

fn signal_group(pgid: u32, signal: nix::sys::signal::Signal) {
    if let Ok(pgid) = i32::try_from(pgid) {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), signal);
    }
}

/// Whether any process of the group is alive (it has members).
pub fn group_alive(pgid: u32) -> bool {
    i32::try_from(pgid)
        .is_ok_and(|p| nix::sys::signal::killpg(nix::unistd::Pid::from_raw(p), None).is_ok())
}

impl StdioChild {
    /// Wait for the child to exit.
    pub async fn wait(&mut self) -> Exit {
        Exit {
            description: describe(self.child.wait().await),
        }
    }

    /// Close stdin, wait `grace`, SIGTERM the group, wait `grace`, SIGKILL the
    /// group. Grandchildren (npx, uvx) are in the group and go with it.
    pub async fn shutdown(mut self, grace: Duration) -> Exit {
        use nix::sys::signal::Signal;
        // stdin was closed when rmcp's session (which owns it) ended.
        let exit = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(status) => Exit {
                description: describe(status),
            },
            Err(_) => {
                signal_group(self.pgid, Signal::SIGTERM);
                match tokio::time::timeout(grace, self.child.wait()).await {
                    Ok(status) => Exit {
                        description: describe(status),
                    },
                    Err(_) => {
                        signal_group(self.pgid, Signal::SIGKILL);
                        Exit {
                            description: describe(self.child.wait().await),
                        }
                    }
                }
            }
        };
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
    }
}
