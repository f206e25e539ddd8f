//! HeteroOS's guest-OS placement (../shared/papers/001_f8c99e4789a9a37b.txt,
//! sections 3.1-3.3, Table 5): the incremental mechanisms Heap-OD,
//! Heap-IO-Slab-OD and HeteroOS-LRU, one manager type with a [`Mechanism`].
//!
//! - **Heterogeneity awareness** (3.1): the guest's default allocator uses
//!   SlowMem; FastMem is handed out only by the HeteroOS allocator, per page
//!   type (`TypedAlloc::set_type_policy`), with SlowMem as the fallback when
//!   FastMem is full (the on-demand driver's fallback strategy).
//! - **On-demand placement** (3.2): Heap-OD gives FastMem to heap pages on
//!   allocation; Heap-IO-Slab-OD also to page-cache, buffer-cache and slab
//!   pages. Page-table pages stay in SlowMem (the paper: under 0.5% impact;
//!   they are on the exception list). Every 100 ms the allocator reads each
//!   type's FastMem allocation requests and misses (gauges, Fig. 10).
//! - **HeteroOS-LRU** (3.3): I/O pages are evicted from FastMem as soon as
//!   their I/O completes; under FastMem pressure (its own, see [`lru`]),
//!   a clock hand over FastMem's frames (Linux keeps its LRU lists per
//!   node) reads and clears Accessed bits and evicts the pages found
//!   inactive at once, each type keeping its threshold share, until the
//!   FastMem freed covers the demand ([`lru::reclaim_target`]; Linux's
//!   `nr_to_reclaim`).
//!
//! *Inferred*, beyond what [`lru`] lists:
//! - pages released by unmap give their frames back at once on the machine
//!   (`MemEvent::Release`), for every mechanism: FastMem freed by an unmap
//!   is free for the next allocation, which is what the paper's eager
//!   migration of unmapped pages achieves;
//! - the prioritisation "of page types with maximum miss ratio" is the
//!   eviction that frees FastMem for the next allocations, which come from
//!   the types in demand; nothing reserves FastMem for a type;
//! - after a scan that cleared Accessed bits the TLB of each address space
//!   is flushed once, so that a page whose translation stays cached does not
//!   look inactive at the next scan (Observation 4: tracking "requires
//!   frequent TLB invalidation"); the flush and its refills are charged.

use super::balloon::SwapClock;
use super::lru::{self, IntervalStats, Thresholds};
use crate::Manager;
use serde::{Deserialize, Serialize};
use thermocline_backend::{AllocCounts, Backend, BackendError, Flush, MemPolicy};
use thermocline_vocab::{Asid, Level, MemEvent, PageSize, PageType, TierId};

/// Where the guest's LRU reads a page's Accessed bit (and clears it): the
/// machine's bit ([`MachineBits`]), or, under HeteroOS-coordinated, the
/// guest's own bit as the VMM's tracker keeps it apart from its own
/// ([`super::history::AccessHistory::guest_read`]).
pub trait GuestBits {
    /// Whether the page at `va` (a page's base) was accessed since the
    /// guest's last read; clears it.
    fn read_and_clear(
        &mut self,
        b: &mut dyn Backend,
        asid: Asid,
        va: u64,
    ) -> Result<bool, BackendError>;

    /// Whether this pass may evict the page at `va` (its bit is then left
    /// alone when it may not): every page, unless the pass makes room for
    /// HeteroOS-coordinated's promotions, where the tracked pages are the
    /// VMM history's to choose.
    fn may_evict(&self, asid: Asid, va: u64) -> bool {
        let _ = (asid, va);
        true
    }
}

/// The machine's Accessed bits, read directly: the guest is their only
/// reader.
pub struct MachineBits;

impl GuestBits for MachineBits {
    fn read_and_clear(
        &mut self,
        b: &mut dyn Backend,
        asid: Asid,
        va: u64,
    ) -> Result<bool, BackendError> {
        b.accessed(asid, va, Level::Pte, true)
    }
}

/// Which of Table 5's guest mechanisms run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// On-demand FastMem for heap pages only.
    HeapOd,
    /// On-demand FastMem for heap, page-cache, buffer-cache and slab pages.
    HeapIoSlabOd,
    /// Heap-IO-Slab-OD with HeteroOS-LRU's evictions.
    Lru,
}

