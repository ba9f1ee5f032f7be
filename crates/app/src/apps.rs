//! MCP Apps as the person opens them: the App a tool names (its `ui://`
//! resource), read and resolved with the CSP the window applies — in the
//! window, and headless (`mcpwb app`: the tool called by the person, kept
//! in the history, then its App written with its CSP as a `<meta>`).

mod calls;
mod open;

pub use calls::{call, close, session};
pub use open::{Apps, OpenApp};
use serde_json::Value;
use workbench_calls::Calls;
pub use workbench_core::apps::{AppPolicy, AppResource};
use workbench_core::apps::{inject_first, resource_uri};
use workbench_core::{CallOptions, ErrorInfo, Workbench};

/// The uri of the App `server`'s `tool` names, if it names one.
pub fn uri_of(wb: &Workbench, server: &str, tool: &str) -> Option<String> {
    wb.catalog()
        .tool(server, tool)
        .and_then(|t| resource_uri(&t).map(str::to_string))
}

/// The tool's definition and the uri of its App; an invalid request when
/// the server has no such tool or the tool names no App.
pub fn of_tool(wb: &Workbench, server: &str, tool: &str) -> Result<(Value, String), ErrorInfo> {
    let definition = wb.catalog().tool(server, tool).ok_or_else(|| {
        crate::invalid(format!(
            "{server} has no tool {tool} (mcpwb tools {server} lists them)"
        ))
    })?;
    let uri = resource_uri(&definition)
        .ok_or_else(|| {
            crate::invalid(format!(
                "{server}/{tool} names no App (its _meta.ui.resourceUri)"
            ))
        })?
        .to_string();
    Ok((definition, uri))
}

/// The App's resource read and resolved (its HTML, the policy it gets).
pub async fn read(wb: &Workbench, server: &str, uri: &str) -> Result<AppResource, ErrorInfo> {
    Ok(wb.app_resource(server, uri).await?)
}

/// The calls of an App's `session` waiting for the person's decision.
pub fn pending(calls: &Calls, session: &str) -> Vec<workbench_calls::Approval> {
    calls.approvals().pending(session)
}

/// One message of an App's bridge kept in the traffic log, under its
/// server (`to_app`: the window's to the App, else the App's).
pub fn keep_traffic(wb: &Workbench, server: &str, to_app: bool, message: &str) {
    wb.traffic().record_app(server, to_app, message);
}

/// `mcpwb app`: the tool called by the person (its row in the history) unless
/// `call` is false, then its App read: the call's result, and the App.
pub async fn headless(
    calls: &Calls,
    server: &str,
    tool: &str,
    arguments: Value,
    options: CallOptions,
    call: bool,
) -> Result<(Option<Value>, AppResource), ErrorInfo> {
    let wb = calls.workbench();
    let (definition, uri) = of_tool(wb, server, tool)?;
    let result = if call {
        let ran =
            crate::tools::from_cli(calls, server, tool, arguments, Some(&definition), options)
                .await;
        calls.flush().await;
        Some(ran?.result)
    } else {
        None
    };
    Ok((result, read(wb, server, &uri).await?))
}

/// The App's HTML with its CSP as a `<meta>` first in its head, so a browser
/// opening the file applies it too.
pub fn html_with_csp(app: &AppResource) -> String {
    let attribute = app
        .policy
        .csp
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    let meta = format!(r#"<meta http-equiv="Content-Security-Policy" content="{attribute}">"#);
    inject_first(&app.html, &meta)
}
