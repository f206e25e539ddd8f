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
//! migration copies, cache fills and write-backs too. The epoch lasts
//! `max(T_lat, T_bw)`: below saturation throughput is latency-bound, at
//! saturation every thread waits for the tier.
//!
//! **Write-backs** (`EpochEvents::writebacks`: dirty lines an LLC evicts,
//! and in Memory Mode what they do to the DRAM cache) are posted writes: the
//! core hands the line to the memory controller's write queue and goes on,
//! so a write-back adds no latency; it takes its 64 bytes of the tier's
//! write bandwidth, and delays the cores only when that bandwidth is the
//! bound (Optane's stores are "absorbed by the iMC's WPQ, but
//! bandwidth-limited", ../shared/reference/devices.md, after Izraelevitz et
//! al. 2019). `writes` are the stores that are themselves the memory access
//! (a machine without an LLC), which the core waits for.
//! With `saturation_exponent = n` it lasts `(T_lat^n + T_bw^n)^(1/n)` instead,
//! a rounded knee (queueing delay grows before the tier is saturated).
//!
//! **Threads.** A workload's accesses are shared out among its threads (one
//! per core), so the work above is divided by the thread count. A fault
//! (poison or tier fault) stalls only the thread that takes it, for its
//! whole cost; the other threads carry on with their own shares, and the
//! application's work is done when its slowest thread's share is. A machine
//! that knows which thread took each fault ([`epoch_time_by_thread`], the
//! exact machine with more than one thread) keeps each thread's fault time
//! since the start ([`ThreadStalls`]) and charges the epoch the growth of
//! the largest: faults spread evenly over T threads cost about 1/T of their
//! time each (every thread is slowed by its own), faults that all fall on
//! one thread cost all of it (that thread's share is late by all of it).
//! Without that knowledge ([`epoch_time`]: one thread, or the rate-driven
//! machine's expected counts, which spread evenly) faults count as spread
//! evenly: `faults / threads`. Shootdown stalls stop every core at once.
//! So a budget of slow accesses per second is the application's: how much
//! it slows the application depends on how its faults fall on its threads
//! (Thermostat's, ../shared/papers/000_5488ae48d80721cc.txt section 3.4,
//! is "A t_s" of time per second, which section 6 calls the accesses "that
//! can be done by a single thread for a 3% performance slowdown").
//!
//! **Memory system.** With `MachineConfig::memory` on, the exact machine's
//! memory controllers (`thermocline_sim::memctl`) add two terms, an
//! approximation of a cycle-level controller for a model whose time is
//! counted per epoch rather than per request: each application read's
//! latency is the tier's `read_ns` (taken as the latency of an access to a
//! precharged bank) minus t_RCD on a row-buffer hit or plus t_RP (+ t_WR
//! after a write to the open row) on a row conflict, as FR-FCFS served it
//! (`row_stall_ns`, divided by the MLP like every stall); and the busiest
//! bank's service time (`bank_busy_ns`: bursts, activates, precharges) is a
//! lower bound on the epoch, next to the tiers' bandwidth: bank-level
//! parallelism is perfect up to it, and hot pages crowded into one bank
//! make that bank the bottleneck. The ideal clock prices the same row-buffer
//! outcomes and bank loads at the fast tier's timings, so a run that keeps
//! every page in the fast tier still has a slowdown of zero.
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
    /// Application line writes per tier that the core waits for (stores
    /// that are memory accesses themselves: a machine without an LLC).
    pub writes: Vec<f64>,
    /// Application lines written back per tier: posted writes (dirty LLC
    /// victims, and in Memory Mode their writes into the DRAM cache), which
    /// cost the tier's write bandwidth and no latency.
    pub writebacks: Vec<f64>,
    /// Migration (and cache-fill) line reads per tier.
    pub migration_reads: Vec<f64>,
    /// Migration (and cache-fill) line writes per tier.
    pub migration_writes: Vec<f64>,
    /// Faults on TLB misses to pages of faulting tiers, per tier.
    pub tier_faults: Vec<f64>,
    /// Stall of every core at once (ns).
    pub all_core_stall_ns: f64,
    /// With a memory system (`MachineConfig::memory`): per tier, the latency
    /// the row buffers' state added to (or, on row hits, took from) the
    /// tier's application reads, ns in all (before dividing by the MLP).
    /// Empty without one.
    pub row_stall_ns: Vec<f64>,
    /// The same row-buffer outcomes priced at the fast tier's timings, for
    /// the ideal clock.
    pub row_stall_ideal_ns: f64,
    /// With a memory system: the service time of the busiest bank in the
    /// epoch (ns). Banks serve one request at a time, in parallel with each
    /// other, so the epoch lasts at least this long.
    pub bank_busy_ns: f64,
    /// The busiest bank's service time at the fast tier's timings.
    pub bank_busy_ideal_ns: f64,
}

