//! What the live backend knows of each page of its targets, read from the
//! kernel when a manager asks about them: present on which node, swapped,
//! soft-dirty.

use crate::pagemap::{Entry, Pagemap};
use crate::procfs::Mapping;
use crate::sys::{self, PAGE};
use crate::LiveError;

/// One page's state in a byte: bit 7 soft-dirty, bit 6 swapped, bits 0-5
/// the node (63: neither present nor swapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageState(pub u8);

const DIRTY: u8 = 0x80;
const SWAPPED: u8 = 0x40;
const NO_NODE: u8 = 0x3f;

impl PageState {
    /// Neither present nor swapped (never touched, or freed).
    pub const NONE: PageState = PageState(NO_NODE);

    /// Present on `node`.
    pub fn on(node: i32, dirty: bool) -> Self {
        PageState((node.clamp(0, 62) as u8) | if dirty { DIRTY } else { 0 })
    }

    /// Swapped out.
    pub fn swapped_out(dirty: bool) -> Self {
        PageState(SWAPPED | NO_NODE | if dirty { DIRTY } else { 0 })
    }

    /// The node it is on, if present.
    pub fn node(self) -> Option<i32> {
        (self.0 & SWAPPED == 0 && self.0 & NO_NODE != NO_NODE).then_some((self.0 & NO_NODE) as i32)
    }

    /// Swapped out (to zram or another swap device).
    pub fn swapped(self) -> bool {
        self.0 & SWAPPED != 0
    }

    /// Soft-dirty.
    pub fn dirty(self) -> bool {
        self.0 & DIRTY != 0
    }
}

/// The frame-to-node map, read once (memory hot-plug after the start is
/// not seen; move_pages answers for frames it does not hold).
fn frame_nodes() -> &'static crate::numa::FrameNodes {
    static MAP: std::sync::OnceLock<crate::numa::FrameNodes> = std::sync::OnceLock::new();
    MAP.get_or_init(crate::numa::FrameNodes::read)
}

/// Pages read per pagemap read and per move_pages query.
const CHUNK: usize = 8192;

/// Runs one PAGEMAP_SCAN call returns at most.
const RUNS: usize = 1024;

/// What PAGEMAP_SCAN is asked for: pages present or swapped, with their
/// soft-dirty bit and whether a PMD maps them (a THP).
const SCAN_ANY: u64 = sys::scan::PAGE_IS_PRESENT | sys::scan::PAGE_IS_SWAPPED;
const SCAN_RETURN: u64 = SCAN_ANY | sys::scan::PAGE_IS_SOFT_DIRTY | sys::scan::PAGE_IS_HUGE;

/// Reads the states of a process's pages. Its buffers are reused, so a
/// read allocates nothing once they have grown.
///
/// Where the kernel has PAGEMAP_SCAN (Linux >= 6.7), one ioctl returns the
/// runs of present and swapped pages with their soft-dirty bit, so absent
/// pages and long runs cost nothing per page in userspace; without it, one
/// pagemap entry (8 bytes) is read per page. A present page's node is then
/// the host's only node when it has one (nothing more is read), else its
/// frame's node when PFNs are visible (CAP_SYS_ADMIN: its pagemap entry),
/// else move_pages' answer.
#[derive(Debug)]
pub struct Reader {
    /// Whether PAGEMAP_SCAN works (None: not tried yet).
    scan: Option<bool>,
    /// The only NUMA node with memory, when the host has one.
    single_node: Option<i32>,
    runs: Vec<sys::ScanRun>,
    entries: Vec<Entry>,
    present: Vec<u64>,
    present_idx: Vec<usize>,
    status: Vec<i32>,
}

impl Reader {
    /// A reader; `single_node`: the host's only node with memory, if it
    /// has one. `scan`: false to read pagemap entries only (as on kernels
    /// without PAGEMAP_SCAN).
    pub fn new(single_node: Option<i32>, scan: bool) -> Self {
        Reader {
            scan: if scan { None } else { Some(false) },
            single_node,
            runs: Vec::new(),
            entries: Vec::new(),
            present: Vec::new(),
            present_idx: Vec::new(),
            status: Vec::new(),
        }
    }

    /// A reader for this host: its only node if it has one (numa::nodes).
    pub fn for_host() -> Self {
        let nodes = crate::numa::nodes().unwrap_or_default();
        let single = (nodes.len() == 1).then(|| nodes[0].id);
        Reader::new(single, true)
    }

