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
use crate::tiers::TierSpec;

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
fn bandwidth_ns(spec: &TierSpec, reads: f64, writes: f64) -> f64 {
    reads * 64.0 / spec.read_gbps + writes * 64.0 / spec.write_gbps
}
