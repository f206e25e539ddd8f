//! The exact machine: every access goes through a TLB lookup, a hardware page
//! walk on a miss (with paging-structure caches, Accessed/Dirty updates and
//! poison faults), an optional LLC, and a tier; time comes from the
//! performance model in [`crate::perf`].

use crate::dram_cache::CacheOutcome;
use crate::frames::TierFrames;
use crate::llc::{Llc, LlcOutcome};
use crate::lru::signature;
use crate::memctl::MemCtl;
use crate::pagetable::{self as pt, PageTable};
use crate::perf::{Clock, Epoch};
use crate::psc::Psc;
use crate::rmap::ReverseMap;
use crate::tlb::{tag, Tlb, TlbEntry, Translation};
use std::collections::BTreeMap;
use thermocline_backend::{
    AllocCounts, BackendError, MemPolicy, Sample, SamplingConfig, TierCounters,
};
use thermocline_model::{MachineConfig, MachineStats};
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Access, Asid, Level, PageSize, PageType, Rng, TierId, PAGES_PER_HUGE};

/// Accesses whose leaf lines [`Machine::access_batch`] reads ahead at once.
const PREFETCH_GROUP: usize = 32;

/// The tier that owns `frame`, given each tier's first frame and the frame
/// after its last one ([`Machine`]'s `tier_starts` and `tier_ends`).
#[inline(always)]
fn tier_in(starts: &[u64; 8], ends: &[u64; 8], frame: u64) -> u8 {
    // Tiers own ascending, disjoint frame ranges: the only candidate is
    // the last tier that starts at or below `frame`.
    let t = if frame < starts[2] {
        // Most machines have one or two tiers.
        usize::from(frame >= starts[1])
    } else {
        1 + starts[2..].iter().filter(|&&start| frame >= start).count()
    };
    if frame < ends[t] {
        t as u8
    } else {
        0
    }
}

/// What a walk found: the leaf entry (with the walk's Accessed and Dirty
/// updates), the index of its leaf (or deposited) table, and whether it maps
/// 2 MiB.
#[derive(Clone, Copy)]
struct Walked {
    entry: u64,
    leaf: u32,
    huge: bool,
}

/// The table part of a hardware page walk (SDM 4.8, 4.10.3) in `table` for
/// (`asid`, `va`): starts from the deepest paging-structure-cache hit in
/// `psc`, sets Accessed in every entry it reads (and only those) and Dirty in
/// the leaf on a store, fills the paging-structure caches and counts the
/// entries read in `epoch`. `None` if an entry on the way is not present.
#[inline(always)]
fn walk_tables(
    table: &mut PageTable,
    psc: &mut [Psc; 3],
    epoch: &mut Epoch,
    asid: u16,
    va: u64,
    write: bool,
) -> Option<Walked> {
    // Start below the deepest paging-structure-cache hit (PDE, then
    // PDPTE, then PML4E cache), as the hardware does; looked up lazily,
    // so a hit higher up leaves the lower caches' recency alone. Each
    // upper-level read sets Accessed and fills the cache of the level
    // below it.
    let mut reads = 0u64;
    let k2 = Psc::key(asid, va, 21);
    let leaf_table = match psc[2].lookup(k2) {
        Some(t) => t,
        None => {
            let k1 = Psc::key(asid, va, 30);
            let pmd = match psc[1].lookup(k1) {
                Some(t) => t,
                None => {
                    let k0 = Psc::key(asid, va, 39);
                    let pud = match psc[0].lookup(k0) {
                        Some(t) => t,
                        None => {
                            reads += 1;
                            let e = &mut table.pgd[Level::Pgd.index(va)];
                            if *e & pt::P == 0 {
                                epoch.walk_entries += reads;
                                return None;
                            }
                            *e |= pt::A;
                            let t = pt::target(*e) as u32;
                            psc[0].insert_absent(k0, t);
                            t
                        }
                    };
                    reads += 1;
                    let e = &mut table.pud[pud as usize][Level::Pud.index(va)];
                    if *e & pt::P == 0 {
                        epoch.walk_entries += reads;
                        return None;
                    }
                    *e |= pt::A;
                    let t = pt::target(*e) as u32;
                    psc[1].insert_absent(k1, t);
                    t
                }
            };
            reads += 1;
            let slot = Level::Pmd.index(va);
            let e = &mut table.pmd[pmd as usize][slot];
            if *e & pt::P == 0 {
                epoch.walk_entries += reads;
                return None;
            }
            *e |= pt::A;
            if *e & pt::PS != 0 {
                // A 2 MiB leaf: not cached in the PDE cache (SDM 4.10.3.1).
                if write {
                    *e |= pt::D;
                }
                epoch.walk_entries += reads;
                return Some(Walked {
                    entry: *e,
                    leaf: table.deposit[pmd as usize][slot],
                    huge: true,
                });
            }
            let t = pt::target(*e) as u32;
            psc[2].insert_absent(k2, t);
            t
        }
    };
    reads += 1;
    epoch.walk_entries += reads;
    let e = table.leaves[leaf_table as usize].pte_mut(Level::Pte.index(va));
    if *e & pt::P == 0 {
        return None;
    }
    *e |= pt::A;
    if write {
        *e |= pt::D;
    }
    Some(Walked {
        entry: *e,
        leaf: leaf_table,
        huge: false,
    })
}

/// Per-core translation state.
#[derive(Clone, Debug)]
pub(crate) struct Core {
    pub l1_base: Tlb,
    pub l1_huge: Tlb,
    pub stlb: Tlb,
    /// PML4, PDPTE and PDE caches.
    pub psc: [Psc; 3],
    /// The last translation used, as a VA range (`last_len` bytes from
    /// `last_lo`; none if 0): accesses inside it need no lookup because that
    /// entry is already most recent in its set.
    pub last_lo: u64,
    pub last_len: u64,
    pub last_asid: u16,
    pub last: Translation,
}

impl Core {
    fn forget_last(&mut self) {
        self.last_len = 0;
    }

    /// Whether `a` can reuse the last translation. One unsigned compare
    /// for the range: two would make a branch that random addresses take
    /// half of the time, unpredictably.
    #[inline(always)]
    fn reuses_last(&self, a: Access) -> bool {
        a.va.wrapping_sub(self.last_lo) < self.last_len
            && a.asid == self.last_asid
            && (!a.write || self.last.dirty())
    }
}

/// One address space.
/// The most tiers a machine has.
pub(crate) const MAX_TIERS: usize = 8;

#[derive(Clone, Debug)]
pub(crate) struct Space {
    pub pt: PageTable,
    pub policy: MemPolicy,
    pub interleave_next: u8,
    /// Per page type, the policy that overrides `policy` for its pages.
    pub type_policy: [Option<MemPolicy>; PageType::COUNT],
    /// Per tier, the 4 KiB frames the space's pages hold.
    pub held: [u64; MAX_TIERS],
    /// Per tier, the most frames the space may hold there.
    pub quota: [Option<u64>; MAX_TIERS],
    /// Per page type, its allocations.
    pub allocs: [AllocCounts; PageType::COUNT],
    /// Per tier, the space's (loads, stores) to pages there, cache hits
    /// included: what each tenant of a shared machine got from each tier.
    pub accesses: [[u64; 2]; MAX_TIERS],
    /// Per tier, the space's faults on access to pages there (a tier that
    /// faults on access: zswap, swap, BadgerTrap).
    pub tier_faults: [u64; MAX_TIERS],
}

impl Space {
    fn new() -> Self {
        Space {
            pt: PageTable::default(),
            policy: MemPolicy::PreferFast,
            interleave_next: 0,
            type_policy: [None; PageType::COUNT],
            held: [0; MAX_TIERS],
            quota: [None; MAX_TIERS],
            allocs: [AllocCounts::default(); PageType::COUNT],
            accesses: [[0; 2]; MAX_TIERS],
            tier_faults: [0; MAX_TIERS],
        }
    }

    /// Whether `pages` more frames in `tier` stay within the quota.
    pub(crate) fn may_hold(&self, tier: usize, pages: u64) -> bool {
        self.quota[tier].is_none_or(|q| self.held[tier] + pages <= q)
    }
}

struct Sampler {
    cfg: SamplingConfig,
    countdown: u64,
    buf: Vec<Sample>,
    dropped: u64,
    rng: Rng,
}

