//! The servers: what the config files list (a missing file is an empty
//! list, a broken one an error with line:column), their live states and
//! lives, and restarting or stopping one.

use std::path::Path;

use serde::Serialize;
use workbench_core::config::{ConfigFile, Problem};
pub use workbench_core::connect::life::LifeEvent;
pub use workbench_core::connect::{ServerState, ServerStatus};
use workbench_core::{ErrorCode, ErrorInfo, ServerSummary, Workbench};

/// The servers of the open config file.
#[derive(Debug, Clone, Serialize)]
pub struct ServerList {
    /// The absolute path of the user's mcp.json.
    pub config_path: String,
    /// The project's `.mcp.json` merged in (it may not exist yet), when the
    /// app was opened on a project folder.
    pub project_path: Option<String>,
    /// False when the file does not exist yet (the list is then empty).
    pub exists: bool,
    pub servers: Vec<ServerSummary>,
    /// Entries that could not be understood, with the key at fault.
    pub problems: Vec<Problem>,
}

/// Read the config file (merged with the project's, when there is a project
/// folder) and list its servers. A missing file is an empty list, not an
/// error; a broken file is an error with line:column.
pub fn read_server_list(path: &Path, project_dir: Option<&Path>) -> Result<ServerList, ErrorInfo> {
    let config_path = path.display().to_string();
    let project_path = project_dir.map(|d| d.join(".mcp.json").display().to_string());
    match ConfigFile::load_scoped(path, project_dir) {
        Ok(cfg) => Ok(ServerList {
            config_path,
            project_path,
            exists: true,
            servers: cfg.summaries(),
            problems: cfg.problems,
        }),
        Err(e) if e.code() == ErrorCode::ConfigNotFound => Ok(ServerList {
            config_path,
            project_path,
            exists: false,
            servers: Vec::new(),
            problems: Vec::new(),
        }),
        Err(e) => Err(e.into()),
    }
}

/// The live state of every server (none when the config could not be read).
pub fn statuses(wb: &Workbench) -> Vec<ServerStatus> {
    wb.statuses()
}

/// A server's life: each change of state with its time, and for a failure
/// its code and reason (kept after it is back), oldest first.
pub fn life(wb: &Workbench, name: &str) -> Result<Vec<LifeEvent>, ErrorInfo> {
    Ok(wb.server(name)?.life())
}

/// Restart server `name` (a stopped one starts; one turned off or not
/// trusted is refused by the door).
pub async fn restart(wb: &Workbench, name: &str) -> Result<(), ErrorInfo> {
    wb.server(name)?.restart().await?;
    Ok(())
}

pub use workbench_core::events::Event;

/// How much a server offers, as last listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offered {
    pub tools: usize,
    pub resources: usize,
    pub prompts: usize,
    pub skills: usize,
}

/// What `name` offers as last listed (None: its lists never read).
pub fn offered(wb: &Workbench, name: &str) -> Option<Offered> {
    wb.catalog().server(name).map(|c| Offered {
        tools: c.tools.len(),
        resources: c.resources.len(),
        prompts: c.prompts.len(),
        skills: c.skills.len(),
    })
}

/// What the workbench tells as it happens (servers' states, their lists
/// read again, questions they ask), from now on.
pub fn events(wb: &Workbench) -> tokio::sync::broadcast::Receiver<Event> {
    wb.subscribe()
}

/// How a restart made for someone else (an agent) ended.
#[derive(Debug)]
pub enum Back {
    /// Down and ready again, its lists read, `elapsed` after the restart.
    Ready { elapsed: std::time::Duration },
    /// Down, and it failed to come back.
    Failed { reason: String, stderr: Vec<String> },
    /// Not ready again within the wait.
    Late,
    /// Not restarted: the person has not trusted it.
    Untrusted,
    /// Not restarted: the person turned it off (`disabled`: in its
    /// mcp.json; else stopped).
    TurnedOff { disabled: bool },
}