impl Mechanism {
    fn name(self) -> &'static str {
        match self {
            Mechanism::HeapOd => "heteroos-heap-od",
            Mechanism::HeapIoSlabOd => "heteroos-heap-io-slab-od",
            Mechanism::Lru => "heteroos-lru",
        }
    }

    /// The page types that get FastMem on allocation.
    fn fast_types(self) -> &'static [PageType] {
        match self {
            Mechanism::HeapOd => &[PageType::Anon],
            Mechanism::HeapIoSlabOd | Mechanism::Lru => &[
                PageType::Anon,
                PageType::FileCache,
                PageType::IoBuffer,
                PageType::Slab,
            ],
        }
    }
}

/// Parameters of the guest mechanisms (the paper's values by default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GuestParams {
    /// Period of the allocation statistics and of HeteroOS-LRU (ms):
    /// section 3.2's 100 ms.
    pub interval_ms: f64,
    /// HeteroOS-LRU replaces when FastMem's free pages fall below this
    /// share of it (*inferred*: the paper gives no value; 1% is Linux's
    /// order of magnitude for a node's high watermark).
    pub fast_free_watermark: f64,
    /// Per page type, the share of FastMem its inactive pages keep under
    /// pressure (*inferred*: 0, see [`lru`]).
    pub thresholds: Thresholds,
}

impl Default for GuestParams {
    fn default() -> Self {
        GuestParams {
            interval_ms: 100.0,
            fast_free_watermark: 0.01,
            thresholds: Thresholds::default(),
        }
    }
}

impl GuestParams {
    /// Why these parameters cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        if !(self.interval_ms.is_finite() && self.interval_ms >= 1.0) {
            return Err(format!("interval_ms: {} is below 1 ms", self.interval_ms));
        }
        if !(0.0..=1.0).contains(&self.fast_free_watermark) {
            return Err(format!(
                "fast_free_watermark: {} is not a share in 0-1",
                self.fast_free_watermark
            ));
        }
        self.thresholds.check()
    }
}

/// A guest OS running one of Table 5's mechanisms.
pub struct HeteroOsGuest {
    mechanism: Mechanism,
    params: GuestParams,
    /// The one address space (VM) this guest runs, or `None`: every one.
    scope: Option<Asid>,
    /// The FastMem pages the VMM gives a scoped guest (its quota).
    fast_budget: Option<u64>,
    /// The SlowMem pages the VMM gives a scoped guest (its quota).
    slow_budget: Option<u64>,
    /// The swap device, if the machine has one.
    swap: Option<TierId>,
    /// The swap clock over SlowMem's frames.
    swap_clock: SwapClock,
    swapped_out: u64,
    asids: Vec<Asid>,
    /// (asid, start, end, type) of every region, sorted, for typing pages.
    regions: Vec<(Asid, u64, u64, PageType)>,
    slow: TierId,
    /// Cumulative allocation counts at the last tick, per address space.
    last_counts: Vec<[AllocCounts; PageType::COUNT]>,
    last: IntervalStats,
    requests: u64,
    misses: u64,
    events: Vec<MemEvent>,
    events_dropped: u64,
    /// Pages the current LRU pass evicts.
    evict: Vec<(Asid, u64)>,
    /// The LRU clock hand: the next FastMem frame to examine (an offset).
    hand: u64,
    /// FastMem pages per type seen in the hand's current revolution.
    held_acc: [u64; PageType::COUNT],
    /// The same over its last complete revolution.
    held_seen: Option<[u64; PageType::COUNT]>,
    to_move: Vec<u64>,
    io_evicted: u64,
    lru_evicted: u64,
    lru_scanned: u64,
    lru_passes: u64,
}

impl HeteroOsGuest {
    /// A guest running `mechanism` with `params` (checked by the caller).
    pub fn new(mechanism: Mechanism, params: GuestParams) -> Self {
        HeteroOsGuest {
            mechanism,
            params,
            scope: None,
            fast_budget: None,
            slow_budget: None,
            swap: None,
            swap_clock: SwapClock::default(),
            swapped_out: 0,
            asids: Vec::new(),
            regions: Vec::new(),
            slow: TierId(1),
            last_counts: Vec::new(),
            last: IntervalStats::default(),
            requests: 0,
            misses: 0,
            events: Vec::new(),
            events_dropped: 0,
            evict: Vec::new(),
            hand: 0,
            held_acc: [0; PageType::COUNT],
            held_seen: None,
            to_move: Vec::new(),
            io_evicted: 0,
            lru_evicted: 0,
            lru_scanned: 0,
            lru_passes: 0,
        }
    }

