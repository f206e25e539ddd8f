//! HeteroOS-coordinated (../shared/papers/001_f8c99e4789a9a37b.txt,
//! section 4.1, Equation 1, Table 5; evaluated in section 5.4): HeteroOS-LRU
//! in the guest, and when on-demand allocation and HeteroOS-LRU cannot find
//! free FastMem, the VMM's hotness tracking, guided by the guest, with the
//! guest migrating.
//!
//! What the paper says, and where it is here:
//!
//! - **The tracking is HeteroVisor's** (section 4.1: "HeteroOS's coordinated
//!   management (HeteroOS-coordinated) reuses HeteroVisor's hotness-tracking
//!   implementation"; section 2.3: it "periodically scans the page table,
//!   records the value of the access bit [...] and resets the bit [...].
//!   Pages that are identified as hot are promoted to FastMem, whereas least
//!   recently used hot pages are evicted to a slower memory"). Each epoch
//!   the VMM reads and clears the Accessed bits of the next
//!   [`CoordinatedParams::scan_pages`] tracked pages, in FastMem and
//!   SlowMem, and shifts each into the page's history of its last eight
//!   scans ([`super::history`]); a SlowMem page is hot by that history (its
//!   latest scan and at least [`CoordinatedParams::hot_scans`] of the eight
//!   found it accessed), not by one scan.
//! - **What to track**: "The guest-OS exports a tracking list and an
//!   exception list to the VMM [...] We extract it using the virtual memory
//!   area (VMA) structure": the heap VMAs; the page cache, buffer cache,
//!   slab, page tables and DMA pages are on the exception list.
//! - **When to track**: Equation 1 ([`super::interval`]), over the LLC
//!   misses "exported by the VMM in each epoch", clamped to section 5.4's
//!   "50ms to 1 second".
//! - **Who migrates**: "the actual migrations are performed in the guest-OS"
//!   and "the VMM's hotness-tracking is exported to the guest-OS". The VMM
//!   hands the guest the hot SlowMem pages of its scan, most recently used
//!   first, and its history; the guest checks each page's state ("validates
//!   if the page is mapped to a process, and not marked for deletion": still
//!   mapped, still out of FastMem; a freed page is gone from the table), and
//!   promotes into free FastMem; for more room, HeteroOS-LRU's clock evicts
//!   inactive FastMem pages the VMM does not track (the exception list's
//!   types), then the least recently used tracked FastMem pages by the
//!   VMM's history are evicted, each only for a hot page more recently used
//!   than itself (LRU replacement: a hot set that fits FastMem is not
//!   displaced by pages used less recently).
//! - **The guest uses the exported hotness**: HeteroOS-LRU's own
//!   replacement (under allocation pressure) counts a tracked page hot by
//!   the VMM's history as active, whatever its own Accessed bit says, so
//!   the guest does not evict what the VMM has just found hot.
//!   *Inferred*: the paper exports the tracking to the guest without saying
//!   how HeteroOS-LRU weighs it; without this, a page the VMM promoted was
//!   evicted by the next LRU pass that found it idle since its previous
//!   pass (a window of tens of milliseconds against the VMM's seconds), and
//!   promoted again.
//! - **Costs**: the VMM is charged Table 6's page walk for every page it
//!   scans (as VMM-exclusive, [`super::vmm::page_walk_ns`]), and the TLB
//!   flush after each scan; the guest's migrations are charged by the
//!   machine (Table 6's walk, the guest's page-state checks, plus the copy,
//!   per page moved).
//!
//! *Inferred*, beyond [`super::history`]'s:
//! - tracking starts at the first statistics interval with FastMem
//!   allocation misses (after HeteroOS-LRU's evictions) and goes on from
//!   then, at the first interval of 100 ms;
//! - the LLC misses of an epoch are the machine's (every access that misses
//!   the LLC, all of them when no LLC is modelled), compared as a rate per
//!   second of the epoch ([`super::interval`]);
//! - the VMM's and the guest's Accessed bits are kept apart for tracked
//!   pages ([`super::history::AccessHistory::guest_read`]) where a real
//!   machine has two sets (the EPT's and the guest's page table's); before
//!   that, the tracker left FastMem pages' bits to the guest and had no
//!   history of them to evict by. The balloon's swap clock (`heteroos-vms`
//!   on a machine with a swap device) still reads the machine's bits;
//! - the VMM's scan hands the guest the hot pages of that scan's batch, not
//!   of every tracked page: a page is judged when its history changes.

