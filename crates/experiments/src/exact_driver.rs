//! The exact machine behind the run loop: batches of the workload's accesses,
//! replayed one by one, until the loop's next deadline.

use crate::driver::{Driver, Observer};
use crate::groundtruth::{exact_hot_units, UnitSpan};
use thermocline_backend::{Backend, TierCounters};
use thermocline_model::{MachineConfig, MachineStats};
use thermocline_sim::{ConfigError, Machine};
use thermocline_vocab::Access;
use thermocline_workloads::{Workload, WorkloadError};

/// Accesses handed to the machine between two looks at the clock: small
/// enough that ticks land within tens of simulated microseconds.
const BATCH: usize = 256;

/// The exact machine, the workload's stream and an observer of accesses.
pub(crate) struct ExactDriver<'o, O: Observer> {
    machine: Machine,
    workload: Workload,
    observer: &'o mut O,
    buf: Box<[Access; BATCH]>,
    done: u64,
    limit: u64,
    phase_starts_s: Vec<f64>,
}

impl<'o, O: Observer> ExactDriver<'o, O> {
    /// A machine of `cfg` mapping the workload's regions; runs `limit` accesses.
    pub(crate) fn new(
        cfg: MachineConfig,
        workload: Workload,
        limit: u64,
        observer: &'o mut O,
    ) -> Result<Self, ConfigError> {
        let machine = Machine::new(cfg, workload.regions.clone())?;
        Ok(ExactDriver {
            machine,
            workload,
            observer,
            buf: Box::new([Access::default(); BATCH]),
            done: 0,
            limit,
            phase_starts_s: Vec::new(),
        })
    }
}

impl<O: Observer> Driver for ExactDriver<'_, O> {
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
        let phases = &self.workload.phases;
        loop {
            if self.done >= self.limit {
                return Ok(false);
            }
            while self.phase_starts_s.len() < phases.len()
                && phases[self.phase_starts_s.len()].first_access <= self.done
            {
                self.phase_starts_s.push(self.machine.time_ns() / 1e9);
            }
            let want = ((self.limit - self.done) as usize).min(BATCH);
            let n = self.workload.stream.fill(&mut self.buf[..want])?;
            if n == 0 {
                return Ok(false);
            }
            if O::OBSERVES {
                // Simulated time moves only in `settle`: every access of the
                // batch is observed at the same time.
                let now = self.machine.time_ns();
                for a in &self.buf[..n] {
                    self.observer.on_access(a, now);
                }
            }
            self.machine.access_batch(&self.buf[..n]);
            self.machine.settle();
            self.done += n as u64;
            if self.machine.time_ns() >= until_ns {
                return Ok(true);
            }
        }
    }

    fn after_tick(&mut self) {
        self.machine.settle();
    }

    fn progress(&self) -> (u64, u64) {
        (self.done, self.limit)
    }

    fn phase_starts_s(&self) -> &[f64] {
        &self.phase_starts_s
    }

    fn hot_units(&mut self, threshold: u64) -> Option<Vec<UnitSpan>> {
        Some(exact_hot_units(&mut self.machine, threshold))
    }

    fn hot_rule(&self, threshold: u64) -> String {
        format!(
            "a 2 MiB unit is hot if it received >= {} accesses since the manager's previous report",
            threshold.max(1)
        )
    }

    fn resident_bytes(&self) -> Vec<u64> {
        self.machine.resident_bytes()
    }

    fn ideal_ns(&self) -> f64 {
        self.machine.ideal_time_ns()
    }

    fn app_counters(&self) -> Vec<TierCounters> {
        self.machine.app_counters().to_vec()
    }

    fn stats(&self) -> MachineStats {
        self.machine.stats().clone()
    }

    fn memory_system(&self) -> Option<thermocline_model::memsys::MemSysStats> {
        self.machine.memory_system_stats()
    }
}
