//! What the machine counts for reports and counters: expected event counts
//! (kept as reals, rounded when read), line traffic per tier (the
//! application's and all of it), migrations, shootdowns and the manager's
//! CPU time.

use crate::per_access::PerAccess;
use thermocline_backend::TierCounters;
use thermocline_model::{MachineStats, TimeParts};

/// Line reads and writes of one tier, expected.
#[derive(Clone, Copy, Debug, Default)]
struct Lines {
    reads: f64,
    writes: f64,
}

impl Lines {
    fn rounded(self) -> TierCounters {
        TierCounters {
            reads: self.reads.round() as u64,
            writes: self.writes.round() as u64,
        }
    }
}

/// Expected counts, kept as reals and rounded for reports.
#[derive(Clone, Debug, Default)]
struct Stats {
    accesses: f64,
    l1_tlb_misses: f64,
    walks: f64,
    walk_entries: f64,
    llc_misses: f64,
    poison_faults: f64,
    tier_faults: f64,
    /// Page-ins' time (ns), over every thread.
    pagein_ns: f64,
    promoted_pages: u64,
    demoted_pages: u64,
    migrated_bytes: u64,
    shootdowns: u64,
    samples: u64,
}

/// The machine's counters.
pub(crate) struct Accounting {
    /// Line traffic per tier: the application's and migrations'.
    counters: Vec<Lines>,
    /// Line traffic per tier: the application's alone.
    app_counters: Vec<Lines>,
    stats: Stats,
    /// Manager CPU time charged (ns).
    manager_ns: f64,
    /// All-core stall charged by shootdowns (ns).
    stall_ns: f64,
    /// The accesses' time by part (ns): compute, memory, sampling.
    parts: TimeParts,
    /// Of `manager_ns`, the migrations' copying (ns).
    migration_cpu_ns: f64,
    /// Of `stall_ns`, the migrations' shootdowns (ns).
    migration_stall_ns: f64,
}

impl Accounting {
    /// Nothing counted, over `tiers` tiers.
    pub fn new(tiers: usize) -> Self {
        Accounting {
            counters: vec![Lines::default(); tiers],
            app_counters: vec![Lines::default(); tiers],
            stats: Stats::default(),
            manager_ns: 0.0,
            stall_ns: 0.0,
            parts: TimeParts::default(),
            migration_cpu_ns: 0.0,
            migration_stall_ns: 0.0,
        }
    }

    /// Counts `step` accesses at the expectations `p`.
    pub fn accesses(&mut self, step: f64, p: &PerAccess) {
        for t in 0..p.reads.len() {
            // Stores and the LLC's write-backs are the application's
            // writes; in Memory Mode the cache's fills are its own
            // traffic, and its write-backs reach the slow tier as the
            // application's writes.
            let writes = p.writes[t] + p.writebacks[t] + p.cache_writebacks[t];
            self.app_counters[t].reads += step * p.reads[t];
            self.app_counters[t].writes += step * writes;
            self.counters[t].reads += step * p.reads[t];
            self.counters[t].writes += step * (writes + p.fills[t]);
            self.stats.tier_faults += step * p.tier_faults[t];
        }
        let s = &mut self.stats;
        s.pagein_ns += step * p.pagein_ns;
        s.accesses += step;
        s.l1_tlb_misses += step * p.l1_misses;
        s.walks += step * p.walks;
        s.walk_entries += step * p.walk_entries;
        s.llc_misses += step * p.llc_misses;
        s.poison_faults += step * p.poison_faults;
        self.parts.compute_ns += step * p.parts.compute_ns;
        self.parts.memory_ns += step * p.parts.memory_ns;
        self.parts.sampling_ns += step * p.parts.sampling_ns;
    }

    /// Notes that of the manager time and stall charged, `cpu_ns` and
    /// `stall_ns` were a migration's.
    pub fn migration_costs(&mut self, cpu_ns: f64, stall_ns: f64) {
        self.migration_cpu_ns += cpu_ns;
        self.migration_stall_ns += stall_ns;
    }

    /// The migrations' manager time and all-core stall (ns).
    pub fn migration_costs_ns(&self) -> (f64, f64) {
        (self.migration_cpu_ns, self.migration_stall_ns)
    }

    /// Where the simulated time went (ns): the accesses' parts, and every
    /// shootdown's stall.
    pub fn time_parts(&self) -> TimeParts {
        TimeParts {
            shootdown_ns: self.stall_ns,
            ..self.parts
        }
    }

    /// Counts `n` samples taken.
    pub fn samples(&mut self, n: u64) {
        self.stats.samples += n;
    }

    /// Counts `lines` copied from tier `from` to tier `to`.
    pub fn copied(&mut self, from: usize, to: usize, lines: f64) {
        self.counters[from].reads += lines;
        self.counters[to].writes += lines;
    }

    /// Counts `pages` moved from tier `from` to tier `to` (a promotion if
    /// `to` is faster).
    pub fn moved(&mut self, from: usize, to: usize, pages: u64) {
        if to < from {
            self.stats.promoted_pages += pages;
        } else {
            self.stats.demoted_pages += pages;
        }
    }

    /// Counts `bytes` migrated.
    pub fn migrated_bytes(&mut self, bytes: u64) {
        self.stats.migrated_bytes += bytes;
    }

    /// Counts a TLB shootdown that stalled every core for `stall_ns`.
    pub fn shootdown(&mut self, stall_ns: f64) {
        self.stats.shootdowns += 1;
        self.stall_ns += stall_ns;
    }

    /// All-core stall charged by shootdowns (ns).
    pub fn stall_ns(&self) -> f64 {
        self.stall_ns
    }

    /// The time (ns, over every thread) the workload has spent on
    /// page-ins from tiers that fault on access, expected.
    pub fn pagein_ns(&self) -> f64 {
        self.stats.pagein_ns
    }

    /// Charges the manager `ns` of CPU time.
    pub fn charge_manager(&mut self, ns: f64) {
        self.manager_ns += ns;
    }

    /// Manager CPU time charged (ns).
    pub fn manager_ns(&self) -> f64 {
        self.manager_ns
    }

    /// LLC misses, rounded.
    pub fn llc_misses(&self) -> u64 {
        self.stats.llc_misses.round() as u64
    }

    /// Line traffic of tier `t`, rounded.
    pub fn tier_counters(&self, t: usize) -> TierCounters {
        self.counters[t].rounded()
    }

    /// The application's line traffic per tier, rounded.
    pub fn app_counters(&self) -> Vec<TierCounters> {
        self.app_counters.iter().map(|c| c.rounded()).collect()
    }

    /// Counts for reports (expected counts, rounded).
    pub fn stats(&self) -> MachineStats {
        let s = &self.stats;
        MachineStats {
            accesses: s.accesses.round() as u64,
            l1_tlb_misses: s.l1_tlb_misses.round() as u64,
            walks: s.walks.round() as u64,
            walk_entries: s.walk_entries.round() as u64,
            llc_misses: s.llc_misses.round() as u64,
            first_touch_faults: 0,
            poison_faults: s.poison_faults.round() as u64,
            tier_faults: s.tier_faults.round() as u64,
            tier_fault_promotions: 0,
            promoted_pages: s.promoted_pages,
            demoted_pages: s.demoted_pages,
            migrated_bytes: s.migrated_bytes,
            shootdowns: s.shootdowns,
            samples: s.samples,
        }
    }
}