    /// A guest running `mechanism` in address space `asid` only, as one VM
    /// of several: it types, places and evicts that space's pages, sees
    /// FastMem as its `fast_budget` pages (the VMM's quota for it), and
    /// takes the memory events it is handed ([`Self::tick_with_events`]).
    /// On a machine with a swap device, the guest also swaps out inactive
    /// SlowMem pages when its `slow_budget` is used up and some of its pages
    /// wait in swap ([`Self::swap_out`]).
    pub fn for_vm(
        mechanism: Mechanism,
        params: GuestParams,
        asid: Asid,
        fast_budget: u64,
        slow_budget: u64,
    ) -> Self {
        HeteroOsGuest {
            scope: Some(asid),
            fast_budget: Some(fast_budget),
            slow_budget: Some(slow_budget),
            ..HeteroOsGuest::new(mechanism, params)
        }
    }

    /// The FastMem quota of a VM's guest.
    pub fn fast_budget(&self) -> Option<u64> {
        self.fast_budget
    }

    /// A VM's new SlowMem quota, after the VMM's ballooning.
    pub fn set_slow_budget(&mut self, pages: u64) {
        self.slow_budget = Some(pages);
    }

    /// FastMem as this guest sees it: (its pages, the free ones). A VM's
    /// FastMem is its quota, free as far as the machine has frames left.
    pub fn fast_view(&self, b: &mut dyn Backend) -> Result<(u64, u64), BackendError> {
        super::fast_view(b, self.scope.zip(self.fast_budget))
    }

    /// FastMem allocation misses in the last statistics interval: the
    /// on-demand allocation and HeteroOS-LRU did not find free FastMem.
    pub fn interval_misses(&self) -> u64 {
        self.last.total_misses()
    }

    /// The statistics and LRU period (ns).
    pub fn interval_ns(&self) -> u64 {
        (self.params.interval_ms * 1e6) as u64
    }

    fn type_of(&self, asid: Asid, va: u64) -> PageType {
        let i = self
            .regions
            .partition_point(|&(a, start, _, _)| (a, start) <= (asid, va));
        match i.checked_sub(1).map(|i| self.regions[i]) {
            Some((a, _, end, ty)) if a == asid && va < end => ty,
            _ => PageType::Anon,
        }
    }

    /// Reads the allocation counts of every address space into `last`.
    fn read_stats(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let mut sum = IntervalStats::default();
        for (k, &asid) in self.asids.iter().enumerate() {
            let now = b.alloc_counts(asid)?;
            let s = IntervalStats::between(&self.last_counts[k], &now);
            for i in 0..PageType::COUNT {
                sum.requests[i] += s.requests[i];
                sum.misses[i] += s.misses[i];
            }
            self.last_counts[k] = now;
        }
        // Figure 10's ratio is over the requests that asked for FastMem:
        // those of the types this mechanism gives FastMem.
        for ty in self.mechanism.fast_types() {
            self.requests += sum.requests[ty.index()];
            self.misses += sum.misses[ty.index()];
        }
        self.last = sum;
        Ok(())
    }

    /// Section 3.3 (2): I/O pages leave FastMem when their I/O completes.
    fn evict_completed_io(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        for i in 0..self.events.len() {
            if let MemEvent::IoDone { asid, start, len } = self.events[i] {
                let r = b.migrate_range(asid, start, len, self.slow, u64::MAX)?;
                self.io_evicted += r.pages;
            }
        }
        Ok(())
    }

    /// HeteroOS-LRU's replacement under FastMem pressure: [`Self::reclaim`]
    /// of what [`lru::reclaim_target`] asks for.
    fn replace(
        &mut self,
        b: &mut dyn Backend,
        bits: &mut dyn GuestBits,
    ) -> Result<(), BackendError> {
        let (fast_pages, free) = self.fast_view(b)?;
        let watermark = self.params.fast_free_watermark;
        let misses = self.last.total_misses();
        if fast_pages == 0 || !lru::under_pressure(free, fast_pages, watermark, misses) {
            return Ok(());
        }
        let target = lru::reclaim_target(free, fast_pages, watermark, misses);
        if target == 0 {
            return Ok(());
        }
        self.reclaim_with(b, target, bits)
    }

