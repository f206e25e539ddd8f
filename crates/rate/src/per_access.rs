//! What one access costs and produces, in expectation, under the current
//! phase and placement: recomputed when either changes, then charged per
//! step of the clock.

use crate::index::{Mass, PhaseIndex};
use crate::placement::Placement;
use crate::poison::Poison;
use crate::sampler::Sampler;
use thermocline_model::{epoch_time, EpochEvents, MachineConfig};

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
    ) -> Self {
        let tiers = cfg.tiers.len();
        let mut per = PerAccess {
            reads: vec![0.0; tiers],
            writes: vec![0.0; tiers],
            tier_faults: vec![0.0; tiers],
            ..PerAccess::default()
        };
        let Some(ix) = ix else {
            return per;
        };
        let llc = cfg.llc.bytes > 0;
        for (asid, start, run) in placement.runs() {
            let m = |k| ix.mass(asid, start, run.end, k);
            let all = m(Mass::All);
            if all <= 0.0 {
                continue;
            }
            let (w, walks, miss) = (m(Mass::Writes), m(Mass::Walks), m(Mass::LlcMisses));
            for (t, s) in placement.shares(run.home).into_iter().enumerate() {
                if s == 0.0 {
                    continue;
                }
                if llc {
                    per.reads[t] += s * miss;
                    per.writes[t] += s * miss * (w / all);
                } else {
                    per.reads[t] += s * (all - w);
                    per.writes[t] += s * w;
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
            migration_writes: vec![0.0; tiers],
            tier_faults: per.tier_faults.clone(),
            all_core_stall_ns: 0.0,
            // No memory system on the rate machine (refused at construction).
            ..Default::default()
        };
        let (ns, ideal) = epoch_time(cfg, &events);
        per.ns = ns.max(1e-3);
        per.ideal_ns = ideal.max(1e-3);
        per
    }
}
