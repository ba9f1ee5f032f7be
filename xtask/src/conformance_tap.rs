//! The HTTP tap in the conformance runs: `mcpwb tap --to` in front of a
//! server, and what may differ behind it (nothing but its own Host check).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::conformance_server::{Killed, Rows};
use crate::stages::Result;

/// `mcpwb tap --to URL` on a free port: the running tap and the URL it
/// printed (its token in the path, as a host that takes only a URL has it).
pub(crate) fn tap_in_front(url: &str, home: &Path, mcpwb: &Path) -> Result<(Killed, String)> {
    use std::io::BufRead;
    let mut child = Command::new(mcpwb)
        .args(["--json", "tap", "--to", url])
        .env("HOME", home)
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_KEYCHAIN", "keyutils")
        .env(
            "MCPWB_KEYCHAIN_SERVICE",
            format!("mcpwb-conformance-tap-{}", std::process::id()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("mcpwb tap --to: {e}"))?;
    let mut first = String::new();
    let stdout = child.stdout.take().ok_or("mcpwb tap: no stdout")?;
    std::io::BufReader::new(stdout)
        .read_line(&mut first)
        .map_err(|e| e.to_string())?;
    // `{"url":"http://127.0.0.1:PORT/TOKEN/mcp","to":...}` (no JSON parser
    // in xtask: the URL has no quote in it).
    let url = first
        .split_once("\"url\":\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(url, _)| url.to_string())
        .ok_or(format!("mcpwb tap did not say its URL: {first:?}"))?;
    Ok((Killed(child), url))
}

/// The scenarios whose outcome through the HTTP tap is not the outcome
/// straight (either way): the tap must change nothing. One difference is
/// the tap's own: it refuses a foreign `Host` before the server sees it, so
/// a server without DNS-rebinding protection passes that scenario behind it.
pub(crate) fn tap_differs(
    label: &str,
    revision: &str,
    direct: &Rows,
    tapped: &Rows,
) -> Vec<String> {
    direct
        .iter()
        .filter_map(|(name, ok, _)| {
            let through = tapped.iter().find(|(n, ..)| n == name).map(|r| r.1);
            if name == "dns-rebinding-protection" && !ok && through == Some(true) {
                println!(
                    "{label} {revision} {name}: fails straight, passes behind the tap (its own Host check)"
                );
                return None;
            }
            (through != Some(*ok)).then(|| {
                format!(
                    "{label} {revision} {name}: {} straight, {} through mcpwb tap --to",
                    if *ok { "passes" } else { "fails" },
                    match through {
                        Some(true) => "passes",
                        Some(false) => "fails",
                        None => "not run",
                    }
                )
            })
        })
        .collect()
}
