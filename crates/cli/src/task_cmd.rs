//! Tasks from the terminal: a call that becomes a task prints each status on
//! stderr while it waits (Ctrl+C cancels it with `tasks/cancel`);
//! `--no-wait` prints the task and leaves it running; `mcpwb task
//! get|result|list|cancel SERVER [ID]` asks about one later, in the form the
//! server speaks.

use clap::Subcommand;
use serde_json::json;
use workbench_app::Workbench;
use workbench_app::tasks::TaskState;

use crate::Failure;

#[derive(Subcommand, Debug)]
pub enum TaskCommand {
    /// A task's status (and, once it ended, its outcome on 2026-07-28 servers).
    Get {
        /// The server the task runs on.
        server: String,
        /// The task's id, as the call printed it.
        id: String,
    },
    /// A 2025-11-25 task's result (waits until the task ends).
    Result {
        /// The server the task runs on.
        server: String,
        /// The task's id, as the call printed it.
        id: String,
    },
    /// The server's tasks (2025-11-25 servers that offer tasks/list).
    List {
        /// The server the task runs on.
        server: String,
    },
    /// Ask the server to cancel a task.
    Cancel {
        /// The server the task runs on.
        server: String,
        /// The task's id, as the call printed it.
        id: String,
    },
}

impl TaskCommand {
    pub fn server(&self) -> &str {
        match self {
            TaskCommand::Get { server, .. }
            | TaskCommand::Result { server, .. }
            | TaskCommand::List { server }
            | TaskCommand::Cancel { server, .. } => server,
        }
    }
}

/// One line a person reads about a task's status.
pub fn describe(task: &TaskState) -> String {
    let message = task
        .status_message
        .as_deref()
        .map(|m| format!(" — {m}"))
        .unwrap_or_default();
    format!(
        "task {}: {}{message}",
        task.task_id,
        task.status.replace('_', " ")
    )
}

/// A call's task statuses, printed on stderr as they come.
pub struct PrintStatuses;

impl workbench_app::tools::CallSink for PrintStatuses {
    fn task(&self, task: &TaskState) {
        eprintln!("mcpwb: {}", describe(task));
    }

    fn waiting(&self, server: &str, state: &str) {
        eprintln!("mcpwb: waiting for {server} to restart ({state})");
    }
}

pub async fn run(cli: &crate::Cli, wb: &Workbench, action: &TaskCommand) -> Result<(), Failure> {
    crate::session::ready(wb, action.server()).await?;
    let (what, id) = match action {
        TaskCommand::Get { id, .. } => ("get", Some(id.as_str())),
        TaskCommand::Result { id, .. } => ("result", Some(id.as_str())),
        TaskCommand::List { .. } => ("list", None),
        TaskCommand::Cancel { id, .. } => ("cancel", Some(id.as_str())),
    };
    let (out, form) = workbench_app::tasks::ask(wb, action.server(), what, id).await?;
    if what == "result" {
        return crate::print::call(cli.json, &out);
    }
    if cli.json {
        crate::print::line(&json!({ "result": out.result }).to_string());
        return Ok(());
    }
    let tasks: Vec<&serde_json::Value> = match out.result.get("tasks").and_then(|t| t.as_array()) {
        Some(list) => list.iter().collect(),
        None => vec![&out.result],
    };
    if what == "list" && tasks.is_empty() {
        crate::print::line("no tasks");
    }
    for task in tasks {
        match TaskState::read(task, form) {
            Some(state) => crate::print::line(&describe(&state)),
            // tasks/cancel on 2026-07-28 answers with an empty acknowledgement.
            None if what == "cancel" => crate::print::line("cancel asked"),
            None => crate::print::line(&serde_json::to_string_pretty(task).unwrap_or_default()),
        }
    }
    if let (Some(outcome), "get") = (out.result.get("result"), what) {
        crate::print::line(&serde_json::to_string_pretty(outcome).unwrap_or_default());
    }
    if let (Some(error), "get") = (out.result.get("error"), what) {
        crate::print::line(&format!("error: {error}"));
    }
    Ok(())
}