impl Sampler {
    fn next_period(&mut self) -> u64 {
        // Jitter by +-50% around the period so that strided patterns are not
        // aliased, as perf's randomised sampling does.
        let p = self.cfg.period.max(1);
        p / 2 + self.rng.below(p) + 1
    }
}

/// The exact simulated machine.
pub struct Machine {
    pub(crate) cfg: MachineConfig,
    pub(crate) spaces: Vec<Space>,
    pub(crate) regions: Vec<RegionInfo>,
    pub(crate) cores: Vec<Core>,
    pub(crate) frames: Vec<TierFrames>,
    llc: Option<Llc>,
    /// DRAM as a memory-side cache of the slow tiers (Memory Mode), if on.
    pub(crate) dram_cache: Option<crate::dram_cache::DramCache>,
    /// The memory controllers, if the machine has a memory system.
    pub(crate) memctl: Option<MemCtl>,
    /// With a memory system whose banks and slabs are chosen page by page:
    /// the colours.
    pub(crate) colouring: Option<crate::colours::Colouring>,
    pub(crate) epoch: Epoch,
    pub(crate) clock: Clock,
    /// Cumulative traffic per tier: application and migration.
    pub(crate) counters: Vec<TierCounters>,
    /// Cumulative application traffic per tier.
    pub(crate) app_counters: Vec<TierCounters>,
    pub(crate) stats: MachineStats,
    pub(crate) manager_ns: f64,
    /// All-core stall charged by shootdowns so far (ns).
    pub(crate) stall_ns: f64,
    /// Of `manager_ns`, the share spent moving pages (ns).
    pub(crate) migration_cpu_ns: f64,
    /// Of `stall_ns`, the shootdowns migrations issued (ns).
    pub(crate) migration_stall_ns: f64,
    any_huge: bool,
    /// Per tier, its first frame (`u64::MAX` beyond the last tier).
    tier_starts: [u64; 8],
    /// Per tier, the frame after its last one (0 beyond the last tier).
    tier_ends: [u64; 8],
    /// Bit `t`: tier `t` faults on access (`fault_on_access_ns`).
    faulting_tiers: u8,
    sampler: Option<Sampler>,
    /// Fault counts of poisoned pages, by (asid, page base).
    pub(crate) poison: BTreeMap<(u16, u64), u64>,
    /// Poisoned pages whose first fault unpoisons them (NUMA hint faults).
    pub(crate) hint_once: std::collections::BTreeSet<(u16, u64)>,
    /// Frame -> page, built on the first reverse lookup and kept after.
    pub(crate) rmap: Option<ReverseMap>,
    /// Lockless DMA copies in flight.
    pub(crate) dma: crate::dma::DmaEngine,
    /// Memory events kept for a manager.
    pub(crate) events: crate::event_log::EventLog,
    rng: Rng,
    /// Tests only: every translation that misses the last one takes
    /// [`Machine::generic_translate`], to check the specialised path.
    #[cfg(test)]
    generic_only: bool,
}

/// A machine that cannot be built from its configuration.
#[derive(Debug, thiserror::Error)]
#[error("machine configuration: {0}")]
pub struct ConfigError(pub String);