    /// Whether reads use PAGEMAP_SCAN (after the first read).
    pub fn uses_scan(&self) -> bool {
        self.scan == Some(true)
    }

    /// The states of the pages of `[start, start + out.len() pages)` of
    /// process `pid`. A process that is gone (or exiting) reads as nothing
    /// mapped.
    pub fn read(
        &mut self,
        pid: i32,
        pagemap: &Pagemap,
        start: u64,
        out: &mut [PageState],
    ) -> Result<(), LiveError> {
        out.fill(PageState::NONE);
        if self.scan != Some(false) {
            match self.read_scan(pid, pagemap, start, out) {
                Ok(()) => {
                    self.scan = Some(true);
                    return Ok(());
                }
                Err(LiveError::Io { source, .. })
                    if self.scan.is_none()
                        && matches!(
                            source.raw_os_error(),
                            Some(libc::ENOTTY) | Some(libc::EINVAL)
                        ) =>
                {
                    self.scan = Some(false);
                }
                Err(LiveError::Exited { .. }) => {
                    out.fill(PageState::NONE);
                    return Ok(());
                }
                // anything else (a process exiting under the ioctl, say):
                // the pagemap's own answer, for this read
                Err(_) => {}
            }
            out.fill(PageState::NONE);
        }
        match self.read_entries(pid, pagemap, start, out) {
            Err(LiveError::Exited { .. }) => {
                out.fill(PageState::NONE);
                Ok(())
            }
            r => r,
        }
    }

    fn read_scan(
        &mut self,
        pid: i32,
        pagemap: &Pagemap,
        start: u64,
        out: &mut [PageState],
    ) -> Result<(), LiveError> {
        // the run buffer is lent out: read_entries borrows self meanwhile
        let mut runs = std::mem::take(&mut self.runs);
        let result = self.scan_runs(pid, pagemap, start, &mut runs, out);
        self.runs = runs;
        result
    }

    fn scan_runs(
        &mut self,
        pid: i32,
        pagemap: &Pagemap,
        start: u64,
        runs: &mut Vec<sys::ScanRun>,
        out: &mut [PageState],
    ) -> Result<(), LiveError> {
        let end = start + out.len() as u64 * PAGE;
        let mut pos = start;
        while pos < end {
            let walk_end =
                sys::pagemap_scan_into(pagemap.file(), pos, end, SCAN_ANY, SCAN_RETURN, RUNS, runs)
                    .map_err(|e| {
                        LiveError::io(format!("/proc/{pid}/pagemap (PAGEMAP_SCAN)"), e, Some(pid))
                    })?;
            for r in runs.iter() {
                let a = ((r.start.max(start) - start) / PAGE) as usize;
                let b = ((r.end.min(end) - start) / PAGE) as usize;
                let dirty = r.categories & sys::scan::PAGE_IS_SOFT_DIRTY != 0;
                if r.categories & sys::scan::PAGE_IS_PRESENT != 0 {
                    match self.single_node {
                        Some(n) => out[a..b].fill(PageState::on(n, dirty)),
                        // each page's node, from its entry (or move_pages)
                        None => self.read_entries(
                            pid,
                            pagemap,
                            start + a as u64 * PAGE,
                            &mut out[a..b],
                        )?,
                    }
                } else if r.categories & sys::scan::PAGE_IS_SWAPPED != 0 {
                    out[a..b].fill(PageState::swapped_out(dirty));
                }
            }
            if runs.len() < RUNS || walk_end <= pos {
                break;
            }
            pos = walk_end;
        }
        Ok(())
    }

