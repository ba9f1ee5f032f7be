//! The one door a server is started or connected through. Every start —
//! the supervisor's, a transient server's connection for a call, the
//! doctor's raw handshakes, a workbench entry handed to the tap — asks
//! [`admit`] (or [`hand_over`]) first: an entry the person has not trusted
//! or has turned off is refused with why, and only then are its references
//! (`${env:…}`, `${secret:…}`, `${input:…}`) read and its sign-in attached.
//! A process or a transport is made only from an [`Admitted`] entry:
//! `connect` takes one, and so do the raw openings here. `tests/house/`
//! fails when a server process is spawned or an MCP client transport is
//! built anywhere else.

use std::path::Path;
use std::sync::Arc;

use super::stdio::{StdioChild, StdioPipes, StdioSpec};
use crate::config::vars::Vars;
use crate::config::{ServerEntry, Transport};
use crate::traffic::TrafficLog;

/// Why an entry may not start now: it is turned off in its file, or it
/// came from elsewhere and the person has not trusted it. None: it may.
pub fn refusal(entry: &ServerEntry) -> Option<String> {
    if entry.disabled {
        Some(format!(
            "{} is disabled in its mcp.json: the person turned it off (enable it to start it)",
            entry.name
        ))
    } else if !entry.trusted {
        Some(format!(
            "{} is not trusted: it comes from a file the person has not agreed to run (read what it runs, then trust it)",
            entry.name
        ))
    } else {
        None
    }
}

/// Why the door did not open.
#[derive(Debug)]
pub(crate) enum Shut {
    /// Not trusted, or turned off ([`refusal`]).
    Refused(String),
    /// Its references could not be expanded, or its sign-in attached.
    Config(String),
}

impl From<Shut> for super::Failure {
    fn from(shut: Shut) -> Self {
        match shut {
            Shut::Refused(why) | Shut::Config(why) => {
                super::Failure::new(super::FailureCode::Config, why)
            }
        }
    }
}

impl From<Shut> for crate::error::Error {
    fn from(shut: Shut) -> Self {
        match shut {
            Shut::Refused(why) | Shut::Config(why) => crate::error::Error::Refused(why),
        }
    }
}

/// An entry let through: trusted and enabled, its references expanded, its
/// stored sign-in attached, and what must never be shown of it handed to
/// the masker. Only [`admit`] makes one.
pub struct Admitted {
    entry: ServerEntry,
    dpop: Option<Arc<crate::auth::dpop::Binding>>,
}

impl Admitted {
    /// The entry as it will run (references expanded).
    pub(crate) fn entry(&self) -> &ServerEntry {
        &self.entry
    }

    /// The sign-in's DPoP binding, when its requests carry proofs.
    pub(crate) fn dpop(&self) -> Option<Arc<crate::auth::dpop::Binding>> {
        self.dpop.clone()
    }

    /// Start a stdio entry's process with its pipes (None for a remote
    /// entry). `label` names it in the traffic log (its stderr).
    pub(crate) fn spawn(
        &self,
        label: &str,
        base_dir: &Path,
        traffic: &TrafficLog,
    ) -> Option<Result<(StdioChild, StdioPipes), String>> {
        let Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } = &self.entry.transport
        else {
            return None;
        };
        let spec = StdioSpec {
            server: label,
            command,
            args,
            env,
            cwd: cwd.as_deref(),
            base_dir,
            max_line: self.entry.max_message(),
        };
        Some(super::stdio::spawn(&spec, traffic))
    }

    /// A remote entry's address and the client that carries its headers
    /// only where they were meant to go (None for a stdio entry).
    pub(crate) fn http(&self) -> Option<Result<(String, reqwest::Client), String>> {
        let (Transport::StreamableHttp { url, headers }
        | Transport::Sse { url, headers }
        | Transport::RemoteAuto { url, headers }) = &self.entry.transport
        else {
            return None;
        };
        Some(super::http_client(&self.entry, url, headers).map(|c| (url.clone(), c)))
    }
}

/// Let `entry` through, or say why not. Its references are read only once
/// it is let through; its secrets go to the masker before anything is sent.
pub(crate) async fn admit(
    entry: &ServerEntry,
    vars: &Vars,
    traffic: &TrafficLog,
) -> Result<Admitted, Shut> {
    if let Some(why) = refusal(entry) {
        return Err(Shut::Refused(why));
    }
    let mut expanded = entry
        .expanded(vars)
        .map_err(|e| Shut::Config(e.to_string()))?;
    let mut secrets = entry.secret_values(&expanded, vars);
    traffic.set_secrets(&entry.name, secrets.clone());
    // A remote server signed in to gets its token (refreshed when due).
    let mut dpop = None;
    if let Some(attached) = crate::auth::attach(&mut expanded, vars)
        .await
        .map_err(Shut::Config)?
    {
        secrets.push(attached.token);
        traffic.set_secrets(&entry.name, secrets);
        dpop = attached.dpop;
    }
    Ok(Admitted {
        entry: expanded,
        dpop,
    })
}

/// An entry handed to a process that runs it itself (`mcpwb tap --server`):
/// let through by the same rule, its references expanded.
pub struct HandedOver {
    /// The entry as it will run (references expanded).
    pub entry: ServerEntry,
    /// The values to mask in whatever is kept of its traffic.
    pub secrets: Vec<String>,
}

/// Let `entry` through to run outside a supervisor (no sign-in attached:
/// the host that runs it signs in itself), or say why not.
pub fn hand_over(entry: &ServerEntry, vars: &Vars) -> crate::error::Result<HandedOver> {
    if let Some(why) = refusal(entry) {
        return Err(crate::error::Error::Refused(why));
    }
    let expanded = entry.expanded(vars)?;
    let secrets = entry.secret_values(&expanded, vars);
    Ok(HandedOver {
        entry: expanded,
        secrets,
    })
}
