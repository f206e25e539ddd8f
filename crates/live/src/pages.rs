//! What the live backend knows of each page of its targets, read from the
//! kernel when a manager asks about them: present on which node, swapped,
//! soft-dirty.

use crate::pagemap::{Entry, Pagemap};
use crate::procfs::Mapping;
use crate::sys::{self, PAGE};
use crate::LiveError;

/// One page's state in a byte: bit 7 soft-dirty, bit 6 in a transparent
/// huge page (mapped by a PMD), bits 0-5 where it is: a node 0-61, 62
/// swapped, 63 neither present nor swapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageState(pub u8);

const DIRTY: u8 = 0x80;
const HUGE: u8 = 0x40;
const WHERE: u8 = 0x3f;
const SWAPPED: u8 = 62;
const NO_NODE: u8 = 63;

impl PageState {
    /// Neither present nor swapped (never touched, or freed).
    pub const NONE: PageState = PageState(NO_NODE);

    /// Present on `node` (0-61; a higher node reads as 61).
    pub fn on(node: i32, dirty: bool) -> Self {
        PageState((node.clamp(0, 61) as u8) | if dirty { DIRTY } else { 0 })
    }

    /// Swapped out.
    pub fn swapped_out(dirty: bool) -> Self {
        PageState(SWAPPED | if dirty { DIRTY } else { 0 })
    }

    /// The node it is on, if present.
    pub fn node(self) -> Option<i32> {
        (self.0 & WHERE < SWAPPED).then_some((self.0 & WHERE) as i32)
    }

    /// Swapped out (to zram or another swap device).
    pub fn swapped(self) -> bool {
        self.0 & WHERE == SWAPPED
    }

    /// Soft-dirty.
    pub fn dirty(self) -> bool {
        self.0 & DIRTY != 0
    }

    /// Part of a transparent huge page that a PMD maps (only ever set on a
    /// present page).
    pub fn huge(self) -> bool {
        self.0 & HUGE != 0 && self.node().is_some()
    }

    /// The same state, in a THP or not (a page not present is never).
    pub fn with_huge(self, huge: bool) -> Self {
        if huge && self.node().is_some() {
            PageState(self.0 | HUGE)
        } else {
            PageState(self.0 & !HUGE)
        }
    }
}

/// Pages of a 2 MiB THP.
pub const HUGE_PAGES: usize = 512;

/// Bytes of a THP.
pub const HUGE_BYTES: u64 = HUGE_PAGES as u64 * PAGE;

/// Whether THP detection is off because neither PAGEMAP_SCAN nor PFNs
/// (CAP_SYS_ADMIN, for /proc/kpageflags) are available: said once.
fn no_detection_once() {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "thermocline-live: transparent huge pages are not detected (no PAGEMAP_SCAN, and \
             PFNs are hidden without CAP_SYS_ADMIN): every page is tracked as 4 KiB"
        )
    });
}

/// KPF_THP in /proc/kpageflags (Documentation/admin-guide/mm/pagemap.rst).
const KPF_THP: u64 = 1 << 22;

/// Whether frame `pfn` is part of a THP, by /proc/kpageflags (root); None
/// when it cannot be read.
fn kpage_thp(pfn: u64) -> Option<bool> {
    use std::os::unix::fs::FileExt;
    static FILE: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();
    let f = FILE
        .get_or_init(|| std::fs::File::open("/proc/kpageflags").ok())
        .as_ref()?;
    let mut b = [0u8; 8];
    f.read_exact_at(&mut b, pfn * 8).ok()?;
    Some(u64::from_le_bytes(b) & KPF_THP != 0)
}

