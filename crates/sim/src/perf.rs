//! The exact machine's event counting: what one epoch (a batch of accesses
//! between two calls of `settle`) counted, turned into time by the shared
//! performance model ([`thermocline_model::perf`]).

use thermocline_model::perf::{
    epoch_time_by_thread_split, epoch_time_split, fault_ns, EpochEvents, ThreadStalls, TimeParts,
};
use thermocline_model::MachineConfig;

/// The two clocks, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clock {
    /// Time under the actual placement.
    pub now_ns: f64,
    /// Time with every page in the fast tier and no manager.
    pub ideal_ns: f64,
    /// Where `now_ns` went.
    pub parts: TimeParts,
}

/// Events counted since the last settle.
#[derive(Clone, Debug)]
pub struct Epoch {
    pub(crate) accesses: u64,
    pub(crate) stlb_hits: u64,
    pub(crate) walk_entries: u64,
    pub(crate) llc_hits: u64,
    pub(crate) first_touch_faults: u64,
    pub(crate) poison_faults: u64,
    pub(crate) samples: u64,
    pub(crate) reads: Vec<u64>,
    pub(crate) writes: Vec<u64>,
    /// Lines written back (posted writes: bandwidth, no latency).
    pub(crate) writebacks: Vec<u64>,
    pub(crate) migration_reads: Vec<u64>,
    pub(crate) migration_writes: Vec<u64>,
    pub(crate) tier_faults: Vec<u64>,
    /// Stall of every core at once (TLB shootdown interrupts), ns.
    pub(crate) all_core_stall_ns: f64,
    /// With a memory system: per tier, the row-buffer latency of served
    /// reads (ns); empty without one.
    pub(crate) row_stall_ns: Vec<f64>,
    /// The same outcomes at the fast tier's timings.
    pub(crate) row_stall_ideal_ns: f64,
    /// Service time of the busiest bank, actual and at fast timings.
    pub(crate) bank_busy_ns: f64,
    pub(crate) bank_busy_ideal_ns: f64,
    /// Poison faults by the core that took them (grown on demand).
    core_poison: Vec<u64>,
    /// Tier faults by core, `tiers` per core (grown on demand).
    core_tier: Vec<u64>,
    /// Each core's fault time since the start, for multi-threaded runs.
    stalls: ThreadStalls,
    /// Scratch: each core's fault time this epoch.
    by_core: Vec<f64>,
    /// The events as reals, rebuilt in place at each settle.
    events: EpochEvents,
}

impl Epoch {
    pub(crate) fn new(tiers: usize) -> Self {
        Epoch {
            accesses: 0,
            stlb_hits: 0,
            walk_entries: 0,
            llc_hits: 0,
            first_touch_faults: 0,
            poison_faults: 0,
            samples: 0,
            reads: vec![0; tiers],
            writes: vec![0; tiers],
            writebacks: vec![0; tiers],
            migration_reads: vec![0; tiers],
            migration_writes: vec![0; tiers],
            tier_faults: vec![0; tiers],
            all_core_stall_ns: 0.0,
            row_stall_ns: Vec::new(),
            row_stall_ideal_ns: 0.0,
            bank_busy_ns: 0.0,
            bank_busy_ideal_ns: 0.0,
            core_poison: Vec::new(),
            core_tier: Vec::new(),
            stalls: ThreadStalls::default(),
            by_core: Vec::new(),
            events: EpochEvents::default(),
        }
    }

    /// A poison fault taken by `core` (charged once even where the tier
    /// faults too: see the machine's walk).
    #[inline]
    pub(crate) fn poison_fault(&mut self, core: u16) {
        self.poison_faults += 1;
        let c = core as usize;
        if self.core_poison.len() <= c {
            self.core_poison.resize(c + 1, 0);
        }
        self.core_poison[c] += 1;
    }

    /// A fault on an access by `core` to a page of `tier`, a tier that
    /// faults on access.
    #[inline]
    pub(crate) fn tier_fault(&mut self, core: u16, tier: usize) {
        let tiers = self.tier_faults.len();
        self.tier_faults[tier] += 1;
        let at = core as usize * tiers + tier;
        if self.core_tier.len() <= at {
            self.core_tier.resize((core as usize + 1) * tiers, 0);
        }
        self.core_tier[at] += 1;
    }

    /// Zeroes every count, keeping the buffers.
    fn reset(&mut self) {
        self.accesses = 0;
        self.stlb_hits = 0;
        self.walk_entries = 0;
        self.llc_hits = 0;
        self.first_touch_faults = 0;
        self.poison_faults = 0;
        self.samples = 0;
        for v in [
            &mut self.reads,
            &mut self.writes,
            &mut self.writebacks,
            &mut self.migration_reads,
            &mut self.migration_writes,
            &mut self.tier_faults,
        ] {
            v.fill(0);
        }
        self.all_core_stall_ns = 0.0;
        self.row_stall_ns.fill(0.0);
        self.row_stall_ideal_ns = 0.0;
        self.bank_busy_ns = 0.0;
        self.bank_busy_ideal_ns = 0.0;
        self.core_poison.fill(0);
        self.core_tier.fill(0);
    }

    /// Converts the epoch's events into time on both clocks, then resets.
    pub(crate) fn settle(&mut self, cfg: &MachineConfig, clock: &mut Clock) {
        let f = |out: &mut Vec<f64>, v: &[u64]| {
            out.clear();
            out.extend(v.iter().map(|&x| x as f64));
        };
        let events = &mut self.events;
        events.accesses = self.accesses as f64;
        events.stlb_hits = self.stlb_hits as f64;
        events.walk_entries = self.walk_entries as f64;
        events.llc_hits = self.llc_hits as f64;
        events.first_touch_faults = self.first_touch_faults as f64;
        events.poison_faults = self.poison_faults as f64;
        events.samples = self.samples as f64;
        f(&mut events.reads, &self.reads);
        f(&mut events.writes, &self.writes);
        f(&mut events.writebacks, &self.writebacks);
        f(&mut events.migration_reads, &self.migration_reads);
        f(&mut events.migration_writes, &self.migration_writes);
        f(&mut events.tier_faults, &self.tier_faults);
        events.all_core_stall_ns = self.all_core_stall_ns;
        events.row_stall_ns.clear();
        events.row_stall_ns.extend_from_slice(&self.row_stall_ns);
        events.row_stall_ideal_ns = self.row_stall_ideal_ns;
        events.bank_busy_ns = self.bank_busy_ns;
        events.bank_busy_ideal_ns = self.bank_busy_ideal_ns;
        // One thread: every fault is on it, and the model's even spread is
        // exact (and the arithmetic the same as it always was).
        let t = if cfg.perf.threads > 1 {
            let tiers = self.tier_faults.len();
            self.by_core.clear();
            for c in 0..cfg.perf.threads {
                let poison = self.core_poison.get(c).copied().unwrap_or(0) as f64;
                let tier = (0..tiers).map(|t| {
                    let n = self.core_tier.get(c * tiers + t).copied().unwrap_or(0);
                    n as f64
                });
                self.by_core.push(fault_ns(cfg, poison, tier));
            }
            epoch_time_by_thread_split(cfg, events, &self.by_core, &mut self.stalls)
        } else {
            epoch_time_split(cfg, events)
        };
        clock.now_ns += t.now_ns;
        clock.ideal_ns += t.ideal_ns;
        clock.parts.add(&t.parts);
        self.reset();
    }
}
