//! The traffic log as a person reads it: a page of it (filtered, searched)
//! and all of what a filter keeps as JSON Lines, to save. The log stays in
//! core; a search of 100,000 entries takes milliseconds, so it runs off
//! the async workers.

pub use workbench_core::traffic::{TrafficPage, TrafficQuery};
use workbench_core::{Error, ErrorInfo, Workbench};

/// The traffic log every surface writes (a command prints it whole).
pub fn log(wb: &Workbench) -> &workbench_core::traffic::TrafficLog {
    wb.traffic()
}

/// The page `query` asks for.
pub async fn page(wb: &Workbench, query: TrafficQuery) -> Result<TrafficPage, ErrorInfo> {
    let traffic = wb.traffic().clone();
    tokio::task::spawn_blocking(move || traffic.query(&query))
        .await
        .map_err(|e| Error::Internal(e.to_string()).into())
}

/// The last `last` messages with `server` (of `method` only, when given),
/// oldest first; an error when no server has that name.
pub async fn of_server(
    wb: &Workbench,
    server: &str,
    method: Option<String>,
    last: u32,
) -> Result<TrafficPage, ErrorInfo> {
    wb.server(server)?;
    page(
        wb,
        TrafficQuery {
            server: Some(server.to_string()),
            method,
            limit: last,
            from_end: true,
            ..TrafficQuery::default()
        },
    )
    .await
}

/// Every entry `query`'s filters keep, oldest first, one JSON object a
/// line; and how many.
pub async fn jsonl(wb: &Workbench, query: TrafficQuery) -> Result<(String, u32), ErrorInfo> {
    let all = TrafficQuery {
        offset: 0,
        limit: u32::MAX,
        from_end: false,
        ..query
    };
    let page = page(wb, all).await?;
    let mut text = String::new();
    for e in &page.entries {
        text.push_str(&serde_json::to_string(e).unwrap_or_default());
        text.push('\n');
    }
    Ok((text, page.total))
}
