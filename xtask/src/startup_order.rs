//! The app's start-up code laid out together (`cargo xtask startup-order`
//! records it; the shipped build applies it).
//!
//! At rest the app's biggest share of memory is its own code: the kernel
//! maps a binary's code in 64 KiB runs around each page touched, and the
//! functions start-up runs (5,300 of 37,000, 4.4 MB) lie all over the 20 MB
//! of code, so 15 MB of it was resident 15 s after launch. Laid out first,
//! one after another, they fill a few MB.
//!
//! - The list (`src-tauri/startup-order.txt`) holds the functions the app ran
//!   in its first 15 s (one server, the window painted), in the order they
//!   first ran, by their names without crate hashes, so it outlives a
//!   rebuild, a dependency bump or a new toolchain: a function that is gone
//!   or renamed is only not placed.
//! - The shipped build (the `app` profile) is linked through this binary:
//!   cargo runs it as the linker, and for the app's own executable it finds
//!   the list's functions among the objects' symbols and has lld place them
//!   first (`--symbol-ordering-file`); anything else it links unchanged. Its
//!   symbols use Rust's v0 names, which spell out a generic function's types
//!   (the legacy names of `drop_in_place::<A>` and `::<B>` differ only in a
//!   hash).
//! - `cargo xtask startup-order` records the list again: the shipped build
//!   runs under Xvfb with a breakpoint on the first byte of each function
//!   (`startup-order/trap.c`, preloaded), each one noted and lifted as it is
//!   hit.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::stages::Result;

/// The list, from the repository's root.
pub const LIST: &str = "src-tauri/startup-order.txt";
/// Set (to the list's path) in cargo's environment: this process is the linker.
const AS_LINKER: &str = "MCPWB_STARTUP_ORDER";
/// The binary the list is for: rustc's output name for the app's executable.
const APP_OUTPUT: &str = "mcp_workbench-";

/// What `cargo build` of the shipped app is given: v0 symbol names, and
/// this binary as the linker with the list.
pub fn build_env(root: &Path) -> Vec<(String, OsString)> {
    let me = std::env::current_exe().expect("the xtask binary's path");
    vec![
        (
            "CARGO_ENCODED_RUSTFLAGS".into(),
            "-Csymbol-mangling-version=v0".into(),
        ),
        (
            // The host's triple: the app is built for the machine it is built on.
            linker_key(),
            me.into(),
        ),
        (AS_LINKER.into(), root.join(LIST).into()),
    ]
}

/// cargo's setting of the linker for this machine's Linux target.
fn linker_key() -> String {
    format!(
        "CARGO_TARGET_{}_UNKNOWN_LINUX_GNU_LINKER",
        std::env::consts::ARCH.to_uppercase()
    )
}

/// When cargo runs this binary as the linker: link (the app's executable
/// with its start-up functions first) and the exit code to end with.
pub fn link_if_asked() -> Option<ExitCode> {
    let list = PathBuf::from(std::env::var_os(AS_LINKER)?);
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // Read once: what is linked, where to, and by which linker.
    let seen = expanded(&args);
    let mut extra = Vec::new();
    let app = output(&seen).filter(|o| {
        o.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(APP_OUTPUT))
    });
    // Only lld reads an ordering file (rustc links with it on x86_64 Linux).
    let lld = seen.iter().any(|a| a == "-fuse-ld=lld");
    if let Some(out) = app {
        match ordering(&list, &seen, &out, lld) {
            Ok(file) => {
                extra.push(format!("-Wl,--symbol-ordering-file={}", file.display()));
                extra.push("-Wl,--no-warn-symbol-ordering".into());
            }
            // Linked as it would be without the list: slower to page in,
            // never broken; the report says so (not a stale one's figures).
            Err(e) => write_report(&out, &format!("startup order: not applied: {e}")),
        }
    }
    let status = Command::new("cc").args(&args).args(&extra).status();
    Some(match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("xtask as the linker: cannot run cc: {e}");
            ExitCode::FAILURE
        }
    })
}

/// The linker's arguments, `@file`s read (rustc uses one for a long line).
fn expanded(args: &[OsString]) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        let a = a.to_string_lossy();
        match a.strip_prefix('@') {
            Some(file) => {
                for line in std::fs::read_to_string(file).unwrap_or_default().lines() {
                    // GNU-style quoting: a backslash escapes the next character.
                    let mut arg = String::new();
                    let mut chars = line.chars();
                    while let Some(c) = chars.next() {
                        arg.push(if c == '\\' {
                            chars.next().unwrap_or(c)
                        } else {
                            c
                        });
                    }
                    out.push(arg);
                }
            }
            None => out.push(a.into_owned()),
        }
    }
    out
}

