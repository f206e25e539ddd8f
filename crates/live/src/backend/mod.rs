//! [`LinuxBackend`]: the backend interface over real processes.
//!
//! What each primitive is on Linux (README, "Live", has the table):
//! - **pages and tiers**: /proc/PID/maps (private anonymous mappings),
//!   re-read at every [`LinuxBackend::refresh`] (the driver calls it before
//!   each tick); a page's state (present on which node, swapped,
//!   soft-dirty) is read from the kernel only when a manager asks about it
//!   (translate, next_mapped, scan_accessed, migrate...), in aligned 2 MiB
//!   chunks, each at most once per refresh (PAGEMAP_SCAN where the kernel
//!   has it, else the pagemap; see [`crate::pages::Reader`]). The bytes per
//!   tier the metrics report come from a full read that is rate-limited by
//!   its own cost ([`LinuxBackend::refresh_resident`]), kept current in
//!   between with the backend's own moves. A tier is a set of NUMA nodes
//!   (the kernel's memory tiers or the config's), plus optionally a
//!   compressed tier: swap (zram), reached with
//!   `process_madvise(MADV_PAGEOUT)`.
//! - **Accessed bits and poisoning by refault sampling**: no kernel lets
//!   userspace read a process's Accessed bits without idle page tracking
//!   (not in Debian's 6.12), so clearing a page's Accessed bit pages it out
//!   (MADV_PAGEOUT) and reading it says whether it came back (it is present
//!   again: the process touched it). A poisoned page is one paged out this
//!   way; its "faults" are its refaults. [`LinuxBackend::resample`] (the
//!   driver calls it every sampling interval, 0.1 s by default) counts the
//!   poisoned pages that came back and pages them out again, so a count is
//!   the number of intervals in which the page was touched: it saturates at
//!   one per interval, unlike BadgerTrap's one per TLB miss, so rates are
//!   lower bounds (README, Live, says how to set Thermostat's budget). A page
//!   that refaulted onto another node than the one it was sampled on is moved
//!   back when its sampling ends, and one still swapped out is faulted back
//!   in by reading a byte of it through /proc/PID/mem, so sampling changes
//!   no placement. Reading Accessed bits without clearing ends their
//!   samples (later reads say "accessed" until the next clear). A page
//!   present right after its page-out (a hot page touched again within
//!   microseconds, or one the kernel would not page out: shared, locked)
//!   reads as accessed.
//! - **Dirty bits**: soft-dirty. Clearing is per process (`clear_refs` 4),
//!   done once after the tick that asked for it.
//! - **Moves**: `move_pages` (MPOL_MF_MOVE: pages mapped by the target only),
//!   in chunks, page by page statuses; EBUSY, ENOMEM, EACCES count as failed
//!   pages, never as errors; a move to the compressed tier is a page-out.
//!   Quotas bound the bytes moved per tick; dry-run decides and logs but
//!   moves nothing (the pages are shown where the manager put them).
//! - **Time**: the wall clock since the backend started, read here and
//!   handed to managers as a value.
//! - **Allocation**: another process's mempolicy cannot be set; the
//!   kernel's default (the local node, then the nearest) is accepted as
//!   `PreferFast` when the fastest tier holds every node with CPUs.
//! - **Transparent huge pages**: a page of a THP (PAGEMAP_SCAN's
//!   PAGE_IS_HUGE, else kpageflags as root) translates as `PageSize::Huge`
//!   and moves as one unit (one move_pages entry, 2 MiB of the quota);
//!   `split_huge` writes debugfs's split_huge_pages, `collapse_huge` is
//!   process_madvise(MADV_COLLAPSE), both behind `HugePages`, offered only
//!   when probing both on the target works ([`crate::thp`]). A region's
//!   `thp` is the kernel's THPeligible (/proc/PID/smaps, read when a region
//!   is new; see [`LinuxBackend::refresh`]).
//! - Not here: upper-level Accessed bits, TLB-miss counts, PEBS-like samples,
//!   tier traffic counters, other allocation policies: typed `Unsupported`.
//!   Of the optional interfaces ([`thermocline_backend::Poisoning`] and the
//!   rest) it offers only [`Poisoning`] and [`HugePages`], each while
//!   probing found it (the capability is set); asked for any other, or for
//!   one of these without its capability, it answers `Unsupported`.

mod monitor;
mod target;

pub use crate::pages::{read_mapping, PageState, Reader, HUGE_BYTES, HUGE_PAGES};
pub use target::{cgroup_pids, Process, TargetSpec};

use crate::numa::{self, Tier};
use crate::procfs::{self, Mapping};
use crate::sys::{self, PAGE};
use crate::LiveError;
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Instant;
use thermocline_backend::{
    Backend, BackendError, Capabilities, Capability, Flush, HugePages, MemPolicy, MigrationReport,
    MonitorAttrs, MonitorRegion, Poisoning, TierInfo, Translation,
};
use thermocline_vocab::{Asid, Level, PageSize, PageType, RegionInfo, TierId};

type Result<T> = std::result::Result<T, BackendError>;

/// A tier of the live host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveTier {
    /// Its name in reports.
    pub name: String,
    /// Its NUMA nodes (empty for the compressed tier).
    pub nodes: Vec<i32>,
    /// Swap (zram): pages reach it by MADV_PAGEOUT.
    pub compressed: bool,
}

/// How the live backend was set up.
#[derive(Clone, Debug, Default)]
pub struct LiveOptions {
    /// The tiers, fastest first; `None`: the kernel's memory tiers.
    pub tiers: Option<Vec<LiveTier>>,
    /// Add a compressed (swap) tier after the node tiers.
    pub compressed_tier: bool,
    /// Decide and log, move nothing.
    pub dry_run: bool,
    /// The allocation policy the target command was started under, when
    /// thermocline started it ([`crate::launch`]): the one policy
    /// `set_policy` can grant besides the kernel's default.
    pub launched_under: Option<MemPolicy>,
}

/// What the backend has done, for metrics and reports.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LiveCounters {
    /// Pages moved between nodes, per destination tier.
    pub moved_pages: Vec<u64>,
    /// Bytes moved between tiers (including page-outs).
    pub moved_bytes: u64,
    /// Pages paged out to the compressed tier by a move.
    pub paged_out: u64,
    /// Pages the kernel refused to move, by reason.
    pub failed_busy: u64,
    /// ... for lack of memory on the destination.
    pub failed_nomem: u64,
    /// ... for lack of permission, or shared with another process.
    pub failed_access: u64,
    /// ... because the quota of the tick was used up.
    pub failed_quota: u64,
    /// Pages paged out to sample their accesses.
    pub sampling_pageouts: u64,
    /// Sampled pages that came back.
    pub refaults: u64,
    /// Sampled pages moved back to the node they were sampled on.
    pub restored: u64,
    /// Pages a dry run would have moved.
    pub would_move: u64,
    /// THPs split on a manager's request.
    pub splits: u64,
    /// 2 MiB ranges collapsed into a THP on a manager's request.
    pub collapses: u64,
}

/// A page paged out to sample its accesses.
#[derive(Clone, Copy, Debug)]
struct Sampled {
    /// The node it was on.
    node: i32,
    /// Intervals in which it came back, since its count was last read.
    faults: u64,
    /// Poisoned (paged out again after each refault), rather than an
    /// Accessed bit cleared once.
    poisoned: bool,
}

/// Bytes of a chunk: page states are read in aligned 2 MiB chunks.
const CHUNK_SHIFT: u32 = 21;

/// Chunks a scan for the next mapped page reads at once.
const SCAN_AHEAD: usize = 64;

/// The share of a core the full reads of [`LinuxBackend::refresh_resident`]
/// may take: 0.1%, or 0.25% per 100 GB resident when that is more (a
/// quarter of the daemon's goal of 1% of a core per 100 GB).
const RESIDENT_SHARE_FLOOR: f64 = 0.001;
const RESIDENT_SHARE_PER_BYTE: f64 = 0.0025 / 100e9;

/// The share of a core reading /proc/PID/smaps (for THPeligible) may take:
/// a read costs CPU in proportion to the target's page tables, so after one
/// the next waits until the time since is its cost over this share.
const SMAPS_SHARE: f64 = 0.001;

/// A process's region; the state of its pages is read when asked.
struct Region {
    info: RegionInfo,
    cache: RefCell<Cache>,
    /// The kernel's THPeligible for it, once read (`info.thp` is this, or
    /// false until then).
    thp: Option<bool>,
}

