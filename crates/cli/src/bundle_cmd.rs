//! `mcpwb bundle`: MCP bundles (`.mcpb`) — show what one is and asks for,
//! install it (unpacked into the data folder, added to mcp.json, its
//! sensitive values to the keychain), remove it.

use std::path::PathBuf;

use workbench_app::bundle::{self, BundleShown, Install};
use workbench_app::registry::Scope;

use crate::print::clean;
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct BundleArgs {
    #[command(subcommand)]
    action: BundleAction,
}

#[derive(clap::Subcommand, Debug)]
enum BundleAction {
    /// What a bundle is: its name, version, publisher and what its signature
    /// says of them (checked: who signed, who vouches for them), what it runs
    /// and what it asks for. Writes nothing.
    Show {
        /// The .mcpb file.
        file: PathBuf,
    },
    /// Install a bundle: checked, unpacked into the data folder, added to
    /// mcp.json as yours (trusted as written); sensitive values go to the
    /// OS keychain. A required value missing, or a signature that does not
    /// hold (the file changed after signing), refuses it, leaving nothing.
    Install {
        /// The .mcpb file.
        file: PathBuf,
        /// A value it asks for, KEY=VALUE (the keys `bundle show` lists);
        /// repeat a key for a value that takes several.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// The name it gets in mcp.json (default: the bundle's).
        #[arg(long = "as")]
        as_name: Option<String>,
        /// The SHA-256 the file must have (a registry's fileSha256).
        #[arg(long)]
        sha256: Option<String>,
        /// Write it into the project's .mcp.json (with --project).
        #[arg(long)]
        in_project: bool,
    },
    /// Remove a bundle installed as NAME: its entry, its secrets, its folder.
    Remove {
        /// Its name in mcp.json.
        name: String,
    },
}

pub fn run(cli: &Cli, args: &BundleArgs) -> Result<(), Failure> {
    match &args.action {
        BundleAction::Show { file } => {
            let shown = bundle::show(file)?;
            if cli.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&shown).unwrap_or_default()
                );
            } else {
                print_shown(&shown);
            }
            Ok(())
        }
        BundleAction::Install {
            file,
            set,
            as_name,
            sha256,
            in_project,
        } => {
            let answers = crate::config_fields::name_values(set, "set", "KEY=VALUE")?;
            let place = crate::config_cmd::place(cli);
            let installed = bundle::install(
                &place,
                Install {
                    path: file,
                    sha256: sha256.as_deref(),
                    shown: None,
                    as_name: as_name.as_deref(),
                    answers: &answers,
                    scope: if *in_project {
                        Scope::Project
                    } else {
                        Scope::User
                    },
                },
            )?;
            if cli.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&installed).unwrap_or_default()
                );
                return Ok(());
            }
            println!(
                "installed {} ({} {}) into {}, added to {}",
                installed.name,
                clean(&installed.shown.name),
                clean(&installed.shown.version),
                installed.folder,
                installed.file
            );
            println!("{}", publisher(&installed.shown));
            // The publisher's to mend, not the person's: said as the
            // manifest's, after what was installed.
            for f in &installed.findings {
                eprintln!(
                    "mcpwb: the bundle's manifest, for its publisher: {} {}: {} ({})",
                    f.severity.as_str(),
                    f.code,
                    clean(&f.why),
                    clean(&f.fix)
                );
            }
            println!("see its tools: mcpwb tools {}", installed.name);
            Ok(())
        }
        BundleAction::Remove { name } => {
            let said = bundle::remove(&crate::config_cmd::place(cli), name)?;
            println!("{said}");
            Ok(())
        }
    }
}

fn publisher(s: &BundleShown) -> String {
    let mut line = format!(
        "publisher: {} (its manifest says); signature: {}",
        clean(&s.author),
        clean(&s.signature.said)
    );
    if let Some(f) = &s.signature.fingerprint {
        line.push_str(&format!("\n  certificate sha256 {f}"));
    }
    if let Some(to) = &s.signature.valid_to {
        line.push_str(&format!(", valid to {}", clean(to)));
    }
    line
}

fn print_shown(s: &BundleShown) {
    println!(
        "{} {} — {}",
        clean(s.display_name.as_deref().unwrap_or(&s.name)),
        clean(&s.version),
        clean(&s.description)
    );
    println!("{}", publisher(s));
    println!(
        "runs: a {} server; sha256 {}",
        clean(&s.server_type),
        s.sha256
    );
    if !s.tools.is_empty() {
        println!("tools it declares: {}", clean(&s.tools.join(", ")));
    }
    for f in &s.fields {
        let mut what = vec![f.kind.clone()];
        if f.required {
            what.push("required".into());
        }
        if f.sensitive {
            what.push("secret, kept in the keychain".into());
        }
        if f.multiple {
            what.push("several values".into());
        }
        if let Some(d) = &f.default {
            what.push(format!("default {d}"));
        }
        println!(
            "  asks for {} ({}): {}",
            f.key,
            what.join(", "),
            clean(f.description.as_deref().unwrap_or(&f.title))
        );
    }
}
