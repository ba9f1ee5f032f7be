//! The tap over stdio: what a host's config runs in place of the server.
//! The server is started with the host's stdin and stdout passed through it
//! byte for byte (its stderr is the host's stderr, untouched); each line is
//! handed to the recorder on the way. The tap ends with the server, with
//! its exit code.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::Direction;
use crate::record::{Recorder, Splitter};

/// The server to run.
#[derive(Debug, Clone, Default)]
pub struct Spawn {
    pub program: String,
    pub args: Vec<String>,
    /// Set on top of the tap's own environment.
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
}

/// How much is read at once from either side.
const CHUNK: usize = 64 * 1024;

/// Run `spawn` between this process's stdin/stdout and the server's, every
/// byte passed unchanged; lines go to `recorder` when there is one. The
/// server's exit code (128 + the signal when a signal ended it).
pub async fn run(spawn: &Spawn, recorder: Option<Recorder>) -> std::io::Result<i32> {
    let mut command = tokio::process::Command::new(&spawn.program);
    command
        .args(&spawn.args)
        .envs(&spawn.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    if let Some(dir) = &spawn.cwd {
        command.current_dir(dir);
    }
    let mut child = command.spawn().map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot start {}: {e}", spawn.program))
    })?;
    let mut to_server = child.stdin.take().expect("stdin is piped");
    let mut from_server = child.stdout.take().expect("stdout is piped");
    // Host → server.
    let host_recorder = recorder.clone();
    let upstream = tokio::spawn(async move {
        let mut split = host_recorder.map(|r| Splitter::new(Direction::Host, r));
        let mut stdin = tokio::io::stdin();
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = match stdin.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if to_server.write_all(&buf[..n]).await.is_err() || to_server.flush().await.is_err() {
                break;
            }
            if let Some(s) = &mut split {
                s.feed(&buf[..n]);
            }
        }
        // The host is gone (or the server): the server's stdin closes.
        drop(to_server);
        if let Some(s) = split {
            s.close();
        }
    });
    // Server → host.
    let downstream = tokio::spawn(async move {
        let mut split = recorder.map(|r| Splitter::new(Direction::Server, r));
        let mut stdout = tokio::io::stdout();
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = match from_server.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if stdout.write_all(&buf[..n]).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
            if let Some(s) = &mut split {
                s.feed(&buf[..n]);
            }
        }
        if let Some(s) = split {
            s.close();
        }
    });
    // A signal meant for the server reaches it; the tap itself stays to
    // pass its last bytes and keep the session's end.
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    let pid = child.id().map(|p| nix::unistd::Pid::from_raw(p as i32));
    let forward = |sig: nix::sys::signal::Signal| {
        if let Some(pid) = pid {
            let _ = nix::sys::signal::kill(pid, sig);
        }
    };
    let status = loop {
        tokio::select! {
            status = child.wait() => break status?,
            _ = term.recv() => forward(nix::sys::signal::Signal::SIGTERM),
            _ = int.recv() => forward(nix::sys::signal::Signal::SIGINT),
            _ = hup.recv() => forward(nix::sys::signal::Signal::SIGHUP),
        }
    };
    // Everything the server wrote reaches the host before the tap ends.
    let _ = downstream.await;
    // The host may still hold its end open: nothing more goes anywhere.
    upstream.abort();
    let _ = upstream.await;
    use std::os::unix::process::ExitStatusExt;
    Ok(status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1))
}
