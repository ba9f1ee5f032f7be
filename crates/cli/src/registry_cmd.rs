//! `mcpwb registry`: find servers in the MCP Registry (or an
//! organisation's, or a folder of server.json files), look at one — its
//! versions and the entry it would become — and add it to mcp.json.

use serde_json::{Value, json};
use workbench_app::registry::{self, AddRequest, Pick, Query, RegistryPage, RegistryServer, Scope};

use crate::print::clean;
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct RegistryArgs {
    /// The registry to read: an address speaking the v0.1 API (an
    /// organisation's sub-registry) or file:FOLDER of server.json files
    /// (default: $MCPWB_REGISTRY, the settings file's "registry", else
    /// https://registry.modelcontextprotocol.io).
    #[arg(long, global = true)]
    registry: Option<String>,
    /// Ask the registry again, whatever the cache holds (answers are kept
    /// 5 minutes, and used when the registry cannot be reached).
    #[arg(long, global = true)]
    refresh: bool,
    #[command(subcommand)]
    action: RegistryAction,
}

#[derive(clap::Subcommand, Debug)]
enum RegistryAction {
    /// Servers whose name or description holds WORDS (every server without),
    /// each one's latest version; deprecated ones marked, deleted ones never
    /// listed.
    Search {
        /// What to look for in names and descriptions.
        words: Option<String>,
        /// At most this many a page.
        #[arg(long, default_value_t = 30)]
        limit: u32,
        /// Where to start: the cursor the page before printed.
        #[arg(long)]
        cursor: Option<String>,
        /// Every version, not only each server's latest.
        #[arg(long)]
        all_versions: bool,
    },
    /// One server: a version (the latest unless --version), the ways it runs,
    /// the entry it would become and what that entry asks for.
    Show {
        /// The server's name in the registry (io.github.owner/name).
        name: String,
        #[command(flatten)]
        which: Which,
        /// List its versions instead.
        #[arg(long, conflicts_with_all = ["version", "package", "remote"])]
        versions: bool,
    },
    /// Add a server to mcp.json as shown by `registry show`: version pinned,
    /// the values it needs asked for (secrets kept in the keychain), trusted
    /// as written. Post-install steps are printed, never run.
    Add {
        /// The server's name in the registry (io.github.owner/name).
        name: String,
        #[command(flatten)]
        which: Which,
        /// The name it gets in mcp.json (default: the last part of its name).
        #[arg(long = "as")]
        as_name: Option<String>,
        /// Write it into the project's .mcp.json (with --project).
        #[arg(long)]
        in_project: bool,
        /// Add a version its publisher deprecated.
        #[arg(long)]
        deprecated: bool,
        /// A value it asks for, ID=VALUE (the ids `registry show` lists, or
        /// the name server.json gives the value, e.g. `WEATHER_API_KEY`; for a
        /// bundle, its user_config KEY=VALUE); kept in the OS keychain when
        /// secret. A value server.json gives a default takes it unless given.
        /// Repeat for each.
        #[arg(long = "input", value_name = "ID=VALUE")]
        inputs: Vec<String>,
        /// Write it into a host's config instead, in that host's dialect: a
        /// dialect (`claude-desktop`, `vscode`, `cursor`, …: its file here)
        /// or a file's path (created when missing).
        #[arg(
            long = "in",
            value_name = "DIALECT|FILE",
            conflicts_with = "in_project"
        )]
        host: Option<String>,
        /// With --in: agree that a secret is written into the host's file
        /// as plain text (hosts other than VS Code keep no secrets).
        #[arg(long, requires = "host")]
        plain_text: bool,
    },
}

#[derive(clap::Args, Debug)]
struct Which {
    /// The version (default: the latest).
    #[arg(long)]
    version: Option<String>,
    /// Run it from this package (1: the first `registry show` lists).
    #[arg(long, conflicts_with = "remote")]
    package: Option<usize>,
    /// Connect to this remote (1: the first `registry show` lists).
    #[arg(long)]
    remote: Option<usize>,
}

impl Which {
    fn pick(&self) -> Result<Pick, Failure> {
        let nth = |n: usize, what: &str| {
            n.checked_sub(1)
                .ok_or_else(|| Failure::Usage(format!("--{what} counts from 1")))
        };
        let package = self.package.map(|n| nth(n, "package")).transpose()?;
        let remote = self.remote.map(|n| nth(n, "remote")).transpose()?;
        Ok(registry::pick(package, remote))
    }
}

