//! What servers ask a person (sampling, elicitation) and what the person
//! gives each server: an answer or a refusal (the server gets an error; an
//! elicitation is declined), every waiting ask of a server declined, the
//! address a URL-mode elicitation gives (from the waiting ask itself, never
//! from the caller, http or https only), the roots a server sees, the
//! level it logs at.

use serde_json::Value;
pub use workbench_core::asks::{Answer, AskKind, PendingAsk};
use workbench_core::{ErrorInfo, Workbench};

/// Asks waiting for an answer, oldest first.
pub fn pending(wb: &Workbench) -> Vec<PendingAsk> {
    wb.asks().pending()
}

/// Answer ask `id` with the result object to send back, or refuse it with
/// a reason (none given: "refused by the user").
pub fn answer(
    wb: &Workbench,
    id: u32,
    result: Option<Value>,
    refusal: Option<String>,
) -> Result<(), ErrorInfo> {
    let answer = match (result, refusal) {
        (Some(v), _) => Answer::Result(v),
        (None, why) => Answer::Refuse(why.unwrap_or_else(|| "refused by the user".into())),
    };
    Ok(wb.asks().answer(id, answer)?)
}

/// Give ask `id` its answer (a result, or a refusal the server gets as an
/// error).
pub fn reply(wb: &Workbench, id: u32, answer: Answer) -> Result<(), ErrorInfo> {
    Ok(wb.asks().answer(id, answer)?)
}

/// Decline every waiting ask of `server`; how many.
pub fn decline_server(wb: &Workbench, server: &str) -> u32 {
    let n = wb.asks().decline_all(
        server,
        "declined by the user (all of this server's requests)",
    );
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The address ask `id` (a URL-mode elicitation) asks the person to open.
pub fn url_to_open(wb: &Workbench, id: u32) -> Result<String, ErrorInfo> {
    Ok(wb.asks().url_to_open(id)?)
}

/// The roots `server` sees (`roots/list`), e.g. `[{"uri": "file:///src", "name": "src"}]`.
pub async fn set_roots(wb: &Workbench, server: &str, roots: Vec<Value>) -> Result<(), ErrorInfo> {
    Ok(wb.set_roots(server, roots).await?)
}

pub fn roots(wb: &Workbench, server: &str) -> Vec<Value> {
    wb.asks().roots(server)
}

/// Ask `server` to send log messages at `level` and above (either era:
/// `logging/setLevel`, or the level in each request's `_meta`).
pub async fn set_log_level(wb: &Workbench, server: &str, level: &str) -> Result<(), ErrorInfo> {
    wb.set_log_level(server, level).await?;
    Ok(())
}
