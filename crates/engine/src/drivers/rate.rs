//! The rate-driven machine behind the run loop: no accesses to feed, only a
//! clock to advance from one deadline to the next.

use crate::driver::Driver;
use crate::groundtruth::UnitSpan;
use thermocline_backend::{Backend, TierCounters};
use thermocline_model::rates::RateProfile;
use thermocline_model::{MachineConfig, MachineStats};
use thermocline_rate::{RateConfigError, RateMachine};
use thermocline_vocab::RegionInfo;
use thermocline_workloads::WorkloadError;

/// The rate machine and where its ground truth was last read.
pub struct RateDriver {
    machine: RateMachine,
    limit: u64,
    phases: usize,
    phase_starts_s: Vec<f64>,
    /// Progress at the manager's previous report: ground truth covers the
    /// expected accesses since then.
    last_report: f64,
}

impl RateDriver {
    /// A machine of `cfg` running `profile` over `regions` for `limit` accesses.
    pub fn new(
        cfg: MachineConfig,
        regions: Vec<RegionInfo>,
        profile: &RateProfile,
        limit: u64,
    ) -> Result<Self, RateConfigError> {
        Ok(RateDriver {
            machine: RateMachine::new(cfg, regions, profile)?,
            limit,
            phases: profile.phases.len(),
            phase_starts_s: vec![0.0],
            last_report: 0.0,
        })
    }
}

impl Driver for RateDriver {
    fn backend(&mut self) -> &mut dyn Backend {
        &mut self.machine
    }

    fn kind(&self) -> &'static str {
        self.machine.kind()
    }

    fn now_ns(&self) -> f64 {
        self.machine.time_ns()
    }

    fn advance(&mut self, until_ns: f64) -> Result<bool, WorkloadError> {
        let m = &mut self.machine;
        let running = m.advance(until_ns, self.limit as f64);
        let starts = &mut self.phase_starts_s;
        while starts.len() <= m.phase() && starts.len() < self.phases {
            starts.push(m.phase_start_ns(starts.len()) / 1e9);
        }
        Ok(running)
    }

    fn progress(&self) -> (u64, u64) {
        (self.machine.progress() as u64, self.limit)
    }

    fn phase_starts_s(&self) -> &[f64] {
        &self.phase_starts_s
    }

    fn hot_units(&mut self, threshold: u64) -> Option<Vec<UnitSpan>> {
        let now = self.machine.progress();
        let actual = self
            .machine
            .hot_units(self.last_report, now, threshold as f64);
        self.last_report = now;
        Some(actual)
    }

    fn hot_rule(&self, threshold: u64) -> String {
        format!(
            "a 2 MiB unit is hot if its expected accesses since the manager's previous report (from the workload's rates) are >= {}",
            threshold.max(1)
        )
    }

    fn resident_bytes(&self) -> Vec<u64> {
        self.machine.resident_bytes()
    }

    fn ideal_ns(&self) -> f64 {
        self.machine.ideal_time_ns()
    }

    fn time_breakdown(&self) -> Option<crate::report::TimeBreakdown> {
        let m = &self.machine;
        Some(crate::report::TimeBreakdown::of(
            &m.time_parts(),
            m.manager_ns(),
            m.migration_costs_ns(),
        ))
    }

    fn app_counters(&self) -> Vec<TierCounters> {
        self.machine.app_counters()
    }

    fn stats(&self) -> MachineStats {
        self.machine.stats()
    }
}
