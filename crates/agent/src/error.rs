//! The agent's errors, each with a stable [`ErrorCode`] (the core's list)
//! so the window and `mcpwb` switch on the code, never on the text.

use workbench_core::{ErrorCode, ErrorInfo};

/// What kind of provider failure ended a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderFailure {
    /// 401/403: the key is missing, wrong or not allowed.
    Auth,
    /// 429, after the retries.
    RateLimited,
    /// 5xx or unreachable, after the retries.
    Unavailable,
    /// A malformed or cut stream, or anything else the provider did.
    Failed,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] workbench_core::Error),
    #[error("{message}")]
    Provider {
        failure: ProviderFailure,
        /// The HTTP status, when the provider answered with one.
        status: Option<u16>,
        message: String,
    },
    #[error("{0}")]
    NoProvider(String),
    #[error("{0}")]
    Store(String),
    #[error("{0}")]
    NotFound(String),
    /// A turn is already running in that session.
    #[error("{0}")]
    Busy(String),
    #[error("{0}")]
    Invalid(String),
}

impl From<workbench_core::config::Error> for Error {
    fn from(e: workbench_core::config::Error) -> Self {
        Error::Core(e.into())
    }
}

impl From<workbench_store::Error> for Error {
    fn from(e: workbench_store::Error) -> Self {
        match e {
            workbench_store::Error::NoSession(id) => {
                Error::NotFound(format!("no chat session \"{id}\""))
            }
            other => Error::Store(other.to_string()),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Core(e) => e.code(),
            Error::Provider { failure, .. } => match failure {
                ProviderFailure::Auth => ErrorCode::ProviderAuth,
                ProviderFailure::RateLimited => ErrorCode::ProviderRateLimited,
                ProviderFailure::Unavailable => ErrorCode::ProviderUnavailable,
                ProviderFailure::Failed => ErrorCode::ProviderFailed,
            },
            Error::NoProvider(_) => ErrorCode::NoProvider,
            Error::Store(_) => ErrorCode::Storage,
            Error::NotFound(_) => ErrorCode::NotFound,
            Error::Busy(_) => ErrorCode::Busy,
            Error::Invalid(_) => ErrorCode::Invalid,
        }
    }

    /// Whether trying again may help (rate limits, outages, cut streams).
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            Error::Provider {
                failure: ProviderFailure::RateLimited
                    | ProviderFailure::Unavailable
                    | ProviderFailure::Failed,
                ..
            }
        )
    }
}

impl From<&Error> for ErrorInfo {
    fn from(e: &Error) -> Self {
        ErrorInfo {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

impl From<Error> for ErrorInfo {
    fn from(e: Error) -> Self {
        ErrorInfo::from(&e)
    }
}
