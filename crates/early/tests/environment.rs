//! The window's environment chosen in a process that already runs another
//! thread reading the environment (as WebKit's scavenger does by `main`):
//! each case is a child process started from this test binary.

use std::process::Command;

const ROLE: &str = "WORKBENCH_EARLY_CHILD";
const KEYS: [&str; 3] = [
    "GDK_GL",
    "WEBKIT_SKIA_ENABLE_CPU_RENDERING",
    "MCPWB_CPU_RENDERING",
];

/// The child's side: choose while a thread reads the environment, then
/// report what this process and a process it starts see.
#[test]
fn child() {
    if std::env::var_os(ROLE).is_none() {
        return;
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut reads = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // Every variable, as a reader walking the array would.
                reads += std::env::vars_os().count() as u64;
            }
            reads
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(20));
    let set = workbench_early::prefer_cpu_rendering();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0);
    println!("set={}", set.len());
    for key in KEYS {
        println!("{key}={:?}", std::env::var(key).ok());
    }
    println!("kept={:?}", std::env::var("WORKBENCH_EARLY_KEPT").ok());
    let seen = Command::new("sh")
        .args(["-c", "echo child:$GDK_GL:$WORKBENCH_EARLY_KEPT"])
        .output()
        .unwrap();
    print!("{}", String::from_utf8_lossy(&seen.stdout));
    // Choosing again changes nothing.
    println!("again={}", workbench_early::prefer_cpu_rendering().len());
}

/// Start this binary's `child` test with `env` on top of a clean slate.
fn start(env: &[(&str, &str)]) -> String {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "child", "--nocapture", "--test-threads", "1"])
        .env(ROLE, "1")
        .env("WORKBENCH_EARLY_KEPT", "yes");
    for key in KEYS.iter().chain(&["LIBGL_ALWAYS_SOFTWARE"]) {
        c.env_remove(key);
    }
    c.envs(env.iter().copied());
    let out = c.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn software_gl_chooses_cpu_rendering_for_the_process_and_what_it_starts() {
    // Software GL, as where there is no GPU.
    let out = start(&[("LIBGL_ALWAYS_SOFTWARE", "1")]);
    assert!(out.contains("set=3"), "{out}");
    assert!(out.contains(r#"GDK_GL=Some("disable")"#), "{out}");
    assert!(
        out.contains(r#"WEBKIT_SKIA_ENABLE_CPU_RENDERING=Some("1")"#),
        "{out}"
    );
    assert!(out.contains(r#"MCPWB_CPU_RENDERING=Some("1")"#), "{out}");
    // The rest of the environment is kept, here and in a child.
    assert!(out.contains(r#"kept=Some("yes")"#), "{out}");
    assert!(out.contains("child:disable:yes"), "{out}");
    assert!(out.contains("again=3"), "{out}");
}

#[test]
fn the_persons_webkit_setting_is_kept() {
    let out = start(&[
        ("LIBGL_ALWAYS_SOFTWARE", "1"),
        ("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "0"),
    ]);
    assert!(out.contains("set=0"), "{out}");
    assert!(
        out.contains(r#"WEBKIT_SKIA_ENABLE_CPU_RENDERING=Some("0")"#),
        "{out}"
    );
    assert!(out.contains("GDK_GL=None"), "{out}");
}

#[test]
fn the_persons_own_setting_is_kept() {
    let out = start(&[("LIBGL_ALWAYS_SOFTWARE", "1"), ("GDK_GL", "gles")]);
    assert!(out.contains("set=0"), "{out}");
    assert!(out.contains(r#"GDK_GL=Some("gles")"#), "{out}");
    assert!(
        out.contains("WEBKIT_SKIA_ENABLE_CPU_RENDERING=None"),
        "{out}"
    );
    assert!(out.contains("child:gles:yes"), "{out}");
}
