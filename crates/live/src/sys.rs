//! The system calls libc does not wrap safely, wrapped once: `move_pages`,
//! `pidfd_open`, `process_madvise`, the `PAGEMAP_SCAN` ioctl and `sysconf`.
//! Every `unsafe` of the project is in this crate, each block with a
//! `// SAFETY:` comment; callers get safe functions that return
//! `std::io::Error` with the errno.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// The base page size.
pub const PAGE: u64 = 4096;

/// `move_pages` flag: move pages mapped only by this process.
pub const MPOL_MF_MOVE: i32 = 1 << 1;

/// The base page size the kernel reports (4 KiB on x86-64).
pub fn page_size() -> u64 {
    // SAFETY: sysconf only reads a constant of the running system.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as u64
    } else {
        PAGE
    }
}

/// Linux's `move_pages(2)` on process `pid` (0: this process). With
/// `nodes`, moves `pages[i]` to `nodes[i]`; without, only reads where each
/// page is. `status[i]` gets the node a page ends on, or a negative errno
/// (-EFAULT/-ENOENT: not present, -EBUSY, -ENOMEM, -EACCES...). Returns the
/// number of pages the kernel did not move.
pub fn move_pages(
    pid: i32,
    pages: &[u64],
    nodes: Option<&[i32]>,
    status: &mut [i32],
    flags: i32,
) -> io::Result<usize> {
    assert_eq!(pages.len(), status.len(), "one status per page");
    if let Some(n) = nodes {
        assert_eq!(n.len(), pages.len(), "one node per page");
    }
    if pages.is_empty() {
        return Ok(0);
    }
    let node_ptr = nodes.map_or(std::ptr::null(), |n| n.as_ptr());
    // SAFETY: the kernel reads `pages.len()` addresses from `pages` (u64 is
    // the size of a pointer on the 64-bit targets this crate builds for) and
    // as many ints from `nodes` when it is not null, and writes as many ints
    // into `status`; all three slices have that length (asserted above). The
    // addresses are only looked up in the target's page tables, never
    // dereferenced in this process.
    let r = unsafe {
        libc::syscall(
            libc::SYS_move_pages,
            pid,
            pages.len() as libc::c_ulong,
            pages.as_ptr(),
            node_ptr,
            status.as_mut_ptr(),
            flags,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// A pidfd for process `pid` (Linux >= 5.3).
pub fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just created this fd for us and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Most ranges one `process_madvise` call takes (the kernel's UIO_MAXIOV).
pub const MAX_IOV: usize = 1024;

/// `process_madvise(2)` (Linux >= 5.10): gives `advice` (MADV_COLD,
/// MADV_PAGEOUT) for the `(start, len)` ranges of the process behind
/// `pidfd`. Returns the bytes advised; the kernel stops at the first range
/// it cannot advise.
pub fn process_madvise(pidfd: &OwnedFd, ranges: &[(u64, u64)], advice: i32) -> io::Result<u64> {
    let mut done = 0u64;
    for chunk in ranges.chunks(MAX_IOV) {
        let iov: Vec<libc::iovec> = chunk
            .iter()
            .map(|&(start, len)| libc::iovec {
                iov_base: start as *mut libc::c_void,
                iov_len: len as usize,
            })
            .collect();
        // SAFETY: `iov` holds `iov.len()` valid iovec structs that live until
        // the call returns; the kernel reads them and interprets their bases
        // as addresses in the target process, never in ours.
        let r = unsafe {
            libc::syscall(
                libc::SYS_process_madvise,
                pidfd.as_raw_fd(),
                iov.as_ptr(),
                iov.len(),
                advice,
                0u32,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        done += r as u64;
    }
    Ok(done)
}

/// Sends SIGTERM to process `pid` (a process the caller started).
pub fn terminate(pid: i32) -> io::Result<()> {
    signal(pid, libc::SIGTERM)
}

/// Sends signal `sig` to process `pid` (a process the caller started and
/// has not reaped yet, so that the pid cannot name another process).
pub fn signal(pid: i32, sig: i32) -> io::Result<()> {
    if pid <= 0 {
        // 0 and negative pids name process groups: never meant here
        return Err(io::Error::from_raw_os_error(libc::ESRCH));
    }
    // SAFETY: kill takes plain integers; it touches no memory of ours.
    let r = unsafe { libc::kill(pid, sig) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// A clock's reading in ns, `None` if the kernel refused.
fn clock_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into `ts`, which lives
    // across the call.
    let r = unsafe { libc::clock_gettime(clock, &mut ts) };
    (r == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// CPU time this process has used, in ns (what the daemon reports as
/// its own cost).
pub fn process_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID).unwrap_or(0)
}

/// CLOCK_MONOTONIC in seconds: a clock every process of the host reads
/// alike (and the trace clock `mono`), to line up what separate processes
/// timed (masim's phases, damon-record's snapshots, DAMON's trace events).
pub fn monotonic_s() -> f64 {
    clock_ns(libc::CLOCK_MONOTONIC).map_or(0.0, |ns| ns as f64 / 1e9)
}

/// `PAGEMAP_SCAN`'s page categories (linux/fs.h, Linux >= 6.7).
pub mod scan {
    /// Written since write-protection was set (userfaultfd async WP).
    /// Not usable on another process: the kernel tracks it only in ranges
    /// registered with UFFDIO_REGISTER_MODE_WP on a userfaultfd that has
    /// UFFD_FEATURE_WP_ASYNC (Documentation/admin-guide/mm/pagemap.rst,
    /// "PAGEMAP_SCAN"), and a userfaultfd registers ranges of the address
    /// space of the process that created it: the target itself would have
    /// to. Outside such ranges kernels before the narrowing to
    /// VM_UFFD_WP VMAs report it on every present page.
    pub const PAGE_IS_WRITTEN: u64 = 1 << 1;
    /// Present in memory.
    pub const PAGE_IS_PRESENT: u64 = 1 << 3;
    /// Swapped out.
    pub const PAGE_IS_SWAPPED: u64 = 1 << 4;
    /// Mapped by a PMD: a transparent huge page (or hugetlb).
    pub const PAGE_IS_HUGE: u64 = 1 << 6;
    /// Soft-dirty.
    pub const PAGE_IS_SOFT_DIRTY: u64 = 1 << 7;
}

#[repr(C)]
struct PmScanArg {
    size: u64,
    flags: u64,
    start: u64,
    end: u64,
    walk_end: u64,
    vec: u64,
    vec_len: u64,
    max_pages: u64,
    category_inverted: u64,
    category_mask: u64,
    category_anyof_mask: u64,
    return_mask: u64,
}

/// `_IOWR('f', 16, struct pm_scan_arg)`.
const PAGEMAP_SCAN: libc::c_ulong = (3 << 30) | ((96 as libc::c_ulong) << 16) | (0x66 << 8) | 16;

/// One run of pages with the same categories, as `PAGEMAP_SCAN` returns it
/// (the kernel's `struct page_region`, which the ioctl writes in place).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanRun {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// The categories of [`scan`] the pages have (of those asked for).
    pub categories: u64,
}

/// The `PAGEMAP_SCAN` ioctl on an open `/proc/PID/pagemap`: the runs of
/// pages in `[start, end)` that have any of `anyof` and report the
/// categories of `returned`, at most `out_cap` of them, written into `out`
/// (its allocation is reused: no allocation once it has grown to
/// `out_cap`). Returns where the walk ended (before `end` when `out_cap`
/// runs were filled). ENOTTY: the kernel has no PAGEMAP_SCAN.
pub fn pagemap_scan_into(
    pagemap: &File,
    start: u64,
    end: u64,
    anyof: u64,
    returned: u64,
    out_cap: usize,
    out: &mut Vec<ScanRun>,
) -> io::Result<u64> {
    out.clear();
    out.resize(out_cap.max(1), ScanRun::default());
    let mut arg = PmScanArg {
        size: std::mem::size_of::<PmScanArg>() as u64,
        flags: 0,
        start,
        end,
        walk_end: 0,
        vec: out.as_mut_ptr() as u64,
        vec_len: out.len() as u64,
        max_pages: 0,
        category_inverted: 0,
        category_mask: 0,
        category_anyof_mask: anyof,
        return_mask: returned,
    };
    // SAFETY: `arg` is a pm_scan_arg of the size it declares; `vec` points
    // to `vec_len` initialised ScanRun structs (repr(C): the kernel's
    // page_region, three u64s) that `out` owns and that outlive the call.
    // The kernel writes at most vec_len of them, and walk_end in `arg`.
    let r = unsafe { libc::ioctl(pagemap.as_raw_fd(), PAGEMAP_SCAN as _, &mut arg) };
    if r < 0 {
        out.clear();
        return Err(io::Error::last_os_error());
    }
    out.truncate(r as usize);
    Ok(arg.walk_end)
}

/// [`pagemap_scan_into`] into a new vector: the runs and where the walk
/// ended.
pub fn pagemap_scan(
    pagemap: &File,
    start: u64,
    end: u64,
    anyof: u64,
    returned: u64,
    out_cap: usize,
) -> io::Result<(Vec<ScanRun>, u64)> {
    let mut out = Vec::new();
    let walk_end = pagemap_scan_into(pagemap, start, end, anyof, returned, out_cap, &mut out)?;
    Ok((out, walk_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_argument_has_the_kernels_layout() {
        assert_eq!(std::mem::size_of::<PmScanArg>(), 96);
        assert_eq!(std::mem::size_of::<ScanRun>(), 24);
        // _IOWR('f', 16, struct pm_scan_arg) as linux/fs.h defines it
        assert_eq!(PAGEMAP_SCAN, 0xc060_6610);
    }

    #[test]
    fn reading_where_own_pages_are_answers_a_node_or_not_present() {
        let v = vec![7u8; 3 * PAGE as usize];
        let base = (v.as_ptr() as u64).div_ceil(PAGE) * PAGE;
        let mut st = [i32::MIN; 1];
        match move_pages(0, &[base], None, &mut st, 0) {
            Ok(_) => assert!(st[0] >= 0 || st[0] == -libc::ENOENT, "{}", st[0]),
            // a host without NUMA support answers ENOSYS
            Err(e) => assert_eq!(e.raw_os_error(), Some(libc::ENOSYS)),
        }
    }
}
