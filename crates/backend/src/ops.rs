//! The operations set.

use crate::{
    AllocCounts, BackendError, Capabilities, DmaReport, Flush, FramePlace, MemPolicy,
    MigrationReport, MonitorAttrs, MonitorRegion, RegionInfo, Sample, SamplingConfig, TierCounters,
    TierInfo, Translation,
};
use thermocline_vocab::{Asid, Level, PageType, TierId};

/// Result of a backend operation.
pub type Result<T> = std::result::Result<T, BackendError>;

/// What a telemetry technique may ask and a placement policy may do: the
/// core every backend has.
///
/// Twelve methods are required (the address spaces and their mappings,
/// Accessed and Dirty bits, TLB flushes, migration and the manager's cost);
/// the rest have defaults. The paper-specific mechanisms are optional
/// interfaces of their own ([`Poisoning`], [`Sampling`], [`HugePages`],
/// [`Exchange`], [`Colours`], [`Dma`], [`TypedAlloc`], [`MemEvents`],
/// [`MemoryMode`]): a backend that offers one overrides its accessor here
/// ([`Backend::poisoning`], ...) to return itself, and a manager asks for it
/// with `backend.poisoning()?.set_poison(..)`. The accessors' defaults are
/// the one place that says [`BackendError::Unsupported`] for a backend that
/// lacks one.
///
/// Managers hold `&mut dyn Backend` only when they run (at their ticks), never
/// on the per-access path, so dynamic dispatch here costs nothing that matters.
/// Every method that touches page tables or moves memory charges its cost to the
/// manager (see [`crate::costs`]).
pub trait Backend {
    /// "exact", "rate" or "linux": goes into reports.
    fn kind(&self) -> &'static str;

    /// The primitives this backend has.
    fn capabilities(&self) -> Capabilities;

    /// Current time in nanoseconds: simulated on simulated backends.
    fn now_ns(&self) -> u64;

    /// The mapped regions of every address space.
    fn regions(&self) -> &[RegionInfo];

    /// The tiers, fastest first.
    fn tiers(&self) -> Vec<TierInfo>;

    /// Where the page containing `va` lives, or `None` if not yet touched.
    fn translate(&self, asid: Asid, va: u64) -> Result<Option<Translation>>;

    /// The first mapped page at or after `from` (4 KiB steps) that starts
    /// before `end`, as (its base address, its translation): how the
    /// range operations' defaults, and managers, walk a range page by page.
    fn next_mapped(&self, asid: Asid, from: u64, end: u64) -> Result<Option<(u64, Translation)>> {
        let mut va = from & !0xfff;
        while va < end {
            if let Some(t) = self.translate(asid, va)? {
                return Ok(Some((t.size.align_down(va), t)));
            }
            va += 4096;
        }
        Ok(None)
    }

    /// The page physical `frame` (4 KiB units) backs, as its address space
    /// and the virtual address of that frame's 4 KiB piece (inside a huge
    /// page, the piece at the frame's offset); `None` for a free frame or
    /// one no tier owns. What Linux's rmap answers for DAMON's paddr
    /// operations; needs [`crate::Capability::ReverseMap`]. Like
    /// [`Backend::translate`], a query that charges no time: a manager that
    /// walks the rmap charges its cost itself.
    fn reverse_translate(&mut self, frame: u64) -> Result<Option<(Asid, u64)>> {
        let _ = frame;
        Err(BackendError::Unsupported(crate::Capability::ReverseMap))
    }

    // ---- telemetry ----

    /// Reads the Accessed bit of the entry at `level` that maps `va`, then clears
    /// it if `clear`. For a huge page, `Level::Pte` answers for its PMD. Clearing
    /// does not flush: call [`Backend::flush_tlb`] to make later accesses visible.
    fn accessed(&mut self, asid: Asid, va: u64, level: Level, clear: bool) -> Result<bool>;

