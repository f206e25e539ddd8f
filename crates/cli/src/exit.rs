//! How `thermocline` ends on an error: one line on stderr and an exit code
//! that says whose the failure is (the codes are listed under `thermocline
//! --help` and in docs/exit-codes.md).

use thermocline_backend::HostKind;
use thermocline_daemon::tools::{self, ToolError};
use thermocline_engine::RunError;

/// A failure of thermocline itself (a bug; the message says how to
/// reproduce it), or `reproduce --check` claims that do not hold.
pub const INTERNAL: i32 = 1;
/// A usage or input mistake: a flag, a name, a config, a file.
pub const USAGE: i32 = 2;
/// `masim`'s memory failed verification.
pub const MASIM_CORRUPTED: i32 = 3;
/// The host refused for lack of privilege (EPERM, EACCES).
pub const PERMISSION: i32 = 4;
/// The kernel lacks a feature (ENOSYS, a missing sysfs or procfs knob).
pub const MISSING_FEATURE: i32 = 5;
/// The target process exited, or never existed (ESRCH).
pub const TARGET_GONE: i32 = 6;
/// The host is out of memory (ENOMEM).
pub const OUT_OF_MEMORY: i32 = 7;

/// The exit codes, for `thermocline --help`.
pub const CODES: &str = "Exit codes:
  0    done
  1    internal error (a bug in thermocline: the message says how to reproduce it); reproduce --check: claims that do not hold; daemon: reading its targets failed
  2    a usage or input mistake (a flag, a name, a config, a file): the message names it
  3    masim: its memory failed verification
  4    the host refused for lack of privilege (EPERM, EACCES): run as root, or grant CAP_SYS_ADMIN and CAP_SYS_NICE (and ptrace access to the target)
  5    the kernel lacks a feature (ENOSYS, a missing /sys or /proc/sys knob): enable its CONFIG_ option or load its module (see `thermocline probe`)
  6    the target process exited, or never existed (ESRCH)
  7    the host is out of memory (ENOMEM): free memory
  130  stopped by SIGINT
daemon and exec end with the exit code of the command they started when it failed.";

/// The exit code of a host failure of `kind`.
pub fn host_code(kind: HostKind) -> i32 {
    match kind {
        HostKind::Permission => PERMISSION,
        HostKind::MissingFeature => MISSING_FEATURE,
        HostKind::TargetGone => TARGET_GONE,
        HostKind::OutOfMemory => OUT_OF_MEMORY,
    }
}

/// Says what `e` is on stderr, in one line, and returns the exit code it
/// calls for.
pub fn report(e: &anyhow::Error) -> i32 {
    if let Some(n) = e.downcast_ref::<crate::cmd::reproduce::ClaimsNotHeld>() {
        eprintln!("{n}");
        return INTERNAL;
    }
    if let Some(ToolError::Corrupted(c)) = e.downcast_ref::<ToolError>() {
        eprintln!("{c}");
        return MASIM_CORRUPTED;
    }
    if let Some(kind) = e.downcast_ref::<RunError>().and_then(RunError::host_kind) {
        // the message says what to do already
        eprintln!("error: {e:#}");
        return host_code(kind);
    }
    // a live command's own error (probe, torture, monitor...), under its
    // context
    if let Some(kind) = e.chain().find_map(tools::live_host_kind) {
        eprintln!("error: {e:#}; {}", kind.advice());
        return host_code(kind);
    }
    let code = e
        .downcast_ref::<RunError>()
        .map_or(USAGE, RunError::exit_code);
    if code == INTERNAL {
        eprintln!("{e:#}");
    } else {
        eprintln!("error: {e:#}");
    }
    code
}