impl Machine {
    /// Builds a machine with `regions` mapped lazily (pages appear on first touch).
    pub fn new(cfg: MachineConfig, mut regions: Vec<RegionInfo>) -> Result<Self, ConfigError> {
        let e = |s: String| ConfigError(s);
        if cfg.tiers.is_empty() || cfg.tiers.len() > MAX_TIERS {
            return Err(e("a machine needs 1 to 8 tiers".into()));
        }
        for t in &cfg.tiers {
            if t.capacity_bytes < 4096 {
                return Err(e(format!("tier {} has no capacity", t.name)));
            }
            let positive = [t.read_ns, t.write_ns, t.read_gbps, t.write_gbps];
            if positive.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
                return Err(e(format!(
                    "tier {}: latencies and bandwidths must be positive",
                    t.name
                )));
            }
        }
        if !(cfg.perf.mlp.is_finite() && cfg.perf.mlp >= 1.0) {
            return Err(e("perf.mlp must be at least 1".into()));
        }
        if cfg.perf.threads == 0 || cfg.perf.threads > 4096 {
            return Err(e("perf.threads must be 1..4096".into()));
        }
        if let Some(r) = regions.iter().find(|r| r.end() > 1 << 47) {
            return Err(e(format!(
                "region {} ends above the 47-bit user address space of 4-level paging",
                r.name
            )));
        }
        let t = &cfg.tlb;
        t.check().map_err(e)?;
        let core = Core {
            l1_base: Tlb::new(t.l1_base_entries, t.l1_base_ways).map_err(e)?,
            l1_huge: Tlb::new(t.l1_huge_entries, t.l1_huge_ways).map_err(e)?,
            stlb: Tlb::new(t.stlb_entries, t.stlb_ways).map_err(e)?,
            psc: t.psc_entries.map(Psc::new),
            last_lo: 0,
            last_len: 0,
            last_asid: 0,
            last: Translation::default(),
        };
        let llc = if cfg.llc.bytes > 0 {
            Some(Llc::new(cfg.llc.bytes, cfg.llc.ways).map_err(e)?)
        } else {
            None
        };
        // The memory system sees LLC misses and write-backs; tier t's
        // frames then start at physical address t << channel_bit.
        let memsys = cfg.memory_system();
        let memctl = match (memsys, &llc) {
            (None, _) => None,
            (Some(_), None) => {
                return Err(e("machine.memory needs an LLC (machine.llc.bytes > 0): its controllers serve LLC misses and write-backs".into()))
            }
            (Some(m), Some(llc)) => Some(
                MemCtl::new(m, &cfg.tiers, llc.sets(), cfg.perf.mlp, cfg.perf.threads)
                    .map_err(e)?,
            ),
        };
        // Each colour's bank and slab: the colour's bits put back in place
        // in an address decode to them.
        let colouring = memsys
            .and_then(|m| crate::colours::page_colour_bits(&m.map))
            .zip(memctl.as_ref())
            .map(|(bits, mc)| {
                let places = (0..1usize << bits.len())
                    .map(|c| {
                        let paddr = bits.iter().enumerate().fold(0u64, |a, (i, &b)| {
                            a | (((c >> i) & 1) as u64) << (u32::from(b) + 12)
                        });
                        (mc.decoder().bank(paddr), mc.decoder().slab(paddr))
                    })
                    .collect();
                crate::colours::Colouring { bits, places }
            });
        let mut frames = Vec::new();
        let mut base = 0u64;
        let mut tier_starts = [u64::MAX; 8];
        let mut tier_ends = [0u64; 8];
        for (i, t) in cfg.tiers.iter().enumerate() {
            let count = t.capacity_bytes / 4096;
            if let Some(m) = memsys {
                base = base.max((i as u64) << (m.map.channel_bit - 12));
            }
            frames.push(TierFrames::new(base, count));
            tier_starts[i] = base;
            tier_ends[i] = base + count;
            base += count.div_ceil(PAGES_PER_HUGE) * PAGES_PER_HUGE;
        }
        regions.sort_by_key(|r| (r.asid, r.start));
        let n_spaces = regions
            .iter()
            .map(|r| r.asid.0 as usize + 1)
            .max()
            .unwrap_or(1);
        let ntiers = cfg.tiers.len();
        let mut epoch = Epoch::new(ntiers);
        if memctl.is_some() {
            epoch.row_stall_ns = vec![0.0; ntiers];
        }
        Ok(Machine {
            spaces: (0..n_spaces).map(|_| Space::new()).collect(),
            regions,
            cores: vec![core; cfg.perf.threads],
            frames,
            llc,
            dram_cache: None,
            colouring,
            memctl,
            epoch,
            clock: Clock::default(),
            counters: vec![TierCounters::default(); ntiers],
            app_counters: vec![TierCounters::default(); ntiers],
            stats: MachineStats::default(),
            manager_ns: 0.0,
            stall_ns: 0.0,
            migration_cpu_ns: 0.0,
            migration_stall_ns: 0.0,
            any_huge: false,
            tier_starts,
            tier_ends,
            faulting_tiers: cfg
                .tiers
                .iter()
                .enumerate()
                .filter(|(_, t)| t.fault_on_access_ns.is_some())
                .fold(0, |bits, (i, _)| bits | 1 << i),
            sampler: None,
            poison: BTreeMap::new(),
            events: Default::default(),
            hint_once: std::collections::BTreeSet::new(),
            rmap: None,
            dma: Default::default(),
            rng: Rng::derive(cfg.seed, "machine"),
            cfg,
            #[cfg(test)]
            generic_only: false,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MachineConfig {
        &self.cfg
    }

    /// Counts so far.
    pub fn stats(&self) -> &MachineStats {
        &self.stats
    }

    /// Simulated time in ns (actual placement), as of the last [`Machine::settle`].
    pub fn time_ns(&self) -> f64 {
        self.clock.now_ns
    }

    /// Simulated time in ns had every page been in the fast tier with no
    /// manager: the denominator of `slowdown`.
    pub fn ideal_time_ns(&self) -> f64 {
        self.clock.ideal_ns
    }

    /// Manager CPU time charged so far (ns).
    pub fn manager_ns(&self) -> f64 {
        self.manager_ns
    }

    /// Where the simulated time went so far, as of the last
    /// [`Machine::settle`] (the parts add up to [`Machine::time_ns`]).
    pub fn time_parts(&self) -> thermocline_model::TimeParts {
        self.clock.parts
    }

    /// Of the time so far, what migrations cost: the manager CPU time of
    /// copies, remaps and DMA set-up, and the all-core stall of the
    /// shootdowns they issued (ns); the rest of [`Machine::manager_ns`] and
    /// of the shootdown stall went to monitoring.
    pub fn migration_costs_ns(&self) -> (f64, f64) {
        (self.migration_cpu_ns, self.migration_stall_ns)
    }

    /// Application traffic per tier so far.
    pub fn app_counters(&self) -> &[TierCounters] {
        &self.app_counters
    }

    /// Bytes backing pages in each tier.
    pub fn resident_bytes(&self) -> Vec<u64> {
        self.frames.iter().map(|f| f.used() * 4096).collect()
    }

    /// Host memory the machine's state uses (page tables, counts, TLBs, free lists).
    pub fn host_bytes(&self) -> usize {
        let spaces: usize = self.spaces.iter().map(|s| s.pt.host_bytes()).sum();
        let frames: usize = self.frames.iter().map(|f| f.host_bytes()).sum();
        let tlbs = self.cores.len()
            * (self.cfg.tlb.l1_base_entries
                + self.cfg.tlb.l1_huge_entries
                + self.cfg.tlb.stlb_entries)
            * std::mem::size_of::<TlbEntry>();
        let cache = self.dram_cache.as_ref().map_or(0, |c| c.host_bytes());
        let rmap = self.rmap.as_ref().map_or(0, |r| r.host_bytes());
        let memctl = self.memctl.as_ref().map_or(0, |m| m.host_bytes());
        spaces + frames + tlbs + cache + rmap + memctl
    }

    /// Address space `asid`'s faults on access per tier, fastest first;
    /// `None` for a space the machine does not have.
    pub fn space_tier_faults(&self, asid: u16) -> Option<Vec<u64>> {
        let tiers = self.frames.len();
        self.spaces
            .get(asid as usize)
            .map(|s| s.tier_faults[..tiers.min(MAX_TIERS)].to_vec())
    }

    /// Address space `asid`'s (loads, stores) to pages in each tier, fastest
    /// first; `None` for a space the machine does not have.
    pub fn space_accesses(&self, asid: u16) -> Option<Vec<[u64; 2]>> {
        let tiers = self.frames.len();
        self.spaces
            .get(asid as usize)
            .map(|s| s.accesses[..tiers.min(MAX_TIERS)].to_vec())
    }

    /// What the memory controllers counted, if the machine has a memory
    /// system.
    pub fn memory_system_stats(&self) -> Option<thermocline_model::memsys::MemSysStats> {
        self.memctl.as_ref().map(MemCtl::stats)
    }

    /// Advances simulated time over the accesses since the last call.
    pub fn settle(&mut self) {
        if let Some(mc) = &mut self.memctl {
            let (ideal, busy, busy_ideal) = mc.settle(&mut self.epoch.row_stall_ns);
            self.epoch.row_stall_ideal_ns = ideal;
            self.epoch.bank_busy_ns = busy;
            self.epoch.bank_busy_ideal_ns = busy_ideal;
        }
        self.stats.walk_entries += self.epoch.walk_entries;
        self.epoch.settle(&self.cfg, &mut self.clock);
    }

    /// The tier that owns `frame`.
    #[inline]
    pub(crate) fn tier_of(&self, frame: u64) -> u8 {
        tier_in(&self.tier_starts, &self.tier_ends, frame)
    }

    /// Simulates one access.
    #[inline]
    pub fn access(&mut self, a: Access) {
        let e = self.translate(a);
        let space = &mut self.spaces[a.asid as usize];
        let c = space.pt.leaves[e.leaf as usize].count_mut(((a.va >> 12) & 511) as usize);
        *c = c.saturating_add(1);
        space.accesses[e.tier() as usize % MAX_TIERS][usize::from(a.write)] += 1;
        self.epoch.accesses += 1;
        if self.llc.is_none() && self.dram_cache.is_none() && self.sampler.is_none() {
            // The access itself is the memory access, to its page's tier.
            self.count_memory_access(e.tier() as usize, a.write);
            self.stats.accesses += 1;
        } else {
            self.access_through_caches(a, e);
        }
    }

    /// Simulates `batch` in order, exactly as calling [`Machine::access`] on
    /// each access would, faster:
    /// - for each group of 32 accesses it first reads the host cache line
    ///   that holds the leaf entry and the count of each page the group
    ///   touches, so that the host fetches those lines in parallel rather
    ///   than one access at a time;
    /// - without an LLC, a DRAM cache or a sampler, it counts an access that
    ///   reuses the previous access's translation (same core, address space
    ///   and page, and Dirty already set for a store) with it, and adds the
    ///   per-tier traffic of the batch at its end.
    pub fn access_batch(&mut self, batch: &[Access]) {
        if self.llc.is_some() || self.dram_cache.is_some() || self.sampler.is_some() {
            for group in batch.chunks(PREFETCH_GROUP) {
                self.prefetch_leaves(group);
                for &a in group {
                    self.access(a);
                }
            }
            return;
        }
        // Reads and writes per tier (at most 8 tiers).
        let mut traffic = [[0u64; 2]; 8];
        for group in batch.chunks(PREFETCH_GROUP) {
            self.prefetch_leaves(group);
            let mut i = 0;
            while i < group.len() {
                let a = group[i];
                let e = self.translate_inline(a);
                // The accesses that follow on the same 4 KiB page (which the
                // translation covers) from the same core would take the
                // translate fast path, get `e` again and count on that page.
                let mut n = 1;
                let mut writes = u64::from(a.write);
                for b in &group[i + 1..] {
                    if b.core != a.core
                        || b.asid != a.asid
                        || (b.va ^ a.va) >> 12 != 0
                        || (b.write && !e.dirty())
                    {
                        break;
                    }
                    n += 1;
                    writes += u64::from(b.write);
                }
                i += n;
                let space = &mut self.spaces[a.asid as usize];
                let c = space.pt.leaves[e.leaf as usize].count_mut(((a.va >> 12) & 511) as usize);
                *c = c.saturating_add(n as u32);
                let own = &mut space.accesses[e.tier() as usize % MAX_TIERS];
                own[0] += n as u64 - writes;
                own[1] += writes;
                let t = &mut traffic[e.tier() as usize & 7];
                t[0] += n as u64 - writes;
                t[1] += writes;
            }
        }
        let n = batch.len() as u64;
        self.epoch.accesses += n;
        self.stats.llc_misses += n;
        self.stats.accesses += n;
        for (t, &[reads, writes]) in traffic.iter().enumerate().take(self.counters.len()) {
            self.epoch.reads[t] += reads;
            self.epoch.writes[t] += writes;
            self.app_counters[t].reads += reads;
            self.app_counters[t].writes += writes;
            self.counters[t].reads += reads;
            self.counters[t].writes += writes;
        }
    }

    /// Reads the leaf line of every page of `group` (once per run of
    /// accesses to one page); changes nothing. The addresses come first and
    /// the reads after, so that all of them fit in the host core's
    /// out-of-order window and their misses overlap.
    #[inline]
    fn prefetch_leaves(&self, group: &[Access]) {
        static NOTHING: u64 = 0;
        // The deposits of a 1 GiB range without a page directory.
        static NO_DEPOSITS: [u32; 512] = [u32::MAX; 512];
        let mut lines = [&NOTHING; PREFETCH_GROUP];
        let mut n = 0;
        let mut last_page = u64::MAX;
        // The leaf tables and page directory of the last 1 GiB range, found
        // once per range (none: no leaf table is found).
        let mut last_range = u64::MAX;
        let mut leaves: &[pt::Leaf] = &[];
        let mut deposits = &NO_DEPOSITS;
        for a in group {
            let page = (a.va >> 12) ^ (u64::from(a.asid) << 52);
            if page == last_page {
                continue;
            }
            last_page = page;
            if page >> 18 != last_range {
                last_range = page >> 18;
                (leaves, deposits) = self
                    .spaces
                    .get(a.asid as usize)
                    .and_then(|s| Some((&s.pt.leaves[..], s.pt.deposits_of(a.va)?)))
                    .unwrap_or((&[], &NO_DEPOSITS));
            }
            if let Some(leaf) = leaves.get(deposits[Level::Pmd.index(a.va)] as usize) {
                lines[n % PREFETCH_GROUP] = leaf.line_word(Level::Pte.index(a.va));
                n += 1;
            }
        }
        let mut seen = 0u64;
        for line in &lines[..n.min(PREFETCH_GROUP)] {
            seen ^= **line;
        }
        std::hint::black_box(seen);
    }

    /// The rest of an access when an LLC, a DRAM cache or a sampler is on.
    fn access_through_caches(&mut self, a: Access, e: Translation) {
        let paddr = (e.frame() << 12) + (a.va & if e.huge() { 0x1f_ffff } else { 0xfff });
        let memory = match &mut self.llc {
            None => true,
            Some(llc) => {
                let pline = paddr >> 6;
                let outcome = match &self.memctl {
                    None => llc.access(pline, a.write),
                    Some(mc) => llc.access_in(mc.decoder().llc_set(pline), pline, a.write),
                };
                match outcome {
                    LlcOutcome::Hit => {
                        self.epoch.llc_hits += 1;
                        false
                    }
                    LlcOutcome::Miss { writeback } => {
                        if let Some(victim) = writeback {
                            self.llc_writeback(victim);
                        }
                        if let Some(mc) = &mut self.memctl {
                            mc.llc_miss(pline);
                        }
                        true
                    }
                }
            }
        };
        if memory {
            let mut t = e.tier() as usize;
            // With an LLC a store miss is a read for ownership: the store
            // dirties the LLC's line, and reaches memory (in Memory Mode the
            // DRAM cache) when the LLC writes it back.
            let mut store = a.write && self.llc.is_none();
            if t != 0 {
                if let Some(dc) = self.dram_cache.as_mut() {
                    match dc.access(paddr >> 6, store) {
                        CacheOutcome::Hit => t = 0,
                        CacheOutcome::Miss { writeback } => {
                            // The fill is written into DRAM and a dirty victim
                            // back to the slow tier: bandwidth, not latency.
                            // A store lands in DRAM: the slow tier sees a read.
                            self.epoch.migration_writes[0] += 1;
                            self.counters[0].writes += 1;
                            if let Some(v) = writeback {
                                self.dram_cache_writeback(v);
                            }
                            store = false;
                        }
                    }
                }
            }
            // With an LLC a store miss reads the line for ownership; the
            // write reaches memory later, at eviction. Without one, the
            // access itself is the memory access.
            self.count_memory_access(t, store);
            // The line's own channel serves it (not a Memory Mode DRAM-cache
            // hit, whose DRAM traffic the controllers do not see).
            if t == e.tier() as usize {
                if let Some(mc) = &mut self.memctl {
                    mc.read(t, paddr);
                }
            }
        }
        if let Some(s) = &self.sampler {
            if memory || !s.cfg.event.llc_misses_only() {
                self.sample(a, e.tier());
            }
        }
        self.stats.accesses += 1;
    }

    /// A dirty line the LLC evicted (physical line `victim`). A posted
    /// write: it costs the write bandwidth of where it lands, not the
    /// core's time. In Memory Mode the line of a slow-tier page lands in
    /// the DRAM cache, as the hardware's does: a hit dirties the cached
    /// line, a miss allocates it dirty (nothing is read: the whole line is
    /// written) and writes back the dirty line it evicts. Otherwise it
    /// lands in its home tier.
    fn llc_writeback(&mut self, victim: u64) {
        let t = self.tier_of(victim >> 6) as usize;
        if t != 0 {
            if let Some(dc) = self.dram_cache.as_mut() {
                if let CacheOutcome::Miss { writeback: Some(v) } = dc.access(victim, true) {
                    self.dram_cache_writeback(v);
                }
                self.epoch.writebacks[0] += 1;
                self.app_counters[0].writes += 1;
                self.counters[0].writes += 1;
                return;
            }
        }
        self.epoch.writebacks[t] += 1;
        self.app_counters[t].writes += 1;
        self.counters[t].writes += 1;
        if let Some(mc) = &mut self.memctl {
            mc.write(t, victim << 6);
        }
    }

    /// A dirty line (physical line `line`) the Memory Mode DRAM cache
    /// evicted, written back to its home tier: the application's write of
    /// that tier, cache traffic for the time (bandwidth, and none on the
    /// ideal clock, whose pages are all in DRAM), and a write on the tier's
    /// channel.
    fn dram_cache_writeback(&mut self, line: u64) {
        let t = self.tier_of(line >> 6) as usize;
        self.epoch.migration_writes[t] += 1;
        self.app_counters[t].writes += 1;
        self.counters[t].writes += 1;
        if let Some(mc) = &mut self.memctl {
            mc.write(t, line << 6);
        }
    }

    /// What the Memory Mode DRAM cache has counted since Memory Mode was
    /// turned on, if it is on.
    pub fn dram_cache_counts(&self) -> Option<crate::dram_cache::DramCacheCounts> {
        self.dram_cache.as_ref().map(|c| c.counts())
    }

    #[cold]
    fn sample(&mut self, a: Access, tier: u8) {
        let now = self.clock.now_ns as u64;
        let Some(s) = self.sampler.as_mut() else {
            return;
        };
        if !s.cfg.event.counts(a.write) {
            return;
        }
        s.countdown -= 1;
        if s.countdown > 0 {
            return;
        }
        s.countdown = s.next_period();
        self.stats.samples += 1;
        self.epoch.samples += 1;
        if s.buf.len() < s.cfg.buffer {
            s.buf.push(Sample {
                asid: Asid(a.asid),
                va: a.va,
                write: a.write,
                tier: TierId(tier),
                t_ns: now,
            });
        } else {
            s.dropped += 1;
        }
    }

    /// The translation of an access: fast path, L1, STLB, then a walk.
    #[inline]
    fn translate(&mut self, a: Access) -> Translation {
        let core = &mut self.cores[a.core as usize];
        if core.reuses_last(a) {
            return core.last;
        }
        // The fields in registers: an `Access` argument would go through
        // the stack.
        self.slow_translate(a.va, a.asid, a.core, a.write)
    }

    /// [`Machine::translate`] with the miss path inlined too.
    #[inline(always)]
    fn translate_inline(&mut self, a: Access) -> Translation {
        let core = &mut self.cores[a.core as usize];
        if core.reuses_last(a) {
            return core.last;
        }
        self.translate_miss(a)
    }

    #[inline(always)]
    fn remember(core: &mut Core, a: Access, e: Translation) {
        let size = if e.huge() {
            PageSize::Huge
        } else {
            PageSize::Base
        };
        core.last_lo = size.align_down(a.va);
        core.last_len = size.bytes();
        core.last_asid = a.asid;
        core.last = e;
    }

    /// The translation of an access that missed the last translation. With
    /// no 2 MiB page anywhere and both 4 KiB TLBs of at most 16 ways (the
    /// usual geometry) it takes the same steps as
    /// [`Machine::generic_translate`], with the TLBs' representation matched
    /// once and the tag's signature computed once; the rare cases (stores
    /// through clean entries, faults) go out of line.
    #[inline(always)]
    fn translate_miss(&mut self, a: Access) -> Translation {
        #[cfg(test)]
        if self.generic_only {
            return self.generic_translate(a.va, a.asid, a.core, a.write);
        }
        let core = &mut self.cores[a.core as usize];
        let (Some(mut l1), Some(mut stlb), false) =
            (core.l1_base.small(), core.stlb.small(), self.any_huge)
        else {
            return self.generic_translate(a.va, a.asid, a.core, a.write);
        };
        let tb = tag(a.asid, a.va, false);
        let sig = signature(tb);
        let found = match l1.lookup(tb, sig) {
            Some(e) => Some(e),
            None => {
                self.stats.l1_tlb_misses += 1;
                let found = stlb.lookup(tb, sig);
                if let Some(e) = found {
                    self.epoch.stlb_hits += 1;
                    l1.insert_absent(tb, sig, e);
                }
                found
            }
        };
        if let Some(e) = found {
            if a.write && !e.dirty() {
                return self.store_through_clean(a.va, a.asid, a.core, e);
            }
            Self::remember(core, a, e);
            return e;
        }
        self.stats.walks += 1;
        let walked = walk_tables(
            &mut self.spaces[a.asid as usize].pt,
            &mut core.psc,
            &mut self.epoch,
            a.asid,
            a.va,
            a.write,
        );
        // No page: a leaf entry without Present.
        let w = walked.unwrap_or(Walked {
            entry: 0,
            leaf: 0,
            huge: false,
        });
        let frame = pt::target(w.entry);
        let tier = tier_in(&self.tier_starts, &self.tier_ends, frame);
        if w.entry & (pt::P | pt::POISON) != pt::P || w.huge || self.faulting_tiers >> tier & 1 != 0
        {
            return self.walk_rest(a.va, a.asid, a.core, a.write, w);
        }
        // `finish_walk` without faults: the walk followed misses of `tb` in
        // both TLBs, and a store's walk set Dirty.
        let e = Translation::new(frame, w.leaf, tier, w.entry & pt::D != 0, false);
        l1.insert_absent(tb, sig, e);
        stlb.insert_absent(tb, sig, e);
        Self::remember(core, a, e);
        e
    }

    /// The rest of [`Machine::translate_miss`] for a store through a TLB
    /// entry without Dirty. (The access's fields in registers: an `Access`
    /// argument would go through the stack, at every access.)
    #[cold]
    #[inline(never)]
    fn store_through_clean(
        &mut self,
        va: u64,
        asid: u16,
        core: u16,
        e: Translation,
    ) -> Translation {
        let a = Access {
            va,
            asid,
            core,
            write: true,
        };
        let e = self.set_dirty_through_tlb(a, e);
        Self::remember(&mut self.cores[a.core as usize], a, e);
        e
    }

    /// The rest of [`Machine::translate_miss`] for a walk that found no page
    /// (a leaf `entry` without Present), a 2 MiB page, a poisoned leaf or a
    /// tier that faults on access.
    #[cold]
    #[inline(never)]
    fn walk_rest(&mut self, va: u64, asid: u16, core: u16, write: bool, w: Walked) -> Translation {
        let a = Access {
            va,
            asid,
            core,
            write,
        };
        let e = if w.entry & pt::P != 0 {
            self.finish_walk(a, w.entry, w.leaf, w.huge)
        } else {
            self.walk_after_fault(a)
        };
        // A walk remembers its translation as it forms it.
        if a.write && !e.dirty() {
            let e = self.set_dirty_through_tlb(a, e);
            Self::remember(&mut self.cores[a.core as usize], a, e);
            return e;
        }
        e
    }

    /// [`Machine::translate_miss`] out of line.
    #[inline(never)]
    fn slow_translate(&mut self, va: u64, asid: u16, core: u16, write: bool) -> Translation {
        self.translate_miss(Access {
            va,
            asid,
            core,
            write,
        })
    }

    /// The translation of an access that missed the last translation, for
    /// any TLB geometry: L1, STLB, then a walk.
    #[inline(never)]
    fn generic_translate(&mut self, va: u64, asid: u16, core: u16, write: bool) -> Translation {
        let a = Access {
            va,
            asid,
            core,
            write,
        };
        let any_huge = self.any_huge;
        let tb = tag(a.asid, a.va, false);
        let core = &mut self.cores[a.core as usize];
        let th = tag(a.asid, a.va, true);
        let mut found = core.l1_base.lookup_translation(tb);
        if found.is_none() && any_huge {
            found = core.l1_huge.lookup_translation(th);
        }
        if found.is_none() {
            self.stats.l1_tlb_misses += 1;
            found = core.stlb.lookup_translation(tb);
            if found.is_none() && any_huge {
                found = core.stlb.lookup_translation(th);
            }
            if let Some(e) = found {
                self.epoch.stlb_hits += 1;
                // Its tag just missed the L1 TLB of its size.
                if e.huge() {
                    core.l1_huge.insert_absent(th, e);
                } else {
                    core.l1_base.insert_absent(tb, e);
                }
            }
        }
        // A walk remembers its translation as it forms it.
        let (mut e, remembered) = match found {
            Some(e) => (e, false),
            None => (self.walk(a), true),
        };
        if a.write && !e.dirty() {
            e = self.set_dirty_through_tlb(a, e);
        } else if remembered {
            return e;
        }
        Self::remember(&mut self.cores[a.core as usize], a, e);
        e
    }

    /// A store through a translation cached without Dirty: the processor sets
    /// D in the leaf entry in memory (SDM 4.8) and the cached entry now has it.
    #[inline(never)]
    fn set_dirty_through_tlb(&mut self, a: Access, e: Translation) -> Translation {
        if let Some(leaf) = self.spaces[a.asid as usize].pt.leaf_mut(a.va) {
            *leaf |= pt::D;
        }
        self.epoch.walk_entries += 1;
        let t = tag(a.asid, a.va, e.huge());
        let core = &mut self.cores[a.core as usize];
        if e.huge() {
            core.l1_huge.set_dirty(t);
        } else {
            core.l1_base.set_dirty(t);
        }
        core.stlb.set_dirty(t);
        e.with_dirty()
    }

    /// A hardware page walk (SDM 4.8, 4.10.3). Starts from the deepest
    /// paging-structure-cache hit; sets Accessed in every entry it reads (and
    /// only those), Dirty in the leaf on a store; demand-faults missing pages;
    /// counts a fault on a poisoned leaf; fills the TLBs and the PSCs.
    #[inline(always)]
    fn walk(&mut self, a: Access) -> Translation {
        self.stats.walks += 1;
        match self.try_walk(a) {
            Some(e) => e,
            None => self.walk_after_fault(a),
        }
    }

    /// The rest of a walk that found no page: demand-fault, walk again.
    #[inline(never)]
    fn walk_after_fault(&mut self, a: Access) -> Translation {
        loop {
            self.demand_fault(a.asid, a.va);
            if let Some(e) = self.try_walk(a) {
                return e;
            }
        }
    }

    /// One application line read or written in tier `t` (an LLC miss, or
    /// any access when there is no LLC): counted for the epoch's time, the
    /// report and the tier's traffic counters.
    #[inline(always)]
    fn count_memory_access(&mut self, t: usize, write: bool) {
        if write {
            self.epoch.writes[t] += 1;
            self.app_counters[t].writes += 1;
            self.counters[t].writes += 1;
        } else {
            self.epoch.reads[t] += 1;
            self.app_counters[t].reads += 1;
            self.counters[t].reads += 1;
        }
        self.stats.llc_misses += 1;
    }

    /// One walk attempt: `None` if a table entry on the way is not present.
    #[inline(always)]
    fn try_walk(&mut self, a: Access) -> Option<Translation> {
        let w = walk_tables(
            &mut self.spaces[a.asid as usize].pt,
            &mut self.cores[a.core as usize].psc,
            &mut self.epoch,
            a.asid,
            a.va,
            a.write,
        )?;
        Some(self.finish_walk(a, w.entry, w.leaf, w.huge))
    }

    /// Fault accounting for poisoned or non-addressable leaves, then TLB fill.
    #[inline(always)]
    fn finish_walk(&mut self, a: Access, mut entry: u64, leaf: u32, huge: bool) -> Translation {
        let mut tier = self.tier_of(pt::target(entry));
        if entry & pt::POISON != 0 || self.faulting_tiers >> tier & 1 != 0 {
            (entry, tier) = self.walk_faults(a, entry, huge, tier);
        }
        let t = tag(a.asid, a.va, huge);
        let e = Translation::new(pt::target(entry), leaf, tier, entry & pt::D != 0, huge);
        let core = &mut self.cores[a.core as usize];
        if huge {
            core.l1_huge.insert_translation(t, e);
            core.stlb.insert_translation(t, e);
        } else {
            // The walk followed misses of this tag in both TLBs, and walks
            // only remove entries.
            core.l1_base.insert_absent(t, e);
            core.stlb.insert_absent(t, e);
        }
        Self::remember(core, a, e);
        e
    }

    /// The faults of a walk to a poisoned leaf or to a tier that faults on
    /// access; returns the leaf entry and the tier the translation gets.
    #[cold]
    #[inline(never)]
    fn walk_faults(&mut self, a: Access, mut entry: u64, huge: bool, mut tier: u8) -> (u64, u8) {
        let size = if huge { PageSize::Huge } else { PageSize::Base };
        let page = size.align_down(a.va);
        let spec = &self.cfg.tiers[tier as usize];
        let tier_faults = spec.fault_on_access_ns.is_some();
        let keep = spec.keep_on_fault;
        if entry & pt::POISON != 0 {
            // BadgerTrap: the fault handler counts, installs the translation
            // in the TLB and leaves the entry poisoned. In a tier that faults
            // anyway it is the same fault, so its time is charged once.
            self.stats.poison_faults += 1;
            if !tier_faults {
                self.epoch.poison_fault(a.core);
            }
            *self.poison.entry((a.asid, page)).or_insert(0) += 1;
            if self.hint_once.remove(&(a.asid, page)) {
                // A NUMA hint fault restores the mapping: no further faults.
                entry &= !pt::POISON;
                if let Some(e) = self.spaces[a.asid as usize].pt.leaf_mut(a.va) {
                    *e &= !pt::POISON;
                }
            }
        }
        if tier_faults {
            self.stats.tier_faults += 1;
            self.spaces[a.asid as usize].tier_faults[tier as usize % MAX_TIERS] += 1;
            self.epoch.tier_fault(a.core, tier as usize);
            // The page comes back into the fastest tier that takes it (its
            // frames and the space's quota), as a swap-in allocates under
            // the task's policy with fallback to the other nodes.
            let to = if keep {
                None
            } else {
                (0..tier).find(|&t| self.move_page(a.asid, a.va, TierId(t)).is_ok())
            };
            if let Some(t) = to {
                self.stats.tier_fault_promotions += 1;
                entry = *self.spaces[a.asid as usize]
                    .pt
                    .leaf_mut(a.va)
                    .expect("just moved");
                tier = t;
            }
        }
        (entry, tier)
    }

    /// Picks the tier for a new page of `size` under the address space's policy
    /// and allocates a frame there, falling back to other tiers when full.
    fn allocate(&mut self, asid: u16, size: PageSize, ty: PageType) -> Option<(u64, u8)> {
        let ntiers = self.frames.len() as u8;
        let space = &mut self.spaces[asid as usize];
        let first = match space.type_policy[ty.index()].unwrap_or(space.policy) {
            MemPolicy::PreferFast => 0,
            MemPolicy::Bind { tier } => tier.0.min(ntiers - 1),
            MemPolicy::Interleave => {
                let t = space.interleave_next;
                space.interleave_next = (t + 1) % ntiers;
                t
            }
            MemPolicy::Random { fast_probability } => {
                if self.rng.chance(fast_probability) {
                    0
                } else {
                    ntiers.saturating_sub(1).max(1).min(ntiers - 1)
                }
            }
        };
        let pages = size.bytes() / 4096;
        let order = (0..ntiers).map(|i| (first + i) % ntiers);
        for t in order {
            if !self.spaces[asid as usize].may_hold(t as usize, pages) {
                continue;
            }
            let f = match size {
                PageSize::Base => self.frames[t as usize].alloc_base(),
                PageSize::Huge => self.frames[t as usize].alloc_huge(),
            };
            if let Some(f) = f {
                let space = &mut self.spaces[asid as usize];
                space.held[t as usize] += pages;
                let counts = &mut space.allocs[ty.index()];
                counts.requests += pages;
                if t == first {
                    counts.preferred += pages;
                } else {
                    counts.fallback += pages;
                }
                return Some((f, t));
            }
        }
        None
    }

    /// Maps the page of `va` on first touch: a 2 MiB page when its region
    /// allows THP and covers the whole aligned range, else 4 KiB.
    #[inline(never)]
    fn demand_fault(&mut self, asid: u16, va: u64) {
        self.stats.first_touch_faults += 1;
        self.epoch.first_touch_faults += 1;
        let huge_start = PageSize::Huge.align_down(va);
        let region = self.region_of(asid, va);
        let ty = region.map_or(PageType::Anon, |r| r.page_type);
        let want_huge = region.is_some_and(|r| {
            r.thp && r.start <= huge_start && r.end() >= huge_start + PageSize::Huge.bytes()
        });
        let (pmd, leaf) = self.spaces[asid as usize].pt.ensure_tables(va);
        if want_huge {
            if let Some((frame, _)) = self.allocate(asid, PageSize::Huge, ty) {
                let slot = Level::Pmd.index(va);
                self.spaces[asid as usize].pt.pmd[pmd as usize][slot] =
                    pt::entry(frame, pt::P | pt::RW | pt::PS);
                self.any_huge = true;
                self.rmap_map(frame, PageSize::Huge, asid, huge_start);
                return;
            }
        }
        let (frame, _) = self
            .allocate(asid, PageSize::Base, ty)
            .expect("tier capacities cover the footprint (checked when the run is built)");
        let space = &mut self.spaces[asid as usize].pt;
        let slot = Level::Pmd.index(va);
        let pmd_e = &mut space.pmd[pmd as usize][slot];
        if *pmd_e & pt::P == 0 {
            *pmd_e = pt::entry(u64::from(leaf), pt::P | pt::RW);
        }
        *space.leaves[leaf as usize].pte_mut(Level::Pte.index(va)) =
            pt::entry(frame, pt::P | pt::RW);
        self.rmap_map(frame, PageSize::Base, asid, va);
    }

    /// Records in the reverse map, if kept, that the page of `size` at `va`
    /// is now backed by the frames from `frame`.
    pub(crate) fn rmap_map(&mut self, frame: u64, size: PageSize, asid: u16, va: u64) {
        if let Some(r) = self.rmap.as_mut() {
            r.map(frame, size.bytes() / 4096, asid, size.align_down(va));
        }
    }

    /// Records in the reverse map, if kept, that the frames of a page of
    /// `size` from `frame` back nothing any more.
    pub(crate) fn rmap_unmap(&mut self, frame: u64, size: PageSize) {
        if let Some(r) = self.rmap.as_mut() {
            r.unmap(frame, size.bytes() / 4096);
        }
    }

    /// The page `frame` backs, as (address space, virtual address of its
    /// 4 KiB piece). Builds the reverse map from the page tables on the
    /// first call; every change of a mapping keeps it current after that.
    pub(crate) fn owner_of_frame(&mut self, frame: u64) -> Option<(u16, u64)> {
        if self.rmap.is_none() {
            let frames = self
                .frames
                .iter()
                .map(|f| f.base() + f.count())
                .max()
                .unwrap_or(0);
            let mut r = ReverseMap::new(frames);
            for (asid, space) in self.spaces.iter().enumerate() {
                space.pt.for_each_mapping(|va, frame, huge| {
                    let n = if huge { PAGES_PER_HUGE } else { 1 };
                    r.map(frame, n, asid as u16, va);
                });
            }
            self.rmap = Some(r);
        }
        self.rmap.as_ref().and_then(|r| r.owner(frame))
    }

    /// The address spaces that have regions.
    pub fn regions_asids(&self) -> std::collections::BTreeSet<u16> {
        self.regions.iter().map(|r| r.asid.0).collect()
    }

    /// The region containing `va`, if any.
    pub fn region_of(&self, asid: u16, va: u64) -> Option<&RegionInfo> {
        let i = self
            .regions
            .partition_point(|r| (r.asid.0, r.start) <= (asid, va));
        let r = self.regions.get(i.checked_sub(1)?)?;
        (r.asid.0 == asid && va < r.end()).then_some(r)
    }

    /// Moves one mapped page to `to`, updating the entry and freeing the old
    /// frame; returns (bytes moved, source tier). Flushes its translations.
    pub(crate) fn move_page(
        &mut self,
        asid: u16,
        va: u64,
        to: TierId,
    ) -> Result<(u64, u8), BackendError> {
        self.move_page_to(asid, va, to, &[])
    }

    /// [`Machine::move_page`] to a free frame of one of `colours`, tried in
    /// order (empty: any frame); with colours, a page already in `to`
    /// moves too unless its frame has one of them. A huge page has no one
    /// colour: it cannot be moved to one.
    pub(crate) fn move_page_to(
        &mut self,
        asid: u16,
        va: u64,
        to: TierId,
        colours: &[usize],
    ) -> Result<(u64, u8), BackendError> {
        let not_mapped = BackendError::NotMapped {
            asid: Asid(asid),
            va,
        };
        let huge = self.spaces[asid as usize].pt.path(va).huge;
        let entry = *self.spaces[asid as usize]
            .pt
            .leaf_mut(va)
            .ok_or(not_mapped)?;
        let old = pt::target(entry);
        let from = self.tier_of(old);
        if from == to.0
            && (colours.is_empty()
                || self.frames[to.index()]
                    .colour_of(old)
                    .is_some_and(|c| colours.contains(&c)))
        {
            return Ok((0, from));
        }
        if huge && !colours.is_empty() {
            return Err(BackendError::Invalid {
                va,
                why: "a huge page spans every colour: it cannot be moved to one",
            });
        }
        let pages = if huge { PAGES_PER_HUGE } else { 1 };
        // A move within the tier holds as many frames there as before.
        if from != to.0 && !self.spaces[asid as usize].may_hold(to.index(), pages) {
            return Err(BackendError::TierFull(to));
        }
        let dest = &mut self.frames[to.index()];
        let new = if huge {
            dest.alloc_huge()
        } else if colours.is_empty() {
            dest.alloc_base()
        } else {
            colours.iter().find_map(|&c| dest.alloc_coloured(c))
        };
        let new = new.ok_or(BackendError::TierFull(to))?;
        let held = &mut self.spaces[asid as usize].held;
        held[from as usize] -= pages;
        held[to.index()] += pages;
        if huge {
            self.frames[from as usize].free_huge(old);
        } else {
            self.frames[from as usize].free_base(old);
        }
        let leaf = self.spaces[asid as usize]
            .pt
            .leaf_mut(va)
            .expect("checked above");
        *leaf = pt::retarget(*leaf, new);
        let size = if huge { PageSize::Huge } else { PageSize::Base };
        self.rmap_unmap(old, size);
        self.rmap_map(new, size, asid, va);
        let bytes = size.bytes();
        let lines = bytes / 64;
        self.epoch.migration_reads[from as usize] += lines;
        self.epoch.migration_writes[to.index()] += lines;
        self.counters[from as usize].reads += lines;
        self.counters[to.index()].writes += lines;
        self.note_copy_into(to.index(), new, bytes);
        self.invalidate_page(asid, va);
        Ok((bytes, from))
    }

    /// A migration copied `bytes` into frames from `frame` of `tier`: with
    /// a memory system, the copy wears the tier's cells.
    pub(crate) fn note_copy_into(&mut self, tier: usize, frame: u64, bytes: u64) {
        if let Some(mc) = &mut self.memctl {
            mc.page_written(tier, frame << 12, bytes);
        }
    }

    /// Drops every core's TLB entries for the page(s) of `va` and, as INVLPG
    /// does, every paging-structure-cache entry of the address space.
    pub(crate) fn invalidate_page(&mut self, asid: u16, va: u64) {
        for c in &mut self.cores {
            c.l1_base.invalidate(tag(asid, va, false));
            c.l1_huge.invalidate(tag(asid, va, true));
            c.stlb.invalidate(tag(asid, va, false));
            c.stlb.invalidate(tag(asid, va, true));
            for p in &mut c.psc {
                p.flush_asid(asid);
            }
            c.forget_last();
        }
    }

    /// Drops every TLB and PSC entry of the address space on every core.
    pub(crate) fn invalidate_asid(&mut self, asid: u16) {
        for c in &mut self.cores {
            c.l1_base.invalidate_asid(asid);
            c.l1_huge.invalidate_asid(asid);
            c.stlb.invalidate_asid(asid);
            for p in &mut c.psc {
                p.flush_asid(asid);
            }
            c.forget_last();
        }
    }

    /// Visits the ground-truth access counts of every 2 MiB range of `asid`
    /// that has a leaf table, as (range start, 512 counts), resetting them if
    /// `reset`. Ranges come in address order.
    pub fn visit_counts(&mut self, asid: u16, reset: bool, mut f: impl FnMut(u64, &[u32; 512])) {
        let Some(space) = self.spaces.get_mut(asid as usize) else {
            return;
        };
        let table = &mut space.pt;
        for gi in 0..512 {
            let g = table.pgd[gi];
            if g & pt::P == 0 {
                continue;
            }
            let pud = pt::target(g) as usize;
            for ui in 0..512 {
                let u = table.pud[pud][ui];
                if u & pt::P == 0 {
                    continue;
                }
                let pmd = pt::target(u) as usize;
                for mi in 0..512 {
                    let leaf = table.deposit[pmd][mi];
                    if leaf == u32::MAX {
                        continue;
                    }
                    let va = ((gi as u64) << 39) | ((ui as u64) << 30) | ((mi as u64) << 21);
                    let counts = &mut table.leaves[leaf as usize];
                    f(va, &counts.counts());
                    if reset {
                        counts.clear_counts();
                    }
                }
            }
        }
    }

    pub(crate) fn space(&self, asid: Asid) -> Result<&Space, BackendError> {
        self.spaces
            .get(asid.0 as usize)
            .ok_or(BackendError::NoSuchTarget(asid))
    }

    pub(crate) fn space_mut(&mut self, asid: Asid) -> Result<&mut Space, BackendError> {
        self.spaces
            .get_mut(asid.0 as usize)
            .ok_or(BackendError::NoSuchTarget(asid))
    }

    pub(crate) fn set_sampler(&mut self, cfg: Option<SamplingConfig>) {
        self.sampler = cfg.map(|cfg| {
            let mut s = Sampler {
                cfg,
                countdown: 1,
                buf: Vec::with_capacity(cfg.buffer),
                dropped: 0,
                rng: Rng::derive(self.cfg.seed, "pebs"),
            };
            s.countdown = s.next_period();
            s
        });
    }

    pub(crate) fn take_samples(&mut self, out: &mut Vec<Sample>) -> u64 {
        match &mut self.sampler {
            None => 0,
            Some(s) => {
                out.append(&mut s.buf);
                std::mem::take(&mut s.dropped)
            }
        }
    }

    pub(crate) fn note_huge(&mut self) {
        self.any_huge = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use thermocline_backend::{Backend, Exchange, Poisoning, SampleEvent, Sampling};
    use thermocline_model::{tiers, LlcConfig, PerfConfig};
    use thermocline_vocab::PageType;

    const BASE: u64 = 1 << 30;

    /// Two address spaces of 8 MiB (the second with THP), 4 MiB of DRAM.
    fn machine(llc: bool, threads: usize) -> Machine {
        let mut t = vec![tiers::dram(), tiers::dcpmm()];
        t[0].capacity_bytes = 4 << 20;
        t[1].capacity_bytes = 32 << 20;
        let cfg = MachineConfig {
            tiers: t,
            tlb: Default::default(),
            llc: LlcConfig {
                bytes: if llc { 256 << 10 } else { 0 },
                ..Default::default()
            },
            perf: PerfConfig {
                threads,
                compute_ns: 5.0,
                ..Default::default()
            },
            costs: Default::default(),
            seed: 3,
            memory: None,
        };
        let region = |asid, thp| RegionInfo {
            asid: Asid(asid),
            name: "r".into(),
            start: BASE,
            len: 8 << 20,
            page_type: PageType::Anon,
            thp,
        };
        Machine::new(cfg, vec![region(0, false), region(1, true)]).unwrap()
    }

    /// `machine(true, threads)` with the paper's memory system (8 MiB LLC
    /// so that its 16 slabs of 512 sets fit).
    fn memsys_machine(threads: usize, fast_bytes: u64) -> Machine {
        let mut cfg = machine(true, threads).cfg;
        cfg.tiers[0].capacity_bytes = fast_bytes;
        cfg.tiers[1] = thermocline_model::tiers::pcm();
        cfg.tiers[1].capacity_bytes = 32 << 20;
        cfg.llc.bytes = 8 << 20;
        cfg.memory = Some(Default::default());
        let region = RegionInfo {
            asid: Asid(0),
            name: "r".into(),
            start: BASE,
            len: 32 << 20,
            page_type: PageType::Anon,
            thp: false,
        };
        Machine::new(cfg, vec![region]).unwrap()
    }

    /// Strided stores over 32 MiB, twice: LLC misses and write-backs.
    fn sweep(m: &mut Machine) {
        for round in 0..2 {
            for i in 0..(32u64 << 20) / 256 {
                m.access(Access {
                    va: BASE + i * 256,
                    asid: 0,
                    core: 0,
                    write: (i + round) % 3 == 0,
                });
            }
            m.settle();
        }
    }

    #[test]
    fn memory_system_puts_the_slow_tier_above_the_channel_bit() {
        let m = memsys_machine(1, 4 << 20);
        assert_eq!(m.frames[0].base(), 0);
        assert_eq!(m.frames[1].base(), 1 << 20, "frame of 4 GiB");
        assert_eq!(m.tier_of(1 << 20), 1);
        assert_eq!(m.tier_of(5), 0);
    }

    #[test]
    fn memory_system_needs_an_llc_and_a_valid_mapping() {
        let mut cfg = machine(false, 1).cfg;
        cfg.memory = Some(Default::default());
        let e = Machine::new(cfg.clone(), vec![]).err().unwrap().to_string();
        assert!(e.contains("needs an LLC"), "{e}");
        cfg.llc.bytes = 8 << 20;
        cfg.memory.as_mut().unwrap().map.bank_bits = vec![3];
        let e = Machine::new(cfg.clone(), vec![]).err().unwrap().to_string();
        assert!(e.contains("bank_bits"), "{e}");
        // Off again: builds.
        cfg.memory.as_mut().unwrap().enabled = false;
        assert!(Machine::new(cfg, vec![]).is_ok());
    }

    /// Every page in the fast tier: the ideal clock shares the row-buffer
    /// outcomes and bank loads, so the slowdown is zero; the controllers
    /// counted every LLC miss and write-back.
    #[test]
    fn memory_system_all_fast_has_no_slowdown() {
        let mut m = memsys_machine(1, 64 << 20);
        sweep(&mut m);
        assert_eq!(m.time_ns(), m.ideal_time_ns());
        let s = m.memory_system_stats().unwrap();
        let c = &s.channels[0];
        assert_eq!(c.bank_reads.iter().sum::<u64>(), m.app_counters()[0].reads);
        assert_eq!(
            c.bank_writes.iter().sum::<u64>(),
            m.app_counters()[0].writes
        );
        assert!(c.row_hits > 0 && c.row_conflicts > 0, "{c:?}");
        assert_eq!(s.llc_slab_misses.iter().sum::<u64>(), m.stats().llc_misses);
        // A sweep spreads over every bank and slab.
        assert!(c.bank_reads.iter().all(|&n| n > 0));
        assert!(s.llc_slab_misses.iter().all(|&n| n > 0));
    }

    /// Pages in PCM: slower than the same run without the memory system's
    /// PCM row conflicts would be, and its writes wear PCM.
    #[test]
    fn memory_system_charges_pcm_conflicts_and_counts_wear() {
        let run = |memory: bool| {
            let mut m = memsys_machine(1, 4 << 20);
            if !memory {
                m.memctl = None;
                m.epoch.row_stall_ns.clear();
            }
            sweep(&mut m);
            m
        };
        let (on, off) = (run(true), run(false));
        assert_eq!(on.app_counters(), off.app_counters());
        let s = on.memory_system_stats().unwrap();
        let pcm = &s.channels[1];
        assert!(pcm.wear_total_writes > 0);
        assert_eq!(pcm.wear_total_writes, on.app_counters()[1].writes);
        assert!(on.time_ns() != off.time_ns());
        // A migration's copy into PCM wears it too: 64 lines per 4 KiB page.
        let mut on = on;
        let before = pcm.wear_total_writes;
        on.exchange(Asid(0), BASE, BASE + (16 << 20)).unwrap();
        let after = on.memory_system_stats().unwrap().channels[1].wear_total_writes;
        assert_eq!(after, before + 64);
    }

    /// A region that ends at 2^47 fits 4-level paging; one page further
    /// would alias onto low addresses, so the machine refuses it.
    #[test]
    fn regions_beyond_four_level_paging_are_refused() {
        let cfg = machine(false, 1).cfg;
        let region = |end: u64| RegionInfo {
            asid: Asid(0),
            name: "high".into(),
            start: end - (8 << 20),
            len: 8 << 20,
            page_type: PageType::Anon,
            thp: false,
        };
        assert!(Machine::new(cfg.clone(), vec![region(1 << 47)]).is_ok());
        let e = Machine::new(cfg, vec![region((1 << 47) + 4096)])
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("47-bit"), "{e}");
    }

    /// Everything a run can observe of a machine.
    fn observe(m: &mut Machine) -> String {
        let mut counts = Vec::new();
        for asid in 0..2 {
            m.visit_counts(asid, false, |va, c| counts.push((va, c.to_vec())));
        }
        let mut samples = Vec::new();
        let dropped = m.drain_samples(&mut samples).unwrap();
        let mut bits = Vec::new();
        for asid in 0..2 {
            for p in (0..8u64 << 20).step_by(4096 * 7) {
                let a = m.accessed(Asid(asid), BASE + p, Level::Pte, false);
                let d = m.dirty(Asid(asid), BASE + p, false);
                bits.push((a.ok(), d.ok()));
            }
        }
        format!(
            "{:?} {} {} {:?} {:?} {:?} {:?} {dropped} {:?}",
            m.stats(),
            m.time_ns(),
            m.ideal_time_ns(),
            m.app_counters(),
            m.counters,
            counts,
            samples,
            bits
        )
    }

    /// Runs of up to 8 accesses to nearby lines of one of a few pages, some
    /// of them stores, so that translations repeat within and across runs.
    fn batch() -> impl Strategy<Value = Vec<Access>> {
        let run = (0u16..2, 0u16..2, 0u64..48, 0u64..56, 1usize..9, any::<u8>());
        proptest::collection::vec(run, 0..60).prop_map(|runs| {
            let mut out = Vec::new();
            for (asid, core, page, line, len, stores) in runs {
                for i in 0..len {
                    out.push(Access {
                        va: BASE + page * (170 << 10) + (line + i as u64) * 64,
                        asid,
                        core,
                        write: stores >> i & 1 == 1 && stores % 3 == 0,
                    });
                }
            }
            out
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// A batch simulates exactly what the same accesses one by one do.
        #[test]
        fn batches_match_single_accesses(
            batches in proptest::collection::vec(batch(), 1..6),
            llc in any::<bool>(),
            sampling in any::<bool>(),
            poison in any::<bool>(),
        ) {
            let mut one = machine(llc, 2);
            let mut many = machine(llc, 2);
            for m in [&mut one, &mut many] {
                if sampling {
                    m.set_sampling(Some(thermocline_backend::SamplingConfig {
                        event: SampleEvent::LlcMissAll,
                        period: 7,
                        buffer: 100,
                    }))
                    .unwrap();
                }
            }
            for (i, batch) in batches.iter().enumerate() {
                for a in batch {
                    one.access(*a);
                }
                one.settle();
                many.access_batch(batch);
                many.settle();
                if poison && i == 0 {
                    for m in [&mut one, &mut many] {
                        let _ = m.set_poison(Asid(0), BASE, true);
                        let _ = m.migrate(Asid(1), &[BASE], TierId(0));
                    }
                }
                prop_assert_eq!(observe(&mut one), observe(&mut many));
            }
        }

        /// The translation path specialised for the usual TLB geometry
        /// simulates exactly what the generic one does: stores through
        /// clean entries, poisoned pages, pages moved to the slow tier, and
        /// 2 MiB pages (which turn the specialised path off) included.
        #[test]
        fn specialised_translation_matches_generic(
            batches in proptest::collection::vec(batch(), 1..6),
            thp in any::<bool>(),
            poison in any::<bool>(),
        ) {
            let mut generic = machine(false, 2);
            let mut fast = machine(false, 2);
            generic.generic_only = true;
            for m in [&mut generic, &mut fast] {
                if !thp {
                    m.regions[1].thp = false;
                }
            }
            for (i, batch) in batches.iter().enumerate() {
                generic.access_batch(batch);
                generic.settle();
                fast.access_batch(batch);
                fast.settle();
                if poison && i % 2 == 0 {
                    for m in [&mut generic, &mut fast] {
                        let p = BASE + (i as u64) * (170 << 10);
                        let _ = m.set_poison(Asid(0), p, true);
                        let _ = m.migrate(Asid(0), &[p + (340 << 10)], TierId(1));
                        let _ = m.migrate(Asid(1), &[BASE], TierId(0));
                    }
                }
                prop_assert_eq!(observe(&mut generic), observe(&mut fast));
            }
        }
    }
}