fn output(args: &[String]) -> Option<PathBuf> {
    let at = args.iter().position(|a| a == "-o")?;
    args.get(at + 1).map(PathBuf::from)
}

/// Writes the ordering file for lld beside `out`: the list's functions as
/// the objects name them, and says how many it placed ([`write_report`]).
fn ordering(list: &Path, args: &[String], out: &Path, lld: bool) -> Result<PathBuf> {
    if !lld {
        return Err("the linker is not lld, which alone reads an ordering file".into());
    }
    let wanted = read_list(list)?;
    let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
    for object in args.iter().filter(|a| a.ends_with(".o")) {
        for symbol in symbols(Path::new(object))? {
            by_name.entry(plain_name(&symbol)).or_default().push(symbol);
        }
    }
    let mut lines = Vec::new();
    let (mut found, mut from_c) = (0, 0);
    for name in &wanted {
        if let Some(symbols) = by_name.remove(name) {
            found += 1;
            lines.extend(symbols);
        } else if is_c_symbol(name) {
            // A C library's (mimalloc, SQLite): lld finds it in its archive.
            from_c += 1;
            lines.push(name.clone());
        }
    }
    let file = out.with_extension("startup-order");
    std::fs::write(&file, lines.join("\n") + "\n")
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let report = format!(
        "startup order: of the list's {} functions, {found} found in the Rust code and {from_c} named for the C libraries, laid out first; {} not found",
        wanted.len(),
        wanted.len() - found - from_c
    );
    write_report(out, &report);
    Ok(file)
}

/// Says what the link did on stderr (cargo shows it only when a link
/// fails) and in `startup-order.report` beside the profile's binaries.
fn write_report(out: &Path, text: &str) {
    eprintln!("{text}");
    // cargo links into the profile's deps/ and copies the binary up.
    if let Some(profile_dir) = out
        .parent()
        .filter(|d| d.ends_with("deps"))
        .and_then(Path::parent)
    {
        let _ = std::fs::write(
            profile_dir.join("startup-order.report"),
            format!("{text}\n"),
        );
    }
}

/// A name that is a symbol as it stands (not a demangled Rust path).
fn is_c_symbol(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
}

