//! `mcpwb auth login|status|refresh|logout|debug SERVER`: OAuth sign-in to a
//! remote server over the core's flow; tokens go to the OS keychain.

use std::time::Duration;

use clap::Subcommand;
use serde_json::json;
use workbench_app::auth::{self, Grants, LoginOptions, Target, Timeline};

use crate::{Cli, Failure};

#[derive(Subcommand, Debug)]
pub enum AuthCommand {
    /// Sign in (opens the browser; the page comes back to this machine).
    Login {
        /// The remote server, by its name in mcp.json.
        server: String,
        #[command(flatten)]
        how: How,
    },
    /// Whether the server is signed in, with which scopes, until when.
    Status {
        /// The remote server, by its name in mcp.json.
        server: String,
    },
    /// Get a new access token with the refresh token now.
    Refresh {
        /// The remote server, by its name in mcp.json.
        server: String,
    },
    /// Sign out: revoke where the server offers it, forget the tokens.
    Logout {
        /// The remote server, by its name in mcp.json.
        server: String,
    },
    /// Sign in and print each step of the flow (exit 1 on a broken MUST).
    Debug {
        /// The remote server, by its name in mcp.json.
        server: String,
        #[command(flatten)]
        how: How,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct How {
    /// Print the sign-in address instead of opening a browser, and wait for
    /// the browser to come back (scripts, remote shells).
    #[arg(long)]
    no_browser: bool,
    /// A client id registered ahead with the authorization server.
    #[arg(long)]
    client_id: Option<String>,
    /// The environment variable that holds that client's secret.
    #[arg(long)]
    client_secret_env: Option<String>,
    /// A Client ID Metadata Document URL this client is known by.
    #[arg(long)]
    client_metadata_url: Option<String>,
    /// Scopes to ask for (space separated) instead of what the server says.
    #[arg(long)]
    scope: Option<String>,
}

/// How `--sign-in` shows the sign-in page.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum SignIn {
    /// Open the system browser.
    Browser,
    /// Print the address (and wait for the browser to come back).
    Print,
}

fn target(cli: &Cli, name: &str) -> Result<Target, Failure> {
    let config = crate::config_cmd::load(cli)?;
    if cli.trust && config.servers.iter().any(|e| e.name == name) {
        // --trust: the person vouches for it (remembered), as for a run.
        workbench_app::trust::trust(&config, name)?;
    }
    Ok(Target::of(&config, name, cli.project.clone())?)
}

fn open_browser(url: &str) -> Result<(), String> {
    let program = std::env::var("BROWSER").unwrap_or_else(|_| "xdg-open".into());
    std::process::Command::new(&program)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("cannot open a browser with {program} ({e}); use --no-browser"))
}

fn print_timeline(tl: &Timeline) {
    for s in &tl.steps {
        let status = s
            .status
            .map(|c| c.to_string())
            .unwrap_or_else(|| "-".into());
        crate::print::line(&format!(
            "{:<13} {status:>4} {:>7.1} ms  {}",
            s.name,
            s.ms,
            s.request.lines().next().unwrap_or("")
        ));
        for p in &s.problems {
            crate::print::line(&format!("{:<13}      MUST  {p}", ""));
        }
    }
}

async fn login(cli: &Cli, name: &str, how: &How) -> Result<auth::Run, Failure> {
    login_from(cli, name, how, None).await
}

/// Sign in, from a refusal the server already gave when there is one.
async fn login_from(
    cli: &Cli,
    name: &str,
    how: &How,
    challenge: Option<workbench_app::auth::Challenge>,
) -> Result<auth::Run, Failure> {
    let t = target(cli, name)?;
    let client = t.client()?;
    // The flags first, else the entry's "oauth" block.
    let secret = match &how.client_secret_env {
        Some(var) => {
            Some(std::env::var(var).map_err(|_| Failure::Usage(format!("{var} is not set")))?)
        }
        None if how.client_id.is_none() => client.client_secret.clone(),
        None => None,
    };
    let no_browser = how.no_browser;
    let opts = LoginOptions {
        client_id: how.client_id.clone().or(client.client_id.clone()),
        client_secret: secret,
        client_metadata_url: how
            .client_metadata_url
            .clone()
            .or(client.client_metadata_url.clone()),
        scope: how.scope.clone().or(client.scope.clone()),
        open: Box::new(move |url| {
            eprintln!("Open this address to sign in:\n  {url}");
            if no_browser {
                Ok(())
            } else {
                open_browser(url)
            }
        }),
        timeout: Duration::from_secs_f64(cli.timeout.max(30.0)),
        challenge,
        gate: None,
    };
    Ok(t.sign_in(&opts).await?)
}