pub async fn run(cli: &Cli, args: &RegistryArgs) -> Result<(), Failure> {
    let reg = registry::open(args.registry.as_deref(), args.refresh)?;
    match &args.action {
        RegistryAction::Search {
            words,
            limit,
            cursor,
            all_versions,
        } => {
            let query = Query {
                search: words.clone(),
                cursor: cursor.clone(),
                limit: Some(*limit),
                all_versions: *all_versions,
            };
            search(cli, &reg, &query).await
        }
        RegistryAction::Show {
            name,
            which,
            versions: true,
        } => {
            let _ = which;
            let page = registry::versions(&reg, name).await?;
            print_page(cli, &page);
            Ok(())
        }
        RegistryAction::Show { name, which, .. } => {
            let shown = registry::show(&reg, name, which.version.as_deref(), which.pick()?).await?;
            show(cli, &shown);
            Ok(())
        }
        RegistryAction::Add {
            name,
            which,
            as_name,
            in_project,
            deprecated,
            inputs,
            host,
            plain_text,
        } => {
            let answers = crate::config_fields::name_values(inputs, "input", "ID=VALUE")?;
            let place = crate::config_cmd::place(cli);
            let host = match host {
                Some(which) => {
                    let home = std::env::var_os("HOME")
                        .map(std::path::PathBuf::from)
                        .unwrap_or_default();
                    Some(workbench_app::hosts::file(
                        which,
                        &home,
                        cli.project.as_deref(),
                    )?)
                }
                None => None,
            };
            let added = registry::add(
                &place,
                &reg,
                AddRequest {
                    name,
                    version: which.version.as_deref(),
                    pick: which.pick()?,
                    as_name: as_name.as_deref(),
                    scope: if *in_project {
                        Scope::Project
                    } else {
                        Scope::User
                    },
                    deprecated_ok: *deprecated,
                    answers: &answers,
                    host: host.as_deref(),
                    plain_text_ok: *plain_text,
                    shown: None,
                },
            )
            .await?;
            added_said(cli, name, &added, host.is_some());
            Ok(())
        }
    }
}

/// `mcpwb registry search`: a page, and how to ask for the next one.
async fn search(cli: &Cli, reg: &registry::Registry, query: &Query) -> Result<(), Failure> {
    let page = registry::search(reg, query).await?;
    if print_page(cli, &page) {
        return Ok(());
    }
    if page.servers.is_empty() {
        println!("no server in {} matches", page.base);
    }
    if let Some(c) = &page.next_cursor {
        println!(
            "more: mcpwb registry search{} --cursor '{c}'",
            query
                .search
                .as_deref()
                .map(|w| format!(" '{w}'"))
                .unwrap_or_default()
        );
    }
    Ok(())
}

/// `mcpwb registry show`: the server, its packages and remotes, and the
/// entry it would add (or why it cannot be added).
fn show(cli: &Cli, shown: &registry::RegistryShown) {
    said_stale(shown.stale_minutes);
    if cli.json {
        println!(
            "{}",
            serde_json::to_string_pretty(shown).unwrap_or_default()
        );
        return;
    }
    println!("{}", row(&shown.server));
    for (i, p) in shown.packages.iter().enumerate() {
        println!("  package {}: {}", i + 1, clean(p));
    }
    for (i, r) in shown.remotes.iter().enumerate() {
        println!("  remote {}: {}", i + 1, clean(r));
    }
    match (&shown.preview, &shown.refusal) {
        (Some(p), _) => print_preview(p),
        (None, Some(why)) => println!("it cannot be added: {}", clean(why)),
        (None, None) => {}
    }
}

/// What `mcpwb registry add` did: its notes, where the entry went, the
/// inputs it needs, and what to do next.
fn added_said(cli: &Cli, name: &str, added: &registry::RegistryAdded, into_host: bool) {
    for n in &added.notes {
        eprintln!("mcpwb: note: {}", clean(n));
    }
    if cli.json {
        println!(
            "{}",
            serde_json::to_string_pretty(added).unwrap_or_default()
        );
        return;
    }
    println!(
        "added {} ({} {}) to {}",
        added.name, name, added.version, added.file
    );
    for i in &added.inputs {
        println!(
            "  it needs {}: mcpwb config input {}",
            clean(i["description"].as_str().unwrap_or_default()),
            i["id"].as_str().unwrap_or_default()
        );
    }
    if into_host {
        println!("restart the host to load it; the workbench's own file is unchanged");
    } else {
        println!("see its tools: mcpwb tools {}", added.name);
    }
}

fn said_stale(minutes: Option<u32>) {
    if let Some(m) = minutes {
        eprintln!("mcpwb: the registry cannot be reached; this is its last answer, {m} min old");
    }
}

/// The page's rows (or JSON); true when JSON was printed.
fn print_page(cli: &Cli, page: &RegistryPage) -> bool {
    said_stale(page.stale_minutes);
    if cli.json {
        println!("{}", serde_json::to_string_pretty(page).unwrap_or_default());
        return true;
    }
    for s in &page.servers {
        println!("{}", row(s));
    }
    false
}

/// `name version — description [deprecated: why]`, the server's text cleaned.
fn row(s: &RegistryServer) -> String {
    let status = if s.deprecated {
        format!(
            "  [deprecated{}]",
            s.status_message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        )
    } else {
        String::new()
    };
    clean(&format!(
        "{} {} — {}{status}",
        s.name, s.version, s.description
    ))
}

fn print_preview(p: &registry::RegistryPreview) {
    let entry = json!({ p.name.clone(): Value::Object(p.entry.clone()) });
    println!("the entry it becomes:");
    for line in serde_json::to_string_pretty(&entry)
        .unwrap_or_default()
        .lines()
    {
        println!("  {}", clean(line));
    }
    for i in &p.inputs {
        let kind = if i["password"] == true {
            "secret, kept in the keychain".to_string()
        } else if let Some(o) = i["options"].as_array() {
            format!(
                "one of {}",
                o.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            "asked".into()
        };
        let kind = match i["default"].as_str() {
            Some(d) => format!("{kind}, default {}", clean(d)),
            None => kind,
        };
        println!(
            "  asks for {} ({kind}): {}",
            i["id"].as_str().unwrap_or_default(),
            clean(i["description"].as_str().unwrap_or_default())
        );
    }
    for n in &p.notes {
        println!("  note: {}", clean(n));
    }
}
