//! The work of the CLI's live commands that are not the daemon itself:
//! `probe`, `torture`, `masim`, `damon-record` and `monitor`, one module
//! each. Each takes plain options and the writers it prints to, and returns
//! a [`ToolError`] that keeps what the CLI's exit codes need: a host
//! failure's kind ([`ToolError::host_kind`]) and `masim`'s failed
//! verification ([`ToolError::Corrupted`]). Signals stay with the binary: a
//! command that runs until stopped reads a flag the binary's handlers set.

pub mod damon_record;
pub mod masim;
pub mod monitor;
pub mod probe;
pub mod torture;

pub use masim::MasimCorrupted;
pub use thermocline_backend::HostKind;
use thermocline_live::LiveError;

/// Why a live command failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// A mistake in the input the flags' parser cannot see (a flag that
    /// needs another, a file that cannot be read).
    #[error("{0}")]
    Input(String),
    /// The host failed while doing what `doing` says.
    #[error("{doing}")]
    Host {
        /// What was being done, e.g. "probing this host".
        doing: String,
        /// The host's error.
        #[source]
        source: LiveError,
    },
    /// `masim`'s config did not parse, or its run failed.
    #[error(transparent)]
    Masim(Box<dyn std::error::Error + Send + Sync>),
    /// `masim`'s memory failed verification (the memory, not the input, is
    /// wrong).
    #[error(transparent)]
    Corrupted(#[from] MasimCorrupted),
    /// Writing the output failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Serializing the output failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl ToolError {
    /// The host's error under what was being done.
    pub(crate) fn host(doing: impl Into<String>) -> impl FnOnce(LiveError) -> ToolError {
        let doing = doing.into();
        move |source| ToolError::Host { doing, source }
    }

    /// The kind of host failure this is, if it is one.
    pub fn host_kind(&self) -> Option<HostKind> {
        match self {
            ToolError::Host { source, .. } => source.host_kind(),
            _ => None,
        }
    }
}

/// The kind of host failure `e` is, if it is a live backend's error that is
/// one: for looking along an error's chain of sources.
pub fn live_host_kind(e: &(dyn std::error::Error + 'static)) -> Option<HostKind> {
    e.downcast_ref::<LiveError>().and_then(LiveError::host_kind)
}
