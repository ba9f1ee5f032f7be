//! What reading, editing and expanding an mcp.json can fail with, each with
//! its stable [`ErrorCode`].

use std::path::PathBuf;

pub use workbench_codes::{ErrorCode, ErrorInfo};

/// The config library's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A failure of the config library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No file at `path`.
    #[error("no config file at {path}")]
    ConfigNotFound {
        /// The file looked for.
        path: PathBuf,
    },
    /// The file is there but cannot be read.
    #[error("cannot read {path}: {source}")]
    ConfigUnreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not JSON(C), at a line and column.
    #[error("{path}:{line}:{column}: {message}")]
    ConfigSyntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// Parses, but breaks a rule of the format.
    #[error("{path}: {pointer}: {message}")]
    ConfigInvalid {
        /// The file.
        path: PathBuf,
        /// JSON pointer to the offending key, e.g. `/mcpServers/demo/command`.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// An edit that cannot be made (unknown server, name taken).
    #[error("{message}")]
    ConfigEdit {
        /// Why.
        message: String,
    },
    /// The file changed on disk since it was read; nothing was written.
    #[error(
        "{path} changed on disk since it was read; nothing was written (reload it, then edit again)"
    )]
    ConfigConflict {
        /// The file.
        path: PathBuf,
    },
    /// The file could not be written (permissions, disk full, a link).
    #[error("cannot write {path}: {source}")]
    ConfigWrite {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A `${...}` reference that cannot be expanded.
    #[error("server \"{server}\", {key}: {message}")]
    Variable {
        /// The entry.
        server: String,
        /// The field holding the reference.
        key: String,
        /// Why it does not expand.
        message: String,
    },
    /// The OS keychain refused, or lacks an entry.
    #[error("keychain: {0}")]
    Secret(String),
    /// Another client's config could not be imported or exported.
    #[error("{0}")]
    Dialect(String),
    /// The trust record could not be read or written.
    #[error("trust record: {0}")]
    Trust(String),
}

impl Error {
    /// The stable code callers switch on.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::ConfigNotFound { .. } => ErrorCode::ConfigNotFound,
            Error::ConfigUnreadable { .. } => ErrorCode::ConfigUnreadable,
            Error::ConfigSyntax { .. } => ErrorCode::ConfigSyntax,
            Error::ConfigInvalid { .. } => ErrorCode::ConfigInvalid,
            Error::ConfigEdit { .. } => ErrorCode::ConfigEdit,
            Error::ConfigConflict { .. } => ErrorCode::ConfigConflict,
            Error::ConfigWrite { .. } => ErrorCode::ConfigWrite,
            Error::Variable { .. } => ErrorCode::Variable,
            Error::Secret(_) => ErrorCode::Secret,
            Error::Dialect(_) => ErrorCode::Dialect,
            Error::Trust(_) => ErrorCode::Internal,
        }
    }
}

impl From<&Error> for ErrorInfo {
    fn from(e: &Error) -> Self {
        ErrorInfo::new(e.code(), e.to_string())
    }
}

impl From<Error> for ErrorInfo {
    fn from(e: Error) -> Self {
        ErrorInfo::from(&e)
    }
}
