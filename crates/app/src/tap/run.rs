//! A tap running: in front of a stdio server (its bytes passed through, a
//! session recorded beside, masked; restarted on its `dev.watch` changes or
//! when it exits with `keep`) or of a remote one (a loopback URL with the
//! install's token). What is kept follows the person's sessions cap; when
//! the store cannot be opened the bytes still pass and that is said.

use std::path::PathBuf;

use workbench_core::config::secrets::Keychain;
use workbench_core::{Error, ErrorInfo};

pub use workbench_tap::http::Listening;

use super::Spawn;

/// The install's tap token, made (and kept in the keychain) on first use:
/// a host's config keeps naming the same URL across runs. Under the
/// workbench's own reserved segment: no entry's `${secret:…}` reaches it.
const TOKEN_ID: &str = "@workbench/tap-token";

/// Where earlier versions kept it: an entry named `tap` could read it
/// there (`${secret:tap/token}`). Moved on first use.
const OLD_TOKEN_ID: &str = "tap/token";

pub fn token() -> Result<String, ErrorInfo> {
    let keychain = Keychain::app();
    let mut moved = false;
    // The token hosts' configs already name keeps working, from its new
    // place; made once between processes starting at the same moment.
    let t = keychain
        .get_or_make(TOKEN_ID, &workbench_core::settings::keychain_lock(), || {
            moved = true;
            Ok(keychain
                .get(OLD_TOKEN_ID)?
                .unwrap_or_else(workbench_loopback::new_token))
        })
        .map_err(Error::from)?;
    if moved {
        keychain.delete(OLD_TOKEN_ID).map_err(Error::from)?;
    }
    Ok(t)
}

/// The sessions' cap from the person's settings (`history.sessions_max_mib`).
fn sessions_cap() -> i64 {
    let settings =
        workbench_core::settings::SettingsFile::new(workbench_core::settings::default_path());
    workbench_calls::LiveRules::new(settings)
        .history()
        .sessions_cap()
}

/// What a tap keeps and where it restarts.
pub struct Options<'a> {
    /// The name sessions are kept under.
    pub name: &'a str,
    /// The person's secrets, masked in what is kept.
    pub secrets: &'a [String],
    /// Keep a session of what passes (`--no-record` is false).
    pub record: bool,
    /// Keep headers such as Authorization unmasked (HTTP).
    pub unmasked: bool,
    /// Restart the server when files matching these change (stdio), under
    /// `root` (the server's folder).
    pub watch: Vec<String>,
    pub root: Option<PathBuf>,
    /// Start a server that exited by itself again, the host kept (stdio).
    pub keep: bool,
}

/// In front of a stdio server until the host closes: the server's exit code.
/// `said` hears what the person should know (nothing kept, and why).
pub async fn stdio(spawn: &Spawn, o: Options<'_>, said: impl Fn(&str)) -> Result<i32, ErrorInfo> {
    let command = std::iter::once(spawn.program.as_str())
        .chain(spawn.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let recording = if o.record {
        match crate::history::open().and_then(|s| {
            workbench_tap::record::start(
                s,
                o.name,
                &command,
                workbench_mask::Secrets::new(o.secrets),
                sessions_cap(),
            )
            .map_err(|e| crate::invalid(e.to_string()))
        }) {
            Ok(r) => Some(r),
            Err(why) => {
                said(&format!(
                    "nothing is kept ({}); the bytes still pass",
                    why.message
                ));
                None
            }
        }
    } else {
        None
    };
    let (recorder, writer) = match recording {
        Some((r, w)) => (Some(r), Some(w)),
        None => (None, None),
    };
    let ran = if o.watch.is_empty() && !o.keep {
        workbench_tap::stdio::run(spawn, recorder).await
    } else {
        let watch = match (o.watch.is_empty(), o.root) {
            (true, _) => None,
            (false, Some(root)) => Some(workbench_tap::keep::Watch {
                root,
                patterns: o.watch,
            }),
            (false, None) => {
                let root = std::env::current_dir().map_err(|e| Error::Internal(e.to_string()))?;
                Some(workbench_tap::keep::Watch {
                    root,
                    patterns: o.watch,
                })
            }
        };
        workbench_tap::keep::run(spawn, watch.as_ref(), o.keep, recorder).await
    };
    let code = ran.map_err(|e| crate::invalid(e.to_string()))?;
    if let Some(w) = writer {
        w.finish();
    }
    Ok(code)
}

/// In front of the remote server at `to`, on 127.0.0.1 (`port`, 0: any
/// free one), with the install's token.
pub async fn http(
    port: u16,
    to: &str,
    o: Options<'_>,
    said: impl Fn(&str),
) -> Result<Listening, ErrorInfo> {
    let keep = if o.record {
        match crate::history::open() {
            Ok(store) => Some(workbench_tap::http::Keep {
                store,
                secrets: o.secrets.to_vec(),
                unmasked: o.unmasked,
                cap: sessions_cap(),
            }),
            Err(why) => {
                said(&format!(
                    "nothing is kept ({}); the requests still pass",
                    why.message
                ));
                None
            }
        }
    } else {
        None
    };
    workbench_tap::http::serve(workbench_tap::http::Options {
        port,
        to: to.to_string(),
        token: token()?,
        server: o.name.to_string(),
        keep,
    })
    .await
    .map_err(|e| crate::invalid(e.to_string()))
}
