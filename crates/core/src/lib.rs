//! workbench-core: everything in MCP Workbench that is not a window.
//!
//! Data flows one way: `mcp.json` → [`config`] → connections → catalog → callers
//! (the desktop app through `src-tauri`, the `mcpwb` CLI, the bridge). This crate
//! must never depend on tauri or any windowing crate.
#![forbid(unsafe_code)]

pub mod apps;
pub mod asks;
pub mod auth;
pub mod cache;
pub mod catalog;
pub mod challenge;
pub use workbench_config as config;
pub use workbench_memory as memory;
pub mod connect;
pub mod error;
pub mod events;
pub use config::files;
pub mod logging;
pub mod otel;
pub mod paths;
pub mod schema;
pub mod settings;
pub mod skills;
pub mod status;
pub mod task;
pub mod traffic;
pub mod workbench;

pub use config::{ConfigFile, ServerEntry, ServerSummary, Transport, TransportKind};
pub use error::{Error, ErrorCode, ErrorInfo, Result};
#[cfg(feature = "testing")]
pub use workbench::testing;
pub use workbench::{
    CallOptions, CallOutcome, CallSink, ConfigWatch, DevWatch, LoadedSkill, Progress, SkillFile,
    TaskForm, TaskState, ToolCaller, Workbench, WorkbenchOptions,
};
/// Why a connection was not made, said alike for every address.
pub use workbench_codes::reach;