/// The time (actual, ideal) in ns that `e` takes on a machine `cfg`: the
/// model in this module's documentation, with faults spread evenly over the
/// threads. Both results scale linearly with the counts, which the
/// rate-driven machine relies on.
pub fn epoch_time(cfg: &MachineConfig, e: &EpochEvents) -> (f64, f64) {
    let t = time(cfg, e, None);
    (t.now_ns, t.ideal_ns)
}

/// Where an epoch's actual time went (ns); the parts add up to it.
///
/// The latency side of the model is a sum, so each of its terms is
/// charged to its cause: the cores' work per access (`compute`), the
/// memory hierarchy (TLB hits, walks, LLC hits, first-touch faults, faults
/// of faulting tiers and the stall on the tiers' latency: `memory`),
/// monitoring faults and samples (`sampling`: poison faults, PEBS-like
/// samples) and stalls of every core (`shootdown`: TLB shootdowns, by
/// whichever operation issued them). When bandwidth makes the epoch longer
/// than its latency side, the difference is `memory` too.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeParts {
    /// Cores' own work per access.
    pub compute_ns: f64,
    /// The memory hierarchy's latency and bandwidth.
    pub memory_ns: f64,
    /// Monitoring faults and samples.
    pub sampling_ns: f64,
    /// Stalls of every core (shootdowns).
    pub shootdown_ns: f64,
}

impl TimeParts {
    /// The sum of the parts.
    pub fn total_ns(&self) -> f64 {
        self.compute_ns + self.memory_ns + self.sampling_ns + self.shootdown_ns
    }

    /// Adds `o`'s parts to these.
    pub fn add(&mut self, o: &TimeParts) {
        self.compute_ns += o.compute_ns;
        self.memory_ns += o.memory_ns;
        self.sampling_ns += o.sampling_ns;
        self.shootdown_ns += o.shootdown_ns;
    }
}

/// An epoch's time: actual and ideal (ns), and the actual's parts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EpochTime {
    /// Time under the actual placement.
    pub now_ns: f64,
    /// Time with every page in the fast tier and no manager.
    pub ideal_ns: f64,
    /// Where `now_ns` went.
    pub parts: TimeParts,
}

/// [`epoch_time`] with the parts of the actual time.
pub fn epoch_time_split(cfg: &MachineConfig, e: &EpochEvents) -> EpochTime {
    time(cfg, e, None)
}

/// Fault time (ns) each thread of a run has taken since it started, for
/// [`epoch_time_by_thread`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadStalls {
    taken: Vec<f64>,
    max: f64,
}

impl ThreadStalls {
    /// Fault time taken by each thread so far (ns).
    pub fn taken(&self) -> &[f64] {
        &self.taken
    }

    /// Adds each thread's fault time of an epoch; returns how much the
    /// slowest thread's total grew (what the epoch costs the application).
    fn add(&mut self, by_thread: &[f64]) -> f64 {
        if self.taken.len() < by_thread.len() {
            self.taken.resize(by_thread.len(), 0.0);
        }
        let mut max = self.max;
        for (t, ns) in self.taken.iter_mut().zip(by_thread) {
            *t += ns;
            max = max.max(*t);
        }
        let grew = max - self.max;
        self.max = max;
        grew
    }
}

/// The time (ns) of `poison` poison faults and `tier_faults[t]` faults on
/// tier t's pages.
pub fn fault_ns(
    cfg: &MachineConfig,
    poison: f64,
    tier_faults: impl IntoIterator<Item = f64>,
) -> f64 {
    let mut ns = poison * cfg.costs.poison_fault_ns;
    for (n, spec) in tier_faults.into_iter().zip(&cfg.tiers) {
        ns += n * spec.fault_on_access_ns.unwrap_or(0.0);
    }
    ns
}

/// [`epoch_time`] on a machine that knows which thread took each fault:
/// `by_thread[i]` is the time of the poison and tier faults thread i took
/// in the epoch ([`fault_ns`]; they must add up to those `e` counts), and
/// `stalls` each thread's fault time before it. The epoch is charged the
/// growth of the largest total rather than `faults / threads` (see the
/// module's documentation); the ideal clock is unchanged.
pub fn epoch_time_by_thread(
    cfg: &MachineConfig,
    e: &EpochEvents,
    by_thread: &[f64],
    stalls: &mut ThreadStalls,
) -> (f64, f64) {
    let t = epoch_time_by_thread_split(cfg, e, by_thread, stalls);
    (t.now_ns, t.ideal_ns)
}

