//! The exact machine behind the run loop: batches of the workload's accesses,
//! replayed one by one, until the loop's next deadline.

use crate::driver::{Driver, Observer};
use crate::groundtruth::{exact_hot_units, UnitSpan};
use thermocline_backend::{Backend, TierCounters, TypedAlloc};
use thermocline_model::{MachineConfig, MachineStats};
use thermocline_sim::{ConfigError, Machine};
use thermocline_vocab::TierId;
use thermocline_vocab::{Access, MemEvent};
use thermocline_workloads::{Workload, WorkloadError};

/// Accesses handed to the machine between two looks at the clock: small
/// enough that ticks land within tens of simulated microseconds.
const BATCH: usize = 256;

/// The exact machine, the workload's stream and an observer of accesses.
pub struct ExactDriver<'o, O: Observer> {
    machine: Machine,
    workload: Workload,
    observer: &'o mut O,
    buf: Box<[Access; BATCH]>,
    /// The memory events of the current batch, with the access each precedes.
    events: Vec<(usize, MemEvent)>,
    done: u64,
    limit: u64,
    phase_starts_s: Vec<f64>,
}

impl<'o, O: Observer> ExactDriver<'o, O> {
    /// A machine of `cfg` mapping the workload's regions; runs `limit` accesses.
    pub fn new(
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
            events: Vec::new(),
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
            let n = self
                .workload
                .stream
                .fill_with_events(&mut self.buf[..want], &mut self.events)?;
            if n == 0 && self.events.is_empty() {
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
            // Events split the batch where they happen.
            let mut from = 0;
            for &(at, ev) in &self.events {
                self.machine.access_batch(&self.buf[from..at]);
                from = at;
                self.machine.apply_event(ev).map_err(|e| {
                    WorkloadError::Invalid(format!(
                        "{} at access {}: {e}",
                        self.workload.name,
                        self.done + at as u64
                    ))
                })?;
            }
            self.machine.access_batch(&self.buf[from..n]);
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

    fn time_breakdown(&self) -> Option<crate::report::TimeBreakdown> {
        let m = &self.machine;
        Some(crate::report::TimeBreakdown::of(
            &m.time_parts(),
            m.manager_ns(),
            m.migration_costs_ns(),
        ))
    }

    fn tenants(&mut self) -> Vec<crate::report::TenantReport> {
        let cfg = self.machine.config();
        let mlp = cfg.perf.mlp.max(1e-9);
        let tiers = &cfg.tiers;
        self.workload
            .stream
            .tenants()
            .iter()
            .filter_map(|t| {
                let acc = self.machine.space_accesses(t.asid.0)?;
                let faults = self.machine.space_tier_faults(t.asid.0)?;
                let fault_ns: f64 = faults
                    .iter()
                    .zip(tiers)
                    .map(|(&f, s)| f as f64 * s.fault_on_access_ns.unwrap_or(0.0))
                    .sum();
                let resident = (0..tiers.len())
                    .map(|i| {
                        self.machine
                            .held_pages(t.asid, TierId(i as u8))
                            .unwrap_or(0)
                            * 4096
                    })
                    .collect();
                let n: u64 = acc.iter().map(|a| a[0] + a[1]).sum();
                let slow: u64 = acc.iter().skip(1).map(|a| a[0] + a[1]).sum();
                let core = n as f64 * t.compute_ns;
                let memory: f64 = acc
                    .iter()
                    .zip(tiers)
                    .map(|(a, s)| a[0] as f64 * s.read_ns + a[1] as f64 * s.write_ns)
                    .sum();
                let (loads, stores) = acc.iter().fold((0, 0), |(l, s), a| (l + a[0], s + a[1]));
                let fast = loads as f64 * tiers[0].read_ns + stores as f64 * tiers[0].write_ns;
                let ideal = core + fast / mlp;
                Some(crate::report::TenantReport {
                    workload: t.name.clone(),
                    asid: t.asid.0,
                    footprint_bytes: t.footprint_bytes,
                    resident_bytes: resident,
                    accesses: acc.iter().map(|a| a[0] + a[1]).collect(),
                    slow_access_share: if n > 0 { slow as f64 / n as f64 } else { 0.0 },
                    tier_faults: faults.iter().sum(),
                    memory_bound_slowdown: if ideal > 0.0 {
                        (core + memory / mlp + fault_ns) / ideal - 1.0
                    } else {
                        0.0
                    },
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::NoObserver;
    use thermocline_model::tiers;
    use thermocline_vocab::{Asid, PageType, RegionInfo};
    use thermocline_workloads::{MemoryStream, PhaseMark, Stream};

    const BASE: u64 = 1 << 30;

    fn workload(n: u64, events: Vec<(usize, MemEvent)>) -> Workload {
        let accesses: Vec<Access> = (0..n)
            .map(|i| Access {
                va: BASE + (i % 64) * 4096,
                write: true,
                ..Access::default()
            })
            .collect();
        Workload {
            name: "events".into(),
            regions: vec![RegionInfo {
                asid: Asid(0),
                name: "r".into(),
                start: BASE,
                len: 64 * 4096,
                page_type: PageType::Anon,
                thp: false,
            }],
            threads: 1,
            access_rate: 1e7,
            compute_ns: 10.0,
            total_accesses: n,
            phases: vec![PhaseMark {
                name: "all".into(),
                first_access: 0,
            }],
            stream: Stream::Memory(MemoryStream::with_events(accesses, events).unwrap()),
            rates: None,
        }
    }

    fn config() -> MachineConfig {
        let mut t = vec![tiers::dram(), tiers::dcpmm()];
        t[0].capacity_bytes = 1 << 30;
        t[1].capacity_bytes = 1 << 30;
        MachineConfig::with_tiers(t)
    }

    /// Events land between the accesses they were issued between, across
    /// batch boundaries: the pages released after the last access to them
    /// are gone at the end, the others are resident.
    #[test]
    fn events_are_applied_where_they_fall_in_the_stream() {
        let release = |first: u64, pages: u64| MemEvent::Release {
            asid: Asid(0),
            start: BASE + first * 4096,
            len: pages * 4096,
        };
        // 600 accesses touch pages 0..64 in turn; page i is last touched by
        // access 576 + i (i < 24) or 512 + i. Pages 0-9 released at access
        // 300 are touched again; pages 40-49 released at 590 (after their
        // last touch) and 60-63 at the very end stay released.
        let events = vec![
            (300, release(0, 10)),
            (590, release(40, 10)),
            (600, release(60, 4)),
        ];
        let mut obs = NoObserver;
        let mut d = ExactDriver::new(config(), workload(600, events), 600, &mut obs).unwrap();
        while d.advance(f64::INFINITY).unwrap() {}
        assert_eq!(d.done, 600);
        assert_eq!(d.resident_bytes().iter().sum::<u64>(), (64 - 14) * 4096);
        assert_eq!(d.stats().first_touch_faults, 64 + 10);
    }
}
