//! Splitting and collapsing another process's transparent huge pages on
//! purpose (the backend's `split_huge` and `collapse_huge`).
//!
//! - **Split**: debugfs's `split_huge_pages`, written
//!   `PID,0xSTART,0xEND` (Documentation/admin-guide/mm/transhuge.rst,
//!   "Debugfs"): splits every THP mapped in the range. Needs root, a kernel
//!   with CONFIG_DEBUG_FS, and debugfs mounted on /sys/kernel/debug.
//! - **Collapse**: `process_madvise(MADV_COLLAPSE)` (Linux >= 6.1), which
//!   on another process needs CAP_SYS_NICE; the kernel collapses the 2 MiB
//!   range in place, synchronously, when its pages allow it.

use crate::sys;
use std::io::Write;
use std::os::fd::OwnedFd;

/// debugfs's split file.
pub const SPLIT_FILE: &str = "/sys/kernel/debug/split_huge_pages";

/// `madvise` advice: collapse into THPs (linux/mman.h, Linux >= 6.1).
pub const MADV_COLLAPSE: i32 = 25;

/// What one split request says (the kernel parses `%d,0x%lx,0x%lx`).
pub fn split_request(pid: i32, start: u64, end: u64) -> String {
    format!("{pid},{start:#x},{end:#x}")
}

/// Splits the THPs of process `pid` in `[start, end)`.
pub fn split(pid: i32, start: u64, end: u64) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).open(SPLIT_FILE)?;
    // one write: the kernel parses one request per write
    f.write_all(split_request(pid, start, end).as_bytes())
}

/// Collapses `[start, start + len)` of the process behind `pidfd` into THPs.
pub fn collapse(pidfd: &OwnedFd, start: u64, len: u64) -> std::io::Result<()> {
    sys::process_madvise(pidfd, &[(start, len)], MADV_COLLAPSE).map(|_| ())
}

/// Whether both work on the process behind `pidfd`: an empty collapse
/// of it (the kernel checks the advice and CAP_SYS_NICE before it looks
/// at the range) and a split of this process's second page, which is
/// never mapped (so it touches nothing, but needs the file and root).
/// The error says which does not, and why.
pub fn probe(pidfd: Option<&OwnedFd>) -> Result<(), String> {
    let fd = pidfd.ok_or("no pidfd for process_madvise")?;
    collapse(fd, 0, 0).map_err(|e| format!("process_madvise(MADV_COLLAPSE): {e}"))?;
    let me = std::process::id() as i32;
    split(me, sys::PAGE, 2 * sys::PAGE).map_err(|e| format!("{SPLIT_FILE}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_request_is_what_the_kernel_parses() {
        assert_eq!(
            split_request(42, 0x7f00_0020_0000, 0x7f00_0040_0000),
            "42,0x7f0000200000,0x7f0000400000"
        );
        assert_eq!(split_request(1, 0, 0), "1,0x0,0x0");
    }

    #[test]
    fn probing_answers_either_way() {
        // on this host it may or may not work (root, debugfs, kernel): it
        // must answer, not fail
        let fd = sys::pidfd_open(std::process::id() as i32).ok();
        let _ = probe(fd.as_ref());
    }
}
