//! Capability discovery.

use serde::Serialize;

/// One primitive or action a backend may or may not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capability {
    /// Test/clear Accessed on leaf entries (PTE, or PMD of a huge page).
    AccessedLeaf,
    /// Test/clear Accessed on upper-level entries (PGD, PUD, PMD).
    AccessedUpper,
    /// Test/clear Dirty on leaf entries.
    Dirty,
    /// Poison a page so that each TLB miss to it faults, and read fault counts.
    Poison,
    /// PEBS-like sampled memory events.
    Sampling,
    /// Per-tier read/write traffic counters.
    TierCounters,
    /// LLC-miss counter.
    LlcMisses,
    /// Migrate pages between tiers.
    Migrate,
    /// Exchange two pages' tiers in one operation.
    Exchange,
    /// Split and collapse huge pages.
    HugePages,
    /// Flush TLB entries (INVLPG-like and full).
    TlbFlush,
    /// Set the tier new pages are allocated in.
    AllocPolicy,
    /// Use the fast tier as a memory-side cache of the slower ones.
    MemoryMode,
    /// Find the page a physical frame backs (Linux's rmap), for monitoring
    /// physical addresses.
    ReverseMap,
    /// Copy pages with a DMA engine, lockless (Memos 5.2).
    Dma,
    /// Report the workload's memory events (releases, I/O completions).
    MemEvents,
    /// Allocation policies per page type, per-tier quotas per address
    /// space, and per-type allocation counts (HeteroOS 3.1-3.2, 4.2).
    TypedAlloc,
    /// Choose the bank and LLC slab of a page's frame (Memos' page colours,
    /// section 5.1).
    Colours,
    /// The host's own region monitor (Linux's DAMON on the targets'
    /// virtual addresses): regions with access counts, read with
    /// [`crate::Backend::monitor_regions`]. Live backends only.
    RegionMonitor,
}

impl Capability {
    /// Every capability, for listing.
    pub const ALL: [Capability; 19] = [
        Capability::AccessedLeaf,
        Capability::AccessedUpper,
        Capability::Dirty,
        Capability::Poison,
        Capability::Sampling,
        Capability::TierCounters,
        Capability::LlcMisses,
        Capability::Migrate,
        Capability::Exchange,
        Capability::HugePages,
        Capability::TlbFlush,
        Capability::AllocPolicy,
        Capability::MemoryMode,
        Capability::ReverseMap,
        Capability::Dma,
        Capability::MemEvents,
        Capability::TypedAlloc,
        Capability::Colours,
        Capability::RegionMonitor,
    ];

    const fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A set of capabilities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities(u32);

impl Capabilities {
    /// Every capability (the simulated backends).
    pub fn all() -> Self {
        Capabilities(Capability::ALL.iter().fold(0, |m, c| m | c.bit()))
    }

    /// No capability.
    pub fn none() -> Self {
        Capabilities(0)
    }

    /// This set plus `c`.
    pub fn with(self, c: Capability) -> Self {
        Capabilities(self.0 | c.bit())
    }

    /// This set without `c`.
    pub fn without(self, c: Capability) -> Self {
        Capabilities(self.0 & !c.bit())
    }

    /// Whether `c` is in the set.
    pub fn has(self, c: Capability) -> bool {
        self.0 & c.bit() != 0
    }
}
