//! The tap over stdio: what a host's config runs in place of the server.
//! The server is started with the host's stdin and stdout passed through it
//! byte for byte (its stderr is the host's stderr, untouched); each line is
//! handed to the recorder on the way. The tap ends with the server, with
//! its exit code.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;

use std::io::{Read, Write};

use crate::Direction;
use crate::record::{Recorder, Splitter};
use workbench_awake::Hot;

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

/// Copy `from` to `to` as it comes (flushed at once), each chunk first to
/// `split`; until either end closes. While messages are passing, the next
/// bytes are waited for awake ([`Hot`]).
fn pump(
    mut from: impl Read + std::os::fd::AsFd,
    mut to: impl Write,
    mut split: Option<Splitter>,
    hot: &Hot,
) {
    let mut buf = vec![0u8; CHUNK];
    loop {
        hot.wait(&from);
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        hot.passed();
        // Kept before it is passed on: an answer can then never be kept
        // ahead of the request it answers.
        if let Some(s) = &mut split {
            s.feed(&buf[..n]);
        }
        if to.write_all(&buf[..n]).is_err() || to.flush().is_err() {
            break;
        }
    }
    if let Some(s) = split {
        s.close();
    }
}

/// Run `spawn` between this process's stdin/stdout and the server's, every
/// byte passed unchanged; lines go to `recorder` when there is one. The
/// server's exit code (128 + the signal when a signal ended it).
///
/// Each direction is a thread doing blocking reads and writes: the
/// shortest path a byte can take (no task hand-offs on the way), awake
/// between messages that come close together ([`Hot`]).
pub async fn run(spawn: &Spawn, recorder: Option<Recorder>) -> std::io::Result<i32> {
    let mut command = std::process::Command::new(&spawn.program);
    command
        .args(&spawn.args)
        .envs(&spawn.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(dir) = &spawn.cwd {
        command.current_dir(dir);
    }
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot start {}: {e}", spawn.program))
    })?;
    let group = crate::group::Group::led_by(child.id());
    let to_server = child.stdin.take().expect("stdin is piped");
    let from_server = child.stdout.take().expect("stdout is piped");
    let host_split = recorder.clone().map(|r| Splitter::new(Direction::Host, r));
    let hot = workbench_awake::process();
    let server_split = recorder.map(|r| Splitter::new(Direction::Server, r));
    // Host → server; when the host is gone the server's stdin closes. Not
    // joined: it may wait on a host that keeps its end open.
    std::thread::Builder::new()
        .name("tap-to-server".into())
        .spawn(move || pump(std::io::stdin().lock(), to_server, host_split, hot))?;
    let downstream = std::thread::Builder::new()
        .name("tap-to-host".into())
        .spawn(move || pump(from_server, std::io::stdout().lock(), server_split, hot))?;
    // A signal meant for the server reaches it (and what it started); the
    // tap itself stays to pass its last bytes and keep the session's end.
    use nix::sys::signal::Signal;
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut waiting = tokio::task::spawn_blocking(move || child.wait());
    let status = loop {
        tokio::select! {
            status = &mut waiting => break status.map_err(std::io::Error::other)??,
            _ = term.recv() => group.signal(Signal::SIGTERM),
            _ = int.recv() => group.signal(Signal::SIGINT),
            _ = hup.recv() => group.signal(Signal::SIGHUP),
        }
    };
    // What the server left running ends with it.
    group.end(std::time::Duration::from_secs(1)).await;
    // Everything the server wrote reaches the host before the tap ends.
    let _ = tokio::task::spawn_blocking(move || downstream.join()).await;
    use std::os::unix::process::ExitStatusExt;
    Ok(status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1))
}