/// The page states of a region read so far.
#[derive(Default)]
struct Cache {
    /// One per page (empty until a chunk is read); valid in the chunks
    /// whose stamp is the backend's epoch.
    pages: Vec<PageState>,
    /// The epoch each chunk was read in (0: never).
    stamps: Vec<u32>,
}

impl Region {
    fn first_chunk(&self) -> u64 {
        self.info.start >> CHUNK_SHIFT
    }

    /// The chunk of `va` (inside the region).
    fn chunk_of(&self, va: u64) -> usize {
        ((va >> CHUNK_SHIFT) - self.first_chunk()) as usize
    }

    fn chunks(&self) -> usize {
        if self.info.len == 0 {
            return 0;
        }
        (((self.info.end() - 1) >> CHUNK_SHIFT) - self.first_chunk() + 1) as usize
    }

    /// The pages (indices) of chunk `c`.
    fn chunk_pages(&self, c: usize) -> (usize, usize) {
        let base = (self.first_chunk() + c as u64) << CHUNK_SHIFT;
        let a = base.max(self.info.start);
        let b = (base + (1 << CHUNK_SHIFT)).min(self.info.end());
        (
            ((a - self.info.start) / PAGE) as usize,
            ((b - self.info.start) / PAGE) as usize,
        )
    }
}

/// The backend interface over real Linux processes.
pub struct LinuxBackend {
    spec: TargetSpec,
    procs: Vec<Process>,
    regions: Vec<Region>,
    infos: Vec<RegionInfo>,
    /// Bumped at every refresh: page states read before are stale.
    epoch: u32,
    reader: RefCell<Reader>,
    /// Bytes per tier at the last full read, kept current with our moves.
    resident: Vec<u64>,
    /// When that read was (ns since the start).
    resident_at_ns: u64,
    /// The next full read is due then.
    resident_next_ns: u64,
    tiers: Vec<LiveTier>,
    /// The tier of each node id (PageState holds nodes 0-62).
    node_tier: Vec<Option<TierId>>,
    compressed: Option<TierId>,
    caps: Capabilities,
    /// The fastest tier holds the nodes with CPUs (so the kernel's default
    /// allocation is PreferFast).
    fast_has_cpus: bool,
    /// The policy the target command was started under, if thermocline
    /// started it.
    launched_under: Option<MemPolicy>,
    /// Pages paged out to sample them.
    sampled: HashMap<(Asid, u64), Sampled>,
    clear_dirty: Vec<Asid>,
    dry_run: bool,
    /// Where a dry run has put pages: (asid, page) -> tier.
    dry_moves: HashMap<(Asid, u64), TierId>,
    budget: Option<u64>,
    counters: LiveCounters,
    start: Instant,
    cpu_at_start: u64,
    /// The kernel's DAMON over the targets, once a manager asks (monitor.rs).
    monitor: monitor::Monitor,
    /// Why THP split/collapse is not offered (None: it is, or not probed).
    huge_unsupported: Option<String>,
    /// /proc/PID/smaps may be read again then (ns since the start).
    smaps_next_ns: u64,
}

impl LinuxBackend {
    /// Attaches to the target and reads its pages once. The tiers come from
    /// the options, else the kernel's memory tiers, else one tier per node
    /// (nodes with CPUs first).
    pub fn new(spec: TargetSpec, opts: LiveOptions) -> std::result::Result<Self, LiveError> {
        let tiers = opts.resolve_tiers()?;
        let mut node_tier = vec![None; 64];
        for (i, t) in tiers.iter().enumerate() {
            for &n in &t.nodes {
                if let Some(slot) = usize::try_from(n).ok().and_then(|n| node_tier.get_mut(n)) {
                    *slot = Some(TierId(i as u8));
                }
            }
        }
        let compressed = tiers
            .iter()
            .position(|t| t.compressed)
            .map(|i| TierId(i as u8));
        let mut b = LinuxBackend {
            spec,
            procs: Vec::new(),
            regions: Vec::new(),
            infos: Vec::new(),
            epoch: 0,
            reader: RefCell::new(Reader::for_host()),
            resident: vec![0; tiers.len()],
            resident_at_ns: 0,
            resident_next_ns: 0,
            counters: LiveCounters {
                moved_pages: vec![0; tiers.len()],
                ..LiveCounters::default()
            },
            tiers,
            node_tier,
            compressed,
            caps: Capabilities::none(),
            fast_has_cpus: false,
            sampled: HashMap::new(),
            clear_dirty: Vec::new(),
            dry_run: opts.dry_run,
            launched_under: opts.launched_under,
            dry_moves: HashMap::new(),
            budget: None,
            start: Instant::now(),
            cpu_at_start: sys::process_cpu_ns(),
            monitor: monitor::Monitor::default(),
            huge_unsupported: None,
            smaps_next_ns: 0,
        };
        b.caps = b.probe_caps();
        b.fast_has_cpus = fast_has_cpus(&b.tiers)?;
        b.refresh()?;
        b.probe_huge();
        b.refresh_resident(true);
        if b.procs.is_empty() {
            return Err(match &b.spec {
                TargetSpec::Pid(pid) => LiveError::Exited { pid: *pid },
                TargetSpec::Cgroup(d) => {
                    LiveError::Busy(format!("{}: no process in the cgroup to tier", d.display()))
                }
            });
        }
        Ok(b)
    }

    /// Whether the target's pages are already allocated under `policy`:
    /// another process's policy cannot be set, so only the one a command
    /// was started under ([`crate::launch`]) and the kernel's default
    /// (local node first, then the nearest: PreferFast when the fastest
    /// tier holds the nodes with CPUs) are.
    pub fn policy_in_force(&self, policy: MemPolicy) -> bool {
        self.launched_under == Some(policy)
            || (self.launched_under.is_none()
                && policy == MemPolicy::PreferFast
                && self.fast_has_cpus)
    }

    fn probe_caps(&self) -> Capabilities {
        // features only: the costs probe() measures page this process's
        // own memory out and are not needed to know what the host offers
        let probe = crate::probe::features_only().ok();
        let has = |f: &str| probe.as_ref().is_some_and(|p| p.has(f));
        let mut c = Capabilities::none()
            .with(Capability::Migrate)
            .with(Capability::TlbFlush);
        if has("process-madvise") && has("swap") {
            c = c.with(Capability::AccessedLeaf).with(Capability::Poison);
        }
        if has("soft-dirty") {
            c = c.with(Capability::Dirty);
        }
        if has("damon") {
            c = c.with(Capability::RegionMonitor);
        }
        c
    }

    /// Adds [`Capability::HugePages`] when splitting and collapsing THPs
    /// of the first target both work ([`crate::thp::probe`]); says why not
    /// once, else.
    fn probe_huge(&mut self) {
        let Some(p) = self.procs.iter().find(|p| p.alive) else {
            return;
        };
        match crate::thp::probe(p.pidfd.as_ref()) {
            Ok(()) => self.caps = self.caps.with(Capability::HugePages),
            Err(why) => {
                self.huge_unsupported = Some(why);
            }
        }
    }

    /// Why THPs cannot be split and collapsed here (None: they can).
    pub fn huge_unsupported(&self) -> Option<&str> {
        self.huge_unsupported.as_deref()
    }

    /// The tiers, fastest first.
    pub fn live_tiers(&self) -> &[LiveTier] {
        &self.tiers
    }

    /// The processes (alive or not).
    pub fn processes(&self) -> &[Process] {
        &self.procs
    }

    /// What the backend has done so far.
    pub fn counters(&self) -> &LiveCounters {
        &self.counters
    }

    /// Whether any target process is alive.
    pub fn any_alive(&self) -> bool {
        self.procs.iter().any(|p| p.alive)
    }

    /// Bytes of the targets resident in each tier (a page sampled by
    /// paging it out counts in the tier it was sampled in; a page a dry run
    /// moved, in the tier it was moved to), as of the last full read
    /// ([`LinuxBackend::refresh_resident`]) and the moves made since.
    pub fn resident_bytes(&self) -> Vec<u64> {
        self.resident.clone()
    }

    /// When the bytes per tier were last read in full (ns since the start).
    pub fn resident_read_at_ns(&self) -> u64 {
        self.resident_at_ns
    }

