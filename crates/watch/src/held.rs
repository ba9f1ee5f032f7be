//! Files this process, or a process it started, holds open for writing: a
//! server's log or database, the workbench's own store. Their changes are
//! not a person's save, whenever they come (Linux: read from `/proc`;
//! elsewhere nothing is found and every change counts).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Of `files` (absolute), those held open for writing by this process or
/// one of its descendants.
pub fn held_by_us(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let wanted: BTreeSet<&Path> = files.iter().map(PathBuf::as_path).collect();
    let mut held = BTreeSet::new();
    if wanted.is_empty() {
        return held;
    }
    for pid in ours() {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let Ok(target) = std::fs::read_link(fd.path()) else {
                continue;
            };
            if !wanted.contains(target.as_path()) || !for_writing(pid, &fd.file_name()) {
                continue;
            }
            held.insert(target);
        }
    }
    held
}

/// Whether descriptor `fd` of `pid` was opened to write (its `flags`,
/// octal: O_WRONLY 1, O_RDWR 2).
fn for_writing(pid: u32, fd: &std::ffi::OsStr) -> bool {
    let Ok(info) = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.to_string_lossy()))
    else {
        return false;
    };
    info.lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
        .is_some_and(|flags| flags & 0b11 != 0)
}

/// This process and every process under it.
fn ours() -> Vec<u32> {
    let me = std::process::id();
    let mut parent: HashMap<u32, u32> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // The parent is the second field after the command's ")".
            let ppid = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            parent.insert(pid, ppid);
        }
    }
    let under = |mut pid: u32| {
        for _ in 0..64 {
            if pid == me {
                return true;
            }
            match parent.get(&pid) {
                Some(&p) if p > 1 => pid = p,
                _ => return false,
            }
        }
        false
    };
    let mut out: Vec<u32> = parent.keys().copied().filter(|p| under(*p)).collect();
    if !out.contains(&me) {
        out.push(me);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_we_hold_open_to_write_is_ours_one_closed_after_writing_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().canonicalize().unwrap().join("server.log");
        let saved = dir.path().canonicalize().unwrap().join("tools.json");
        let _open = std::fs::File::create(&log).unwrap();
        std::fs::write(&saved, "[]").unwrap();
        let held = held_by_us(&[log.clone(), saved.clone()]);
        assert!(held.contains(&log), "{held:?}");
        assert!(!held.contains(&saved), "{held:?}");
        // Held open by a child process too.
        let child_log = dir.path().canonicalize().unwrap().join("child.log");
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exec 3>>'{}'; sleep 5", child_log.display()))
            .spawn()
            .unwrap();
        let mut found = false;
        for _ in 0..50 {
            if held_by_us(std::slice::from_ref(&child_log)).contains(&child_log) {
                found = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(found, "a child's open log is ours");
    }
}
