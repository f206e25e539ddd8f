//! Typed errors of the live backend: errno becomes a variant that says what
//! the caller can do about it.

use std::path::PathBuf;

/// What went wrong on the live host.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The process is gone (ESRCH, or its /proc directory vanished).
    #[error("no process {pid} (it has exited, or never existed)")]
    Exited {
        /// Its pid.
        pid: i32,
    },
    /// The kernel refused for lack of privilege (EPERM, EACCES).
    #[error("{what}: permission denied ({need})")]
    Permission {
        /// What was refused.
        what: String,
        /// The privilege it needs.
        need: &'static str,
    },
    /// The kernel lacks a feature this needs.
    #[error("{feature} is not available on this kernel: {why}")]
    Unsupported {
        /// The feature, as `thermocline probe` names it.
        feature: &'static str,
        /// What was looked for.
        why: String,
    },
    /// Something else holds a resource this would have to take over (another
    /// user's kdamonds, say).
    #[error("{0}")]
    Busy(String),
    /// A value the caller gave that the kernel would refuse.
    #[error("{0}")]
    Invalid(String),
    /// A file of the kernel's did not read as expected.
    #[error("{path}:{line}: {why}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Its line (1-based).
        line: usize,
        /// What was wrong.
        why: String,
    },
    /// Any other system error, with the call or path that failed.
    #[error("{what}: {source}")]
    Io {
        /// The call or path.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

impl LiveError {
    /// An I/O error on `what`, typed by its errno.
    pub fn io(what: impl Into<String>, source: std::io::Error, pid: Option<i32>) -> Self {
        let what = what.into();
        match (source.raw_os_error(), pid) {
            (Some(libc::ESRCH), Some(pid)) => LiveError::Exited { pid },
            (Some(libc::ENOENT), Some(pid)) if what.starts_with("/proc/") => {
                LiveError::Exited { pid }
            }
            (Some(libc::EPERM) | Some(libc::EACCES), _) => LiveError::Permission {
                what,
                need: "root, or CAP_SYS_NICE and ptrace access to the target (see README, Live)",
            },
            _ => LiveError::Io { what, source },
        }
    }
}
