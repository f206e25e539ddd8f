//! Typed errors of the live backend: errno becomes a variant that says what
//! the caller can do about it.

use std::path::PathBuf;

pub use thermocline_backend::HostKind;

/// The kind an errno calls for when the call or path `what` failed with
/// it, if it is a host failure: ENOENT only for a kernel knob (a path
/// under /sys or /proc/sys) or a process's /proc directory.
pub fn host_kind_of_errno(errno: i32, what: &str) -> Option<HostKind> {
    match errno {
        libc::EPERM | libc::EACCES => Some(HostKind::Permission),
        libc::ENOSYS | libc::EOPNOTSUPP => Some(HostKind::MissingFeature),
        libc::ENOENT if what.starts_with("/sys/") || what.starts_with("/proc/sys/") => {
            Some(HostKind::MissingFeature)
        }
        libc::ENOENT if is_proc_pid(what) => Some(HostKind::TargetGone),
        libc::ESRCH => Some(HostKind::TargetGone),
        libc::ENOMEM => Some(HostKind::OutOfMemory),
        _ => None,
    }
}

/// Whether `path` is under a process's /proc directory (`/proc/123/...`).
fn is_proc_pid(path: &str) -> bool {
    path.strip_prefix("/proc/")
        .and_then(|rest| rest.split('/').next())
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

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
    /// The kind of host failure this is, if it is one (not a value the
    /// caller gave, a busy resource or a kernel file that did not parse).
    pub fn host_kind(&self) -> Option<HostKind> {
        match self {
            LiveError::Exited { .. } => Some(HostKind::TargetGone),
            LiveError::Permission { .. } => Some(HostKind::Permission),
            LiveError::Unsupported { .. } => Some(HostKind::MissingFeature),
            LiveError::Io { what, source } => source
                .raw_os_error()
                .and_then(|errno| host_kind_of_errno(errno, what)),
            LiveError::Busy(_) | LiveError::Invalid(_) | LiveError::Parse { .. } => None,
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    fn io(errno: i32) -> std::io::Error {
        std::io::Error::from_raw_os_error(errno)
    }

    #[test]
    fn errnos_are_classified_by_what_the_host_refused_or_lacks() {
        let k = |errno, what| host_kind_of_errno(errno, what);
        assert_eq!(k(libc::EPERM, "move_pages"), Some(HostKind::Permission));
        assert_eq!(
            k(libc::EACCES, "/proc/1/pagemap"),
            Some(HostKind::Permission)
        );
        assert_eq!(
            k(libc::ENOSYS, "process_madvise"),
            Some(HostKind::MissingFeature)
        );
        assert_eq!(
            k(libc::EOPNOTSUPP, "pagemap scan"),
            Some(HostKind::MissingFeature)
        );
        assert_eq!(
            k(
                libc::ENOENT,
                "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
            ),
            Some(HostKind::MissingFeature)
        );
        assert_eq!(
            k(libc::ENOENT, "/proc/sys/kernel/numa_balancing"),
            Some(HostKind::MissingFeature)
        );
        assert_eq!(
            k(libc::ENOENT, "/proc/4242/smaps"),
            Some(HostKind::TargetGone)
        );
        assert_eq!(k(libc::ESRCH, "kill"), Some(HostKind::TargetGone));
        assert_eq!(k(libc::ENOMEM, "mbind"), Some(HostKind::OutOfMemory));
        // a file the user named, a value the kernel refused: not the host's
        assert_eq!(k(libc::ENOENT, "/tmp/config.toml"), None);
        assert_eq!(k(libc::EINVAL, "move_pages"), None);
        assert_eq!(k(libc::EBUSY, "/sys/kernel/mm/damon"), None);
    }

    #[test]
    fn typed_errors_keep_their_kind() {
        let e = LiveError::io("/proc/1/smaps", io(libc::EACCES), Some(1));
        assert_eq!(e.host_kind(), Some(HostKind::Permission));
        let e = LiveError::io("process_vm_readv", io(libc::ESRCH), Some(7));
        assert!(matches!(e, LiveError::Exited { pid: 7 }));
        assert_eq!(e.host_kind(), Some(HostKind::TargetGone));
        let e = LiveError::io("move_pages", io(libc::ENOMEM), Some(7));
        assert_eq!(e.host_kind(), Some(HostKind::OutOfMemory));
        let e = LiveError::io(
            "/sys/kernel/mm/numa/demotion_enabled",
            io(libc::ENOENT),
            None,
        );
        assert_eq!(e.host_kind(), Some(HostKind::MissingFeature));
        let e = LiveError::Unsupported {
            feature: "damon",
            why: "no /sys/kernel/mm/damon".into(),
        };
        assert_eq!(e.host_kind(), Some(HostKind::MissingFeature));
        assert_eq!(LiveError::Invalid("bad".into()).host_kind(), None);
        assert_eq!(LiveError::Busy("kdamonds".into()).host_kind(), None);
    }
}
