// Prevents an extra console window on Windows in release.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]
#![forbid(unsafe_code)]

// The bridge and the core allocate per message; mimalloc measured ~20% less
// CPU per bridged call than glibc's malloc (see the bridge benchmark).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Its settings for a long-running app (see `workbench_core::memory`).
    workbench_core::memory::use_mimalloc();
    // Every HTTP client the app makes speaks TLS with ring.
    workbench_http::ready();
    mcp_workbench_lib::run();
}
