//! A server of the config run behind `mcpwb tap --server NAME`: the entry
//! must be trusted (the person vouches with `--trust`, recorded), then it is
//! handed over through the one door (a turned-off entry refused, its
//! references expanded, its secrets known for masking) — what the tap then
//! runs, or the URL it stands in front of.

use std::path::{Path, PathBuf};

use workbench_core::config::trust::Trust;
use workbench_core::config::vars::Vars;
use workbench_core::config::{ConfigFile, Transport};
use workbench_core::{Error, ErrorInfo};

pub use workbench_tap::stdio::Spawn;

pub mod run;

/// What a tap stands in front of.
pub enum Tapped {
    /// A stdio server: how it runs, what to mask in what is kept, the
    /// patterns of its `dev.watch` (they restart it).
    Stdio {
        name: String,
        spawn: Spawn,
        secrets: Vec<String>,
        watch: Vec<String>,
    },
    /// A remote server: its URL, what to mask.
    Http {
        name: String,
        url: String,
        secrets: Vec<String>,
    },
}

/// Server `name` of `config`, as the tap runs it. Not trusted: refused,
/// unless `trust_now` (the person vouches for it as it is: recorded).
pub fn entry(
    config: &ConfigFile,
    name: &str,
    trust_now: bool,
    project: Option<PathBuf>,
) -> Result<Tapped, ErrorInfo> {
    let mut config = config.clone();
    let trust = Trust::app();
    trust.mark(&mut config);
    let mut entry = config
        .servers
        .iter()
        .find(|e| e.name == name)
        .cloned()
        .ok_or_else(|| Error::UnknownServer(name.to_string()))?;
    let file =
        workbench_core::config::trust::file_of(&config.path, config.project.as_deref(), &entry);
    if !entry.trusted {
        if !trust_now {
            let quoted = workbench_core::config::shell_quote(name);
            return Err(crate::invalid(format!(
                "{name} is not trusted: read what it runs with `mcpwb config trust {quoted} --dry-run`, then `mcpwb config trust {quoted}` (or pass --trust)"
            )));
        }
        trust.trust(&file, &entry).map_err(Error::from)?;
        entry.trusted = true;
    }
    let vars = Vars::from_process(project);
    // The one door: a turned-off entry is refused here as everywhere.
    let handed = workbench_core::connect::door::hand_over(&entry, &vars)?;
    let secrets = handed.secrets;
    let (command, args, env, cwd) = match handed.entry.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => (command, args, env, cwd),
        Transport::StreamableHttp { url, .. }
        | Transport::Sse { url, .. }
        | Transport::RemoteAuto { url, .. } => {
            return Ok(Tapped::Http {
                name: name.to_string(),
                url,
                secrets,
            });
        }
    };
    let base = file.parent().map(Path::to_path_buf);
    let cwd = cwd.map(|c| match &base {
        Some(b) if Path::new(&c).is_relative() => b.join(c),
        _ => PathBuf::from(c),
    });
    let watch = entry
        .dev
        .as_ref()
        .map(|d| d.watch.clone())
        .unwrap_or_default();
    Ok(Tapped::Stdio {
        name: name.to_string(),
        spawn: Spawn {
            program: command,
            args,
            env,
            cwd: cwd.or(base),
        },
        secrets,
        watch,
    })
}
