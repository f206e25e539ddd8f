//! The rate-driven machine: its parts composed, and the clock driven.

use crate::accounting::Accounting;
use crate::clock::Clock;
use crate::index::PhaseIndex;
use crate::per_access::PerAccess;
use crate::placement::Placement;
use crate::poison::Poison;
use crate::profile::Profile;
use crate::sampler::{Sampler, Step};
use crate::telemetry::Telemetry;
use thermocline_model::rates::RateProfile;
use thermocline_model::{MachineConfig, MachineStats};
use thermocline_vocab::{RegionInfo, Rng, Stream};

/// A machine configuration or workload profile it cannot run.
#[derive(Debug, thiserror::Error)]
pub enum RateConfigError {
    /// The machine has no tiers.
    #[error("rate machine: no tiers")]
    NoTiers,
    /// Tier ids are one byte.
    #[error("rate machine: more than 255 tiers")]
    TooManyTiers,
    /// The workload's rate profile is inconsistent with its regions.
    #[error("rate machine: {0}")]
    Profile(#[from] thermocline_model::rates::ProfileError),
    /// A region lies outside the 47-bit user address space.
    #[error("rate machine: a region ends above the 47-bit user address space")]
    AddressSpace,
    /// A TLB or paging-structure cache the machines cannot simulate.
    #[error("rate machine: {0}")]
    Tlb(String),
    /// The rate machine has no model of channels, banks or row buffers.
    #[error("rate machine: no memory-system model (channels, banks, row buffers): use the exact machine or turn machine.memory off")]
    MemorySystem,
}

/// The rate-driven simulated machine. See the crate documentation.
pub struct RateMachine {
    pub(crate) cfg: MachineConfig,
    pub(crate) regions: Vec<RegionInfo>,
    /// The workload's rates.
    pub(crate) profile: Profile,
    /// Progress, time and phase.
    pub(crate) clock: Clock,
    /// Expectations per access; None when the phase or placement changed
    /// since they were computed.
    per: Option<PerAccess>,
    /// Where pages live.
    pub(crate) placement: Placement,
    /// Accessed and Dirty bits.
    pub(crate) telemetry: Telemetry,
    /// Poisoned pages and armed hint faults.
    pub(crate) poison: Poison,
    /// PEBS-like sampling.
    pub(crate) sampler: Sampler,
    /// Counts, traffic and manager time.
    pub(crate) accounting: Accounting,
    /// Whether the fast tier is a Memory Mode cache of the slow ones.
    pub(crate) memory_mode: bool,
}

impl RateMachine {
    /// A machine running `profile` over `regions`.
    pub fn new(
        cfg: MachineConfig,
        regions: Vec<RegionInfo>,
        profile: &RateProfile,
    ) -> Result<Self, RateConfigError> {
        if cfg.tiers.is_empty() {
            return Err(RateConfigError::NoTiers);
        }
        if cfg.tiers.len() > 255 {
            return Err(RateConfigError::TooManyTiers);
        }
        cfg.tlb.check().map_err(RateConfigError::Tlb)?;
        if cfg.memory_system().is_some() {
            return Err(RateConfigError::MemorySystem);
        }
        if regions.iter().any(|r| r.end() > 1 << 47) {
            return Err(RateConfigError::AddressSpace);
        }
        profile.validate(&regions)?;
        let tiers = cfg.tiers.len();
        Ok(RateMachine {
            profile: Profile::new(profile, &regions, &cfg.tlb, &cfg.llc),
            clock: Clock::new(),
            per: None,
            placement: Placement::new(tiers, cfg.seed),
            telemetry: Telemetry::new(),
            poison: Poison::default(),
            sampler: Sampler::default(),
            accounting: Accounting::new(tiers),
            memory_mode: false,
            regions,
            cfg,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MachineConfig {
        &self.cfg
    }

    /// Simulated time (ns).
    pub fn time_ns(&self) -> f64 {
        self.clock.now_ns()
    }

    /// Time the same accesses take with every page in the fast tier (ns).
    pub fn ideal_time_ns(&self) -> f64 {
        self.clock.ideal_ns()
    }

    /// Manager CPU time charged (ns).
    pub fn manager_ns(&self) -> f64 {
        self.accounting.manager_ns()
    }

    /// Where the simulated time went (ns).
    pub fn time_parts(&self) -> thermocline_model::TimeParts {
        self.accounting.time_parts()
    }

    /// The migrations' manager time and all-core stall so far (ns).
    pub fn migration_costs_ns(&self) -> (f64, f64) {
        self.accounting.migration_costs_ns()
    }

    /// Workload accesses simulated so far.
    pub fn progress(&self) -> f64 {
        self.clock.progress()
    }

    /// Phase being run.
    pub fn phase(&self) -> usize {
        self.clock.phase()
    }

    /// Simulated time (ns) at which phase `k` began (0 if not reached).
    pub fn phase_start_ns(&self, k: usize) -> f64 {
        self.clock.phase_start_ns(k)
    }

    /// Counts for reports (expected counts, rounded).
    pub fn stats(&self) -> MachineStats {
        self.accounting.stats()
    }

    /// Application line reads and writes per tier.
    pub fn app_counters(&self) -> Vec<thermocline_backend::TierCounters> {
        self.accounting.app_counters()
    }

    /// Bytes mapped per tier.
    pub fn resident_bytes(&self) -> Vec<u64> {
        self.placement
            .used()
            .iter()
            .map(|&b| b.round() as u64)
            .collect()
    }

    /// Host memory the machine's state holds (bytes, approximate).
    pub fn host_bytes(&self) -> usize {
        self.telemetry.host_bytes() + self.placement.run_count() * 64 + self.profile.host_bytes()
    }

    /// Expected accesses to each 2 MiB unit in the progress window
    /// `[from, to)`: the units whose expectation reaches `threshold`, as
    /// sorted, merged intervals of unit numbers `(asid, first, last + 1)`.
    pub fn hot_units(&self, from: f64, to: f64, threshold: f64) -> Vec<(u16, u64, u64)> {
        self.profile.hot_units(from, to, threshold)
    }

    /// The index of the phase being run (None past the workload's end).
    pub(crate) fn current_phase(&self) -> Option<&PhaseIndex> {
        self.profile.phase(self.clock.phase())
    }

    /// Marks the expectations per access out of date (the placement, the
    /// poisoned pages or the sampling changed).
    pub(crate) fn invalidate(&mut self) {
        self.per = None;
    }

    /// Maps every region by its address space's policy (first touch in
    /// address order), once, before the first access.
    pub(crate) fn ensure_mapped(&mut self) {
        if self.placement.is_mapped() {
            return;
        }
        let caps: Vec<f64> = self
            .cfg
            .tiers
            .iter()
            .map(|t| t.capacity_bytes as f64)
            .collect();
        if self.placement.map_regions(&self.regions, &caps) {
            self.invalidate();
        }
    }

    /// Runs the workload until simulated time `until_ns` or until `limit`
    /// accesses have been issued; returns false once the limit (or the end
    /// of the workload) is reached.
    pub fn advance(&mut self, until_ns: f64, limit: f64) -> bool {
        self.ensure_mapped();
        let end = limit.min(self.profile.end());
        loop {
            if self.clock.enter_reached_phases(&self.profile) {
                self.invalidate();
            }
            let (progress, now_ns) = (self.clock.progress(), self.clock.now_ns());
            if progress >= end {
                return false;
            }
            if now_ns >= until_ns {
                return true;
            }
            let ix = self.profile.phase(self.clock.phase());
            let per = match &mut self.per {
                Some(per) => per,
                slot => slot.insert(PerAccess::compute(
                    &self.cfg,
                    ix,
                    &self.placement,
                    &self.poison,
                    &self.sampler,
                    self.memory_mode,
                )),
            };
            let phase_end = self.profile.start(self.clock.phase() + 1).min(end);
            let to_phase_end = phase_end - progress;
            let by_time = (until_ns - now_ns) / per.ns;
            let (step, dt) = if by_time < to_phase_end {
                (by_time, until_ns - now_ns)
            } else {
                (to_phase_end, to_phase_end * per.ns)
            };
            self.accounting.accesses(step, per);
            if self.sampler.is_on() && per.samples > 0.0 {
                if let Some(ix) = ix {
                    let this = Step {
                        index: self.clock.steps(),
                        start_ns: now_ns,
                        ns: dt,
                        mean: step * per.samples,
                    };
                    let n = self.sampler.take(self.cfg.seed, this, ix, &self.placement);
                    self.accounting.samples(n);
                }
            }
            self.clock.step(step, dt, per.ideal_ns);
            if by_time >= to_phase_end {
                self.clock.reach(phase_end);
            }
        }
    }

    /// The progress at which an entry cleared now is next set, given the
    /// rate per access `intensity(phase)` at which each phase sets it:
    /// exponential in the integrated intensity over the current and later
    /// phases, drawn from `stream` at (key, progress now).
    pub(crate) fn next_set(
        &self,
        stream: Stream,
        key: u64,
        intensity: impl Fn(&PhaseIndex) -> f64,
    ) -> f64 {
        self.next_set_by_phase(stream, key, |_, ix| intensity(ix))
    }

    /// [`Self::next_set`] with the phase's number given to `intensity`.
    pub(crate) fn next_set_by_phase(
        &self,
        stream: Stream,
        key: u64,
        intensity: impl FnMut(usize, &PhaseIndex) -> f64,
    ) -> f64 {
        let now = self.clock.progress();
        let need = || -Rng::keyed_unit(self.cfg.seed, stream, key, now.to_bits()).ln();
        self.profile
            .accrue(need, now, self.clock.phase(), intensity)
    }
}