    /// Reads the Accessed bit of every leaf entry mapping `[start, start+len)`
    /// (4 KiB PTEs, or PMDs of huge pages), clearing it if `clear`; pushes the
    /// base address of each accessed page into `out` and returns how many leaf
    /// entries were read. The same as [`Backend::accessed`] page by page at
    /// `Level::Pte`, which is what this default does; backends answer it in
    /// bulk. Unmapped pages are skipped.
    fn scan_accessed(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        clear: bool,
        out: &mut Vec<u64>,
    ) -> Result<u64> {
        let end = start.saturating_add(len);
        let mut va = start & !0xfff;
        let mut read = 0;
        while let Some((base, t)) = self.next_mapped(asid, va, end)? {
            read += 1;
            if self.accessed(asid, base, Level::Pte, clear)? {
                out.push(base);
            }
            va = base + t.size.bytes();
        }
        Ok(read)
    }

    /// The regions of the host's own region monitor (Linux's DAMON over
    /// the targets' virtual address spaces), in address-space and address
    /// order, each with its access count of the monitor's last aggregation
    /// interval. The first call starts the monitor with `attrs`; a call
    /// with other attributes starts it again with those. May wait up to one
    /// aggregation interval for the next one to end. Needs
    /// [`crate::Capability::RegionMonitor`]: the simulated backends have
    /// none (they simulate DAMON in a manager instead).
    fn monitor_regions(&mut self, attrs: MonitorAttrs) -> Result<Vec<MonitorRegion>> {
        let _ = attrs;
        Err(BackendError::Unsupported(crate::Capability::RegionMonitor))
    }

    /// Reads the Dirty bit of the leaf entry mapping `va`, then clears it if `clear`.
    fn dirty(&mut self, asid: Asid, va: u64, clear: bool) -> Result<bool>;

    /// Invalidates TLB and paging-structure-cache entries on every core.
    fn flush_tlb(&mut self, asid: Asid, what: Flush) -> Result<()>;

    // ---- actions ----

    /// Moves the pages containing `vas` to `to`. Untouched pages are skipped;
    /// a full destination fails page by page (counted in the report).
    fn migrate(&mut self, asid: Asid, vas: &[u64], to: TierId) -> Result<MigrationReport>;

    /// Moves the pages of `[start, start+len)` that are not in `to` there,
    /// in address order, until `max_bytes` have moved (an `mbind`-like
    /// range move). The same as [`Backend::migrate`] on those pages, which
    /// is what this default does; backends that keep placement by ranges
    /// answer it without visiting every page.
    fn migrate_range(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        to: TierId,
        max_bytes: u64,
    ) -> Result<MigrationReport> {
        let mut vas = Vec::new();
        let mut planned = 0u64;
        let mut va = start & !0xfff;
        let end = start.saturating_add(len);
        while planned < max_bytes {
            let Some((base, t)) = self.next_mapped(asid, va, end)? else {
                break;
            };
            if t.tier != to {
                vas.push(base);
                planned += t.size.bytes();
            }
            va = base + t.size.bytes();
        }
        if vas.is_empty() {
            return Ok(MigrationReport::default());
        }
        self.migrate(asid, &vas, to)
    }

    // ---- counters and allocation ----

    /// Cumulative traffic of a tier. Needs [`crate::Capability::TierCounters`].
    fn tier_counters(&self, tier: TierId) -> Result<TierCounters> {
        let _ = tier;
        Err(BackendError::Unsupported(crate::Capability::TierCounters))
    }

    /// Cumulative LLC misses (every access when no LLC is modelled). Needs
    /// [`crate::Capability::LlcMisses`].
    fn llc_misses(&self) -> Result<u64> {
        Err(BackendError::Unsupported(crate::Capability::LlcMisses))
    }

    /// The allocations of `asid` so far, per page type (indexed by
    /// [`PageType::index`]). Needs [`crate::Capability::TypedAlloc`].
    fn alloc_counts(&self, asid: Asid) -> Result<[AllocCounts; PageType::COUNT]> {
        let _ = asid;
        Err(BackendError::Unsupported(crate::Capability::TypedAlloc))
    }

