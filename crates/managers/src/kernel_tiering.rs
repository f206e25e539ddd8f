//! `kernel-tiering`: the host kernel's own tiering as a baseline, live only.
//! The daemon configures the kernel from these parameters (NUMA balancing's
//! tiering mode with demotion, or DAMOS `migrate_hot`/`migrate_cold` on
//! physical addresses: `thermocline_live::host_tiering`), and this manager
//! only observes: it moves nothing, except the target's pages to the
//! slowest tier once at start when `start_in_slow` (the same start as
//! `damon-kernel`'s, so the two can be compared). The kernel's own
//! counters (pgpromote_success, pgdemote_*) are the daemon's to report.
//!
//! Measured in the test guest (README, Live): NUMA balancing's tiering
//! mode promotes a hot 4 MiB region from the slow node within 15 s; the
//! DAMOS mode's `migrate_cold` runs, its `migrate_hot` only sometimes (0
//! applications in one 25 s run, 1 in a 15 s one: open).
//!
//! On a simulated backend it declines (`Unfit`): the simulators model NUMA
//! balancing's tiering as `autonuma-tiering` and DAMON as `damon-*`.

use crate::telemetry::Migration;
use crate::Manager;
use serde::Deserialize;
use thermocline_backend::{Backend, BackendError};

/// Which of the kernel's mechanisms.
#[derive(Clone, Copy, Debug, Default, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum KernelMode {
    /// `kernel.numa_balancing = 2` (memory tiering) and
    /// `/sys/kernel/mm/numa/demotion_enabled = true`.
    #[default]
    NumaBalancing,
    /// DAMOS on physical addresses: migrate_hot to the fast node,
    /// migrate_cold to the slow node.
    Damos,
}

/// Parameters of `kernel-tiering`.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct KernelTieringParams {
    /// `numa-balancing` or `damos`.
    pub mode: KernelMode,
    /// Move the target's pages to the slowest tier once at start.
    pub start_in_slow: bool,
    /// DAMOS: DAMON's sampling interval (ms).
    pub sample_ms: f64,
    /// DAMOS: DAMON's aggregation interval (ms).
    pub aggregate_ms: f64,
    /// DAMOS: fewest regions.
    pub min_regions: u64,
    /// DAMOS: most regions.
    pub max_regions: u64,
    /// DAMOS: a slow-node region is promoted when at least this many
    /// samples of an aggregation interval found it accessed.
    pub hot_min_accesses: u32,
    /// DAMOS: a fast-node region is demoted after this long unaccessed (s).
    pub cold_min_age_s: f64,
    /// DAMOS: MiB each scheme may migrate per second (0: no bound).
    pub quota_mib_per_s: u64,
}

impl Default for KernelTieringParams {
    /// DAMON's sysfs defaults as damo uses them (5 ms, 100 ms, 10-1000
    /// regions); promotion at 4 of 20 samples, demotion after 5 s idle, at
    /// most 64 MiB per second each way (inferred: the kernel has no
    /// defaults for schemes).
    fn default() -> Self {
        KernelTieringParams {
            mode: KernelMode::NumaBalancing,
            start_in_slow: false,
            sample_ms: 5.0,
            aggregate_ms: 100.0,
            min_regions: 10,
            max_regions: 1000,
            hot_min_accesses: 4,
            cold_min_age_s: 5.0,
            quota_mib_per_s: 64,
        }
    }
}

/// The observer (see the module docs).
#[derive(Debug, Default)]
pub struct KernelTiering {
    /// Its parameters, which the daemon reads to set the kernel up.
    pub p: KernelTieringParams,
}

impl Manager for KernelTiering {
    fn name(&self) -> &'static str {
        "kernel-tiering"
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        if b.kind() != "linux" {
            return Err(BackendError::Unfit(
                "kernel-tiering is the live host's own tiering (thermocline daemon); the simulators model it as autonuma-tiering and damon-*".into(),
            ));
        }
        Migration {
            enabled: true,
            start_in_slow: self.p.start_in_slow,
            ..Migration::default()
        }
        .start(b)
    }
}