    /// Reads one pagemap entry per page (and, for present pages off a
    /// single-node host, their node).
    fn read_entries(
        &mut self,
        pid: i32,
        pagemap: &Pagemap,
        start: u64,
        out: &mut [PageState],
    ) -> Result<(), LiveError> {
        let n = out.len();
        if self.entries.len() < CHUNK.min(n) {
            self.entries.resize(CHUNK.min(n), Entry::default());
        }
        for first in (0..n).step_by(CHUNK) {
            let count = CHUNK.min(n - first);
            let e = &mut self.entries[..count];
            pagemap.read(start + first as u64 * PAGE, e)?;
            self.present.clear();
            self.present_idx.clear();
            for (i, e) in e.iter().enumerate() {
                if e.present() {
                    if let Some(node) = self.single_node {
                        out[first + i] = PageState::on(node, e.soft_dirty());
                        continue;
                    }
                    self.present.push(start + (first + i) as u64 * PAGE);
                    self.present_idx.push(first + i);
                } else if e.swapped() {
                    out[first + i] = PageState::swapped_out(e.soft_dirty());
                } else {
                    out[first + i] = PageState::NONE;
                }
            }
            if self.present.is_empty() {
                continue;
            }
            self.status.clear();
            self.status.resize(self.present.len(), 0);
            // With PFNs visible (CAP_SYS_ADMIN) a frame's node is a lookup in
            // the memory blocks' map; move_pages asks the kernel page by page
            // and costs far more (README, Live, Cost).
            let mut by_frame = true;
            for (k, &i) in self.present_idx.iter().enumerate() {
                match e[i - first].pfn().and_then(|p| frame_nodes().node(p)) {
                    Some(node) => self.status[k] = node,
                    None => {
                        by_frame = false;
                        break;
                    }
                }
            }
            if !by_frame {
                match sys::move_pages(pid, &self.present, None, &mut self.status, 0) {
                    Ok(_) => {}
                    // a kernel without NUMA: every page is on node 0
                    Err(err) if err.raw_os_error() == Some(libc::ENOSYS) => self.status.fill(0),
                    Err(err) => return Err(LiveError::io("move_pages (query)", err, Some(pid))),
                }
            }
            for (k, &i) in self.present_idx.iter().enumerate() {
                let dirty = e[i - first].soft_dirty();
                out[i] = if self.status[k] >= 0 {
                    PageState::on(self.status[k], dirty)
                } else {
                    // freed between the two reads
                    PageState::NONE
                };
            }
        }
        Ok(())
    }
}

/// Reads the state of every page of `m` (its present pages' nodes with
/// move_pages, which needs the same access as moving them).
pub fn read_mapping(
    pid: i32,
    pagemap: &Pagemap,
    m: &Mapping,
    out: &mut Vec<PageState>,
) -> Result<(), LiveError> {
    let n = (m.len() / PAGE) as usize;
    out.clear();
    out.resize(n, PageState::NONE);
    Reader::for_host().read(pid, pagemap, m.start, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip() {
        let p = PageState::on(1, true);
        assert_eq!(p.node(), Some(1));
        assert!(p.dirty() && !p.swapped());
        let s = PageState::swapped_out(false);
        assert!(s.swapped() && s.node().is_none() && !s.dirty());
        assert!(PageState::NONE.node().is_none() && !PageState::NONE.swapped());
    }

    #[test]
    fn scan_and_entries_read_the_same_states() {
        // a fresh allocation (above malloc's largest mmap threshold, so no
        // reused heap): its pages are not present until written
        let n = 96usize;
        let mut v = vec![0u8; 64 << 20];
        let base = (v.as_ptr() as u64).div_ceil(PAGE) * PAGE;
        let off = (base - v.as_ptr() as u64) as usize;
        for i in (0..n).filter(|i| i % 3 != 1) {
            v[off + i * PAGE as usize] = 1;
        }
        let pid = std::process::id() as i32;
        let pm = Pagemap::open(pid).unwrap();
        let read = |single: Option<i32>, scan: bool| {
            let mut out = vec![PageState(0); n];
            let mut r = Reader::new(single, scan);
            r.read(pid, &pm, base, &mut out).unwrap();
            out
        };
        let by_entries = read(None, false);
        for (i, s) in by_entries.iter().enumerate() {
            // (an untouched page may be present too, under a THP)
            assert!(i % 3 == 1 || s.node().is_some(), "page {i}: {s:?}");
        }
        assert_eq!(read(None, true), by_entries);
        let node = by_entries[0].node();
        // a single-node host: the node is known without asking
        let single = read(node, true);
        assert_eq!(single, by_entries);
        assert_eq!(read(node, false), by_entries);
        std::hint::black_box(&v);
    }

    #[test]
    fn own_heap_reads_as_present() {
        let v = vec![3u8; 64 * PAGE as usize];
        let start = (v.as_ptr() as u64).div_ceil(PAGE) * PAGE;
        let m = Mapping {
            start,
            end: start + 32 * PAGE,
            read: true,
            write: true,
            shared: false,
            path: String::new(),
        };
        let pid = std::process::id() as i32;
        let pm = Pagemap::open(pid).unwrap();
        let mut out = Vec::new();
        read_mapping(pid, &pm, &m, &mut out).unwrap();
        assert_eq!(out.len(), 32);
        assert!(out.iter().all(|s| s.node().is_some()), "{out:?}");
    }
}
