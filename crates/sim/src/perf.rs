//! The exact machine's event counting: what one epoch (a batch of accesses
//! between two calls of `settle`) counted, turned into time by the shared
//! performance model ([`thermocline_model::perf`]).

use thermocline_model::perf::{epoch_time, EpochEvents};
use thermocline_model::MachineConfig;

/// The two clocks, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clock {
    /// Time under the actual placement.
    pub now_ns: f64,
    /// Time with every page in the fast tier and no manager.
    pub ideal_ns: f64,
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
    pub(crate) migration_reads: Vec<u64>,
    pub(crate) migration_writes: Vec<u64>,
    pub(crate) tier_faults: Vec<u64>,
    /// Stall of every core at once (TLB shootdown interrupts), ns.
    pub(crate) all_core_stall_ns: f64,
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
            migration_reads: vec![0; tiers],
            migration_writes: vec![0; tiers],
            tier_faults: vec![0; tiers],
            all_core_stall_ns: 0.0,
        }
    }

    fn reset(&mut self) {
        let tiers = self.reads.len();
        *self = Epoch::new(tiers);
    }

    /// Converts the epoch's events into time on both clocks, then resets.
    pub(crate) fn settle(&mut self, cfg: &MachineConfig, clock: &mut Clock) {
        let f = |v: &[u64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
        let events = EpochEvents {
            accesses: self.accesses as f64,
            stlb_hits: self.stlb_hits as f64,
            walk_entries: self.walk_entries as f64,
            llc_hits: self.llc_hits as f64,
            first_touch_faults: self.first_touch_faults as f64,
            poison_faults: self.poison_faults as f64,
            samples: self.samples as f64,
            reads: f(&self.reads),
            writes: f(&self.writes),
            migration_reads: f(&self.migration_reads),
            migration_writes: f(&self.migration_writes),
            tier_faults: f(&self.tier_faults),
            all_core_stall_ns: self.all_core_stall_ns,
        };
        let (now, ideal) = epoch_time(cfg, &events);
        clock.now_ns += now;
        clock.ideal_ns += ideal;
        self.reset();
    }
}