use super::guest::{GuestBits, GuestParams, HeteroOsGuest, MachineBits, Mechanism};
use super::history::{is_hot_bits, AccessHistory, Page, HISTORY_SCANS};
use super::interval::{next_interval_ns, MIN_INTERVAL_NS};
use super::lru::Thresholds;
use super::vmm::{flush_scanned, page_walk_ns};
use crate::Manager;
use serde::{Deserialize, Serialize};
use thermocline_backend::{Backend, BackendError};
use thermocline_vocab::{Asid, MemEvent, PageType, TierId};

/// Parameters of HeteroOS-coordinated: the guest's (as `heteroos-lru`)
/// and the VMM tracker's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoordinatedParams {
    /// The guest's statistics and LRU period (ms): 100.
    pub interval_ms: f64,
    /// HeteroOS-LRU's FastMem free watermark (see `heteroos-lru`).
    pub fast_free_watermark: f64,
    /// HeteroOS-LRU's per-type thresholds (see `heteroos-lru`).
    pub thresholds: Thresholds,
    /// Tracked pages scanned per tracking epoch: as VMM-exclusive's 16 K.
    pub scan_pages: u64,
    /// The first tracking interval (ms), before Equation 1 adapts it.
    pub first_tracking_interval_ms: f64,
    /// A SlowMem page is hot when its latest scan and at least this many
    /// of its last eight found it accessed (*inferred*: 2, see
    /// [`super::history`]).
    pub hot_scans: u32,
}

impl Default for CoordinatedParams {
    fn default() -> Self {
        let g = GuestParams::default();
        CoordinatedParams {
            interval_ms: g.interval_ms,
            fast_free_watermark: g.fast_free_watermark,
            thresholds: g.thresholds,
            scan_pages: 16 * 1024,
            first_tracking_interval_ms: 100.0,
            hot_scans: 2,
        }
    }
}

impl CoordinatedParams {
    pub(crate) fn guest(&self) -> GuestParams {
        GuestParams {
            interval_ms: self.interval_ms,
            fast_free_watermark: self.fast_free_watermark,
            thresholds: self.thresholds,
        }
    }

    /// Why these parameters cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        self.guest().check()?;
        if self.scan_pages == 0 {
            return Err("scan_pages: must be at least 1".into());
        }
        let ms = self.first_tracking_interval_ms;
        if !(50.0..=1000.0).contains(&ms) {
            return Err(format!(
                "first_tracking_interval_ms: {ms} is outside Equation 1's 50-1000 ms"
            ));
        }
        if !(1..=HISTORY_SCANS).contains(&self.hot_scans) {
            return Err(format!(
                "hot_scans: {} is not 1-{HISTORY_SCANS} (scans of history)",
                self.hot_scans
            ));
        }
        Ok(())
    }
}

