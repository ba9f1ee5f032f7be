//! Fixture MCP servers for MCP Workbench: the demo server (every protocol
//! feature, used by `mcp.example.json` and the tests) and its misbehaving
//! modes ([`Fault`]) for fault tests.

pub mod demo;
pub mod fault;
pub mod http;
pub mod legacy;
pub mod llm;
pub mod media;
pub mod oauth;
pub mod raw;
pub mod sse;
pub mod tls;

pub use demo::DemoServer;
pub use fault::Fault;
