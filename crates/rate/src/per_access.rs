//! What one access costs and produces, in expectation, under the current
//! phase and placement: recomputed when either changes, then charged per
//! step of the clock.

use crate::dram_cache::{self, LineGroup};
use crate::index::{Mass, PhaseIndex};
use crate::placement::Placement;
use crate::poison::Poison;
use crate::sampler::Sampler;
use thermocline_model::{epoch_time_split, EpochEvents, MachineConfig, TimeParts};

/// Expected time and events per access.
#[derive(Clone, Debug, Default)]
pub(crate) struct PerAccess {
    /// Simulated time (ns).
    pub ns: f64,
    /// Time (ns) with every page in the fast tier.
    pub ideal_ns: f64,
    /// Line reads by tier.
    pub reads: Vec<f64>,
    /// Line writes the core waits for (stores without an LLC), by tier.
    pub writes: Vec<f64>,
    /// Lines the LLC writes back (posted writes), by tier: in Memory Mode a
    /// slow-tier page's land in the DRAM cache, the fast tier's.
    pub writebacks: Vec<f64>,
    /// Tier faults by tier.
    pub tier_faults: Vec<f64>,
    /// Time (ns, over every thread) of the tier faults that are page-ins:
    /// faults of tiers that do not keep the page (compressed, swap), the
    /// simulated PSI memory stall.
    pub pagein_ns: f64,
    /// L1 dTLB misses.
    pub l1_misses: f64,
    /// Page walks (STLB misses).
    pub walks: f64,
    /// Page-table entries read by walks.
    pub walk_entries: f64,
    /// LLC misses.
    pub llc_misses: f64,
    /// Poison faults.
    pub poison_faults: f64,
    /// Samples.
    pub samples: f64,
    /// Where `ns` goes: compute, memory, monitoring faults and samples.
    pub parts: TimeParts,
    /// Line fills of the Memory Mode cache, by tier (the fast tier's).
    pub fills: Vec<f64>,
    /// Dirty lines the Memory Mode cache wrote back, by tier.
    pub cache_writebacks: Vec<f64>,
}

impl PerAccess {
    /// The expectations in the phase of `ix` (none: past the workload's end)
    /// under `placement`, with the machine's poisoned pages and sampling.
    pub fn compute(
        cfg: &MachineConfig,
        ix: Option<&PhaseIndex>,
        placement: &Placement,
        poison: &Poison,
        sampler: &Sampler,
        memory_mode: bool,
    ) -> Self {
        let tiers = cfg.tiers.len();
        let mut per = PerAccess {
            reads: vec![0.0; tiers],
            writes: vec![0.0; tiers],
            tier_faults: vec![0.0; tiers],
            writebacks: vec![0.0; tiers],
            fills: vec![0.0; tiers],
            cache_writebacks: vec![0.0; tiers],
            ..PerAccess::default()
        };
        let Some(ix) = ix else {
            return per;
        };
        let llc = cfg.llc.bytes > 0;
        let cache = memory_mode.then(|| MemoryModeCache::new(cfg, ix, placement, llc));
        for (asid, start, run) in placement.runs() {
            let Some(mem) = Memory::of(ix, asid, start, run.end, llc) else {
                continue;
            };
            let walks = ix.mass(asid, start, run.end, Mass::Walks);
            for (t, s) in placement.shares(run.home).into_iter().enumerate() {
                if s == 0.0 {
                    continue;
                }
                match &cache {
                    Some(c) if t != 0 => {
                        // Through the DRAM cache, which reads, stores and
                        // write-backs all access: hits are the fast tier's;
                        // a read or store that misses reads the line from
                        // the slow tier and fills it; a write-back lands in
                        // DRAM either way (a miss allocates the line: the
                        // whole line is written); a dirty victim is written
                        // back to the slow tier.
                        let lines = (run.end - start) as f64 / 64.0;
                        let into = mem.cache_accesses();
                        let h = c.hit(into / lines);
                        let wb = c.writebacks(into / lines, mem.cache_writes() / into);
                        let filled = mem.reads + mem.stores;
                        per.reads[0] += s * mem.reads * h;
                        per.writes[0] += s * mem.stores * h;
                        per.writebacks[0] += s * mem.writebacks;
                        per.reads[t] += s * filled * (1.0 - h);
                        per.fills[0] += s * filled * (1.0 - h);
                        per.cache_writebacks[t] += s * into * wb;
                    }
                    _ => {
                        per.reads[t] += s * mem.reads;
                        per.writes[t] += s * mem.stores;
                        per.writebacks[t] += s * mem.writebacks;
                    }
                }
                if let Some(cost) = cfg.tiers[t].fault_on_access_ns {
                    per.tier_faults[t] += s * walks;
                    if !cfg.tiers[t].keep_on_fault {
                        per.pagein_ns += s * walks * cost;
                    }
                }
            }
        }
        per.walk_entries = ix.total(Mass::WalkEntries);
        per.l1_misses = ix.total(Mass::L1Misses);
        per.walks = ix.total(Mass::Walks);
        per.llc_misses = ix.total(Mass::LlcMisses);
        for page in poison.poisoned() {
            per.poison_faults += ix.mass(page.asid, page.start, page.end, Mass::Walks);
        }
        per.samples = sampler.per_access(ix);
        let events = EpochEvents {
            accesses: 1.0,
            stlb_hits: (per.l1_misses - per.walks).max(0.0),
            walk_entries: per.walk_entries,
            llc_hits: if llc { 1.0 - per.llc_misses } else { 0.0 },
            first_touch_faults: 0.0,
            poison_faults: per.poison_faults,
            samples: per.samples,
            reads: per.reads.clone(),
            writes: per.writes.clone(),
            writebacks: per.writebacks.clone(),
            migration_reads: vec![0.0; tiers],
            // Memory Mode's fills and write-backs: the cache's own traffic,
            // bandwidth and not latency, and none on the ideal clock.
            migration_writes: per
                .fills
                .iter()
                .zip(&per.cache_writebacks)
                .map(|(f, w)| f + w)
                .collect(),
            tier_faults: per.tier_faults.clone(),
            all_core_stall_ns: 0.0,
            // No memory system on the rate machine (refused at construction).
            ..Default::default()
        };
        let t = epoch_time_split(cfg, &events);
        per.ns = t.now_ns.max(1e-3);
        per.ideal_ns = t.ideal_ns.max(1e-3);
        per.parts = t.parts;
        per
    }
}

