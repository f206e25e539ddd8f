//! Plain data exchanged through the backend interface.

use serde::Serialize;
use thermocline_vocab::{Asid, PageSize, TierId};

/// Where one virtual page lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Translation {
    /// Page size of the leaf mapping.
    pub size: PageSize,
    /// Tier of the frame.
    pub tier: TierId,
    /// Physical frame number (4 KiB units) of the first byte of the page.
    pub frame: u64,
}

/// A tier's name, capacity and free space.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TierInfo {
    /// Tier number, fastest first.
    pub id: TierId,
    /// Preset name, e.g. "dram".
    pub name: String,
    /// Bytes of memory in the tier.
    pub capacity_bytes: u64,
    /// Bytes not backing any page.
    pub free_bytes: u64,
    /// Idle load latency, for policies that weigh tiers (ns).
    pub read_latency_ns: f64,
    /// Idle store latency (ns).
    pub write_latency_ns: f64,
    /// The tier's first physical frame (4 KiB units): its frames are
    /// `first_frame..first_frame + capacity_bytes / 4096`. `None` where the
    /// backend does not model physical frames.
    pub first_frame: Option<u64>,
}

/// Cumulative memory traffic of one tier since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TierCounters {
    /// Line reads served by the tier (application and migration).
    pub reads: u64,
    /// Line writes absorbed by the tier (application and migration).
    pub writes: u64,
}

/// Which TLB entries to invalidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flush {
    /// INVLPG semantics: the page containing the address (all of a huge page),
    /// and every paging-structure-cache entry of the address space.
    Page(u64),
    /// A range of pages: page by page up to Linux's flush ceiling (33 pages),
    /// else the whole address space.
    Range {
        /// First byte.
        start: u64,
        /// Length in bytes.
        len: u64,
    },
    /// A CR3 write: every TLB and paging-structure-cache entry of the address space.
    All,
}

/// Which events a PEBS-like sampler counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SampleEvent {
    /// Retired loads that missed the LLC (MEM_LOAD_RETIRED.L3_MISS-like).
    LlcMissLoads,
    /// Retired stores that missed the LLC.
    LlcMissStores,
    /// Both of the above.
    LlcMissAll,
    /// Every retired load (MEM_INST_RETIRED.ALL_LOADS-like).
    RetiredLoads,
    /// Every retired store (MEM_INST_RETIRED.ALL_STORES-like).
    RetiredStores,
    /// Both of the above.
    RetiredAll,
}

impl SampleEvent {
    /// Whether only accesses that miss the LLC count.
    pub fn llc_misses_only(self) -> bool {
        matches!(
            self,
            SampleEvent::LlcMissLoads | SampleEvent::LlcMissStores | SampleEvent::LlcMissAll
        )
    }

    /// Whether an access that is a store (`write`) counts.
    pub fn counts(self, write: bool) -> bool {
        match self {
            SampleEvent::LlcMissLoads | SampleEvent::RetiredLoads => !write,
            SampleEvent::LlcMissStores | SampleEvent::RetiredStores => write,
            SampleEvent::LlcMissAll | SampleEvent::RetiredAll => true,
        }
    }
}

/// Configuration of PEBS-like sampling.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SamplingConfig {
    /// Which events.
    pub event: SampleEvent,
    /// One sample every `period` events (on average; the backend jitters it).
    pub period: u64,
    /// Samples the hardware buffer holds before they are dropped unread.
    pub buffer: usize,
}

/// One sampled memory event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Sample {
    /// Address space.
    pub asid: Asid,
    /// Virtual address of the access.
    pub va: u64,
    /// Whether it was a store.
    pub write: bool,
    /// Tier that served it.
    pub tier: TierId,
    /// Simulated time (ns) of the event.
    pub t_ns: u64,
}

/// The tier a page is allocated in on first touch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum MemPolicy {
    /// The fast tier while it has room, then the next (Linux MPOL_PREFERRED on
    /// the fast node; "local first-touch" in the Ambix paper).
    PreferFast,
    /// Always this tier (MPOL_BIND), falling back to other tiers only when full.
    Bind {
        /// The tier.
        tier: TierId,
    },
    /// Round-robin over tiers page by page (MPOL_INTERLEAVE), skipping full tiers.
    Interleave,
    /// The fast tier with probability `fast_probability`, else the slow one.
    Random {
        /// Chance of the fast tier.
        fast_probability: f64,
    },
}

/// The page allocations of one page type in one address space: HeteroOS
/// 3.2's per-type FastMem allocation hits and misses, for any policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AllocCounts {
    /// Pages allocated (first touches), in 4 KiB pages.
    pub requests: u64,
    /// Of those, pages placed in the tier their policy tried first.
    pub preferred: u64,
    /// Of those, pages placed in another tier because the first was full
    /// or over the address space's quota there.
    pub fallback: u64,
}

/// Where a frame sits in the memory system (Memos Fig. 8): its bank within
/// its channel (the tier) and its LLC slab.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FramePlace {
    /// Bank within the channel.
    pub bank: u16,
    /// LLC slab (page colour of the cache).
    pub slab: u16,
}

/// What the DMA engine finished ([`crate::Dma::dma_poll`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DmaReport {
    /// Pages whose copy completed clean: now in the destination tier.
    pub moved: u64,
    /// Pages written during their copy (or whose destination filled up):
    /// the copy is discarded and the page keeps its frame.
    pub aborted: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Pages still queued or being copied.
    pub pending: u64,
}

/// What one migration call did and cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MigrationReport {
    /// Pages (of either size) moved.
    pub pages: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Pages not moved because the destination was full.
    pub failed: u64,
    /// Pages already in the destination tier.
    pub already_there: u64,
}

/// How a host's region monitor (Linux's DAMON) is to sample:
/// [`crate::Backend::monitor_regions`] starts it with these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MonitorAttrs {
    /// Sampling interval (µs).
    pub sample_us: u64,
    /// Aggregation interval (µs): a region's count is over one.
    pub aggr_us: u64,
    /// Fewest regions.
    pub min_regions: u64,
    /// Most regions.
    pub max_regions: u64,
}

impl MonitorAttrs {
    /// The largest count a region can have: samples per aggregation.
    pub fn max_nr_accesses(&self) -> u32 {
        (self.aggr_us / self.sample_us.max(1)).min(u64::from(u32::MAX)) as u32
    }
}

/// One region of a host's region monitor, as its last aggregation
/// interval left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MonitorRegion {
    /// The address space it is in.
    pub asid: Asid,
    /// First byte (virtual).
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
    /// Samples of the last aggregation interval that found it accessed.
    pub nr_accesses: u32,
    /// The most that count can be (samples per aggregation interval).
    pub max_nr_accesses: u32,
    /// Aggregation intervals its access count has stayed about the same.
    pub age: u32,
}