    /// Sets the tier that newly touched pages of `asid` are allocated in. Needs
    /// [`crate::Capability::AllocPolicy`].
    fn set_policy(&mut self, asid: Asid, policy: MemPolicy) -> Result<()> {
        let _ = (asid, policy);
        Err(BackendError::Unsupported(crate::Capability::AllocPolicy))
    }

    // ---- cost ----

    /// Charges `ns` of manager CPU time for work the manager does itself
    /// (sorting, bookkeeping) that the backend cannot see.
    fn charge_manager(&mut self, ns: f64);

    /// Manager CPU time charged so far (ns): what a technique reports as its
    /// own cost.
    fn manager_ns(&self) -> f64;

    /// Application time lost so far (ns) to stalls of every core at once
    /// that the manager's actions caused (TLB shootdowns' interrupts): what
    /// a manager whose target covers its own overhead can measure, as the
    /// initiator of a shootdown waits for every core to acknowledge it. A
    /// backend that cannot tell answers 0.
    fn stall_ns(&self) -> f64 {
        0.0
    }

    /// Cumulative time (us) in which at least one task of the workload
    /// was stalled waiting for memory: the `some` line's `total=` of
    /// Linux's pressure stall information for memory (PSI), which DAMOS's
    /// `some_mem_psi_us` quota goal reads (as the growth of this total
    /// over each charge interval). The live backend reads the target
    /// cgroup's `memory.pressure`, else /proc/pressure/memory; the
    /// simulated machines model it as the time the workload spent on
    /// page-ins from tiers that fault on access and hand the page back
    /// (compressed, swap: what the kernel counts as a memstall on a
    /// refault). A backend that cannot tell answers 0.
    fn some_memory_stall_us(&self) -> u64 {
        0
    }

    // ---- optional interfaces: an accessor returns the backend if it offers one ----

    /// This backend as [`Poisoning`]: page poisoning with fault counts
    /// (Thermostat's BadgerTrap) and NUMA hint faults. Without it,
    /// `Unsupported(Poison)`.
    fn poisoning(&mut self) -> Result<&mut dyn Poisoning> {
        Err(BackendError::Unsupported(crate::Capability::Poison))
    }

    /// This backend as [`Sampling`]: PEBS-like sampled memory events. Without
    /// it, `Unsupported(Sampling)`.
    fn sampling(&mut self) -> Result<&mut dyn Sampling> {
        Err(BackendError::Unsupported(crate::Capability::Sampling))
    }

    /// This backend as [`HugePages`]: splitting and collapsing huge pages.
    /// Without it, `Unsupported(HugePages)`.
    fn huge_pages(&mut self) -> Result<&mut dyn HugePages> {
        Err(BackendError::Unsupported(crate::Capability::HugePages))
    }

    /// This backend as [`Exchange`]: exchanging two pages' tiers in one
    /// operation. Without it, `Unsupported(Exchange)`.
    fn exchanges(&mut self) -> Result<&mut dyn Exchange> {
        Err(BackendError::Unsupported(crate::Capability::Exchange))
    }

    /// This backend as [`Colours`]: Memos' page colours, the bank and LLC slab
    /// of a frame. Without it, `Unsupported(Colours)`.
    fn colours(&mut self) -> Result<&mut dyn Colours> {
        Err(BackendError::Unsupported(crate::Capability::Colours))
    }

    /// This backend as [`Dma`]: Memos' lockless DMA copies. Without it,
    /// `Unsupported(Dma)`.
    fn dma(&mut self) -> Result<&mut dyn Dma> {
        Err(BackendError::Unsupported(crate::Capability::Dma))
    }

    /// This backend as [`TypedAlloc`]: HeteroOS's allocation policies per page
    /// type and per-tier quotas. Without it, `Unsupported(TypedAlloc)`.
    fn typed_alloc(&mut self) -> Result<&mut dyn TypedAlloc> {
        Err(BackendError::Unsupported(crate::Capability::TypedAlloc))
    }

    /// This backend as [`MemEvents`]: the workload's memory events (HeteroOS).
    /// Without it, `Unsupported(MemEvents)`.
    fn mem_events(&mut self) -> Result<&mut dyn MemEvents> {
        Err(BackendError::Unsupported(crate::Capability::MemEvents))
    }

