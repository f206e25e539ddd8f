//! The performance model: how counted events become simulated time.
//!
//! Per epoch (a batch of accesses between two calls of `settle`), the
//! latency-bound time is
//!
//! ```text
//! T_lat = (n * compute + STLB hits * stlb_hit + walk entries * walk_level
//!          + sum over tiers (reads * read_ns + writes * write_ns) / mlp
//!          + faults * their cost) / threads  +  shootdown stalls
//! ```
//!
//! and the bandwidth-bound time is, for the busiest tier,
//! `bytes read / read bandwidth + bytes written / write bandwidth`, counting
//! migration copies too. The epoch lasts `max(T_lat, T_bw)`: below saturation
//! throughput is latency-bound, at saturation every thread waits for the tier.
//! With `saturation_exponent = n` it lasts `(T_lat^n + T_bw^n)^(1/n)` instead,
//! a rounded knee (queueing delay grows before the tier is saturated).
//!
//! The *ideal* clock runs the same formula with every access served by the
//! fast tier and without manager-induced costs (migrations, shootdowns, poison
//! and tier faults, samples). It shares the TLB outcomes of the real run, so a
//! manager that keeps everything in the fast tier and does nothing has a
//! slowdown of exactly zero. `slowdown = T_actual / T_ideal - 1`.

use crate::config::MachineConfig;

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
        let perf = &cfg.perf;
        let costs = &cfg.costs;
        let threads = perf.threads as f64;
        let core_time = self.accesses as f64 * perf.compute_ns
            + self.stlb_hits as f64 * cfg.tlb.stlb_hit_ns
            + self.walk_entries as f64 * cfg.tlb.walk_level_ns
            + self.llc_hits as f64 * cfg.llc.hit_ns
            + self.first_touch_faults as f64 * costs.first_touch_fault_ns;
        let mut stall = 0.0;
        let mut bw = 0.0f64;
        let mut faults = self.poison_faults as f64 * costs.poison_fault_ns
            + self.samples as f64 * costs.sample_ns;
        let (mut all_reads, mut all_writes) = (0u64, 0u64);
        for (t, spec) in cfg.tiers.iter().enumerate() {
            stall += self.reads[t] as f64 * spec.read_ns + self.writes[t] as f64 * spec.write_ns;
            all_reads += self.reads[t];
            all_writes += self.writes[t];
            bw = bw.max(bandwidth_ns(
                spec,
                self.reads[t] + self.migration_reads[t],
                self.writes[t] + self.migration_writes[t],
            ));
            faults += self.tier_faults[t] as f64 * spec.fault_on_access_ns.unwrap_or(0.0);
        }
        let fast = &cfg.tiers[0];
        let stall_ideal = all_reads as f64 * fast.read_ns + all_writes as f64 * fast.write_ns;
        let lat = (core_time + stall / perf.mlp + faults) / threads + self.all_core_stall_ns;
        let lat_ideal = (core_time + stall_ideal / perf.mlp) / threads;
        let bw_ideal = 0.0f64.max(bandwidth_ns(fast, all_reads, all_writes));
        let combine = |lat: f64, bw: f64| match perf.saturation_exponent {
            Some(n) if lat > 0.0 || bw > 0.0 => (lat.powf(n) + bw.powf(n)).powf(1.0 / n),
            _ => lat.max(bw),
        };
        clock.now_ns += combine(lat, bw);
        clock.ideal_ns += combine(lat_ideal, bw_ideal);
        self.reset();
    }
}

/// Time (ns) a tier needs to move `reads` and `writes` lines at full bandwidth.
fn bandwidth_ns(spec: &crate::tiers::TierSpec, reads: u64, writes: u64) -> f64 {
    (reads * 64) as f64 / spec.read_gbps + (writes * 64) as f64 / spec.write_gbps
}
