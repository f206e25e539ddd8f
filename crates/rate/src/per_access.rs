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
    /// Line writes by tier.
    pub writes: Vec<f64>,
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
    pub writebacks: Vec<f64>,
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
            fills: vec![0.0; tiers],
            writebacks: vec![0.0; tiers],
            ..PerAccess::default()
        };
        let Some(ix) = ix else {
            return per;
        };
        let llc = cfg.llc.bytes > 0;
        let cache = memory_mode.then(|| MemoryModeCache::new(cfg, ix, placement, llc));
        for (asid, start, run) in placement.runs() {
            let m = |k| ix.mass(asid, start, run.end, k);
            let all = m(Mass::All);
            if all <= 0.0 {
                continue;
            }
            let (w, walks, miss) = (m(Mass::Writes), m(Mass::Walks), m(Mass::LlcMisses));
            // What reaches memory: LLC misses (their stores written back
            // later), or every access without an LLC.
            let (memory, stores) = if llc {
                (miss, miss * (w / all))
            } else {
                (all, w)
            };
            for (t, s) in placement.shares(run.home).into_iter().enumerate() {
                if s == 0.0 {
                    continue;
                }
                match &cache {
                    Some(c) if t != 0 => {
                        // Through the DRAM cache: hits are the fast tier's;
                        // a miss reads the line (a store's too) and fills
                        // it, and a dirty victim is written back.
                        let lines = (run.end - start) as f64 / 64.0;
                        let h = c.hit(memory / lines);
                        let d = dram_cache::dirty_on_eviction(h, stores / memory);
                        per.reads[0] += s * (memory - stores) * h;
                        per.writes[0] += s * stores * h;
                        per.reads[t] += s * memory * (1.0 - h);
                        per.fills[0] += s * memory * (1.0 - h);
                        per.writebacks[t] += s * memory * (1.0 - h) * d;
                    }
                    _ => {
                        per.reads[t] += s * (memory - stores);
                        per.writes[t] += s * stores;
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
            migration_reads: vec![0.0; tiers],
            // Memory Mode's fills and writebacks: bandwidth, not latency.
            migration_writes: per
                .fills
                .iter()
                .zip(&per.writebacks)
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
            let kind = if llc { Mass::LlcMisses } else { Mass::All };
            let memory = ix.mass(asid, start, run.end, kind);
            let lines = (run.end - start) as f64 / 64.0;
            let slow: f64 = placement.shares(run.home).iter().skip(1).sum();
            if memory > 0.0 && slow > 0.0 {
                groups.push(LineGroup {
                    lines: slow * lines,
                    p: memory / lines,
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
}