    /// This backend as [`MemoryMode`]: the fast tier as a memory-side cache
    /// (Optane's Memory Mode, Ambix's baseline). Without it,
    /// `Unsupported(MemoryMode)`.
    fn memory_mode(&mut self) -> Result<&mut dyn MemoryMode> {
        Err(BackendError::Unsupported(crate::Capability::MemoryMode))
    }
}

/// Page poisoning (BadgerTrap, as Thermostat, Agarwal and Wenisch,
/// ASPLOS'17, uses it; Memos' HyMM counts with it too): a poisoned page
/// faults at every TLB miss, and the backend counts the faults. Also NUMA
/// hint faults (Ambix's baselines).
/// Capability: [`crate::Capability::Poison`]; asked with [`Backend::poisoning`].
pub trait Poisoning: Backend {
    /// Poisons (or unpoisons) the leaf entry of `va`: every TLB miss to a
    /// poisoned page takes a fault that the backend counts (BadgerTrap).
    /// Poisoning flushes the page's TLB entries.
    fn set_poison(&mut self, asid: Asid, va: u64, poisoned: bool) -> Result<()>;

    /// [`Poisoning::set_poison`] on every mapped page of `[start, start+len)`,
    /// with the TLB flushed once for the range (as a kernel that rewrites
    /// many PTEs flushes once); returns the pages (of either size) changed.
    /// This default goes page by page; backends answer it in bulk.
    fn set_poison_range(
        &mut self,
        asid: Asid,
        start: u64,
        len: u64,
        poisoned: bool,
    ) -> Result<u64> {
        let end = start.saturating_add(len);
        let mut va = start & !0xfff;
        let mut pages = 0;
        while let Some((base, t)) = self.next_mapped(asid, va, end)? {
            self.set_poison(asid, base, poisoned)?;
            pages += 1;
            va = base + t.size.bytes();
        }
        Ok(pages)
    }

    /// Marks the page of `va` so that its next access faults once and the
    /// fault restores the mapping (a NUMA hint fault: PROT_NONE, not a
    /// reserved bit); [`Poisoning::poison_faults`] then reads 1. Flushes the
    /// page's TLB entries.
    fn arm_hint_fault(&mut self, asid: Asid, va: u64) -> Result<()> {
        let _ = (asid, va);
        Err(BackendError::Unsupported(crate::Capability::Poison))
    }

    /// Faults counted on the page of `va` since it was poisoned or last read with
    /// `reset`.
    fn poison_faults(&mut self, asid: Asid, va: u64, reset: bool) -> Result<u64>;
}

/// PEBS-like sampling of memory events (the PEBS technique Telescope
/// compares, its section 3.3). Capability: [`crate::Capability::Sampling`];
/// asked with [`Backend::sampling`].
pub trait Sampling: Backend {
    /// Starts PEBS-like sampling (or reconfigures it); `None` stops it.
    fn set_sampling(&mut self, config: Option<SamplingConfig>) -> Result<()>;

    /// Moves the samples gathered since the last call into `out`; returns how
    /// many were dropped because the buffer was full.
    fn drain_samples(&mut self, out: &mut Vec<Sample>) -> Result<u64>;
}

/// Splitting and collapsing huge pages (Thermostat samples inside a split
/// huge page; DAMOS's hugepage actions). Capability:
/// [`crate::Capability::HugePages`]; asked with [`Backend::huge_pages`].
pub trait HugePages: Backend {
    /// Splits the huge page containing `va` into 512 base pages in place; each
    /// PTE inherits the huge page's Accessed and Dirty bits.
    fn split_huge(&mut self, asid: Asid, va: u64) -> Result<()>;

    /// Collapses the 2 MiB range containing `va` into one huge page in the tier
    /// of most of its base pages (khugepaged-like): copies the pages that are
    /// not there, ORs their A/D bits into the new PMD. All 512 must be present.
    fn collapse_huge(&mut self, asid: Asid, va: u64) -> Result<()>;
}