/// The VMM's tracking of the guest's tracking list, with its Accessed-bit
/// history, and the guest's migrations on what it exports: each epoch,
/// [`GuidedTracker::scan`], then (HeteroOS-LRU's room aside)
/// [`GuidedTracker::migrate`].
#[derive(Debug)]
pub struct GuidedTracker {
    /// (asid, start, end) of every tracked range, sorted.
    ranges: Vec<(Asid, u64, u64)>,
    scan_pages: u64,
    hot_scans: u32,
    /// Where the next scan starts: a range and an address in it.
    cursor: (usize, u64),
    slow: TierId,
    history: AccessHistory,
    /// The hot SlowMem pages of the last scan, with their histories.
    hot: Vec<(u8, Page)>,
    to_move: Vec<u64>,
    moved: Vec<Page>,
    /// A VM's address space and its FastMem quota (pages), when the
    /// tracker serves one VM of several: FastMem is then that quota.
    fast_budget: Option<(Asid, u64)>,
    /// Pages scanned so far.
    pub scanned: u64,
    /// SlowMem pages found hot so far.
    pub found_hot: u64,
    /// Pages moved into FastMem.
    pub promoted: u64,
    /// Tracked FastMem pages evicted, least recently used first, to make
    /// room for hot ones.
    pub evicted: u64,
}

impl GuidedTracker {
    /// A tracker of `ranges` (sorted here), `scan_pages` per epoch, a page
    /// hot after `hot_scans` accessed scans, evicting to `slow`.
    pub fn new(
        mut ranges: Vec<(Asid, u64, u64)>,
        scan_pages: u64,
        hot_scans: u32,
        slow: TierId,
    ) -> Self {
        ranges.sort_unstable();
        let cursor = (0, ranges.first().map_or(0, |r| r.1));
        GuidedTracker {
            ranges,
            scan_pages,
            hot_scans,
            cursor,
            slow,
            history: AccessHistory::new(),
            hot: Vec::new(),
            to_move: Vec::new(),
            moved: Vec::new(),
            fast_budget: None,
            scanned: 0,
            found_hot: 0,
            promoted: 0,
            evicted: 0,
        }
    }

    /// The tracker of one VM of several, whose FastMem is `pages` (its
    /// quota) in address space `asid`.
    pub fn with_budget(mut self, asid: Asid, pages: u64) -> Self {
        self.fast_budget = Some((asid, pages));
        self
    }

    /// The history the VMM keeps (and exports to the guest).
    pub fn history(&self) -> &AccessHistory {
        &self.history
    }

    /// Whether `va` of `asid` is on the tracking list.
    pub fn tracks(&self, asid: Asid, va: u64) -> bool {
        let i = self.ranges.partition_point(|r| (r.0, r.1) <= (asid, va));
        i.checked_sub(1)
            .map(|i| self.ranges[i])
            .is_some_and(|(a, _, end)| a == asid && va < end)
    }

    /// The VMM's half of an epoch: reads and clears the Accessed bits of
    /// the next `scan_pages` mapped tracked pages (each range at most once
    /// a scan), records them in the history, flushes the TLB, charges
    /// Table 6's walks; returns how many SlowMem pages are hot.
    pub fn scan(&mut self, b: &mut dyn Backend) -> Result<u64, BackendError> {
        self.hot.clear();
        if self.ranges.is_empty() {
            return Ok(0);
        }
        let mut read = 0;
        let mut ranges_left = self.ranges.len();
        while read < self.scan_pages && ranges_left > 0 {
            let (i, va) = self.cursor;
            let (asid, _, end) = self.ranges[i];
            match b.next_mapped(asid, va, end)? {
                Some((base, t)) => {
                    // What lay before it is unmapped: its history is gone.
                    self.history.forget(asid, va, base);
                    read += 1;
                    self.cursor.1 = base + t.size.bytes();
                    let page = (asid, base);
                    let fast = t.tier == TierId::FAST;
                    let accessed = self.history.vmm_read(b, page)?;
                    let bits = self.history.record(page, accessed, fast);
                    if !fast && is_hot_bits(bits, self.hot_scans) {
                        self.hot.push((bits, page));
                    }
                }
                None => {
                    self.history.forget(asid, va, end);
                    let next = (i + 1) % self.ranges.len();
                    self.cursor = (next, self.ranges[next].1);
                    ranges_left -= 1;
                }
            }
        }
        flush_scanned(b, &self.ranges)?;
        b.charge_manager(read as f64 * page_walk_ns(self.scan_pages));
        self.scanned += read;
        self.found_hot += self.hot.len() as u64;
        Ok(self.hot.len() as u64)
    }