/// [`epoch_time_by_thread`] with the parts of the actual time.
pub fn epoch_time_by_thread_split(
    cfg: &MachineConfig,
    e: &EpochEvents,
    by_thread: &[f64],
    stalls: &mut ThreadStalls,
) -> EpochTime {
    let grew = stalls.add(by_thread);
    time(cfg, e, Some(grew))
}

/// The model; `lagged` is the fault time of the slowest thread's share when
/// it is known, else faults spread evenly.
fn time(cfg: &MachineConfig, e: &EpochEvents, lagged: Option<f64>) -> EpochTime {
    let perf = &cfg.perf;
    let costs = &cfg.costs;
    let threads = perf.threads as f64;
    let compute = e.accesses * perf.compute_ns;
    let core_time = compute
        + e.stlb_hits * cfg.tlb.stlb_hit_ns
        + e.walk_entries * cfg.tlb.walk_level_ns
        + e.llc_hits * cfg.llc.hit_ns
        + e.first_touch_faults * costs.first_touch_fault_ns;
    let mut stall = 0.0;
    let mut bw = 0.0f64;
    let monitor_faults = e.poison_faults * costs.poison_fault_ns + e.samples * costs.sample_ns;
    let mut faults = monitor_faults;
    let (mut all_reads, mut all_writes, mut all_writebacks) = (0.0, 0.0, 0.0);
    let at = |v: &[f64], t: usize| v.get(t).copied().unwrap_or(0.0);
    for (t, spec) in cfg.tiers.iter().enumerate() {
        let (r, w) = (at(&e.reads, t), at(&e.writes, t));
        match e.row_stall_ns.get(t) {
            None => stall += r * spec.read_ns + w * spec.write_ns,
            Some(d) => stall += (r * spec.read_ns + w * spec.write_ns + d).max(0.0),
        }
        let wb = at(&e.writebacks, t);
        all_reads += r;
        all_writes += w;
        all_writebacks += wb;
        bw = bw.max(bandwidth_ns(
            spec,
            r + at(&e.migration_reads, t),
            w + wb + at(&e.migration_writes, t),
        ));
        faults += at(&e.tier_faults, t) * spec.fault_on_access_ns.unwrap_or(0.0);
    }
    let fast = &cfg.tiers[0];
    let mut stall_ideal = all_reads * fast.read_ns + all_writes * fast.write_ns;
    if !e.row_stall_ns.is_empty() {
        stall_ideal = (stall_ideal + e.row_stall_ideal_ns).max(0.0);
        bw = bw.max(e.bank_busy_ns);
    }
    // The sampling share of the fault time: all of the monitoring faults
    // when spread evenly, else their share of the slowest thread's lag.
    let (lat, sampling) = match lagged {
        None => (
            (core_time + stall / perf.mlp + faults) / threads + e.all_core_stall_ns,
            monitor_faults / threads,
        ),
        Some(lag) => {
            let samples = e.samples * costs.sample_ns;
            let poison = e.poison_faults * costs.poison_fault_ns;
            let tier_faults = faults - monitor_faults;
            let poison_lag = if poison + tier_faults > 0.0 {
                lag * poison / (poison + tier_faults)
            } else {
                0.0
            };
            (
                (core_time + stall / perf.mlp + samples) / threads + lag + e.all_core_stall_ns,
                samples / threads + poison_lag,
            )
        }
    };
    let lat_ideal = (core_time + stall_ideal / perf.mlp) / threads;
    let mut bw_ideal = 0.0f64.max(bandwidth_ns(fast, all_reads, all_writes + all_writebacks));
    if !e.row_stall_ns.is_empty() {
        bw_ideal = bw_ideal.max(e.bank_busy_ideal_ns);
    }
    let combine = |lat: f64, bw: f64| match perf.saturation_exponent {
        Some(n) if lat > 0.0 || bw > 0.0 => (lat.powf(n) + bw.powf(n)).powf(1.0 / n),
        _ => lat.max(bw),
    };
    let now = combine(lat, bw);
    let compute = compute / threads;
    let parts = TimeParts {
        compute_ns: compute,
        sampling_ns: sampling,
        shootdown_ns: e.all_core_stall_ns,
        memory_ns: now - compute - sampling - e.all_core_stall_ns,
    };
    EpochTime {
        now_ns: now,
        ideal_ns: combine(lat_ideal, bw_ideal),
        parts,
    }
}

