//! The window's environment, chosen before GTK and WebKit read it.
//!
//! Without a GPU the window paints on the CPU: GTK is told to leave GL
//! alone (`GDK_GL=disable`) and WebKit to paint with Skia on the CPU
//! (`WEBKIT_SKIA_ENABLE_CPU_RENDERING=1`). On two cores Mesa's llvmpipe cost
//! the window ~0.3 s of its start and WebKit ~100 MiB (`cargo xtask
//! bench`). GTK and WebKit read these only from the environment.
//!
//! Writing the environment is unsafe once another thread may read it, and in
//! a process linking WebKitGTK another thread always may: WebKit's library
//! constructor starts its allocator's scavenger thread before `main`. (The
//! executable's `.preinit_array` runs before that, but glibc sets the
//! environment up after it and drops what was written there.) `setenv`
//! would replace the array the second time it is called, freeing the first
//! while a reader may be in it. So [`prefer_cpu_rendering`] does not call
//! it: it builds the new array whole — every variable kept, its own added —
//! leaks it, and puts it in place with one atomic store. A thread reading
//! the environment meanwhile reads the old array or the new one, and both
//! live as long as the process. Before this the app started itself again
//! (an exec) to the same end, which cost the first frame ~50 ms.
#![deny(unsafe_code)]

use std::ffi::OsString;

/// The variables, and their values, a window without a GPU starts with.
pub const CPU_RENDERING: [(&str, &str); 2] = [
    ("GDK_GL", "disable"),
    ("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "1"),
];

/// Set beside them by whoever applied them (here, or an exec): the app
/// knows what it chose, keeps them from the servers it starts, and does not
/// choose twice.
pub const CHOSEN: &str = "MCPWB_CPU_RENDERING";

/// What to set: [`CPU_RENDERING`] without a DRM render node (or with
/// `LIBGL_ALWAYS_SOFTWARE=1`), unless the person set either variable
/// themselves (`GDK_GL=` keeps GTK's GL); nothing with a GPU. `env` reads a
/// variable.
pub fn cpu_rendering_env(
    has_render_node: bool,
    env: impl Fn(&str) -> Option<OsString>,
) -> &'static [(&'static str, &'static str)] {
    let software = env("LIBGL_ALWAYS_SOFTWARE").is_some_and(|v| v == "1" || v == "true");
    let chosen = CPU_RENDERING.iter().any(|(key, _)| env(key).is_some());
    if (has_render_node && !software) || chosen {
        return &[];
    }
    &CPU_RENDERING
}

/// What this process chose: the variables it set, [`CHOSEN`] last; empty
/// when nothing was chosen (a GPU, or the person's own setting).
fn chosen() -> &'static [(&'static str, &'static str)] {
    const APPLIED: [(&str, &str); 3] = [CPU_RENDERING[0], CPU_RENDERING[1], (CHOSEN, "1")];
    match std::env::var_os(CHOSEN) {
        Some(_) => &APPLIED,
        None => &[],
    }
}

/// Choose CPU rendering where there is no GPU ([`cpu_rendering_env`]),
/// first thing in the window's `main`, before GTK starts: the variables
/// set with [`CHOSEN`] beside them. Returns what is set: what it chose now
/// or had chosen already, none with a GPU or when the person chose.
pub fn prefer_cpu_rendering() -> &'static [(&'static str, &'static str)] {
    if std::env::var_os(CHOSEN).is_some() {
        return chosen();
    }
    let render_node = std::fs::read_dir("/dev/dri").is_ok_and(|dir| {
        dir.flatten()
            .any(|e| e.file_name().as_encoded_bytes().starts_with(b"renderD"))
    });
    if cpu_rendering_env(render_node, |key| std::env::var_os(key)).is_empty() {
        return &[];
    }
    let mut add: Vec<(&str, &str)> = CPU_RENDERING.to_vec();
    add.push((CHOSEN, "1"));
    environ::add(&add);
    chosen()
}

#[allow(unsafe_code)]
mod environ {
    use std::ffi::{CString, c_char};
    use std::sync::atomic::{AtomicPtr, Ordering};

    unsafe extern "C" {
        /// The C library's environment: a NULL-terminated array of `KEY=VALUE`.
        static mut environ: *mut *mut c_char;
    }

    /// The environment with `vars` set: a new array (every other variable as
    /// the process has it, these replaced or added) put in place with one
    /// store, and never freed (nor is the old one), so a reader on another
    /// thread sees one array or the other, whole. The variables are read
    /// through std; only the store touches the C library's own.
    pub(super) fn add(vars: &[(&str, &str)]) {
        let mut entries: Vec<*mut c_char> = std::env::vars_os()
            .filter(|(key, _)| !vars.iter().any(|(k, _)| key == k))
            .map(|(key, value)| [key.as_encoded_bytes(), b"=", value.as_encoded_bytes()].concat())
            .chain(
                vars.iter()
                    .map(|(key, value)| format!("{key}={value}").into_bytes()),
            )
            // A variable never holds a NUL; one that did could not be passed on.
            .filter_map(|entry| CString::new(entry).ok())
            .map(CString::into_raw)
            .collect();
        entries.push(std::ptr::null_mut());
        let new = Box::leak(entries.into_boxed_slice()).as_mut_ptr();
        // SAFETY: `environ` is the C library's array of `KEY=VALUE` strings;
        // it is written here once, as an atomic pointer (an aligned word),
        // with an array that is NULL-terminated and never freed.
        unsafe { AtomicPtr::from_ptr(&raw mut environ) }.store(new, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_gpu_gl_is_left_alone_unless_the_person_chose() {
        let none = |_: &str| None;
        assert!(cpu_rendering_env(true, none).is_empty());
        assert_eq!(cpu_rendering_env(false, none), CPU_RENDERING);
        let software = |k: &str| (k == "LIBGL_ALWAYS_SOFTWARE").then(|| "1".into());
        assert_eq!(cpu_rendering_env(true, software).len(), 2);
        for key in ["GDK_GL", "WEBKIT_SKIA_ENABLE_CPU_RENDERING"] {
            let chosen = |k: &str| (k == key).then(OsString::new);
            assert!(cpu_rendering_env(false, chosen).is_empty(), "{key} set");
        }
    }
}