    /// FastMem pages as the guest sees them: (all, free).
    fn fast_view(&self, b: &mut dyn Backend) -> Result<(u64, u64), BackendError> {
        super::fast_view(b, self.fast_budget)
    }

    /// The guest's half of an epoch, on the hot pages the scan exported:
    /// drops those no longer mapped or already in FastMem, promotes the
    /// most recently used into free FastMem, and for the rest evicts the
    /// least recently used tracked FastMem pages, each only for a hot page
    /// more recently used than itself.
    pub fn migrate(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let mut hot = std::mem::take(&mut self.hot);
        // Page-state checks: still mapped, still out of FastMem.
        let mut i = 0;
        while i < hot.len() {
            let (asid, va) = hot[i].1;
            match b.translate(asid, va)? {
                Some(t) if t.tier != TierId::FAST => i += 1,
                _ => {
                    hot.swap_remove(i);
                }
            }
        }
        // Most recently used first.
        hot.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let free = self.fast_view(b)?.1 as usize;
        let mut room = free.min(hot.len());
        if room < hot.len() {
            let want = hot.len() - room;
            // Victims, least recently used first; a stale one (freed, or
            // moved since it was seen) is skipped.
            let mut victims = Vec::new();
            for (page, bits) in self.history.coldest_fast(want * 2 + 16) {
                if victims.len() == want || bits >= hot[room + victims.len()].0 {
                    break;
                }
                match b.translate(page.0, page.1)? {
                    Some(t) if t.tier == TierId::FAST => victims.push(page),
                    Some(_) => self.history.set_fast(page, false),
                    None => self.history.forget(page.0, page.1, page.1 + 1),
                }
            }
            let evicted = self.move_pages(b, &victims, self.slow)?;
            self.evicted += evicted;
            room = (room + evicted as usize).min(hot.len());
        }
        let promote: Vec<Page> = hot[..room].iter().map(|h| h.1).collect();
        self.promoted += self.move_pages(b, &promote, TierId::FAST)?;
        self.hot = hot;
        self.hot.clear();
        Ok(())
    }

    /// Moves `pages` to `to`, batched per address space, and notes where
    /// each is now; returns the pages moved.
    fn move_pages(
        &mut self,
        b: &mut dyn Backend,
        pages: &[Page],
        to: TierId,
    ) -> Result<u64, BackendError> {
        self.moved.clear();
        self.moved.extend_from_slice(pages);
        self.moved.sort_unstable();
        let moved = std::mem::take(&mut self.moved);
        let mut n = 0;
        for chunk in moved.chunk_by(|a, b| a.0 == b.0) {
            self.to_move.clear();
            self.to_move.extend(chunk.iter().map(|&(_, va)| va));
            n += b.migrate(chunk[0].0, &self.to_move, to)?.pages;
        }
        for &(asid, va) in &moved {
            let fast = b
                .translate(asid, va)?
                .is_some_and(|t| t.tier == TierId::FAST);
            self.history.set_fast((asid, va), fast);
        }
        self.moved = moved;
        Ok(n)
    }
}

/// When HeteroOS-LRU makes room for promotions: the untracked pages only
/// (the exception list's: page cache, slab...), read as [`GuidedTracker`]
/// reads them; the tracked ones go by the VMM's history.
struct UntrackedOnly<'a>(&'a mut GuidedTracker);

impl GuestBits for UntrackedOnly<'_> {
    fn read_and_clear(
        &mut self,
        b: &mut dyn Backend,
        asid: Asid,
        va: u64,
    ) -> Result<bool, BackendError> {
        self.0.read_and_clear(b, asid, va)
    }

    fn may_evict(&self, asid: Asid, va: u64) -> bool {
        !self.0.tracks(asid, va)
    }
}