/// The list's names, in order (`#` starts a comment line).
pub fn read_list(list: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(list)
        .map_err(|e| format!("cannot read {}: {e}", list.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

/// The symbols an object file defines (`nm`).
fn symbols(object: &Path) -> Result<Vec<String>> {
    let out = Command::new("nm")
        .args(["--defined-only", "--just-symbols"])
        .arg(object)
        .output()
        .map_err(|e| format!("cannot run nm: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "nm {} failed: {}",
            object.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect())
}

/// A symbol's name as the list keeps it: demangled without the crates'
/// hashes (v0 names keep each generic instance apart); others as they are.
pub fn plain_name(symbol: &str) -> String {
    match rustc_demangle::try_demangle(symbol) {
        Ok(d) => format!("{d:#}"),
        Err(_) => symbol.to_string(),
    }
}

/// How long the app runs while it is recorded: its start-up and settling
/// (the memory bench takes its figure 15 s after launch).
const RECORDED_FOR_S: u32 = 15;

/// `cargo xtask startup-order`: build the app as shipped, run it under Xvfb
/// on one demo server with every function trapped, and write the list.
pub fn record(root: &Path) -> Result {
    crate::setup::npm_packages(root)?;
    crate::tasks::build_demo_server(root, true)?;
    crate::tasks::build_shipped_app(root, false)?;
    let target = crate::cache::target_dir(root);
    let app = target.join(crate::tasks::APP_PROFILE).join("mcp-workbench");
    let dir = target.join("startup-order");
    let home = dir.join("home");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    let trap = dir.join("trap.so");
    crate::stages::sh(crate::stages::cmd(
        "cc",
        &[
            "-shared",
            "-fPIC",
            "-O2",
            "-o",
            &trap.display().to_string(),
            &root
                .join("xtask/startup-order/trap.c")
                .display()
                .to_string(),
            "-lpthread",
        ],
        root,
    ))?;
    let functions = functions(&app)?;
    let offsets: Vec<u8> = functions.keys().flat_map(|a| a.to_le_bytes()).collect();
    let offsets_file = dir.join("functions.bin");
    std::fs::write(&offsets_file, offsets)
        .map_err(|e| format!("cannot write {}: {e}", offsets_file.display()))?;
    let config = dir.join("mcp.json");
    let demo = target.join("release/mcp-demo-server");
    let text = format!(
        r#"{{"mcpServers":{{"demo":{{"command":{}}}}}}}"#,
        crate::tasks::json_string(&demo.display().to_string())
    );
    std::fs::write(&config, text).map_err(|e| format!("cannot write {}: {e}", config.display()))?;
    let q = |p: &Path| crate::tasks::shell_quote(&p.display().to_string());
    let script = format!(
        "env LD_PRELOAD={trap} TRAP_FUNCS={funcs} TRAP_EXE=mcp-workbench TRAP_OUT={out} {app} --trust --config {config} & pid=$!; sleep {RECORDED_FOR_S}; kill $pid; wait $pid; true",
        trap = q(&trap),
        funcs = q(&offsets_file),
        out = q(&dir.join("trace")),
        app = q(&app),
        config = q(&config),
    );
    let mut run = crate::bench::on_a_desktop(root, &["sh", "-c", &script]);
    for (key, sub) in [
        ("HOME", ""),
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
        ("MCPWB_LOG_DIR", "logs"),
    ] {
        run.env(key, home.join(sub));
    }
    run.env("MCPWB_KEYCHAIN", "keyutils")
        .env("MCPWB_KEYCHAIN_SERVICE", "mcpwb-startup-order");
    crate::stages::sh(&mut run)?;
    // One process, one trace.
    let trace = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("trace."))
        })
        .ok_or("the app wrote no trace: did it start under Xvfb? (its log is above)")?;
    let text = std::fs::read_to_string(&trace)
        .map_err(|e| format!("cannot read {}: {e}", trace.display()))?;
    let mut seen = std::collections::HashSet::new();
    let mut names = Vec::new();
    let mut bytes = 0;
    for offset in text.lines().filter_map(|l| u64::from_str_radix(l, 16).ok()) {
        if let Some((size, symbols)) = functions.get(&offset) {
            bytes += size;
            for s in symbols {
                let name = plain_name(s);
                if seen.insert(name.clone()) {
                    names.push(name);
                }
            }
        }
    }
    let header = format!(
        "# The functions the app ran in its first {RECORDED_FOR_S} s (one server, the window painted), in the\n\
         # order they first ran: the shipped build lays them out first. Recorded by\n\
         # `cargo xtask startup-order`; see xtask/src/startup_order.rs.\n"
    );
    std::fs::write(root.join(LIST), header + &names.join("\n") + "\n")
        .map_err(|e| format!("cannot write {LIST}: {e}"))?;
    println!(
        "{} functions ({:.1} MB of code) ran in the first {RECORDED_FOR_S} s: written to {LIST}",
        names.len(),
        bytes as f64 / 1e6
    );
    Ok(())
}

/// The executable's functions: offset → (size, names), from its symbols.
fn functions(exe: &Path) -> Result<std::collections::BTreeMap<u64, (u64, Vec<String>)>> {
    let out = Command::new("nm")
        .args(["--defined-only", "--print-size"])
        .arg(exe)
        .output()
        .map_err(|e| format!("cannot run nm: {e}"))?;
    let mut map = std::collections::BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let [addr, size, kind, name] = f[..]
            && matches!(kind, "t" | "T")
            && let (Ok(addr), Ok(size)) =
                (u64::from_str_radix(addr, 16), u64::from_str_radix(size, 16))
            && size > 0
        {
            let entry = map.entry(addr).or_insert((size, Vec::new()));
            entry.1.push(name.to_string());
        }
    }
    if map.is_empty() {
        return Err(format!(
            "no function symbols in {} (stripped?)",
            exe.display()
        ));
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v0_names_lose_their_crate_hashes_and_keep_their_types() {
        // `RawVec<[u64; 4]>::grow_one` as two builds name it (their crates' hashes differ).
        let a = plain_name(
            "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecAyj4_E8grow_oneCsbwCIX2xZudA_16jsonschema_regex",
        );
        let b = plain_name(
            "_RNvMs3_NtCs1234567890a_5alloc7raw_vecINtB5_6RawVecAyj4_E8grow_oneCs0000000000b_16jsonschema_regex",
        );
        assert_eq!(a, b);
        assert!(
            a.contains("RawVec<[u64; 4]>") && a.contains("grow_one"),
            "{a}"
        );
        // The same function for another type stays apart.
        let c = plain_name(
            "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecAxj4_E8grow_oneCsbwCIX2xZudA_16jsonschema_regex",
        );
        assert_ne!(a, c);
        assert_eq!(plain_name("mi_malloc"), "mi_malloc");
    }

    #[test]
    fn the_output_is_found_in_an_argument_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("args");
        std::fs::write(&file, "-m64\n-o\n/t/app/deps/mcp_workbench-ab\\ c\nx.o\n").unwrap();
        let args = [OsString::from(format!("@{}", file.display()))];
        assert_eq!(
            output(&expanded(&args)),
            Some(PathBuf::from("/t/app/deps/mcp_workbench-ab c"))
        );
    }
}
