//! workbench-core: everything in MCP Workbench that is not a window.
//!
//! Data flows one way: `mcp.json` → [`config`] → connections → catalog → callers
//! (the desktop app through `src-tauri`, the `mcpwb` CLI, the bridge). This crate
//! must never depend on tauri or any windowing crate.

pub mod config;
pub mod error;
pub mod logging;

pub use config::{ConfigFile, ServerEntry, ServerSummary, Transport, TransportKind};
pub use error::{Error, ErrorCode, ErrorInfo, Result};