/// Restart `name` for someone else and wait, at most `wait`, until it went
/// down and is ready again with its lists read. One the person has not
/// trusted, or turned off, is never started this way.
pub async fn restart_and_wait(
    wb: &Workbench,
    name: &str,
    wait: std::time::Duration,
) -> Result<Back, ErrorInfo> {
    use std::time::Duration;
    use workbench_core::connect::ServerState;
    use workbench_core::events::Event;
    let handle = wb.server(name)?;
    match handle.status().state {
        ServerState::Untrusted => return Ok(Back::Untrusted),
        ServerState::Disabled | ServerState::Stopped => {
            return Ok(Back::TurnedOff {
                disabled: handle.entry().disabled,
            });
        }
        _ => {}
    }
    let mut events = wb.subscribe();
    let clock = std::time::Instant::now();
    handle.restart().await?;
    let deadline = tokio::time::Instant::now() + wait;
    let mut went_down = false;
    loop {
        let listed = wb.catalog().server(name).is_some_and(|c| !c.stale);
        match handle.status().state {
            ServerState::Ready if went_down && listed => {
                return Ok(Back::Ready {
                    elapsed: clock.elapsed(),
                });
            }
            ServerState::Failed { reason, stderr, .. } if went_down => {
                return Ok(Back::Failed { reason, stderr });
            }
            ServerState::Ready => {}
            _ => went_down = true,
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(Back::Late);
        }
        let tick = (tokio::time::Instant::now() + Duration::from_millis(100)).min(deadline);
        if let Ok(Ok(Event::Status { status })) = tokio::time::timeout_at(tick, events.recv()).await
            && status.name == name
            && status.state != ServerState::Ready
        {
            went_down = true;
        }
    }
}

/// Restart each of `names` that runs here, so they read what changed (one
/// turned off or not trusted takes it when it starts).
pub async fn restart_each(wb: &Workbench, names: &[String]) {
    for name in names {
        if let Ok(server) = wb.server(name) {
            let _ = server.restart().await;
        }
    }
}

/// Stop server `name`; it stays stopped (no automatic restart) until started.
pub async fn stop(wb: &Workbench, name: &str) -> Result<(), ErrorInfo> {
    wb.server(name)?.stop().await;
    Ok(())
}

/// `command` found on PATH, if it is.
pub fn on_path(command: &str) -> Option<std::path::PathBuf> {
    workbench_core::connect::resolve::find_program(command)
}

/// The names of the servers this workbench runs, in order.
pub fn names(wb: &Workbench) -> Vec<String> {
    wb.servers().iter().map(|s| s.name().to_string()).collect()
}

/// Every server stopped (no process of theirs left), for a command that
/// made no calls.
pub async fn close(wb: &Workbench) {
    wb.shutdown().await;
}

/// A session's end, as a command that connected ends it: the calls' history
/// rows written, then every server stopped (no process of theirs left).
pub async fn end(wb: &Workbench, calls: &workbench_calls::Calls) {
    calls.flush().await;
    wb.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_is_an_empty_list_and_broken_file_an_error_with_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        let list = read_server_list(&path, None).unwrap();
        assert!(!list.exists);
        assert!(list.servers.is_empty());

        std::fs::write(&path, "{\n \"mcpServers\": {,}\n}").unwrap();
        let err = read_server_list(&path, None).unwrap_err();
        assert_eq!(err.code, ErrorCode::ConfigSyntax);
        assert!(err.message.contains(":2:"), "{}", err.message);
        // Reading never writes: the broken file is untouched.
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n \"mcpServers\": {,}\n}"
        );
    }

    #[test]
    fn a_project_folder_adds_its_entries_marked_as_the_projects() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("mcp.json");
        std::fs::write(
            &user,
            r#"{ "mcpServers": { "a": { "command": "x" }, "b": { "command": "y" } } }"#,
        )
        .unwrap();
        let project = dir.path().join("proj");
        std::fs::create_dir(&project).unwrap();
        let list = read_server_list(&user, Some(&project)).unwrap();
        assert_eq!(
            list.servers.len(),
            2,
            "no .mcp.json yet: the user's servers only"
        );
        assert!(list.project_path.unwrap().ends_with("proj/.mcp.json"));
        std::fs::write(
            project.join(".mcp.json"),
            r#"{ "mcpServers": { "b": { "url": "http://127.0.0.1:1/mcp" }, "c": { "command": "z" } } }"#,
        )
        .unwrap();
        let list = read_server_list(&user, Some(&project)).unwrap();
        let scopes: Vec<_> = list
            .servers
            .iter()
            .map(|s| (s.name.as_str(), s.scope))
            .collect();
        use workbench_core::config::Scope;
        assert_eq!(
            scopes,
            [
                ("a", Scope::User),
                ("b", Scope::Project),
                ("c", Scope::Project)
            ]
        );
    }
}
