//! What the one run loop asks of a backend: a [`Driver`] advances time to the
//! loop's next deadline (a manager tick or a report window), exposes the
//! backend interface the manager acts through, the ground truth where the
//! backend has one, and the counters the report is built from.
//!
//! The exact machine's driver feeds it batches of accesses
//! (`exact_driver.rs`); the rate-driven machine's advances a clock over
//! access rates (`rate_driver.rs`); a live host's will let the wall clock run.

use crate::groundtruth::UnitSpan;
use thermocline_backend::{Backend, TierCounters};
use thermocline_model::MachineStats;
use thermocline_vocab::Access;

/// Sees every access of a run (heatmaps). Generic, so the default observer
/// costs nothing on the per-access path.
pub trait Observer {
    /// Whether it observes anything (the rate machine has no accesses to show).
    const OBSERVES: bool = true;

    /// Called before the machine simulates `a`, at simulated time `now_ns`.
    fn on_access(&mut self, a: &Access, now_ns: f64);
}

/// The observer that observes nothing.
pub struct NoObserver;

impl Observer for NoObserver {
    const OBSERVES: bool = false;

    #[inline(always)]
    fn on_access(&mut self, _: &Access, _: f64) {}
}

/// The counters a report window is cut from.
#[derive(Clone, Debug, PartialEq)]
pub struct Counters {
    /// Workload accesses so far.
    pub accesses: u64,
    /// Application accesses served by tiers other than the fastest.
    pub slow_accesses: u64,
    /// Faults on pages of tiers that are not byte-addressable.
    pub tier_faults: u64,
}

/// One backend behind the run loop.
pub trait Driver {
    /// The backend interface the manager acts through.
    fn backend(&mut self) -> &mut dyn Backend;

    /// The backend's kind ("exact", "rate", "linux"), for reports and errors.
    fn kind(&self) -> &'static str;

    /// Time since the start (simulated ns on the simulated machines).
    fn now_ns(&self) -> f64;

    /// Runs the workload until [`Driver::now_ns`] reaches `until_ns`; returns
    /// false once the workload (or the run's limit) has ended.
    fn advance(&mut self, until_ns: f64) -> Result<bool, thermocline_workloads::WorkloadError>;

    /// Turns what a manager tick did into time (the exact machine counts
    /// events and settles them in epochs).
    fn after_tick(&mut self) {}

    /// Whether time is the wall clock (a live host): time then passes
    /// while a manager ticks, and ticks a slow manager missed are skipped
    /// rather than run back to back (the simulators' time passes only as
    /// they simulate, so they never skip one).
    fn wall_clock(&self) -> bool {
        false
    }

    /// Work done and work in all, for a progress bar.
    fn progress(&self) -> (u64, u64);

    /// When each workload phase reached so far began (s).
    fn phase_starts_s(&self) -> &[f64];

    /// The 2 MiB units that were actually hot since the previous call
    /// (sorted, merged), or `None` where the backend has no ground truth.
    fn hot_units(&mut self, threshold: u64) -> Option<Vec<UnitSpan>>;

    /// The rule [`Driver::hot_units`] applies, for the report.
    fn hot_rule(&self, threshold: u64) -> String;

    /// Counters for report windows (at window boundaries only, not per access).
    fn counters(&self) -> Counters {
        let st = self.stats();
        Counters {
            accesses: st.accesses,
            slow_accesses: slow_accesses(&self.app_counters()),
            tier_faults: st.tier_faults,
        }
    }

    /// Bytes resident in each tier.
    fn resident_bytes(&self) -> Vec<u64>;

    /// Time with every page in the fast tier and no manager (ns).
    fn ideal_ns(&self) -> f64;

    /// Cumulative application traffic per tier.
    fn app_counters(&self) -> Vec<TierCounters>;

    /// The machine's event counts.
    fn stats(&self) -> MachineStats;

    /// What the memory controllers counted, if the machine models a memory
    /// system (the exact machine only).
    fn memory_system(&self) -> Option<thermocline_model::memsys::MemSysStats> {
        None
    }

    /// Where the time went, where the backend splits it (the exact machine).
    fn time_breakdown(&self) -> Option<crate::report::TimeBreakdown> {
        None
    }

    /// Sees the manager after each look at the clock (a live host's
    /// driver publishes its gauges as metrics).
    fn observe(&mut self, manager: &dyn thermocline_managers::Manager) {
        let _ = manager;
    }

    /// The tenants of a shared machine (a mix's components), where the
    /// backend counts accesses per address space (the exact machine).
    fn tenants(&mut self) -> Vec<crate::report::TenantReport> {
        Vec::new()
    }
}

/// Application accesses outside the fastest tier.
pub fn slow_accesses(app: &[TierCounters]) -> u64 {
    app.iter().skip(1).map(|c| c.reads + c.writes).sum()
}
