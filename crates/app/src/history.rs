//! The History: every caller's calls from the shared store (filtered,
//! searched, one whole), its cap and what it holds, and a call saved as a
//! suite's case (kept from pruning). The window's History room and
//! `mcpwb history` adapt these.

use serde::Serialize;
use workbench_calls::Calls;
use workbench_core::{ErrorCode, ErrorInfo};
use workbench_store::Store;
pub use workbench_store::{CallRow, CallStatus, HistoryQuery, civil};

/// The History's own failures (the store could not be read or written).
fn failed(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Internal, message)
}

fn read(e: workbench_store::Error) -> ErrorInfo {
    failed(format!("the call history: {e}"))
}

/// The History a workbench's calls are kept in (None: it is off there).
pub fn of(calls: &Calls) -> Result<Store, ErrorInfo> {
    calls
        .store()
        .cloned()
        .ok_or_else(|| failed("the call history is off here"))
}

/// Wait until the calls made so far are written to the History (a
/// command about to end, whose rows the window shows).
pub async fn flush(calls: &Calls) {
    calls.flush().await;
}

/// The machine's History (the window's and `mcpwb`'s shared store).
pub fn open() -> Result<Store, ErrorInfo> {
    Store::open_in(&workbench_core::settings::data_dir())
        .map_err(|e| failed(format!("the call history cannot be read: {e}")))
}

/// Where a call was made from, as a filter: `host` is a host's call seen
/// through `mcpwb tap` (kept, not made).
pub const ORIGINS: &str = "window, chat, bridge, cli, suite, eval, agent, app, doctor, host";

/// A filter the person typed, checked: its origin and status as the store
/// names them.
pub fn filter(
    origin: Option<&str>,
    status: Option<&str>,
) -> Result<(Option<String>, Option<CallStatus>), ErrorInfo> {
    if let Some(o) = origin
        && workbench_calls::Origin::parse(o).is_none()
        && o != "host"
    {
        return Err(crate::invalid(format!("--origin {o}: one of {ORIGINS}")));
    }
    let status = match status {
        None => None,
        Some(s) => Some(CallStatus::parse(s).ok_or_else(|| {
            crate::invalid(format!(
                "--status {s}: one of ok, error, failed, denied, cancelled"
            ))
        })?),
    };
    Ok((origin.map(str::to_string), status))
}

/// The calls `query` selects, newest first.
pub fn calls(store: &Store, query: &HistoryQuery) -> Result<Vec<CallRow>, ErrorInfo> {
    // A call another process left running when it was killed reads as
    // interrupted, not as still running.
    workbench_calls::mark_interrupted(store);
    store.history(query).map_err(read)
}

/// What changes when any process keeps a call, ends one or is found to
/// have died with one running (those are marked here, as [`calls`] does):
/// a window showing the History asks it now and then and lists again when
/// it moved. Text, as it is only compared.
pub fn version(store: &Store) -> Result<String, ErrorInfo> {
    workbench_calls::mark_interrupted(store);
    let (newest, running) = store.calls_version().map_err(read)?;
    Ok(format!("{newest}/{running}"))
}

/// One call whole (None: pruned or never kept).
pub fn call(store: &Store, id: i64) -> Result<Option<CallRow>, ErrorInfo> {
    store.call(id).map_err(read)
}

/// One call by the key its caller made (a tool call's answer, a suite
/// case's result name it).
pub fn call_by_key(store: &Store, key: &str) -> Result<Option<CallRow>, ErrorInfo> {
    store.call_by_key(key).map_err(read)
}

/// One call by its id (a number, as `mcpwb history` lists it) or its key.
pub fn named(store: &Store, name: &str) -> Result<Option<CallRow>, ErrorInfo> {
    match name.trim().parse::<i64>() {
        Ok(id) => call(store, id),
        Err(_) => call_by_key(store, name.trim()),
    }
}

/// How big the History may grow, and how big it is.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryUsage {
    pub settings: workbench_calls::HistorySettings,
    pub calls: i64,
    pub bytes: i64,
}

/// The cap (the person's settings) and what the History holds now.
pub fn usage(calls: &Calls) -> Result<HistoryUsage, ErrorInfo> {
    let (count, bytes) = of(calls)?.calls_size().map_err(read)?;
    Ok(HistoryUsage {
        settings: calls.live_rules().history(),
        calls: count,
        bytes,
    })
}

/// Keep at most `max_mib` MiB of calls from now on (the oldest go first,
/// [`set_cap`] off the async workers (pruning to a smaller cap deletes
/// rows and can take seconds).
pub async fn set_cap_off_thread(calls: &Calls, max_mib: u32) -> Result<(), ErrorInfo> {
    let calls = calls.clone();
    tokio::task::spawn_blocking(move || set_cap(&calls, max_mib))
        .await
        .map_err(|e| failed(e.to_string()))?
}

/// never saved ones), pruned at once, not at the next call.
pub fn set_cap(calls: &Calls, max_mib: u32) -> Result<(), ErrorInfo> {
    if max_mib == 0 {
        return Err(crate::invalid("the history needs at least 1 MiB"));
    }
    calls
        .live_rules()
        .file()
        .update(
            workbench_calls::rules::HISTORY_SECTION,
            |h: &mut workbench_calls::HistorySettings| h.max_mib = max_mib,
        )
        .map_err(ErrorInfo::from)?;
    of(calls)?
        .prune_calls(i64::from(max_mib) * 1024 * 1024)
        .map(|_| ())
        .map_err(read)
}

/// Add a case (`entry`: the JSON a suite file holds) calling `server` to
/// the suite at `path`, made if missing; the name the case got. The call
/// it came from (`call`, its History key) is kept from pruning. A new or
/// trusted suite stays trusted (the person wrote this case).
pub async fn save_as_case(
    calls: &Calls,
    path: &std::path::Path,
    server: &str,
    entry: serde_json::Value,
    call: Option<&str>,
) -> Result<String, ErrorInfo> {
    use workbench_calls::suite;
    let case: suite::Case = serde_json::from_value(entry)
        .map_err(|e| crate::invalid(format!("the case is not one a suite holds: {e}")))?;
    let name = suite::append_case(path, server, case, &suite::trust::SuiteTrust::app())?;
    if let (Some(key), Some(store)) = (call, calls.store()) {
        // The call's row may still be on its way (its key was made before
        // the call; the row is written off the answer's path).
        calls.flush().await;
        store
            .set_call_saved(key, true)
            .map_err(|e| failed(format!("the case was saved, the call not kept: {e}")))?;
    }
    Ok(name)
}

/// Where a new suite goes: the project's folder when one is open, else the
/// user's (the rule `mcpwb test` follows too).
pub fn suite_folder(project: Option<&std::path::Path>) -> Result<std::path::PathBuf, ErrorInfo> {
    workbench_calls::suite::folders(project)
        .into_iter()
        .next()
        .map(|(_, d)| d)
        .ok_or_else(|| failed("no folder for suites"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_names_what_it_takes() {
        assert!(filter(Some("host"), Some("ok")).is_ok());
        let bad = filter(Some("somewhere"), None).unwrap_err();
        assert_eq!(bad.code, ErrorCode::Invalid);
        assert!(bad.message.contains("window, chat"), "{}", bad.message);
        let bad = filter(None, Some("fine")).unwrap_err();
        assert!(bad.message.contains("ok, error, failed"), "{}", bad.message);
    }
}