    /// Frees `target` FastMem pages if it can: a clock hand goes over
    /// FastMem's frames from where it stopped, reading and clearing each
    /// page's Accessed bit, and evicts every page found inactive (unless
    /// its type is down to its threshold share), until the pages freed
    /// reach `target` or every frame was seen once.
    pub fn reclaim(&mut self, b: &mut dyn Backend, target: u64) -> Result<(), BackendError> {
        self.reclaim_with(b, target, &mut MachineBits)
    }

    /// [`Self::reclaim`] reading the Accessed bits through `bits`.
    /// HeteroOS-coordinated calls it to make room for the pages it
    /// promotes, with the guest's bits kept apart from the VMM's.
    pub fn reclaim_with(
        &mut self,
        b: &mut dyn Backend,
        target: u64,
        bits: &mut dyn GuestBits,
    ) -> Result<(), BackendError> {
        let fast = b.tiers().into_iter().next().expect("a machine has a tier");
        let Some(first) = fast.first_frame else {
            return Err(BackendError::Unsupported(
                thermocline_backend::Capability::ReverseMap,
            ));
        };
        let fast_pages = fast.capacity_bytes / 4096;
        // The thresholds are shares of the FastMem this guest has.
        let (own_pages, _) = self.fast_view(b)?;
        self.lru_passes += 1;
        self.evict.clear();
        let mut evicted_of = [0u64; PageType::COUNT];
        let (mut freed, mut examined) = (0u64, 0u64);
        while freed < target && examined < fast_pages {
            let frame = first + self.hand;
            examined += 1;
            self.hand += 1;
            if self.hand == fast_pages {
                self.hand = 0;
                self.held_seen = Some(std::mem::take(&mut self.held_acc));
            }
            let Some((asid, va)) = b.reverse_translate(frame)? else {
                continue;
            };
            // A VM's guest sees only its own pages.
            if self.scope.is_some_and(|own| own != asid) {
                continue;
            }
            let Some(t) = b.translate(asid, va)? else {
                continue;
            };
            // A huge page is seen once, at its first frame (whose
            // piece is the page's base: a backend's frames need not
            // be what `translate` numbers them).
            if t.size == PageSize::Huge && va != t.size.align_down(va) {
                continue;
            }
            let (va, pages) = (t.size.align_down(va), t.size.bytes() / 4096);
            self.lru_scanned += 1;
            let ty = self.type_of(asid, va).index();
            self.held_acc[ty] += pages;
            if !bits.may_evict(asid, va) || bits.read_and_clear(b, asid, va)? {
                continue;
            }
            let held = self.held_seen.map(|h| h[ty]);
            let share = self.params.thresholds.share(PageType::ALL[ty]);
            if lru::may_evict(held, evicted_of[ty], own_pages, share) {
                self.evict.push((asid, va));
                evicted_of[ty] += pages;
                freed += pages;
            }
        }
        for &asid in &self.asids {
            b.flush_tlb(asid, Flush::All)?;
        }
        let mut evict = std::mem::take(&mut self.evict);
        evict.sort_unstable();
        for chunk in evict.chunk_by(|a, b| a.0 == b.0) {
            self.to_move.clear();
            self.to_move.extend(chunk.iter().map(|&(_, va)| va));
            let r = b.migrate(chunk[0].0, &self.to_move, self.slow)?;
            self.lru_evicted += r.pages;
        }
        self.evict = evict;
        Ok(())
    }
}