    /// Reads where every page of the targets is, for the bytes per tier,
    /// when it is due or `force`: a full read costs CPU in proportion to the
    /// targets' size, so the next one is due once the time since is the
    /// read's cost over the share of a core it may take (0.1%, or 0.25% per
    /// 100 GB resident when more). Between two reads the figure follows the
    /// backend's own moves and page-outs, not what the kernel does by itself
    /// (new pages, frees, reclaim). Returns whether it read.
    pub fn refresh_resident(&mut self, force: bool) -> bool {
        let now = self.elapsed_ns();
        if !force && now < self.resident_next_ns {
            return false;
        }
        let cpu0 = sys::process_cpu_ns();
        // pages counted by state first (a byte each), then the few pages
        // the sampling and dry-run maps place elsewhere
        let mut by_state = [0u64; 256];
        for r in &self.regions {
            if self.load(r, 0, r.chunks()).is_err() {
                continue;
            }
            for &s in r.cache.borrow().pages.iter() {
                by_state[s.0 as usize] += 1;
            }
        }
        let mut out = vec![0u64; self.tiers.len()];
        for (b, &n) in by_state.iter().enumerate() {
            if let Some(t) = self.plain_tier(PageState(b as u8)) {
                out[t.index()] += n * PAGE;
            }
        }
        let moved = |out: &mut Vec<u64>, from: Option<TierId>, to: Option<TierId>, bytes: u64| {
            if let Some(f) = from {
                out[f.index()] = out[f.index()].saturating_sub(bytes);
            }
            if let Some(t) = to {
                out[t.index()] += bytes;
            }
        };
        for &(asid, va) in self.sampled.keys() {
            if self.dry_moves.contains_key(&(asid, va)) {
                continue;
            }
            if let Ok(Some(s)) = self.state(asid, va) {
                let (a, b) = (self.plain_tier(s), self.tier_of(asid, va, s));
                if a != b {
                    moved(&mut out, a, b, PAGE);
                }
            }
        }
        for (&(asid, va), &t) in &self.dry_moves {
            if let Ok(Some(s)) = self.state(asid, va) {
                let mut plain = self.plain_tier(s);
                if plain.is_none() && s.swapped() {
                    plain = self
                        .sampled
                        .get(&(asid, va))
                        .and_then(|x| self.tier_of_node(x.node));
                }
                // a THP's dry move (recorded at its base) carries 2 MiB
                let bytes = if s.huge() { HUGE_BYTES } else { PAGE };
                moved(&mut out, plain, Some(t), bytes);
            }
        }
        let cost = sys::process_cpu_ns().saturating_sub(cpu0) as f64;
        let total: u64 = out.iter().sum();
        let share = RESIDENT_SHARE_FLOOR.max(RESIDENT_SHARE_PER_BYTE * total as f64);
        self.resident = out;
        self.resident_at_ns = now;
        self.resident_next_ns = now + (cost / share) as u64;
        true
    }

    /// Moves one page's bytes between tiers in the resident figure.
    fn shift(&mut self, from: Option<TierId>, to: Option<TierId>) {
        self.shift_bytes(from, to, PAGE);
    }

    /// Moves `bytes` between tiers in the resident figure.
    fn shift_bytes(&mut self, from: Option<TierId>, to: Option<TierId>, bytes: u64) {
        if from == to {
            return;
        }
        if let Some(f) = from {
            self.resident[f.index()] = self.resident[f.index()].saturating_sub(bytes);
        }
        if let Some(t) = to {
            self.resident[t.index()] += bytes;
        }
    }

    /// Forgets the states read of the chunk of `va` (the kernel may have
    /// split or collapsed a THP there): read again when asked.
    fn invalidate(&self, asid: Asid, va: u64) {
        if let Some((r, _)) = self.region_of(asid, va) {
            let reg = &self.regions[r];
            let c = reg.chunk_of(va);
            if let Some(s) = reg.cache.borrow_mut().stamps.get_mut(c) {
                *s = 0;
            }
        }
    }

    /// Which process each address space is.
    pub fn pid_of(&self, asid: Asid) -> Option<i32> {
        self.procs.get(asid.0 as usize).map(|p| p.pid)
    }

    /// Bounds the bytes the next moves may carry (until the next call);
    /// `None`: no bound.
    pub fn set_budget(&mut self, bytes: Option<u64>) {
        self.budget = bytes;
    }

    /// The wall-clock time since the backend started.
    pub fn elapsed_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    /// CPU time this process has used since the backend started (ns).
    pub fn cpu_ns(&self) -> u64 {
        sys::process_cpu_ns().saturating_sub(self.cpu_at_start)
    }

    /// Clears the soft-dirty bits a tick asked to clear (`dirty` with
    /// `clear`), process by process: the driver calls this right after
    /// the tick, so that the next read sees the writes of the interval in
    /// between (and `refresh` calls it too).
    pub fn clear_soft_dirty(&mut self) {
        for asid in std::mem::take(&mut self.clear_dirty) {
            if let Some(p) = self.procs.iter().find(|p| p.asid == asid && p.alive) {
                // a process that just exited has no clear_refs: nothing to clear
                let _ = std::fs::write(format!("/proc/{}/clear_refs", p.pid), "4");
            }
        }
    }

