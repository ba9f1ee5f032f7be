//! `mcpwb app SERVER TOOL`: a tool's MCP App resolved headless — the tool
//! called (kept in the history), its `ui://` resource read, and the HTML
//! written with the CSP the window would apply (as a `<meta>` first in its
//! head, so a browser opening the file applies it too), the policy and what
//! of the declaration was not taken printed.

use std::path::PathBuf;

use serde_json::json;
use workbench_app::apps;

use crate::session::{calls_for, opts, ready};
use crate::{Cli, Failure, print};

#[derive(clap::Args, Debug)]
pub struct AppArgs {
    /// The server, by its name in mcp.json.
    pub server: String,
    /// The tool whose App to resolve (its `_meta.ui.resourceUri` names it).
    pub tool: String,
    #[command(flatten)]
    pub args: crate::tool_args::ToolArgs,
    /// Write the App's HTML (with its CSP) here.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Resolve the App without calling the tool.
    #[arg(long)]
    pub no_call: bool,
}

pub async fn run(cli: &Cli, wb: &crate::session::Started, a: &AppArgs) -> Result<(), Failure> {
    let object = a.args.object(None)?;
    ready(wb, &a.server).await?;
    let schema = workbench_app::tools::input_schema(wb, &a.server, &a.tool);
    let args = a.args.typed(object, schema.as_ref())?;
    let calls = calls_for(wb, !a.no_call);
    let (result, app) =
        apps::headless(&calls, &a.server, &a.tool, args, opts(cli), !a.no_call).await?;
    if let Some(path) = &a.html {
        workbench_app::write_out(path, &apps::html_with_csp(&app))?;
    }
    if cli.json {
        print::line(
            &json!({
                "uri": app.uri, "csp": app.policy.csp, "allow": app.policy.allow,
                "refused": app.policy.refused, "meta": app.meta, "size": app.html.len(),
                "html": a.html, "result": result,
            })
            .to_string(),
        );
        return Ok(());
    }
    print::line(&format!(
        "App       {} ({} bytes of HTML)",
        app.uri,
        app.html.len()
    ));
    print::line(&format!("CSP       {}", app.policy.csp));
    if !app.policy.allow.is_empty() {
        print::line(&format!("allow     {}", app.policy.allow));
    }
    for r in &app.policy.refused {
        print::line(&format!(
            "not taken {}: {} ({})",
            r.field,
            print::clean(&r.value),
            r.why
        ));
    }
    if let Some(result) = &result {
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        print::line(&format!("result    {}", print::clean(text)));
    }
    match &a.html {
        Some(path) => print::line(&format!("written   {}", path.display())),
        None => print::line("(--html FILE writes the App's HTML with this CSP)"),
    }
    Ok(())
}