/// `--sign-in`: answer a server's refusal — refresh a stale token once,
/// else sign in again asking for what was granted plus what the server
/// asks for. Returns whether the command is worth running again.
pub async fn answer_refusal(
    cli: &Cli,
    name: &str,
    refusal: &auth::Refusal,
    mode: SignIn,
) -> Result<bool, Failure> {
    let t = target(cli, name)?;
    let stored = t.stored();
    eprintln!("mcpwb: {}", refusal.describe());
    if let Some(tok) = &stored
        && !refusal.wants_scope()
        && tok.refresh_token.is_some()
        && tok
            .refreshed_at
            .is_none_or(|at| workbench_app::auth::now().saturating_sub(at) >= 60)
        && let (_, Ok(_)) = t.refresh().await?
    {
        eprintln!("mcpwb: refreshed the sign-in to {name}; trying again");
        return Ok(true);
    }
    if !refusal.worth_signing_in(stored.as_ref()) {
        eprintln!(
            "mcpwb: the sign-in to {name} already has the scope the server asks for; signing in again would not change its answer"
        );
        return Ok(false);
    }
    let how = How {
        no_browser: mode == SignIn::Print,
        client_id: None,
        client_secret_env: None,
        client_metadata_url: None,
        scope: refusal.widened(stored.as_ref()),
    };
    let (_, result) = login_from(cli, name, &how, Some(refusal.challenge())).await?;
    let tokens = result.map_err(|e| Failure::Usage(e.message))?;
    eprintln!(
        "mcpwb: signed in to {name} ({}; scopes: {}); trying again",
        tokens.issuer,
        tokens.scope.as_deref().unwrap_or("none asked")
    );
    Ok(true)
}

fn said(cli: &Cli, text: String, data: serde_json::Value) {
    if cli.json {
        crate::print::line(&data.to_string());
    } else {
        crate::print::line(&text);
    }
}

pub async fn run(cli: &Cli, command: &AuthCommand) -> Result<(), Failure> {
    match command {
        AuthCommand::Login { server, how } => {
            let (_, result) = login(cli, server, how).await?;
            let tokens = result.map_err(|e| Failure::Usage(e.message))?;
            said(
                cli,
                format!("signed in to {server} ({})", tokens.issuer),
                json!({ "signed_in": server, "issuer": tokens.issuer, "scope": tokens.scope }),
            );
            Ok(())
        }
        AuthCommand::Debug { server, how } => {
            let (tl, result) = login(cli, server, how).await?;
            if cli.json {
                crate::print::line(
                    &json!({
                        "steps": tl.steps,
                        "error": result.as_ref().err().map(|e| &e.message),
                        "failed_step": result.as_ref().err().map(|e| e.step),
                    })
                    .to_string(),
                );
            } else {
                print_timeline(&tl);
            }
            match result {
                Ok(_) if !tl.failed() => Ok(()),
                Ok(_) => Err(Failure::Exit(1)),
                Err(e) => Err(Failure::Usage(e.message)),
            }
        }
        AuthCommand::Status { server } => {
            let st = target(cli, server)?.status();
            let text = if st.signed_in {
                format!(
                    "{server}: signed in at {}; scopes: {}; {}",
                    st.issuer.as_deref().unwrap_or(""),
                    st.scope.as_deref().unwrap_or("(none asked)"),
                    match st.expires_in {
                        Some(s) => format!("expires in {s} s"),
                        None => "no expiry given".into(),
                    }
                ) + &match &st.dpop_key {
                    Some(k) => format!("; bound to this sign-in's key (DPoP, thumbprint {k})"),
                    None => String::new(),
                }
            } else {
                format!("{server}: signed out")
            };
            said(cli, text, serde_json::to_value(&st).unwrap_or_default());
            Ok(())
        }
        AuthCommand::Refresh { server } => {
            let (_, refreshed) = target(cli, server)?.refresh().await?;
            refreshed.map_err(|e| Failure::Usage(e.message))?;
            said(
                cli,
                format!("refreshed the sign-in to {server}"),
                json!({ "refreshed": server }),
            );
            Ok(())
        }
        AuthCommand::Logout { server } => {
            if let Some((_, Some(e))) = target(cli, server)?.sign_out().await? {
                eprintln!(
                    "mcpwb: the server did not revoke the token ({e}); forgotten here anyway"
                );
            }
            said(
                cli,
                format!("signed out of {server}"),
                json!({ "signed_out": server }),
            );
            Ok(())
        }
    }
}