    /// Re-reads the targets (new processes of a cgroup, exits) and their
    /// mappings, and forgets the page states read so far (they are read
    /// again when asked); clears soft-dirty bits a tick asked to clear.
    /// Whether THPs may back a region (`RegionInfo::thp`) is the kernel's
    /// THPeligible, read from /proc/PID/smaps only when a process has a
    /// region not seen before (smaps costs a walk of its page tables),
    /// and no more often than its cost allows (0.1% of a core): a region
    /// that waits says false until then. A region keeps what was read for
    /// it (a later madvise or sysfs change is not seen).
    pub fn refresh(&mut self) -> std::result::Result<(), LiveError> {
        self.clear_soft_dirty();
        let pids: Vec<i32> = match &self.spec {
            TargetSpec::Pid(pid) => vec![*pid],
            TargetSpec::Cgroup(dir) => cgroup_pids(dir).unwrap_or_default(),
        };
        for pid in pids {
            if !self.procs.iter().any(|p| p.pid == pid) {
                let asid = Asid(self.procs.len() as u16);
                match Process::attach(pid, asid) {
                    Ok(p) => self.procs.push(p),
                    Err(LiveError::Exited { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        // the caches of regions that are still there are kept (their
        // allocations), not their content; so is their THPeligible
        type Kept = (RefCell<Cache>, Option<bool>);
        let mut old: HashMap<(Asid, u64, u64), Kept> = std::mem::take(&mut self.regions)
            .into_iter()
            .map(|r| ((r.info.asid, r.info.start, r.info.len), (r.cache, r.thp)))
            .collect();
        let now = self.elapsed_ns();
        let mut regions = Vec::new();
        for p in self.procs.iter_mut() {
            if !p.check_alive() {
                continue;
            }
            let maps = match procfs::maps(p.pid) {
                Ok(m) => m,
                Err(LiveError::Exited { .. }) => {
                    p.alive = false;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let first = regions.len();
            for m in maps.iter().filter(|m| m.is_anonymous() && m.write) {
                let (cache, thp) = old.remove(&(p.asid, m.start, m.len())).unwrap_or_default();
                regions.push(Region {
                    info: region_info(p.asid, m, thp == Some(true)),
                    cache,
                    thp,
                });
            }
            let new = &mut regions[first..];
            // at the first refresh always (the manager starts on it)
            let due = self.epoch == 0 || now >= self.smaps_next_ns;
            if due && new.iter().any(|r| r.thp.is_none()) {
                let cpu0 = sys::process_cpu_ns();
                let eligible = match procfs::thp_eligible(p.pid) {
                    Ok(t) => t,
                    Err(LiveError::Exited { .. }) => {
                        p.alive = false;
                        regions.truncate(first);
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                for r in new.iter_mut() {
                    // smaps is in address order, as maps is
                    let thp = eligible
                        .binary_search_by_key(&r.info.start, |t| t.start)
                        .is_ok_and(|i| eligible[i].end == r.info.end() && eligible[i].eligible);
                    r.thp = Some(thp);
                    r.info.thp = thp;
                }
                let cost = sys::process_cpu_ns().saturating_sub(cpu0) as f64;
                self.smaps_next_ns = now + (cost / SMAPS_SHARE) as u64;
            }
        }
        regions.sort_by_key(|r| (r.info.asid, r.info.start));
        self.infos = regions.iter().map(|r| r.info.clone()).collect();
        self.regions = regions;
        self.epoch = self.epoch.wrapping_add(1).max(1);
        Ok(())
    }

    fn region_of(&self, asid: Asid, va: u64) -> Option<(usize, usize)> {
        let i = self
            .regions
            .partition_point(|r| (r.info.asid, r.info.start) <= (asid, va));
        let r = i.checked_sub(1)?;
        let reg = &self.regions[r];
        (reg.info.asid == asid && va < reg.info.end())
            .then(|| (r, ((va - reg.info.start) / PAGE) as usize))
    }

    /// Reads the chunks `lo..hi` of `r` that were not read since the last
    /// refresh (runs of them in one read each).
    fn load(&self, r: &Region, lo: usize, hi: usize) -> Result<()> {
        let mut c = r.cache.borrow_mut();
        if c.stamps.len() != r.chunks() {
            c.pages = vec![PageState::NONE; (r.info.len / PAGE) as usize];
            c.stamps = vec![0; r.chunks()];
        }
        let hi = hi.min(c.stamps.len());
        let mut k = lo;
        while k < hi {
            if c.stamps[k] == self.epoch {
                k += 1;
                continue;
            }
            let mut j = k;
            while j < hi && c.stamps[j] != self.epoch {
                j += 1;
            }
            let (a, _) = r.chunk_pages(k);
            let (_, b) = r.chunk_pages(j - 1);
            let p = &self.procs[r.info.asid.0 as usize];
            if p.alive {
                let start = r.info.start + a as u64 * PAGE;
                self.reader
                    .borrow_mut()
                    .read(p.pid, &p.pagemap, start, &mut c.pages[a..b])
                    .map_err(|e| BackendError::Host(e.to_string()))?;
            } else {
                c.pages[a..b].fill(PageState::NONE);
            }
            for s in &mut c.stamps[k..j] {
                *s = self.epoch;
            }
            k = j;
        }
        Ok(())
    }

    /// The state of the page at `va` (read if not yet this tick).
    fn state(&self, asid: Asid, va: u64) -> Result<Option<PageState>> {
        let Some((ri, i)) = self.region_of(asid, va) else {
            return Ok(None);
        };
        let r = &self.regions[ri];
        let c = r.chunk_of(va);
        self.load(r, c, c + 1)?;
        let s = r.cache.borrow().pages[i];
        Ok(Some(s))
    }

    /// Records a page's new state (after a move or page-out), where its
    /// chunk was read this tick (else it is read from the kernel when
    /// asked).
    fn set_state(&mut self, asid: Asid, va: u64, s: PageState) {
        if let Some((r, i)) = self.region_of(asid, va) {
            let reg = &self.regions[r];
            let c = reg.chunk_of(va);
            let mut cache = reg.cache.borrow_mut();
            if cache.stamps.get(c) == Some(&self.epoch) {
                cache.pages[i] = s;
            }
        }
    }

    fn process(&self, asid: Asid) -> Result<&Process> {
        self.procs
            .get(asid.0 as usize)
            .ok_or(BackendError::NoSuchTarget(asid))
    }

    /// The tier a page is in: its node's; a page paged out to sample it
    /// stays in the tier it was sampled in; a swapped page is in the
    /// compressed tier, if there is one.
    fn tier_of(&self, asid: Asid, va: u64, s: PageState) -> Option<TierId> {
        if !self.dry_moves.is_empty() {
            // a THP's dry move is recorded at its base
            let key = if s.huge() { va & !(HUGE_BYTES - 1) } else { va };
            if let Some(&t) = self.dry_moves.get(&(asid, key)) {
                return Some(t);
            }
        }
        match s.node() {
            Some(n) => self.tier_of_node(n),
            None if s.swapped() => match self.sampled.get(&(asid, va)) {
                Some(x) => self.tier_of_node(x.node),
                None => self.compressed,
            },
            None => None,
        }
    }

    /// The tier of a page by its state alone (not sampled, not moved by a
    /// dry run).
    fn plain_tier(&self, s: PageState) -> Option<TierId> {
        match s.node() {
            Some(n) => self.tier_of_node(n),
            None if s.swapped() => self.compressed,
            None => None,
        }
    }

    fn tier_of_node(&self, node: i32) -> Option<TierId> {
        usize::try_from(node)
            .ok()
            .and_then(|n| self.node_tier.get(n).copied().flatten())
    }

    /// Pages `vas` out (MADV_PAGEOUT), in coalesced ranges; returns the
    /// pages that left memory.
    /// `sampling`: paged out to sample them (they stay in their tier).
    fn page_out(&mut self, asid: Asid, vas: &[u64], sampling: bool) -> Result<Vec<u64>> {
        let p = self.process(asid)?;
        let Some(fd) = p.pidfd.as_ref() else {
            return Err(BackendError::Unsupported(Capability::Poison));
        };
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for &va in vas {
            match ranges.last_mut() {
                Some((s, l)) if *s + *l == va => *l += PAGE,
                _ => ranges.push((va, PAGE)),
            }
        }
        match sys::process_madvise(fd, &ranges, libc::MADV_PAGEOUT) {
            Ok(_) => {}
            // ESRCH: the process is gone; ENOMEM: the range is no longer
            // mapped (munmap, or the process is exiting)
            Err(e) if matches!(e.raw_os_error(), Some(libc::ESRCH) | Some(libc::ENOMEM)) => {
                return Ok(Vec::new())
            }
            Err(e) => {
                return Err(BackendError::Host(format!(
                    "process_madvise(MADV_PAGEOUT) on pid {}: {e}",
                    p.pid
                )))
            }
        }
        // the pages that really left: re-read their entries
        let mut out = Vec::with_capacity(vas.len());
        let mut e = [crate::pagemap::Entry::default()];
        for &va in vas {
            if p.pagemap.read(va, &mut e).is_ok() && !e[0].present() {
                out.push(va);
            }
        }
        let mut split = Vec::new();
        for &va in &out {
            let before = self.state(asid, va)?;
            let dirty = before.is_some_and(|s| s.dirty());
            let from = before.and_then(|s| self.tier_of(asid, va, s));
            if before.is_some_and(|s| s.huge()) && split.last() != Some(&(va >> CHUNK_SHIFT)) {
                split.push(va >> CHUNK_SHIFT);
            }
            self.set_state(asid, va, PageState::swapped_out(dirty));
            // a sampled page stays in its tier (`arm` records it after this)
            if !sampling {
                self.shift(from, self.compressed);
            }
        }
        // a THP the page-out touched is split, in part swapped: what is
        // left of it is read again when asked
        for c in split {
            self.invalidate(asid, c << CHUNK_SHIFT);
        }
        Ok(out)
    }

    /// Whether a sampled page came back (is present again).
    fn refaulted(&mut self, asid: Asid, va: u64) -> Result<bool> {
        let p = self.process(asid)?;
        let mut e = [crate::pagemap::Entry::default()];
        if p.pagemap.read(va, &mut e).is_err() {
            return Ok(false);
        }
        Ok(e[0].present())
    }

    /// Ends the sampling of `va`: it goes back where it was sampled. A page
    /// still swapped out is faulted back in (through /proc/PID/mem) and a
    /// page that came back on another node is moved back, so sampling
    /// changes no placement.
    fn end_sampling(&mut self, asid: Asid, va: u64) -> Result<()> {
        let Some(Sampled { node, .. }) = self.sampled.remove(&(asid, va)) else {
            return Ok(());
        };
        if !self.refaulted(asid, va)? && !self.process(asid)?.fault_in(va) {
            // it stays in swap: the compressed tier, if there is one
            self.shift(self.tier_of_node(node), self.compressed);
            return Ok(());
        }
        let pid = self.process(asid)?.pid;
        let mut st = [0i32];
        if sys::move_pages(pid, &[va], None, &mut st, 0).is_err() || st[0] < 0 {
            return Ok(());
        }
        if st[0] != node {
            let mut st2 = [0i32];
            if sys::move_pages(pid, &[va], Some(&[node]), &mut st2, sys::MPOL_MF_MOVE).is_ok() {
                if st2[0] == node {
                    self.counters.restored += 1;
                    st[0] = node;
                } else {
                    // it stays where it came back (the node is full, say)
                    self.count_refusal(st2[0]);
                }
            }
        }
        let dirty = self.state(asid, va)?.is_some_and(|s| s.dirty());
        self.set_state(asid, va, PageState::on(st[0], dirty));
        // it counted in the tier of the node it was sampled on
        let to = self.tier_of_node(st[0]);
        self.shift(self.tier_of_node(node), to);
        Ok(())
    }

    /// Whether process `asid` has exited or is exiting (no mappings left:
    /// its mm is gone); marks it so.
    fn gone(&mut self, asid: Asid) -> bool {
        let p = &mut self.procs[asid.0 as usize];
        if p.check_alive() && procfs::maps(p.pid).is_ok_and(|m| !m.is_empty()) {
            return false;
        }
        p.alive = false;
        true
    }

    /// Counts a page the kernel would not move, by its status (-errno).
    fn count_refusal(&mut self, status: i32) {
        match -status {
            libc::EBUSY | libc::EAGAIN => self.counters.failed_busy += 1,
            libc::ENOMEM | libc::ENOSPC => self.counters.failed_nomem += 1,
            _ => self.counters.failed_access += 1,
        }
    }

    /// Faults a swapped page in and records the node it landed on.
    fn fault_in_state(&mut self, asid: Asid, va: u64) -> Result<()> {
        let p = self.process(asid)?;
        let pid = p.pid;
        if !p.fault_in(va) {
            return Ok(());
        }
        let mut st = [0i32];
        if sys::move_pages(pid, &[va], None, &mut st, 0).is_ok() && st[0] >= 0 {
            let before = self.state(asid, va)?;
            let dirty = before.is_some_and(|s| s.dirty());
            let from = before.and_then(|s| self.tier_of(asid, va, s));
            self.set_state(asid, va, PageState::on(st[0], dirty));
            let to = self
                .state(asid, va)?
                .and_then(|s| self.tier_of(asid, va, s));
            self.shift(from, to);
        }
        Ok(())
    }

    /// Samples `vas`: pages out those present (a page already sampled
    /// keeps the node it was first sampled on). A page still present right
    /// after counts as touched once. `poisoned`: paged out again after each
    /// refault (see [`LinuxBackend::resample`]).
    fn arm(&mut self, asid: Asid, vas: &[u64], poisoned: bool) -> Result<()> {
        let mut cand = Vec::with_capacity(vas.len());
        let mut nodes = HashMap::with_capacity(vas.len());
        for &va in vas {
            let node = match self.sampled.get(&(asid, va)) {
                Some(x) => Some(x.node),
                None => self.state(asid, va)?.and_then(|s| s.node()),
            };
            if let Some(n) = node {
                cand.push(va);
                nodes.insert(va, n);
            }
        }
        if cand.is_empty() {
            return Ok(());
        }
        let out = self.page_out(asid, &cand, true)?;
        self.counters.sampling_pageouts += out.len() as u64;
        let left: std::collections::HashSet<u64> = out.iter().copied().collect();
        for va in cand {
            if left.contains(&va) {
                let faults = self.sampled.get(&(asid, va)).map_or(0, |x| x.faults);
                self.sampled.insert(
                    (asid, va),
                    Sampled {
                        node: nodes[&va],
                        faults,
                        poisoned,
                    },
                );
            } else {
                // Present right after its page-out: touched again within
                // microseconds (a hot page), or kept by the kernel (shared,
                // locked). Either way it reads as accessed, and it stays
                // sampled so later intervals count it too.
                let prev = self.sampled.get(&(asid, va)).copied();
                if prev.is_none() {
                    self.counters.refaults += 1;
                }
                self.sampled.insert(
                    (asid, va),
                    Sampled {
                        node: nodes[&va],
                        faults: prev.map_or(1, |x| x.faults),
                        poisoned,
                    },
                );
            }
        }
        Ok(())
    }

    /// Counts the poisoned pages that came back since the last call and
    /// pages them out again: the driver calls this every sampling interval,
    /// which is the resolution of the counts.
    pub fn resample(&mut self) -> Result<()> {
        let mut back: Vec<(Asid, u64)> = Vec::new();
        let mut e = [crate::pagemap::Entry::default()];
        for (&(asid, va), x) in &self.sampled {
            if !x.poisoned {
                continue;
            }
            let Some(p) = self.procs.get(asid.0 as usize).filter(|p| p.alive) else {
                continue;
            };
            if p.pagemap.read(va, &mut e).is_ok() && e[0].present() {
                back.push((asid, va));
            }
        }
        back.sort_unstable();
        for &(asid, va) in &back {
            if let Some(x) = self.sampled.get_mut(&(asid, va)) {
                x.faults += 1;
            }
            self.counters.refaults += 1;
        }
        let mut i = 0;
        while i < back.len() {
            let asid = back[i].0;
            let j = i + back[i..].partition_point(|&(a, _)| a == asid);
            let vas: Vec<u64> = back[i..j].iter().map(|&(_, v)| v).collect();
            self.arm(asid, &vas, true)?;
            i = j;
        }
        Ok(())
    }

    /// The pages of `[start, start + len)` in the targets' regions, with
    /// their states (read if not yet this tick).
    fn pages_in(&self, asid: Asid, start: u64, len: u64) -> Result<Vec<(u64, PageState)>> {
        let end = start.saturating_add(len);
        let mut out = Vec::new();
        let first = self
            .regions
            .partition_point(|r| (r.info.asid, r.info.end()) <= (asid, start));
        for r in &self.regions[first..] {
            if r.info.asid != asid || r.info.start >= end {
                break;
            }
            let a = start.max(r.info.start) & !(PAGE - 1);
            let b = end.min(r.info.end());
            if a >= b {
                continue;
            }
            self.load(r, r.chunk_of(a), r.chunk_of(b - 1) + 1)?;
            let c = r.cache.borrow();
            let mut va = a;
            while va < b {
                out.push((va, c.pages[((va - r.info.start) / PAGE) as usize]));
                va += PAGE;
            }
        }
        Ok(out)
    }

    fn node_for(&self, to: TierId) -> Result<i32> {
        let t = self
            .tiers
            .get(to.index())
            .ok_or(BackendError::NoSuchTier(to))?;
        // the node of the tier with the most free memory now
        let nodes = numa::nodes().unwrap_or_default();
        t.nodes
            .iter()
            .copied()
            .max_by_key(|n| {
                nodes
                    .iter()
                    .find(|x| x.id == *n)
                    .map_or(0, |x| x.free_bytes)
            })
            .ok_or(BackendError::NoSuchTier(to))
    }
}

/// The size of the page a state is part of: a THP's 2 MiB, else 4 KiB.
fn size_of(s: PageState) -> PageSize {
    if s.huge() {
        PageSize::Huge
    } else {
        PageSize::Base
    }
}

fn region_info(asid: Asid, m: &Mapping, thp: bool) -> RegionInfo {
    RegionInfo {
        asid,
        name: if m.path.is_empty() {
            format!("anon@{:#x}", m.start)
        } else {
            m.path.clone()
        },
        start: m.start,
        len: m.len(),
        page_type: PageType::Anon,
        thp,
    }
}

impl LiveOptions {
    /// The tiers these options give: the configured ones, else the kernel's
    /// memory tiers, else one per node; then the compressed tier if asked.
    pub fn resolve_tiers(&self) -> std::result::Result<Vec<LiveTier>, LiveError> {
        let mut tiers = match &self.tiers {
            Some(t) => t.clone(),
            None => default_tiers()?,
        };
        if self.compressed_tier && !tiers.iter().any(|t| t.compressed) {
            tiers.push(LiveTier {
                name: "compressed".into(),
                nodes: Vec::new(),
                compressed: true,
            });
        }
        if tiers.iter().filter(|t| !t.compressed).count() == 0 {
            return Err(LiveError::Unsupported {
                feature: "move-pages",
                why: "no tier has a NUMA node".into(),
            });
        }
        Ok(tiers)
    }
}

/// Whether the fastest of `tiers` holds every node with CPUs (so the
/// kernel's default allocation is PreferFast).
pub fn fast_has_cpus(tiers: &[LiveTier]) -> std::result::Result<bool, LiveError> {
    let cpu_nodes: Vec<i32> = numa::nodes()?
        .iter()
        .filter(|n| !n.cpus.is_empty())
        .map(|n| n.id)
        .collect();
    Ok(!cpu_nodes.is_empty()
        && tiers
            .first()
            .is_some_and(|t| cpu_nodes.iter().all(|n| t.nodes.contains(n))))
}

/// The kernel's memory tiers, or one tier per node with CPU nodes first.
pub fn default_tiers() -> std::result::Result<Vec<LiveTier>, LiveError> {
    let kt: Vec<Tier> = numa::kernel_tiers()?;
    if kt.len() > 1 {
        return Ok(kt
            .iter()
            .map(|t| LiveTier {
                name: format!("memory_tier{}", t.rank),
                nodes: t.nodes.clone(),
                compressed: false,
            })
            .collect());
    }
    let mut nodes = numa::nodes()?;
    nodes.sort_by_key(|n| (n.cpus.is_empty(), n.id));
    Ok(nodes
        .iter()
        .map(|n| LiveTier {
            name: format!("node{}", n.id),
            nodes: vec![n.id],
            compressed: false,
        })
        .collect())
}

impl Backend for LinuxBackend {
    fn kind(&self) -> &'static str {
        "linux"
    }

    /// PSI's memory `some` total: the target cgroup's `memory.pressure`
    /// when the target is a cgroup, else the host's /proc/pressure/memory
    /// (a process has no PSI of its own); 0 without PSI.
    fn some_memory_stall_us(&self) -> u64 {
        let path = match &self.spec {
            TargetSpec::Cgroup(dir) => dir.join("memory.pressure"),
            TargetSpec::Pid(_) => std::path::PathBuf::from("/proc/pressure/memory"),
        };
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| procfs::parse_pressure(&t))
            .map_or(0, |p| p.some_us)
    }

    fn capabilities(&self) -> Capabilities {
        self.caps
    }

    fn now_ns(&self) -> u64 {
        self.elapsed_ns()
    }

    fn regions(&self) -> &[RegionInfo] {
        &self.infos
    }

    fn tiers(&self) -> Vec<TierInfo> {
        let nodes = numa::nodes().unwrap_or_default();
        self.tiers
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let of = |f: fn(&numa::Node) -> u64| {
                    nodes
                        .iter()
                        .filter(|n| t.nodes.contains(&n.id))
                        .map(f)
                        .sum::<u64>()
                };
                TierInfo {
                    id: TierId(i as u8),
                    name: t.name.clone(),
                    capacity_bytes: of(|n| n.total_bytes),
                    free_bytes: of(|n| n.free_bytes),
                    read_latency_ns: 0.0,
                    write_latency_ns: 0.0,
                    first_frame: None,
                }
            })
            .collect()
    }

    fn translate(&self, asid: Asid, va: u64) -> Result<Option<Translation>> {
        let va = va & !(PAGE - 1);
        Ok(self.state(asid, va)?.and_then(|s| {
            self.tier_of(asid, va, s).map(|tier| Translation {
                size: size_of(s),
                tier,
                frame: 0,
            })
        }))
    }

    fn next_mapped(&self, asid: Asid, from: u64, end: u64) -> Result<Option<(u64, Translation)>> {
        let mut va = from & !(PAGE - 1);
        let first = self
            .regions
            .partition_point(|r| (r.info.asid, r.info.end()) <= (asid, va));
        for r in &self.regions[first..] {
            if r.info.asid != asid || r.info.start >= end {
                break;
            }
            va = va.max(r.info.start);
            let stop = end.min(r.info.end());
            while va < stop {
                // read a few chunks ahead: a sparse range costs one read
                // per SCAN_AHEAD chunks, not one per chunk
                let c = r.chunk_of(va);
                self.load(r, c, c + SCAN_AHEAD)?;
                let cache = r.cache.borrow();
                let chunk_end = ((va >> CHUNK_SHIFT) + 1) << CHUNK_SHIFT;
                while va < stop.min(chunk_end) {
                    let s = cache.pages[((va - r.info.start) / PAGE) as usize];
                    if let Some(tier) = self.tier_of(asid, va, s) {
                        let t = Translation {
                            size: size_of(s),
                            tier,
                            frame: 0,
                        };
                        // a THP answers with its 2 MiB-aligned base
                        return Ok(Some((t.size.align_down(va), t)));
                    }
                    va += PAGE;
                }
            }
        }
        Ok(None)
    }

    fn accessed(&mut self, asid: Asid, va: u64, level: Level, clear: bool) -> Result<bool> {
        let mut out = Vec::new();
        // a THP's leaf is its PMD: that level answers for it like Pte does
        let leaf = level == Level::Pte
            || (level == Level::Pmd
                && self
                    .state(asid, va & !(PAGE - 1))?
                    .is_some_and(|s| s.huge()));
        if !leaf {
            return Err(BackendError::Unsupported(Capability::AccessedUpper));
        }
        self.scan_accessed(asid, va & !(PAGE - 1), PAGE, clear, &mut out)?;
        Ok(!out.is_empty())
    }

    fn scan_accessed(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        clear: bool,
        out: &mut Vec<u64>,
    ) -> Result<u64> {
        if !self.caps.has(Capability::AccessedLeaf) {
            return Err(BackendError::Unsupported(Capability::AccessedLeaf));
        }
        let pages = self.pages_in(asid, start, len)?;
        let mut read = 0;
        let mut rearm = Vec::new();
        for (va, s) in pages {
            let accessed = match self.sampled.get(&(asid, va)).copied() {
                Some(x) => {
                    read += 1;
                    let back = self.refaulted(asid, va)?;
                    if back {
                        self.counters.refaults += 1;
                    }
                    if clear {
                        if back {
                            rearm.push(va);
                        }
                    } else if !x.poisoned {
                        // a read ends the sample: the page goes back where
                        // it was, and reads "accessed" until the next clear
                        self.end_sampling(asid, va)?;
                    }
                    back || x.faults > 0
                }
                None if s.node().is_some() => {
                    // never sampled: its Accessed bit may be set
                    read += 1;
                    if clear {
                        rearm.push(va);
                    }
                    true
                }
                None => continue,
            };
            if accessed {
                out.push(va);
            }
        }
        if clear && !rearm.is_empty() {
            self.arm(asid, &rearm, false)?;
        }
        Ok(read)
    }

    fn monitor_regions(&mut self, attrs: MonitorAttrs) -> Result<Vec<MonitorRegion>> {
        self.monitor.regions(attrs, &self.procs)
    }

    fn dirty(&mut self, asid: Asid, va: u64, clear: bool) -> Result<bool> {
        if !self.caps.has(Capability::Dirty) {
            return Err(BackendError::Unsupported(Capability::Dirty));
        }
        let d = self
            .state(asid, va & !(PAGE - 1))?
            .is_some_and(|s| s.dirty());
        if clear && !self.clear_dirty.contains(&asid) {
            self.clear_dirty.push(asid);
        }
        Ok(d)
    }

    fn flush_tlb(&mut self, _asid: Asid, _what: Flush) -> Result<()> {
        // the kernel flushes for every change it makes (page-out, move)
        Ok(())
    }

    fn migrate(&mut self, asid: Asid, vas: &[u64], to: TierId) -> Result<MigrationReport> {
        BackendError::unless_tier(to, self.tiers.len())?;
        let mut report = MigrationReport::default();
        // (first byte, bytes): a page of a THP stands for the whole THP,
        // moved as one unit (its base), once
        let mut todo: Vec<(u64, u64)> = Vec::with_capacity(vas.len());
        let mut heads = std::collections::HashSet::new();
        for &va in vas {
            let va = va & !(PAGE - 1);
            let Some(s) = self.state(asid, va)? else {
                continue;
            };
            if s.huge() {
                let head = va & !(HUGE_BYTES - 1);
                if !heads.insert(head) {
                    continue;
                }
                if self.tier_of(asid, head, s) == Some(to) {
                    report.already_there += 1;
                } else {
                    // present (a THP is never swapped), and no page of it
                    // is sampled (a sampling page-out splits it)
                    todo.push((head, HUGE_BYTES));
                }
                continue;
            }
            if self.tier_of(asid, va, s) == Some(to) {
                // a sampled page stays sampled where it is
                report.already_there += 1;
                continue;
            }
            // a move ends a page's sampling (faulting it back in)
            self.end_sampling(asid, va)?;
            if self.state(asid, va)?.is_some_and(|s| s.swapped()) && Some(to) != self.compressed {
                // out of the compressed tier: fault it in, then move it
                self.fault_in_state(asid, va)?;
            }
            if self.state(asid, va)?.is_some_and(|s| s.node().is_some()) {
                todo.push((va, PAGE));
            }
        }
        if let Some(b) = self.budget {
            // the quota counts bytes: a THP takes 2 MiB of it
            let mut left = b;
            let mut fit = 0;
            for &(_, bytes) in &todo {
                if bytes > left {
                    break;
                }
                left -= bytes;
                fit += 1;
            }
            if todo.len() > fit {
                let over = (todo.len() - fit) as u64;
                report.failed += over;
                self.counters.failed_quota += over;
                todo.truncate(fit);
            }
            self.budget = Some(left);
        }
        if todo.is_empty() {
            return Ok(report);
        }
        if self.dry_run {
            for &(va, bytes) in &todo {
                let from = self
                    .state(asid, va)?
                    .and_then(|s| self.tier_of(asid, va, s));
                self.dry_moves.insert((asid, va), to);
                self.shift_bytes(from, Some(to), bytes);
                report.bytes += bytes;
            }
            self.counters.would_move += todo.len() as u64;
            report.pages += todo.len() as u64;
            return Ok(report);
        }
        if Some(to) == self.compressed {
            // a THP pages out whole (the kernel splits it as it needs)
            let pages: Vec<u64> = todo
                .iter()
                .flat_map(|&(va, bytes)| (0..bytes / PAGE).map(move |k| va + k * PAGE))
                .collect();
            let out: std::collections::HashSet<u64> =
                self.page_out(asid, &pages, false)?.into_iter().collect();
            for &(va, bytes) in &todo {
                let n = (0..bytes / PAGE)
                    .filter(|k| out.contains(&(va + k * PAGE)))
                    .count() as u64;
                match n {
                    0 => report.failed += 1,
                    // whole: one page of its size; a part (split by the
                    // kernel on the way): that many base pages
                    n if n * PAGE == bytes => report.pages += 1,
                    n => report.pages += n,
                }
                report.bytes += n * PAGE;
            }
            self.counters.paged_out += out.len() as u64;
            self.counters.moved_pages[to.index()] += report.pages;
            self.counters.moved_bytes += report.bytes;
            return Ok(report);
        }
        let node = self.node_for(to)?;
        let pid = self.process(asid)?.pid;
        for chunk in todo.chunks(4096) {
            let heads: Vec<u64> = chunk.iter().map(|&(va, _)| va).collect();
            let nodes = vec![node; chunk.len()];
            let mut st = vec![0i32; chunk.len()];
            match sys::move_pages(pid, &heads, Some(&nodes), &mut st, sys::MPOL_MF_MOVE) {
                Ok(_) => {}
                // ESRCH: gone. Any other error from a process that has
                // exited or is exiting (a zombie, or no mm left: EINVAL),
                // which an unreaped child of the daemon or of `exec` is
                // until reaped, ends the move the same way.
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) || self.gone(asid) => {
                    self.procs[asid.0 as usize].alive = false;
                    return Ok(report);
                }
                Err(e) if matches!(e.raw_os_error(), Some(libc::EPERM) | Some(libc::EACCES)) => {
                    report.failed += chunk.len() as u64;
                    self.counters.failed_access += chunk.len() as u64;
                    continue;
                }
                Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => {
                    report.failed += chunk.len() as u64;
                    self.counters.failed_nomem += chunk.len() as u64;
                    continue;
                }
                Err(e) => return Err(BackendError::Host(format!("move_pages on pid {pid}: {e}"))),
            }
            for (&(va, bytes), &s) in chunk.iter().zip(&st) {
                if s == node {
                    report.pages += 1;
                    report.bytes += bytes;
                    // move_pages of one page of a THP moves the whole folio
                    for p in (0..bytes / PAGE).map(|k| va + k * PAGE) {
                        let before = self.state(asid, p)?;
                        let dirty = before.is_some_and(|x| x.dirty());
                        let huge = before.is_some_and(|x| x.huge());
                        let from = before.and_then(|x| self.tier_of(asid, p, x));
                        self.set_state(asid, p, PageState::on(node, dirty).with_huge(huge));
                        self.shift(from, Some(to));
                    }
                } else if matches!(-s, libc::ENOENT | libc::EFAULT) {
                    // gone meanwhile (freed, or swapped): not a failure
                    for p in (0..bytes / PAGE).map(|k| va + k * PAGE) {
                        let from = self.state(asid, p)?.and_then(|x| self.tier_of(asid, p, x));
                        self.set_state(asid, p, PageState::NONE);
                        self.shift(from, None);
                    }
                } else {
                    report.failed += 1;
                    self.count_refusal(s);
                }
                if bytes > PAGE {
                    // whether it is still one THP (a failed THP migration
                    // may split it): read again when asked
                    self.invalidate(asid, va);
                }
            }
        }
        self.counters.moved_pages[to.index()] += report.pages;
        self.counters.moved_bytes += report.bytes;
        Ok(report)
    }

    fn set_policy(&mut self, _asid: Asid, policy: MemPolicy) -> Result<()> {
        if self.policy_in_force(policy) {
            Ok(())
        } else {
            Err(BackendError::Unsupported(Capability::AllocPolicy))
        }
    }

    fn charge_manager(&mut self, _ns: f64) {
        // a model's cost: on a live host the real CPU time is measured
        // (manager_ns), so modelled charges are not added to it
    }

    fn manager_ns(&self) -> f64 {
        self.cpu_ns() as f64
    }

    fn poisoning(&mut self) -> Result<&mut dyn Poisoning> {
        if self.caps.has(Capability::Poison) {
            Ok(self)
        } else {
            Err(BackendError::Unsupported(Capability::Poison))
        }
    }

    fn huge_pages(&mut self) -> Result<&mut dyn HugePages> {
        if self.caps.has(Capability::HugePages) {
            Ok(self)
        } else {
            Err(BackendError::Unsupported(Capability::HugePages))
        }
    }
}

impl Poisoning for LinuxBackend {
    fn set_poison(&mut self, asid: Asid, va: u64, poisoned: bool) -> Result<()> {
        if !self.caps.has(Capability::Poison) {
            return Err(BackendError::Unsupported(Capability::Poison));
        }
        let va = va & !(PAGE - 1);
        if poisoned {
            if !self.sampled.get(&(asid, va)).is_some_and(|x| x.poisoned) {
                self.arm(asid, &[va], true)?;
            }
            Ok(())
        } else {
            self.end_sampling(asid, va)
        }
    }

    fn set_poison_range(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        poisoned: bool,
    ) -> Result<u64> {
        let vas: Vec<u64> = self
            .pages_in(asid, start, len)?
            .into_iter()
            .filter(|(va, s)| s.node().is_some() || self.sampled.contains_key(&(asid, *va)))
            .map(|(va, _)| va)
            .collect();
        if poisoned {
            let fresh: Vec<u64> = vas
                .iter()
                .copied()
                .filter(|va| !self.sampled.get(&(asid, *va)).is_some_and(|x| x.poisoned))
                .collect();
            self.arm(asid, &fresh, true)?;
        } else {
            for &va in &vas {
                self.end_sampling(asid, va)?;
            }
        }
        Ok(vas.len() as u64)
    }

    fn arm_hint_fault(&mut self, asid: Asid, va: u64) -> Result<()> {
        self.set_poison(asid, va, true)
    }

    fn poison_faults(&mut self, asid: Asid, va: u64, reset: bool) -> Result<u64> {
        let va = va & !(PAGE - 1);
        let Some(x) = self.sampled.get(&(asid, va)).copied() else {
            return Ok(0);
        };
        let mut faults = x.faults;
        if self.refaulted(asid, va)? {
            faults += 1;
            self.counters.refaults += 1;
            if x.poisoned {
                self.arm(asid, &[va], true)?;
            }
        }
        if let Some(y) = self.sampled.get_mut(&(asid, va)) {
            y.faults = if reset { 0 } else { faults };
        }
        Ok(faults)
    }
}

impl HugePages for LinuxBackend {
    fn split_huge(&mut self, asid: Asid, va: u64) -> Result<()> {
        if !self.caps.has(Capability::HugePages) {
            return Err(BackendError::Unsupported(Capability::HugePages));
        }
        let head = va & !(HUGE_BYTES - 1);
        if !self.state(asid, va)?.is_some_and(|s| s.huge()) {
            return Err(BackendError::Invalid {
                va,
                why: "not in a transparent huge page",
            });
        }
        if self.dry_run {
            // a dry run changes nothing in the target
            return Ok(());
        }
        let pid = self.process(asid)?.pid;
        crate::thp::split(pid, head, head + HUGE_BYTES).map_err(|e| {
            BackendError::Host(format!("{} on pid {pid}: {e}", crate::thp::SPLIT_FILE))
        })?;
        self.counters.splits += 1;
        self.invalidate(asid, head);
        Ok(())
    }

    fn collapse_huge(&mut self, asid: Asid, va: u64) -> Result<()> {
        if !self.caps.has(Capability::HugePages) {
            return Err(BackendError::Unsupported(Capability::HugePages));
        }
        let head = va & !(HUGE_BYTES - 1);
        let in_region = matches!(
            (self.region_of(asid, head), self.region_of(asid, head + HUGE_BYTES - 1)),
            (Some((a, _)), Some((b, _))) if a == b
        );
        if !in_region {
            return Err(BackendError::Invalid {
                va,
                why: "the aligned 2 MiB is not inside one region",
            });
        }
        if self.dry_run {
            return Ok(());
        }
        let p = self.process(asid)?;
        let pid = p.pid;
        let Some(fd) = p.pidfd.as_ref() else {
            return Err(BackendError::Unsupported(Capability::HugePages));
        };
        // a page sampled by paging it out is not present: the kernel would
        // not collapse over it (nor should it: its sampling is not over)
        crate::thp::collapse(fd, head, HUGE_BYTES).map_err(|e| {
            BackendError::Host(format!("process_madvise(MADV_COLLAPSE) on pid {pid}: {e}"))
        })?;
        self.counters.collapses += 1;
        self.invalidate(asid, head);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: u64, len: u64) -> Region {
        Region {
            info: RegionInfo {
                asid: Asid(0),
                name: String::new(),
                start,
                len,
                page_type: PageType::Anon,
                thp: false,
            },
            cache: RefCell::default(),
            thp: None,
        }
    }

    #[test]
    fn chunks_are_aligned_2_mib_pieces_of_a_region() {
        // 1 MiB before a 2 MiB boundary, then 2 MiB, then 4 KiB
        let r = region((5 << 21) - (1 << 20), (1 << 20) + (2 << 20) + PAGE);
        assert_eq!(r.chunks(), 3);
        assert_eq!(r.chunk_pages(0), (0, 256));
        assert_eq!(r.chunk_pages(1), (256, 768));
        assert_eq!(r.chunk_pages(2), (768, 769));
        assert_eq!(r.chunk_of(r.info.start), 0);
        assert_eq!(r.chunk_of(5 << 21), 1);
        assert_eq!(r.chunk_of(r.info.end() - 1), 2);
        assert_eq!(region(1 << 21, 1 << 21).chunks(), 1);
    }

    #[test]
    fn only_the_chunks_asked_about_are_read_once_per_refresh() {
        // this process is the target; a 16 MiB allocation of its own, written
        let mut v = vec![0u8; 16 << 20];
        for i in (0..v.len()).step_by(PAGE as usize) {
            v[i] = 1;
        }
        let va = (v.as_ptr() as u64).div_ceil(1 << 21) * (1 << 21);
        let pid = std::process::id() as i32;
        let opts = LiveOptions {
            tiers: None,
            compressed_tier: false,
            dry_run: true,
            ..Default::default()
        };
        let mut b = LinuxBackend::new(TargetSpec::Pid(pid), opts).unwrap();
        b.refresh().unwrap();
        let stamped = |b: &LinuxBackend| -> usize {
            b.regions
                .iter()
                .map(|r| {
                    let c = r.cache.borrow();
                    c.stamps.iter().filter(|&&s| s == b.epoch).count()
                })
                .sum()
        };
        assert_eq!(stamped(&b), 0, "nothing is read before it is asked");
        let t = b.translate(Asid(0), va + 5 * PAGE).unwrap();
        assert!(t.is_some_and(|t| t.tier == TierId::FAST));
        assert_eq!(stamped(&b), 1, "one chunk read");
        b.translate(Asid(0), va + 7 * PAGE).unwrap();
        assert_eq!(stamped(&b), 1, "the same chunk, not read again");
        b.refresh().unwrap();
        assert_eq!(stamped(&b), 0, "a refresh forgets what was read");
        // a dry-run move shows the page where it was put, in the figure too
        let before = b.resident_bytes();
        let r = b.migrate(Asid(0), &[va], TierId::FAST).unwrap();
        assert_eq!(r.already_there, 1);
        assert_eq!(b.resident_bytes(), before);
        std::hint::black_box(&v);
    }

    #[test]
    fn a_thp_is_translated_and_moved_as_one_unit() {
        // this process is the target; its own 8 MiB allocation, written, and
        // one of its 2 MiB chunks marked as a THP by hand (a fake huge run:
        // whether the host gives this allocation a THP is not known here)
        let mut v = vec![0u8; 8 << 20];
        for i in (0..v.len()).step_by(PAGE as usize) {
            v[i] = 1;
        }
        let va = (v.as_ptr() as u64).div_ceil(HUGE_BYTES) * HUGE_BYTES;
        let node = numa::nodes().unwrap()[0].id;
        let opts = LiveOptions {
            tiers: Some(vec![
                LiveTier {
                    name: "fast".into(),
                    nodes: vec![node],
                    compressed: false,
                },
                LiveTier {
                    name: "slow".into(),
                    nodes: Vec::new(),
                    compressed: false,
                },
            ]),
            compressed_tier: false,
            dry_run: true,
            ..Default::default()
        };
        let pid = std::process::id() as i32;
        let mut b = LinuxBackend::new(TargetSpec::Pid(pid), opts).unwrap();
        b.refresh().unwrap();
        let set_huge = |b: &LinuxBackend, huge: bool| {
            b.state(Asid(0), va).unwrap();
            let (r, i) = b.region_of(Asid(0), va).unwrap();
            let mut c = b.regions[r].cache.borrow_mut();
            for s in &mut c.pages[i..i + HUGE_PAGES] {
                assert!(s.node().is_some(), "written, so present");
                *s = s.with_huge(huge);
            }
        };
        set_huge(&b, true);
        let t = b.translate(Asid(0), va + 5 * PAGE).unwrap().unwrap();
        assert_eq!((t.size, t.tier), (PageSize::Huge, TierId::FAST));
        let (at, t) = b
            .next_mapped(Asid(0), va + 7 * PAGE, va + HUGE_BYTES)
            .unwrap()
            .unwrap();
        assert_eq!((at, t.size), (va, PageSize::Huge), "the THP's base");
        let after = va + HUGE_BYTES;
        assert_eq!(
            b.translate(Asid(0), after).unwrap().unwrap().size,
            PageSize::Base
        );
        let slow = TierId(1);
        // the quota counts 2 MiB for the THP: 2 MiB - 4 KiB is not enough
        b.set_budget(Some(HUGE_BYTES - PAGE));
        let r = b.migrate(Asid(0), &[va + 3 * PAGE], slow).unwrap();
        assert_eq!((r.pages, r.failed), (0, 1));
        // two pages of the THP and one page after it: one THP, one page
        b.set_budget(Some(HUGE_BYTES + PAGE));
        let before = b.resident_bytes();
        let r = b
            .migrate(Asid(0), &[va + 3 * PAGE, va + 9 * PAGE, after], slow)
            .unwrap();
        assert_eq!((r.pages, r.bytes, r.failed), (2, HUGE_BYTES + PAGE, 0));
        assert_eq!(b.resident_bytes()[1], before[1] + HUGE_BYTES + PAGE);
        // every page of the THP is shown in the slow tier
        for k in [0, 1, 200, 511] {
            let t = b.translate(Asid(0), va + k * PAGE).unwrap().unwrap();
            assert_eq!((t.size, t.tier), (PageSize::Huge, slow), "page {k}");
        }
        // the full read counts the THP's 2 MiB where the dry run put it
        b.refresh().unwrap();
        set_huge(&b, true);
        b.refresh_resident(true);
        let full = b.resident_bytes();
        assert!(full[1] >= HUGE_BYTES, "{full:?}");
        // moving it again: already there, as one unit
        b.set_budget(None);
        let r = b.migrate(Asid(0), &[va, va + PAGE], slow).unwrap();
        assert_eq!(r.already_there, 1);
        // split and collapse on a dry run: refused without the capability,
        // else nothing changes
        if b.capabilities().has(Capability::HugePages) {
            b.split_huge(Asid(0), va).unwrap();
        } else {
            assert!(matches!(
                b.split_huge(Asid(0), va),
                Err(BackendError::Unsupported(Capability::HugePages))
            ));
        }
        std::hint::black_box(&v);
    }
}