/// Time (ns) a tier needs to move `reads` and `writes` lines at full bandwidth.
fn bandwidth_ns(spec: &TierSpec, reads: f64, writes: f64) -> f64 {
    reads * 64.0 / spec.read_gbps + writes * 64.0 / spec.write_gbps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{tiers, PerfConfig};

    fn cfg(threads: usize) -> MachineConfig {
        let mut t = vec![tiers::dram(), tiers::badgertrap()];
        for x in &mut t {
            x.capacity_bytes = 1 << 30;
        }
        MachineConfig {
            tiers: t,
            tlb: Default::default(),
            llc: Default::default(),
            perf: PerfConfig {
                threads,
                compute_ns: 100.0,
                ..Default::default()
            },
            costs: Default::default(),
            seed: 1,
            memory: None,
        }
    }

    /// `n` accesses to DRAM, `poison` of them poison faults.
    fn events(n: f64, poison: f64) -> EpochEvents {
        EpochEvents {
            accesses: n,
            reads: vec![n, 0.0],
            writes: vec![0.0, 0.0],
            poison_faults: poison,
            ..Default::default()
        }
    }

    /// The parts of an epoch's time add up to it: compute per access,
    /// monitoring faults as sampling, shootdowns as such, the rest memory;
    /// with several threads the slowest thread's poison lag is sampling.
    #[test]
    fn the_parts_of_the_time_add_up_to_it() {
        for threads in [1, 4] {
            let c = cfg(threads);
            let mut e = events(4000.0, 40.0);
            e.all_core_stall_ns = 500.0;
            e.reads = vec![3000.0, 1000.0];
            e.walk_entries = 2000.0;
            let t = if threads == 1 {
                epoch_time_split(&c, &e)
            } else {
                let by_thread = [40.0 * c.costs.poison_fault_ns, 0.0, 0.0, 0.0];
                epoch_time_by_thread_split(&c, &e, &by_thread, &mut ThreadStalls::default())
            };
            let p = t.parts;
            assert!((p.total_ns() - t.now_ns).abs() < 1e-6, "{p:?} {}", t.now_ns);
            let th = threads as f64;
            assert!((p.compute_ns - 4000.0 * 100.0 / th).abs() < 1e-6);
            let poison = 40.0 * c.costs.poison_fault_ns;
            assert!((p.sampling_ns - poison).abs() < 1e-6, "{p:?}");
            assert_eq!(p.shootdown_ns, 500.0);
            assert!(p.memory_ns > 0.0);
            assert_eq!(
                epoch_time(&c, &e),
                (
                    epoch_time_split(&c, &e).now_ns,
                    epoch_time_split(&c, &e).ideal_ns
                )
            );
        }
    }

    #[test]
    fn one_thread_pays_every_fault_in_full() {
        let c = cfg(1);
        let (t, ideal) = epoch_time(&c, &events(1000.0, 10.0));
        assert!((t - ideal - 10_000.0).abs() < 1e-6, "{t} {ideal}");
    }

    /// Four threads: faults that all fall on one thread delay its share,
    /// and so the application, by all of their time; the same faults spread
    /// over the four threads overlap and cost a quarter of it, as the even
    /// spread of `epoch_time` says.
    #[test]
    fn faults_stall_the_thread_that_takes_them() {
        let c = cfg(4);
        let e = events(4000.0, 40.0);
        let (spread, ideal) = epoch_time(&c, &e);
        assert!((spread - ideal - 10_000.0).abs() < 1e-6);

        let mut stalls = ThreadStalls::default();
        let one = fault_ns(&c, 40.0, []);
        let (t, i) = epoch_time_by_thread(&c, &e, &[one, 0.0, 0.0, 0.0], &mut stalls);
        assert_eq!(i, ideal, "the ideal clock has no faults");
        assert!((t - ideal - 40_000.0).abs() < 1e-6, "{t} {ideal}");

        let mut stalls = ThreadStalls::default();
        let (t, _) = epoch_time_by_thread(&c, &e, &[one / 4.0; 4], &mut stalls);
        assert!((t - spread).abs() < 1e-6, "{t} {spread}");
        assert_eq!(stalls.taken(), &[10_000.0; 4]);
    }

    /// A thread's lag lasts across epochs: faults that a thread behind the
    /// others takes later cost nothing until it becomes the slowest.
    #[test]
    fn a_threads_fault_time_carries_over_between_epochs() {
        let c = cfg(2);
        let e = events(2000.0, 1.0);
        let (_, ideal) = epoch_time(&c, &e);
        let mut stalls = ThreadStalls::default();
        let (t1, _) = epoch_time_by_thread(&c, &e, &[1000.0, 0.0], &mut stalls);
        let (t2, _) = epoch_time_by_thread(&c, &e, &[0.0, 1000.0], &mut stalls);
        let (t3, _) = epoch_time_by_thread(&c, &e, &[0.0, 1000.0], &mut stalls);
        assert!((t1 - ideal - 1000.0).abs() < 1e-6);
        assert!((t2 - ideal).abs() < 1e-6, "thread 1 catches up: {t2}");
        assert!((t3 - ideal - 1000.0).abs() < 1e-6);
    }

    /// The memory system's terms: row-buffer latency joins the stall
    /// (divided by the MLP), the busiest bank bounds the epoch like a tier's
    /// bandwidth; zero terms give exactly the time without them.
    #[test]
    fn row_buffer_stall_and_bank_load_enter_the_time() {
        let c = cfg(1);
        let plain = events(1000.0, 0.0);
        let base = epoch_time(&c, &plain);
        let mut e = plain.clone();
        e.row_stall_ns = vec![0.0, 0.0];
        assert_eq!(epoch_time(&c, &e), base, "zero terms change nothing");
        e.row_stall_ns = vec![4000.0, 0.0];
        e.row_stall_ideal_ns = 4000.0;
        let (t, i) = epoch_time(&c, &e);
        assert!((t - base.0 - 1000.0).abs() < 1e-6, "4000 ns / mlp 4: {t}");
        assert_eq!(t, i, "all in DRAM: the ideal clock shares the outcomes");
        // A bank busy for longer than the latency-bound time bounds it.
        e.bank_busy_ns = 1e9;
        e.bank_busy_ideal_ns = 5e8;
        assert_eq!(epoch_time(&c, &e), (1e9, 5e8));
    }

    /// A write-back is a posted write: below the slow tier's write
    /// bandwidth it costs no time at all (doubling them changes nothing),
    /// above it the epoch lasts the bytes over the bandwidth; a store the
    /// core waits for costs its latency at once.
    #[test]
    fn a_write_back_costs_bandwidth_not_latency() {
        let mut c = cfg(1);
        c.tiers[1] = tiers::dcpmm();
        c.tiers[1].capacity_bytes = 1 << 30;
        let base = events(1000.0, 0.0);
        let (lat, lat_ideal) = epoch_time(&c, &base);
        let with = |wb: f64| {
            let mut e = base.clone();
            e.writebacks = vec![0.0, wb];
            epoch_time(&c, &e)
        };
        // 100 and 200 lines: 460 and 921 ns of DCPMM write bandwidth,
        // well under the 100 us of latency-bound time.
        assert_eq!(with(100.0), (lat, lat_ideal));
        assert_eq!(with(200.0), (lat, lat_ideal));
        // 100 000 lines take 460 us of DCPMM's 13.9 GB/s: the bound.
        for wb in [1e5, 2e5] {
            let (t, ideal) = with(wb);
            let bytes_over_bw = wb * 64.0 / c.tiers[1].write_gbps;
            assert!(bytes_over_bw > lat);
            assert!((t - bytes_over_bw).abs() < 1e-6, "{wb}: {t}");
            // The ideal clock writes them back to DRAM, at its bandwidth,
            // next to the epoch's reads.
            let dram = bandwidth_ns(&c.tiers[0], 1000.0, wb);
            assert!((ideal - lat_ideal.max(dram)).abs() < 1e-6, "{ideal}");
        }
        // The same lines as stores the core waits for: latency, at once.
        let mut e = base.clone();
        e.writes = vec![0.0, 100.0];
        let (t, _) = epoch_time(&c, &e);
        let stall = 100.0 * c.tiers[1].write_ns / c.perf.mlp;
        assert!((t - lat - stall).abs() < 1e-6, "{t} {lat}");
    }

    #[test]
    fn fault_time_counts_tier_faults_at_their_tiers_cost() {
        let c = cfg(1);
        let bt = c.tiers[1].fault_on_access_ns.expect("badgertrap faults");
        assert_eq!(fault_ns(&c, 2.0, [0.0, 3.0]), 2.0 * 1000.0 + 3.0 * bt);
    }
}