/// Swapping two pages' tiers in one operation, without a free frame
/// (Ambix, section 4). Capability: [`crate::Capability::Exchange`]; asked
/// with [`Backend::exchanges`].
pub trait Exchange: Backend {
    /// Swaps the tiers of the pages of `a` and `b` (same page size, different
    /// tiers) without needing a free frame.
    fn exchange(&mut self, asid: Asid, a: u64, b: u64) -> Result<()>;
}

/// Page colours (Memos, Liu et al., IEEE TC, 5.1): the bank and LLC slab of a
/// frame, and moves to a frame of a chosen colour. Capability:
/// [`crate::Capability::Colours`]; asked with [`Backend::colours`].
pub trait Colours: Backend {
    /// Sorts free frames by colour from now on (`on`), so that
    /// [`Colours::migrate_placed`] finds a frame of a given bank and slab
    /// at once, and new pages take the colours in turn: Memos' two-tiered
    /// buddy system in place of the default allocator (section 5.1). Needs
    /// [`crate::Capability::Colours`].
    fn set_coloured_allocation(&mut self, on: bool) -> Result<()> {
        let _ = on;
        Err(BackendError::Unsupported(crate::Capability::Colours))
    }

    /// The bank and LLC slab of physical frame `frame` (as in
    /// [`crate::Translation::frame`]). Needs [`crate::Capability::Colours`].
    fn frame_place(&self, frame: u64) -> Result<FramePlace> {
        let _ = frame;
        Err(BackendError::Unsupported(crate::Capability::Colours))
    }

    /// How many banks each channel has and how many LLC slabs there are
    /// (the sizes of Memos' Bank_Freq and Cache_Freq tables). Needs
    /// [`crate::Capability::Colours`].
    fn place_counts(&self) -> Result<(u16, u16)> {
        Err(BackendError::Unsupported(crate::Capability::Colours))
    }

    /// Moves the 4 KiB page of `va` to a free frame of tier `to` in `bank`
    /// and `slab` (`None`: any), Memos' `alloc_resource(channel, slab,
    /// bank)`; within its own tier too. `Ok(false)` if no such frame is
    /// free; a page already in such a frame stays. Needs coloured
    /// allocation on ([`Colours::set_coloured_allocation`]).
    fn migrate_placed(
        &mut self,
        asid: Asid,
        va: u64,
        to: TierId,
        bank: Option<u16>,
        slab: Option<u16>,
    ) -> Result<bool> {
        let _ = (asid, va, to, bank, slab);
        Err(BackendError::Unsupported(crate::Capability::Colours))
    }
}

/// Lockless page copies by a DMA engine (Memos, Liu et al., IEEE TC, 5.2).
/// Capability: [`crate::Capability::Dma`]; asked with [`Backend::dma`].
pub trait Dma: Backend {
    /// Queues the pages containing `vas` for a copy to `to` by a DMA
    /// engine that does not lock them (Memos 5.2): each page's Dirty bit is
    /// cleared and its TLB entries flushed now, the engine copies the
    /// pages one after another beside the CPUs, and [`Dma::dma_poll`]
    /// keeps a finished copy only if the page was not written meanwhile (a
    /// written page keeps its frame). The CPU pays a share of a CPU copy
    /// (the set-up), the engine the copy. Returns the pages queued;
    /// untouched pages and pages already in `to` are skipped. Needs
    /// [`crate::Capability::Dma`].
    fn dma_start(&mut self, asid: Asid, vas: &[u64], to: TierId) -> Result<u64> {
        let _ = (asid, vas, to);
        Err(BackendError::Unsupported(crate::Capability::Dma))
    }

