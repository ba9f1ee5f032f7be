//! xtask as the linker lays the list's functions out first: a small program
//! linked through it (rustc, lld, v0 names, as the shipped app is), its
//! functions' addresses read back.

use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
#[inline(never)] pub fn first() -> u32 { std::hint::black_box(1) }
#[inline(never)] pub fn second() -> u32 { std::hint::black_box(2) }
#[inline(never)] pub fn third() -> u32 { std::hint::black_box(3) }
fn main() { std::process::exit((first() + second() + third()) as i32 - 6) }
"#;

/// Links the program in `dir` as `name` through xtask with `list`; the
/// addresses of `first`, `second` and `third`.
fn link(dir: &Path, name: &str, list: &str) -> [u64; 3] {
    std::fs::create_dir_all(dir.join("deps")).unwrap();
    std::fs::write(dir.join("order.rs"), PROGRAM).unwrap();
    std::fs::write(dir.join("list.txt"), list).unwrap();
    let out = dir.join("deps").join(name);
    build(dir, &out);
    assert!(Command::new(&out).status().unwrap().success());
    let nm = Command::new("nm")
        .args(["--defined-only", "--demangle"])
        .arg(&out)
        .output()
        .unwrap();
    let symbols = String::from_utf8_lossy(&nm.stdout);
    ["first", "second", "third"].map(|f| {
        symbols
            .lines()
            .find(|l| l.ends_with(&format!("::{f}")))
            .and_then(|l| u64::from_str_radix(l.split(' ').next()?, 16).ok())
            .unwrap_or_else(|| panic!("order::{f} not in the symbols:\n{symbols}"))
    })
}

#[test]
fn the_lists_functions_come_first_in_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let names = ["first", "second", "third"];
    // Linked as another program the list is not applied: the compiler's order.
    let plain = link(
        dir.path(),
        "plain",
        "order::first\norder::second\norder::third\n",
    );
    let mut by_address: Vec<usize> = (0..3).collect();
    by_address.sort_by_key(|&i| plain[i]);
    // The list asks for the last of them first, then the first: laid out so
    // when linked as the app, the third after both.
    let [last, head, middle] = [by_address[2], by_address[0], by_address[1]];
    let list = format!(
        "# a comment\norder::{}\norder::{}\n",
        names[last], names[head]
    );
    let ordered = link(dir.path(), "mcp_workbench-test", &list);
    assert!(
        ordered[last] < ordered[head] && ordered[head] < ordered[middle],
        "asked {list:?}: plain {plain:x?}, ordered {ordered:x?}"
    );
    let report = || std::fs::read_to_string(dir.path().join("startup-order.report")).unwrap();
    assert!(
        report().contains("of the list's 2 functions, 2 found"),
        "the link says what it laid out: {}",
        report()
    );
    // Without its list it links all the same, and the report says so.
    std::fs::remove_file(dir.path().join("list.txt")).unwrap();
    build(dir.path(), &dir.path().join("deps/mcp_workbench-test"));
    assert!(report().contains("not applied"), "{}", report());
}

/// The program in `dir` built as `out`, linked through xtask with `dir`'s list.
fn build(dir: &Path, out: &Path) {
    let built = Command::new(std::env::var("RUSTC").unwrap_or("rustc".into()))
        .args([
            "-O",
            "-Csymbol-mangling-version=v0",
            "--crate-name",
            "order",
        ])
        .arg(format!("-Clinker={}", env!("CARGO_BIN_EXE_xtask")))
        .arg("-o")
        .arg(out)
        .arg(dir.join("order.rs"))
        .env("MCPWB_STARTUP_ORDER", dir.join("list.txt"))
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
}