/// What a run of pages sends to memory per access of the workload, in
/// expectation, as the exact machine counts it.
struct Memory {
    /// Line reads: every access without an LLC that is not a store; with
    /// one, every LLC miss (a store's is a read for ownership).
    reads: f64,
    /// Stores that are memory accesses themselves (no LLC).
    stores: f64,
    /// Dirty lines the LLC evicts (with an LLC).
    writebacks: f64,
}

impl Memory {
    /// The run `[start, end)` of address space `asid` in the phase of `ix`;
    /// `None` if nothing accesses it.
    ///
    /// With an LLC, a line's residency is a run of accesses that ends at
    /// its eviction, each access after the first a hit, and it is written
    /// back if one of them was a store: per miss, with probability
    /// [`dram_cache::dirty_on_eviction`] at the run's LLC hit ratio and
    /// write fraction (the same geometric residency as the DRAM cache's,
    /// which Che's approximation gives an LRU cache under the independent
    /// reference model). Taken at the run's mean hit ratio rather than
    /// line by line.
    fn of(ix: &PhaseIndex, asid: u16, start: u64, end: u64, llc: bool) -> Option<Self> {
        let m = |k| ix.mass(asid, start, end, k);
        let all = m(Mass::All);
        if all <= 0.0 {
            return None;
        }
        let w = m(Mass::Writes);
        Some(if llc {
            let miss = m(Mass::LlcMisses);
            let h = (1.0 - miss / all).clamp(0.0, 1.0);
            Memory {
                reads: miss,
                stores: 0.0,
                writebacks: miss * dram_cache::dirty_on_eviction(h, w / all),
            }
        } else {
            Memory {
                reads: all - w,
                stores: w,
                writebacks: 0.0,
            }
        })
    }

    /// Accesses to a Memory Mode DRAM cache: reads, stores and write-backs.
    fn cache_accesses(&self) -> f64 {
        self.reads + self.stores + self.writebacks
    }

    /// Of those, the ones that write the line.
    fn cache_writes(&self) -> f64 {
        self.stores + self.writebacks
    }
}

/// The DRAM cache of Memory Mode over the current phase: the slow tiers'
/// lines grouped by rate ([`dram_cache`]).
struct MemoryModeCache {
    groups: Vec<LineGroup>,
    sets: f64,
}

impl MemoryModeCache {
    fn new(cfg: &MachineConfig, ix: &PhaseIndex, placement: &Placement, llc: bool) -> Self {
        let mut groups: Vec<LineGroup> = Vec::new();
        for (asid, start, run) in placement.runs() {
            let Some(mem) = Memory::of(ix, asid, start, run.end, llc) else {
                continue;
            };
            let into = mem.cache_accesses();
            let lines = (run.end - start) as f64 / 64.0;
            let slow: f64 = placement.shares(run.home).iter().skip(1).sum();
            if into > 0.0 && slow > 0.0 {
                groups.push(LineGroup {
                    lines: slow * lines,
                    p: into / lines,
                });
            }
        }
        // Lines of one rate are one group: fewer terms per integral.
        groups.sort_by(|a, b| a.p.total_cmp(&b.p));
        groups.dedup_by(|b, a| {
            let same = (a.p - b.p).abs() <= 1e-12 * a.p.abs();
            if same {
                a.lines += b.lines;
            }
            same
        });
        MemoryModeCache {
            groups,
            sets: cfg.tiers[0].capacity_bytes as f64 / 64.0,
        }
    }

    /// The hit probability of a line of rate `p`.
    fn hit(&self, p: f64) -> f64 {
        dram_cache::hit_probability(p, &self.groups, self.sets)
    }

    /// Write-backs per access to a line of rate `p`, write fraction `w`.
    fn writebacks(&self, p: f64, w: f64) -> f64 {
        dram_cache::writebacks_per_access(p, w, &self.groups, self.sets)
    }
}
