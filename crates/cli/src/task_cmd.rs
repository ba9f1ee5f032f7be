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

/// A call's progress and task statuses on stderr as they come. On a
/// terminal the progress is one line drawn over itself, cleared before
/// anything else is printed; elsewhere (a log, a pipe) it is not written,
/// for a server may report progress hundreds of times.
pub struct PrintStatuses {
    terminal: bool,
    drawn: std::sync::atomic::AtomicBool,
}

impl PrintStatuses {
    pub fn new() -> PrintStatuses {
        use std::io::IsTerminal;
        PrintStatuses {
            terminal: std::io::stderr().is_terminal(),
            drawn: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Clear the progress line if one is drawn (before the result prints).
    pub fn finish(&self) {
        if self.drawn.swap(false, std::sync::atomic::Ordering::Relaxed) {
            eprint!("\r\x1b[2K");
        }
    }
}

impl workbench_app::tools::CallSink for PrintStatuses {
    fn progress(&self, progress: workbench_app::tools::Progress) {
        if !self.terminal {
            return;
        }
        use std::io::Write;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{}", progress_line(&progress));
        let _ = err.flush();
        self.drawn.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn task(&self, task: &TaskState) {
        self.finish();
        eprintln!("mcpwb: {}", describe(task));
    }

    fn waiting(&self, server: &str, state: &str) {
        self.finish();
        eprintln!("mcpwb: waiting for {server} to restart ({state})");
    }
}

/// A progress notification in a line: `mcpwb: 2 / 5 (40%) — step 2`. The
/// server's message is cleaned, its first line only, at most 100 characters.
pub fn progress_line(p: &workbench_app::tools::Progress) -> String {
    let number = |n: f64| match n.fract() == 0.0 && n.abs() < 1e15 {
        true => format!("{}", n as i64),
        false => format!("{n:.2}"),
    };
    let amount = match p.total {
        Some(total) if total > 0.0 => format!(
            "{} / {} ({:.0}%)",
            number(p.progress),
            number(total),
            (100.0 * p.progress / total).clamp(0.0, 100.0)
        ),
        _ => number(p.progress),
    };
    let message = p
        .message
        .as_deref()
        .and_then(|m| m.lines().next())
        .map(|m| {
            let m = crate::print::clean(m);
            match m.char_indices().nth(100) {
                Some((at, _)) => format!(" — {}…", &m[..at]),
                None => format!(" — {m}"),
            }
        })
        .unwrap_or_default();
    format!("mcpwb: {amount}{message}")
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

#[cfg(test)]
mod progress_tests {
    use super::progress_line;
    use workbench_app::tools::Progress;

    #[test]
    fn a_progress_reads_as_done_of_total_with_the_servers_words() {
        let p = |progress: f64, total: Option<f64>, message: Option<&str>| Progress {
            progress,
            total,
            message: message.map(str::to_string),
        };
        assert_eq!(
            progress_line(&p(2.0, Some(5.0), Some("step 2"))),
            "mcpwb: 2 / 5 (40%) — step 2"
        );
        assert_eq!(progress_line(&p(0.5, None, None)), "mcpwb: 0.50");
        // A server's text: its first line, cleaned of control sequences, cut.
        let long = format!(
            "\u{1b}]0;title\u{7}copying {}\nsecond line",
            "x".repeat(200)
        );
        let line = progress_line(&p(3.0, Some(2.0), Some(&long)));
        assert!(
            line.starts_with("mcpwb: 3 / 2 (100%) — copying xxx"),
            "{line}"
        );
        assert!(
            line.ends_with('…') && !line.contains("second") && !line.contains('\u{1b}'),
            "{line}"
        );
    }
}
