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
            migration_reads: vec![0; tiers],
            migration_writes: vec![0; tiers],
            tier_faults: vec![0; tiers],
            all_core_stall_ns: 0.0,
            events: EpochEvents::default(),
        }
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
            &mut self.migration_reads,
            &mut self.migration_writes,
            &mut self.tier_faults,
        ] {
            v.fill(0);
        }
        self.all_core_stall_ns = 0.0;
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
        f(&mut events.migration_reads, &self.migration_reads);
        f(&mut events.migration_writes, &self.migration_writes);
        f(&mut events.tier_faults, &self.tier_faults);
        events.all_core_stall_ns = self.all_core_stall_ns;
        let (now, ideal) = epoch_time(cfg, events);
        clock.now_ns += now;
        clock.ideal_ns += ideal;
        self.reset();
    }
}

/// Events of an epoch as (possibly fractional) counts: what the exact
/// machine counted, or what the rate-driven machine expects.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpochEvents {
    /// Workload accesses.
    pub accesses: f64,
    /// L1 dTLB misses that hit the STLB.
    pub stlb_hits: f64,
    /// Page-table entries read by hardware walks.
    pub walk_entries: f64,
    /// LLC hits.
    pub llc_hits: f64,
    /// First-touch faults.
    pub first_touch_faults: f64,
    /// Poison faults.
    pub poison_faults: f64,
    /// PEBS-like samples.
    pub samples: f64,
    /// Application line reads per tier.
    pub reads: Vec<f64>,
    /// Application line writes per tier.
    pub writes: Vec<f64>,
    /// Migration (and cache-fill) line reads per tier.
    pub migration_reads: Vec<f64>,
    /// Migration (and cache-fill) line writes per tier.
    pub migration_writes: Vec<f64>,
    /// Faults on TLB misses to pages of faulting tiers, per tier.
    pub tier_faults: Vec<f64>,
    /// Stall of every core at once (ns).
    pub all_core_stall_ns: f64,
}

/// The time (actual, ideal) in ns that `e` takes on a machine `cfg`: the
/// model in this module's documentation. Both results scale linearly with
/// the counts, which the rate-driven machine relies on.
pub fn epoch_time(cfg: &MachineConfig, e: &EpochEvents) -> (f64, f64) {
    let perf = &cfg.perf;
    let costs = &cfg.costs;
    let threads = perf.threads as f64;
    let core_time = e.accesses * perf.compute_ns
        + e.stlb_hits * cfg.tlb.stlb_hit_ns
        + e.walk_entries * cfg.tlb.walk_level_ns
        + e.llc_hits * cfg.llc.hit_ns
        + e.first_touch_faults * costs.first_touch_fault_ns;
    let mut stall = 0.0;
    let mut bw = 0.0f64;
    let mut faults = e.poison_faults * costs.poison_fault_ns + e.samples * costs.sample_ns;
    let (mut all_reads, mut all_writes) = (0.0, 0.0);
    let at = |v: &[f64], t: usize| v.get(t).copied().unwrap_or(0.0);
    for (t, spec) in cfg.tiers.iter().enumerate() {
        let (r, w) = (at(&e.reads, t), at(&e.writes, t));
        stall += r * spec.read_ns + w * spec.write_ns;
        all_reads += r;
        all_writes += w;
        bw = bw.max(bandwidth_ns(
            spec,
            r + at(&e.migration_reads, t),
            w + at(&e.migration_writes, t),
        ));
        faults += at(&e.tier_faults, t) * spec.fault_on_access_ns.unwrap_or(0.0);
    }
    let fast = &cfg.tiers[0];
    let stall_ideal = all_reads * fast.read_ns + all_writes * fast.write_ns;
    let lat = (core_time + stall / perf.mlp + faults) / threads + e.all_core_stall_ns;
    let lat_ideal = (core_time + stall_ideal / perf.mlp) / threads;
    let bw_ideal = 0.0f64.max(bandwidth_ns(fast, all_reads, all_writes));
    let combine = |lat: f64, bw: f64| match perf.saturation_exponent {
        Some(n) if lat > 0.0 || bw > 0.0 => (lat.powf(n) + bw.powf(n)).powf(1.0 / n),
        _ => lat.max(bw),
    };
    (combine(lat, bw), combine(lat_ideal, bw_ideal))
}

/// Time (ns) a tier needs to move `reads` and `writes` lines at full bandwidth.
fn bandwidth_ns(spec: &crate::tiers::TierSpec, reads: f64, writes: f64) -> f64 {
    reads * 64.0 / spec.read_gbps + writes * 64.0 / spec.write_gbps
}