/// The 2 MiB-aligned runs of 512 pages in `[start, start + n pages)` that
/// are one THP by their pagemap entries: all present, on consecutive
/// frames from a 512-aligned one that `is_thp` says is a THP's (its
/// kpageflags: [`kpage_thp`]). Calls `mark` with the index of the first
/// page of each. Returns false when PFNs are hidden (no detection
/// possible).
fn thp_runs_by_frames(
    start: u64,
    entries: &[Entry],
    is_thp: impl Fn(u64) -> Option<bool>,
    mut mark: impl FnMut(usize),
) -> bool {
    let n = entries.len();
    let mut i = ((start.div_ceil(HUGE_BYTES) * HUGE_BYTES - start) / PAGE) as usize;
    let mut visible = true;
    while i + HUGE_PAGES <= n {
        let run = &entries[i..i + HUGE_PAGES];
        match run[0].pfn() {
            Some(p0) if p0 % HUGE_PAGES as u64 == 0 => {
                let contiguous = run
                    .iter()
                    .enumerate()
                    .all(|(k, e)| e.pfn() == Some(p0 + k as u64));
                if contiguous && is_thp(p0) == Some(true) {
                    mark(i);
                }
            }
            Some(_) => {}
            None if run[0].present() => visible = false,
            None => {}
        }
        i += HUGE_PAGES;
    }
    visible
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
    /// First pages of the THPs found in a window (reused).
    thp: Vec<usize>,
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
            thp: Vec::new(),
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
        match self.read_states(pid, pagemap, start, out) {
            Err(LiveError::Exited { .. }) => {
                out.fill(PageState::NONE);
                Ok(())
            }
            r => r,
        }
    }

    /// [`Reader::read`], with a process that is gone an error.
    fn read_states(
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
                // gone: no fallback (and the scan still undecided)
                Err(e @ LiveError::Exited { .. }) => return Err(e),
                // anything else (a process exiting under the ioctl, say):
                // the pagemap's own answer, for this read
                Err(_) => {}
            }
            out.fill(PageState::NONE);
        }
        self.read_entries(pid, pagemap, start, out)
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
                let huge = r.categories & sys::scan::PAGE_IS_HUGE != 0;
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
                    for s in &mut out[a..b] {
                        *s = s.with_huge(huge);
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
        // windows aligned to CHUNK pages, so that no THP straddles two
        let lead = (start / PAGE) as usize % CHUNK;
        let mut next = 0;
        while next < n {
            let first = next;
            let count = (CHUNK - (first + lead) % CHUNK).min(n - first);
            next += count;
            let e = &mut self.entries[..count];
            pagemap.read(start + first as u64 * PAGE, e)?;
            let mut thp = std::mem::take(&mut self.thp);
            thp.clear();
            let visible =
                thp_runs_by_frames(start + first as u64 * PAGE, e, kpage_thp, |i| thp.push(i));
            if !visible && self.scan == Some(false) {
                no_detection_once();
            }
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
                self.mark_huge(&thp, &mut out[first..first + count]);
                self.thp = thp;
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
            self.mark_huge(&thp, &mut out[first..first + count]);
            self.thp = thp;
        }
        Ok(())
    }

    /// Marks the 512 pages from each index of `thp` as in a THP.
    fn mark_huge(&self, thp: &[usize], out: &mut [PageState]) {
        for &i in thp {
            for s in &mut out[i..i + HUGE_PAGES] {
                *s = s.with_huge(true);
            }
        }
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
    fn the_huge_bit_is_apart_from_the_rest() {
        let p = PageState::on(3, true);
        assert!(!p.huge());
        let h = p.with_huge(true);
        assert!(h.huge() && h.dirty() && h.node() == Some(3) && !h.swapped());
        assert_eq!(h.with_huge(false), p);
        // only a present page is in a THP
        assert!(!PageState::swapped_out(true).with_huge(true).huge());
        assert!(!PageState::NONE.with_huge(true).huge());
        assert!(PageState::swapped_out(true).with_huge(true).swapped());
        // the highest nodes stay nodes, apart from swapped and none
        assert_eq!(PageState::on(61, false).node(), Some(61));
        assert_eq!(PageState::on(200, false).node(), Some(61));
        assert_eq!(std::mem::size_of::<PageState>(), 1);
    }

    /// Pagemap entries: present on frame `pfn0 + i` for page i.
    fn frames(n: usize, pfn0: u64) -> Vec<Entry> {
        (0..n).map(|i| Entry(1 << 63 | (pfn0 + i as u64))).collect()
    }

    #[test]
    fn a_thp_is_found_by_its_frames_only_when_whole_and_aligned() {
        let base = 7 * HUGE_BYTES;
        let yes = |_| Some(true);
        let found = |start: u64, e: &[Entry], is: &dyn Fn(u64) -> Option<bool>| {
            let mut v = Vec::new();
            let visible = thp_runs_by_frames(start, e, is, |i| v.push(i));
            (visible, v)
        };
        // two THPs back to back, from an aligned start
        assert_eq!(found(base, &frames(1024, 4096), &yes), (true, vec![0, 512]));
        // a start 16 pages before a 2 MiB boundary: the THP starts at 16
        let e = frames(16 + 512, 4096 - 16);
        assert_eq!(found(base - 16 * PAGE, &e, &yes), (true, vec![16]));
        // kpageflags say not a THP (or cannot be read): none
        assert_eq!(
            found(base, &frames(512, 4096), &|_| Some(false)).1,
            Vec::<usize>::new()
        );
        assert_eq!(
            found(base, &frames(512, 4096), &|_| None).1,
            Vec::<usize>::new()
        );
        // frames not 512-aligned, or not contiguous: none
        assert_eq!(found(base, &frames(512, 4097), &yes).1, Vec::<usize>::new());
        let mut e = frames(512, 4096);
        e[300] = Entry(1 << 63 | 9);
        assert_eq!(found(base, &e, &yes).1, Vec::<usize>::new());
        // a page not present: none
        e[300] = Entry(0);
        assert_eq!(found(base, &e, &yes).1, Vec::<usize>::new());
        // less than 2 MiB: none
        assert_eq!(found(base, &frames(511, 4096), &yes).1, Vec::<usize>::new());
        // PFNs hidden (not CAP_SYS_ADMIN): present, pfn 0: no detection
        let hidden: Vec<Entry> = (0..512).map(|_| Entry(1 << 63)).collect();
        assert_eq!(found(base, &hidden, &yes), (false, Vec::<usize>::new()));
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
