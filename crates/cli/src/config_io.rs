//! `mcpwb config import`, `export` and `discover`: other clients' files.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use workbench_app::config::{ConfigFile, target_of};

use crate::config_cmd::{say, usage};
use crate::{Cli, Failure};

pub fn import(
    cli: &Cli,
    path: &Path,
    from: Option<&str>,
    only: &[String],
    replace: bool,
    dry_run: bool,
) -> Result<(), Failure> {
    let done = crate::config_cmd::place(cli).import(path, from, only, replace, dry_run)?;
    let (added, skipped) = (&done.merged.added, &done.merged.kept);
    let imported = &done.imported;
    let notes: Vec<&String> = imported.notes.iter().chain(&done.merged.notes).collect();
    for n in &notes {
        eprintln!("mcpwb: note: {}", crate::print::clean(n));
    }
    if cli.json {
        println!(
            "{}",
            json!({ "dialect": done.dialect.id(), "imported": added, "skipped": skipped,
                    "targets": imported.servers.iter().filter(|(n, _)| added.contains(n))
                        .map(|(n, e)| (n.clone(), json!(target_of(n, e))))
                        .collect::<serde_json::Map<String, serde_json::Value>>(),
                    "notes": notes, "dry_run": dry_run, "file": done.file })
        );
        return Ok(());
    }
    let verb = if dry_run { "would import" } else { "imported" };
    if added.is_empty() && skipped.is_empty() {
        println!(
            "{} ({}) lists no server to import: nothing {}",
            path.display(),
            done.dialect.id(),
            if dry_run { "would change" } else { "changed" }
        );
        return Ok(());
    }
    println!(
        "{verb} {} from {} ({}) into {}: {}",
        crate::print::count(added.len(), "server"),
        path.display(),
        done.dialect.id(),
        done.file.display(),
        added.join(", ")
    );
    // What each would run or reach: imported servers start untrusted,
    // and this is what trusting them means.
    for (name, entry) in imported.servers.iter().filter(|(n, _)| added.contains(n)) {
        println!("  {name}: {}", crate::print::clean(&target_of(name, entry)));
    }
    if !skipped.is_empty() {
        println!(
            "kept ours (same name; --replace to take theirs): {}",
            skipped.join(", ")
        );
    }
    if !dry_run && !added.is_empty() {
        println!(
            "imported servers start once trusted: read what each runs with `mcpwb config trust NAME --dry-run`, then `mcpwb config trust NAME`"
        );
    }
    if dry_run {
        print!("{}", done.text);
    }
    Ok(())
}

pub fn discover(cli: &Cli) -> Result<(), Failure> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .ok_or_else(|| Failure::Usage("HOME is not set".into()))?;
    let found = crate::config_cmd::place(cli).discover(&home);
    let rows: Vec<Value> = found
        .iter()
        .map(|f| {
            let count = f.error.is_none().then_some(f.servers.len());
            json!({ "dialect": f.dialect.id(), "path": f.path, "servers": count, "error": f.error })
        })
        .collect();
    if cli.json {
        println!("{}", Value::Array(rows));
    } else if rows.is_empty() {
        println!("no other client's MCP config found");
    } else {
        for r in &rows {
            // Why a file cannot be imported, in its first line.
            let servers = match r["servers"].as_u64() {
                Some(n) => crate::print::count(n, "server"),
                None => crate::print::clean(
                    r["error"]
                        .as_str()
                        .and_then(|e| e.lines().next())
                        .unwrap_or("unreadable"),
                ),
            };
            println!(
                "{:<15} {}  ({servers})",
                r["dialect"].as_str().unwrap_or(""),
                r["path"].as_str().unwrap_or("")
            );
        }
        println!("import one with: mcpwb config import PATH");
    }
    Ok(())
}

/// `mcpwb config export --to DIALECT [-o FILE] [--force]`: the config (the
/// project's entries over the user's) in another client's shape, with a
/// note for each thing the target cannot express.
pub fn export(
    cli: &Cli,
    cfg: ConfigFile,
    to: &str,
    output: Option<&Path>,
    force: bool,
) -> Result<(), Failure> {
    let out = workbench_app::config::export_as(&cfg, to)?;
    for n in &out.notes {
        eprintln!("mcpwb: note: {n}");
    }
    match output {
        Some(o) if o.exists() && !force => Err(usage(format!(
            "{} exists; add --force to overwrite it",
            o.display()
        ))),
        Some(o) => {
            workbench_app::write_bytes_out(o, out.text.as_bytes())?;
            say(
                cli,
                format!("wrote {}", o.display()),
                json!({ "file": o, "notes": out.notes }),
            );
            Ok(())
        }
        None => {
            print!("{}", out.text);
            Ok(())
        }
    }
}

/// `mcpwb config tap|untap NAME --in FILE|DIALECT`.
pub fn tap(
    cli: &Cli,
    project: Option<&Path>,
    name: &str,
    which: &str,
    on: bool,
) -> Result<(), Failure> {
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let path = workbench_app::hosts::file(which, &home, project)?;
    let mcpwb =
        std::env::current_exe().map_err(|e| Failure::Usage(format!("where mcpwb is: {e}")))?;
    let said = workbench_app::hosts::tap(&path, name, &mcpwb, on)?;
    if cli.json {
        crate::print::line(
            &serde_json::json!({ "path": path, "name": name, "tapped": on }).to_string(),
        );
    } else {
        crate::print::line(&said);
    }
    Ok(())
}