    /// [`Dma::dma_start`] for the 4 KiB page of `va`, to a free frame
    /// of `to` in `bank` and `slab` (`None`: any) when its copy finishes,
    /// or to any free frame of `to` if none such is free then: Memos'
    /// reserved slab for rarely-touched pages (4.2 (1), 4.3 case 2).
    /// Returns whether it was queued. Needs [`crate::Capability::Dma`] and
    /// coloured allocation on ([`Colours::set_coloured_allocation`]).
    fn dma_start_placed(
        &mut self,
        asid: Asid,
        va: u64,
        to: TierId,
        bank: Option<u16>,
        slab: Option<u16>,
    ) -> Result<bool> {
        let _ = (asid, va, to, bank, slab);
        Err(BackendError::Unsupported(crate::Capability::Dma))
    }

    /// Finishes the copies the engine has completed by now.
    fn dma_poll(&mut self) -> Result<DmaReport> {
        Err(BackendError::Unsupported(crate::Capability::Dma))
    }
}

/// Allocation policies per page type and per-tier quotas per address space
/// (HeteroOS, Kannan et al., ISCA'17, 3.1-3.2, 4.2). Capability:
/// [`crate::Capability::TypedAlloc`]; asked with [`Backend::typed_alloc`].
pub trait TypedAlloc: Backend {
    /// Sets the policy for newly touched pages of type `ty` in `asid`,
    /// overriding the address space's ([`Backend::set_policy`]); `None`
    /// returns the type to it. Needs [`crate::Capability::TypedAlloc`].
    fn set_type_policy(
        &mut self,
        asid: Asid,
        ty: PageType,
        policy: Option<MemPolicy>,
    ) -> Result<()> {
        let _ = (asid, ty, policy);
        Err(BackendError::Unsupported(crate::Capability::TypedAlloc))
    }

    /// Caps the 4 KiB frames `asid` may hold in `tier` (`None`: no cap), as
    /// a VMM's per-memory-type reservation of a guest: a new page goes to
    /// the next tier in its policy's order when the cap is reached, and a
    /// migration into the tier fails with [`BackendError::TierFull`]. Pages
    /// already there stay. Needs [`crate::Capability::TypedAlloc`].
    fn set_tier_quota(&mut self, asid: Asid, tier: TierId, pages: Option<u64>) -> Result<()> {
        let _ = (asid, tier, pages);
        Err(BackendError::Unsupported(crate::Capability::TypedAlloc))
    }

    /// The 4 KiB frames `asid` holds in `tier`. Needs
    /// [`crate::Capability::TypedAlloc`].
    fn held_pages(&self, asid: Asid, tier: TierId) -> Result<u64> {
        let _ = (asid, tier);
        Err(BackendError::Unsupported(crate::Capability::TypedAlloc))
    }
}

/// The workload's memory events, releases and I/O completions (HeteroOS's
/// guest and VMM managers). Capability: [`crate::Capability::MemEvents`];
/// asked with [`Backend::mem_events`].
pub trait MemEvents: Backend {
    /// Moves the memory events the workload issued since the last call
    /// (releases, I/O completions) to `out`, oldest first, and returns how
    /// many were dropped because too many piled up between two calls. The
    /// first call starts the keeping: a manager that wants every event
    /// calls this in `start`. Needs [`crate::Capability::MemEvents`].
    fn drain_mem_events(&mut self, out: &mut Vec<thermocline_vocab::MemEvent>) -> Result<u64> {
        let _ = out;
        Err(BackendError::Unsupported(crate::Capability::MemEvents))
    }
}

/// Optane's Memory Mode: the fast tier as a direct-mapped cache of the
/// slower ones (Ambix's baseline). Capability:
/// [`crate::Capability::MemoryMode`]; asked with [`Backend::memory_mode`].
pub trait MemoryMode: Backend {
    /// Turns the fast tier into a direct-mapped, line-granular, write-back
    /// cache of the slower tiers (Optane's Memory Mode) when `on`: pages
    /// should then live in the slow tier, and every access to them that
    /// leaves the CPU caches goes through the cache: LLC misses read it,
    /// the LLC's dirty victims are written into it, and its own dirty
    /// victims are written back to the slow tier.
    fn set_memory_mode(&mut self, on: bool) -> Result<()> {
        let _ = on;
        Err(BackendError::Unsupported(crate::Capability::MemoryMode))
    }
}
