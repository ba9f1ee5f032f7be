//! IPC commands, one module per area. Each command is a few lines over
//! `workbench-core`; errors cross as `ErrorInfo { code, message }`.

pub mod apps;
pub mod asks;
pub mod auth;
pub mod bridge;
pub mod chat;
pub mod config;
pub mod doctor;
pub mod evals;
pub mod files;
pub mod history;
pub mod lists;
pub mod load;
pub mod providers;
pub mod registry;
pub mod resources;
pub mod servers;
pub mod sessions;
pub mod tasks;
pub mod tools;
pub mod traffic;
pub mod trust;
