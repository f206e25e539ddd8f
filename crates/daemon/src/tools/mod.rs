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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn input_mistakes_are_said_before_the_host_is_touched() {
        let mut out = Vec::new();
        let o = probe::ProbeOptions {
            pid: None,
            ranges: vec![(0x1000, 0x2000)],
            json: false,
        };
        let e = probe::probe(&o, &mut out).unwrap_err();
        assert_eq!(e.to_string(), "--range needs --pid");
        assert_eq!(e.host_kind(), None);
        let o = monitor::MonitorOptions {
            pid: 0,
            interval: 1.0,
            once: true,
            json: false,
            writes: false,
            bin: None,
            no_damon: true,
            terminal: false,
        };
        let e = monitor::monitor(&o, &AtomicBool::new(false), &mut out, &mut Vec::new());
        assert_eq!(
            e.unwrap_err().to_string(),
            "--pid must be a process id (> 0), got 0"
        );
        assert!(out.is_empty());
    }

    #[test]
    fn a_host_failure_keeps_its_kind_and_says_what_was_being_done() {
        let e = ToolError::host("torturing process 7")(LiveError::Exited { pid: 7 });
        assert_eq!(e.host_kind(), Some(HostKind::TargetGone));
        assert_eq!(e.to_string(), "torturing process 7");
        let source = std::error::Error::source(&e).expect("the live error");
        assert_eq!(live_host_kind(source), Some(HostKind::TargetGone));
    }

    #[test]
    fn an_unreadable_masim_config_is_an_input_mistake_naming_the_file() {
        let o = masim::MasimOptions {
            config: "/nonexistent/x.cfg".into(),
            seed: 1,
            loops: 1,
            size_scale: 1.0,
            time_scale: 1.0,
            ready: None,
            report: None,
        };
        let e = masim::masim(&o, &mut Vec::new(), &mut Vec::new()).unwrap_err();
        assert!(matches!(e, ToolError::Input(_)), "{e:?}");
        assert!(e
            .to_string()
            .starts_with("/nonexistent/x.cfg: cannot read: "));
    }
}
