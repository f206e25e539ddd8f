//! Managers: a telemetry technique plus a placement policy, written against
//! [`thermocline_backend::Backend`] only, so that one manager runs unchanged on
//! every backend.
//!
//! A manager is driven by ticks of simulated time (never the wall clock): the
//! runner calls [`Manager::start`] once, then [`Manager::tick`] every
//! [`Manager::tick_ns`]. A tick may report the manager's current hot set,
//! which the runner scores against the simulator's ground truth.
//!
//! Managers are chosen by name at the edge ([`registry::build`]) with typed
//! parameters. Each paper system has its own folder, with the baselines its
//! paper compares against: [`thermostat`] (and `kstaled`), [`ambix`] (and
//! Memory Mode, adm-default, AutoNUMA tiering, Memos' placement as Ambix ran
//! it), [`telescope`] (and DAMON, PEBS-like sampling, linear scanning).
//! [`baselines`] holds the paper-independent placements.
//!
//! The modules stand in floors, each importing only those below it: the
//! shared telemetry core ([`telemetry`]: counted regions, migration plans,
//! DAMON's intervals auto-tuning and feedback loop) at the bottom, the
//! DAMOS-like [`schemes`] over it, and the paper folders on top.
#![deny(missing_docs)]

pub mod ambix;
pub mod baselines;
pub mod heteroos;
pub mod kernel_tiering;
pub mod memos;
pub mod registry;
pub mod schemes;
pub mod telemetry;
pub mod telescope;
pub mod thermostat;

use thermocline_backend::{Backend, BackendError, MemPolicy};
use thermocline_vocab::{Asid, CapacitySpec};

/// Virtual ranges a manager believes hot, for precision and recall.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HotSet {
    /// (address space, start, length) ranges.
    pub ranges: Vec<(Asid, u64, u64)>,
}

/// A telemetry technique plus a placement policy.
pub trait Manager {
    /// Registry name.
    fn name(&self) -> &'static str;

    /// The fast-tier capacity this manager is meant to run with when the user
    /// gives none (e.g. the whole footprint for `all-fast`).
    fn default_fast_capacity(&self) -> Option<CapacitySpec> {
        None
    }

    /// The machine preset this manager must run on, if it needs one (an
    /// emulated slow tier, say).
    fn machine(&self) -> Option<&'static str> {
        None
    }

    /// Named quantities the manager tracks (cold bytes, estimated rates),
    /// recorded at the end of every report window. Cumulative quantities
    /// are named `..._bytes` or `..._count`.
    fn gauges(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// Sentences the run's report should carry about what the manager did
    /// differently from its paper's fixed mechanism (asked once, at the
    /// end of the run); none by default.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// The allocation policy every address space starts under, for a
    /// manager whose placement is only that (the baselines); `None` for the
    /// others; `tiers` is the number of tiers. A live host cannot set a
    /// running process's policy, so a command thermocline starts is started
    /// under this one.
    fn launch_policy(&self, tiers: usize) -> Option<MemPolicy> {
        let _ = tiers;
        None
    }

    /// Called once before the first access: set allocation policies, start
    /// sampling, read the regions.
    fn start(&mut self, backend: &mut dyn Backend) -> Result<(), BackendError>;

    /// Interval between ticks in simulated ns; `None` for managers that act
    /// only at start. Read at start and again after every tick, so a
    /// manager may change it (DAMON's intervals auto-tuning does).
    fn tick_ns(&self) -> Option<u64> {
        None
    }

    /// One period of telemetry and placement. Returns the hot set if the
    /// technique reports one this tick.
    fn tick(&mut self, backend: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        let _ = backend;
        Ok(None)
    }

    /// DAMON's view at the end of the last aggregation interval, for a
    /// manager that keeps DAMON-style regions: what the run records per
    /// aggregation when `metrics.damon_regions` asks for it. `None` for
    /// other managers and before the first aggregation. A query: it
    /// changes nothing the manager does.
    fn region_counts(&self) -> Option<RegionCounts> {
        None
    }
}

/// DAMON's regions at the end of one aggregation interval, with the count
/// of samples that found each accessed (its `nr_accesses`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegionCounts {
    /// Samples per aggregation interval: the most `nr_accesses` can be.
    pub max_nr_accesses: u32,
    /// `(start, end, nr_accesses)` in address order (virtual addresses;
    /// physical ones with DAMON's paddr layout).
    pub regions: Vec<(u64, u64, u32)>,
}

/// Parameters a user gave for a manager that it cannot accept.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// No manager of that name.
    #[error("unknown manager {name:?} (see `thermocline list`){hint}", name = .0, hint = registry::hint(.0))]
    Unknown(String),
    /// A parameter is unknown or has the wrong type.
    #[error("parameters of manager {manager}: {msg}")]
    BadParams {
        /// The manager.
        manager: &'static str,
        /// What serde said.
        msg: String,
    },
}