/// The guest's LRU reads its own Accessed bits of tracked pages through
/// the tracker, which keeps them apart from the VMM's.
impl GuestBits for GuidedTracker {
    fn read_and_clear(
        &mut self,
        b: &mut dyn Backend,
        asid: Asid,
        va: u64,
    ) -> Result<bool, BackendError> {
        let tracked = self.tracks(asid, va);
        let seen = self.history.guest_read(b, (asid, va), tracked)?;
        // The VMM's hotness is exported to the guest: a page hot by its
        // history is not inactive.
        let hot = tracked
            && self
                .history
                .bits((asid, va))
                .is_some_and(|bits| is_hot_bits(bits, self.hot_scans));
        Ok(seen || hot)
    }
}

/// The HeteroOS-coordinated manager.
pub struct Coordinated {
    params: CoordinatedParams,
    /// The one address space (VM) it manages, or `None`: every one.
    scope: Option<Asid>,
    guest: HeteroOsGuest,
    tracker: Option<GuidedTracker>,
    started: bool,
    next_guest_ns: u64,
    next_track_ns: u64,
    track_interval_ns: u64,
    llc_at_epoch: u64,
    /// When the current tracking epoch began (ns).
    epoch_start_ns: u64,
    /// The last epoch's LLC misses per second.
    last_epoch_rate: Option<f64>,
    epochs: u64,
}

impl Coordinated {
    /// The manager with `params` (checked by the caller).
    pub fn new(params: CoordinatedParams) -> Self {
        Coordinated {
            guest: HeteroOsGuest::new(Mechanism::Lru, params.guest()),
            scope: None,
            track_interval_ns: (params.first_tracking_interval_ms * 1e6) as u64,
            params,
            tracker: None,
            started: false,
            next_guest_ns: 0,
            next_track_ns: 0,
            llc_at_epoch: 0,
            epoch_start_ns: 0,
            last_epoch_rate: None,
            epochs: 0,
        }
    }

    /// HeteroOS-coordinated for one VM of several: its guest runs address
    /// space `asid` within `fast_budget` FastMem and `slow_budget` SlowMem
    /// pages
    /// ([`HeteroOsGuest::for_vm`]) and the VMM tracks that space's heap.
    /// *Inferred*: Equation 1 reads the machine's LLC misses, not the VM's
    /// (the paper does not say how a VMM would count them per VM).
    pub fn for_vm(
        params: CoordinatedParams,
        asid: Asid,
        fast_budget: u64,
        slow_budget: u64,
    ) -> Self {
        Coordinated {
            guest: HeteroOsGuest::for_vm(
                Mechanism::Lru,
                params.guest(),
                asid,
                fast_budget,
                slow_budget,
            ),
            scope: Some(asid),
            ..Coordinated::new(params)
        }
    }

    /// The VM's new SlowMem quota, after the VMM's ballooning.
    pub fn set_slow_budget(&mut self, pages: u64) {
        self.guest.set_slow_budget(pages);
    }

    /// A tick of a VM's manager, with its address space's memory events
    /// (see [`HeteroOsGuest::tick_with_events`]).
    pub fn tick_with_events(
        &mut self,
        b: &mut dyn Backend,
        events: &[MemEvent],
    ) -> Result<(), BackendError> {
        self.step(b, Some(events))
    }