impl Manager for HeteroOsGuest {
    fn name(&self) -> &'static str {
        self.mechanism.name()
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        let ratio = |ty| self.last.miss_ratio(ty).unwrap_or(0.0);
        vec![
            ("fastmem_alloc_requests_count", self.requests as f64),
            ("fastmem_alloc_misses_count", self.misses as f64),
            ("heap_miss_ratio", ratio(PageType::Anon)),
            ("page_cache_miss_ratio", ratio(PageType::FileCache)),
            ("buffer_cache_miss_ratio", ratio(PageType::IoBuffer)),
            ("slab_miss_ratio", ratio(PageType::Slab)),
            ("io_evicted_pages_count", self.io_evicted as f64),
            ("lru_evicted_pages_count", self.lru_evicted as f64),
            ("lru_scanned_pages_count", self.lru_scanned as f64),
            ("lru_passes_count", self.lru_passes as f64),
            ("events_dropped_count", self.events_dropped as f64),
            ("swapped_out_pages_count", self.swapped_out as f64),
        ]
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        self.slow = super::slow_tier(b);
        self.swap = super::swap_tier(b);
        self.regions = b
            .regions()
            .iter()
            .filter(|r| self.scope.is_none_or(|own| own == r.asid))
            .map(|r| (r.asid, r.start, r.end(), r.page_type))
            .collect();
        self.regions.sort_unstable_by_key(|&(a, s, _, _)| (a, s));
        self.asids = self.regions.iter().map(|r| r.0).collect();
        self.asids.dedup();
        for &asid in &self.asids {
            b.set_policy(asid, MemPolicy::Bind { tier: self.slow })?;
            for &ty in self.mechanism.fast_types() {
                b.typed_alloc()?
                    .set_type_policy(asid, ty, Some(MemPolicy::PreferFast))?;
            }
        }
        // The first drain starts the machine keeping events for us.
        b.mem_events()?.drain_mem_events(&mut self.events)?;
        self.events.clear();
        self.last_counts = self
            .asids
            .iter()
            .map(|&a| b.alloc_counts(a))
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        Some(self.interval_ns())
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<crate::HotSet>, BackendError> {
        self.tick_with_bits(b, &mut MachineBits)?;
        Ok(None)
    }
}

impl HeteroOsGuest {
    /// A tick of a VM's guest, with the memory events of its address space
    /// since the last (the VMM drains the machine's once for every VM),
    /// after those queued by [`Self::queue_events`].
    pub fn tick_with_events(
        &mut self,
        b: &mut dyn Backend,
        events: &[MemEvent],
    ) -> Result<(), BackendError> {
        self.tick_with_events_and_bits(b, events, &mut MachineBits)
    }

    /// [`Self::tick_with_events`], the LRU reading Accessed bits through
    /// `bits` (see [`GuestBits`]).
    pub fn tick_with_events_and_bits(
        &mut self,
        b: &mut dyn Backend,
        events: &[MemEvent],
        bits: &mut dyn GuestBits,
    ) -> Result<(), BackendError> {
        self.events.extend_from_slice(events);
        let r = self.step(b, bits);
        self.events.clear();
        r
    }

    /// A tick (as [`Manager::tick`]: the guest drains the machine's memory
    /// events itself), the LRU reading Accessed bits through `bits`.
    pub fn tick_with_bits(
        &mut self,
        b: &mut dyn Backend,
        bits: &mut dyn GuestBits,
    ) -> Result<(), BackendError> {
        self.events.clear();
        self.events_dropped += b.mem_events()?.drain_mem_events(&mut self.events)?;
        self.step(b, bits)
    }

    /// Keeps a VM's events for its next tick (they arrived between two).
    pub fn queue_events(&mut self, events: &[MemEvent]) {
        self.events.extend_from_slice(events);
    }

    /// The statistics, then HeteroOS-LRU's evictions.
    fn step(&mut self, b: &mut dyn Backend, bits: &mut dyn GuestBits) -> Result<(), BackendError> {
        self.read_stats(b)?;
        if self.mechanism == Mechanism::Lru {
            self.evict_completed_io(b)?;
            self.replace(b, bits)?;
        }
        self.swap_out(b)
    }

    /// Linux's reclaim of a full node, for a VM on a machine with a swap
    /// device ([`super::balloon::reclaim_for_swap_ins`]).
    fn swap_out(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let (Some(swap), Some(asid), Some(budget)) = (self.swap, self.scope, self.slow_budget)
        else {
            return Ok(());
        };
        self.swapped_out += super::balloon::reclaim_for_swap_ins(
            &mut self.swap_clock,
            b,
            asid,
            self.slow,
            swap,
            budget,
            self.params.fast_free_watermark,
        )?;
        Ok(())
    }
}
