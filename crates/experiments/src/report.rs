//! The JSON report of one run. Everything in it is simulated or counted: no
//! wall-clock figure goes in, so the same inputs give byte-identical JSON.

use serde::Serialize;
use std::collections::BTreeMap;
use thermocline_sim::MachineStats;
use thermocline_workloads::PhaseMark;

/// One tier's totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TierReport {
    /// Preset name.
    pub name: String,
    /// Capacity in bytes.
    pub capacity_bytes: u64,
    /// Time-weighted mean of the bytes backing pages.
    pub avg_resident_bytes: f64,
    /// Application line reads served.
    pub reads: u64,
    /// Application line writes absorbed.
    pub writes: u64,
    /// Dynamic (all traffic, migrations included) plus standby energy, joules.
    pub energy_j: f64,
}

/// Migration totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MigrationTotals {
    /// Pages moved to a faster tier.
    pub promoted_pages: u64,
    /// Pages moved to a slower tier.
    pub demoted_pages: u64,
    /// Bytes moved.
    pub bytes: u64,
}

/// One report window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Window {
    /// Simulated time at the end of the window (s).
    pub t_s: f64,
    /// Bytes backing pages per tier at the end of the window.
    pub resident_bytes: Vec<u64>,
    /// Application accesses served by tiers other than the fastest, per second.
    pub slow_tier_accesses_per_s: f64,
    /// TLB misses to pages of faulting tiers (zswap-like, BadgerTrap-emulated)
    /// per second: each one is a fault, so this is the rate that costs.
    pub slow_tier_faults_per_s: f64,
    /// Mean precision of the hot sets reported in the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// Mean recall of the hot sets reported in the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall: Option<f64>,
    /// The manager's gauges at the end of the window (see `Manager::gauges`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub manager: BTreeMap<String, f64>,
}

/// The report of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Workload as given.
    pub workload: String,
    /// Manager name.
    pub manager: String,
    /// Machine preset.
    pub machine: String,
    /// The seed.
    pub seed: u64,
    /// "exact".
    pub backend: String,
    /// Bytes mapped by the workload's regions.
    pub footprint_bytes: u64,
    /// Bytes the workload touched (4 KiB pages or 2 MiB pages backed).
    pub touched_bytes: u64,
    /// Simulated execution time (s).
    pub sim_time_s: f64,
    /// Simulated time with every page in the fast tier and no manager (s).
    pub ideal_time_s: f64,
    /// Accesses simulated.
    pub accesses: u64,
    /// sim_time / ideal_time - 1.
    pub slowdown: f64,
    /// Per tier.
    pub tiers: Vec<TierReport>,
    /// Migration totals.
    pub migrations: MigrationTotals,
    /// Manager CPU time / simulated time (fraction of one core).
    pub manager_cpu_util: f64,
    /// The ground-truth rule behind precision and recall.
    pub hot_rule: String,
    /// Mean precision over every scored profiling window, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_precision: Option<f64>,
    /// Mean recall over every scored profiling window, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_recall: Option<f64>,
    /// Machine event counts.
    pub stats: MachineStats,
    /// Workload phases.
    pub phases: Vec<PhaseMark>,
    /// Simulated time (s) at which each phase that was reached began.
    pub phase_starts_s: Vec<f64>,
    /// Time series.
    pub windows: Vec<Window>,
}

impl Report {
    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("reports serialise");
        s.push('\n');
        s
    }
}