    fn step(
        &mut self,
        b: &mut dyn Backend,
        events: Option<&[MemEvent]>,
    ) -> Result<(), BackendError> {
        let now = b.now_ns();
        if now < self.next_guest_ns {
            // The VMM ticks more often than the guest: keep a VM's events
            // for the guest's next tick.
            if let Some(events) = events {
                self.guest.queue_events(events);
            }
        } else {
            // The guest's LRU reads its own Accessed bits of tracked
            // pages, apart from the VMM's.
            let bits: &mut dyn GuestBits = match self.tracker.as_mut() {
                Some(t) => t,
                None => &mut MachineBits,
            };
            match events {
                Some(events) => self.guest.tick_with_events_and_bits(b, events, bits)?,
                None => self.guest.tick_with_bits(b, bits)?,
            }
            self.next_guest_ns = now + self.guest.interval_ns();
            if !self.started && self.guest.interval_misses() > 0 {
                self.started = true;
                self.next_track_ns = now;
                self.llc_at_epoch = b.llc_misses()?;
                self.epoch_start_ns = now;
            }
        }
        if self.started && now >= self.next_track_ns {
            self.track(b, now)?;
        }
        Ok(())
    }

    /// One tracking epoch: the interval for the next from Equation 1 (over
    /// the LLC misses per second of this epoch and the last), then the
    /// VMM's scan and the guest's migrations.
    fn track(&mut self, b: &mut dyn Backend, now: u64) -> Result<(), BackendError> {
        let llc = b.llc_misses()?;
        let misses = llc.saturating_sub(self.llc_at_epoch);
        let len_ns = now.saturating_sub(self.epoch_start_ns);
        self.llc_at_epoch = llc;
        self.epoch_start_ns = now;
        // The first call closes no epoch (tracking starts with it).
        if len_ns > 0 {
            let rate = misses as f64 / (len_ns as f64 / 1e9);
            if let Some(previous) = self.last_epoch_rate {
                self.track_interval_ns = next_interval_ns(self.track_interval_ns, previous, rate);
            }
            self.last_epoch_rate = Some(rate);
        }
        if let Some(t) = self.tracker.as_mut() {
            let hot = t.scan(b)?;
            // The guest makes room first with HeteroOS-LRU (the untracked
            // types' inactive pages, by its own Accessed bits), then
            // migrates, evicting the least recently used tracked pages by
            // the VMM's history for the rest.
            let (_, free) = self.guest.fast_view(b)?;
            if hot > free {
                self.guest
                    .reclaim_with(b, hot - free, &mut UntrackedOnly(t))?;
            }
            t.migrate(b)?;
        }
        self.epochs += 1;
        self.next_track_ns = now + self.track_interval_ns;
        Ok(())
    }
}

impl Manager for Coordinated {
    fn name(&self) -> &'static str {
        "heteroos-coordinated"
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        let mut g = self.guest.gauges();
        let t = self.tracker.as_ref();
        let n = |f: fn(&GuidedTracker) -> u64| t.map_or(0.0, |t| f(t) as f64);
        g.extend([
            ("scanned_pages_count", n(|t| t.scanned)),
            ("hot_pages_count", n(|t| t.found_hot)),
            ("promoted_pages_count", n(|t| t.promoted)),
            ("evicted_pages_count", n(|t| t.evicted)),
            ("tracking_epochs_count", self.epochs as f64),
            ("tracking_interval_ms", self.track_interval_ns as f64 / 1e6),
        ]);
        g
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        self.guest.start(b)?;
        let slow = super::slow_tier(b);
        let tracking: Vec<_> = b
            .regions()
            .iter()
            .filter(|r| r.page_type == PageType::Anon && self.scope.is_none_or(|own| own == r.asid))
            .map(|r| (r.asid, r.start, r.end()))
            .collect();
        let tracker = GuidedTracker::new(
            tracking,
            self.params.scan_pages,
            self.params.hot_scans,
            slow,
        );
        self.tracker = Some(match (self.scope, self.guest.fast_budget()) {
            (Some(asid), Some(budget)) => tracker.with_budget(asid, budget),
            _ => tracker,
        });
        // The guest's first statistics come at the first tick.
        self.next_guest_ns = b.now_ns();
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        Some(MIN_INTERVAL_NS)
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<crate::HotSet>, BackendError> {
        self.step(b, None)?;
        Ok(None)
    }
}
