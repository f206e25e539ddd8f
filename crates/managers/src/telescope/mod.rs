//! Hot/cold telemetry techniques compared by Telescope (paper
//! 002_98026fdc393d1867.txt): linear Accessed-bit scanning (section 3.1),
//! DAMON's region sampling (3.2, 6.1.1), PEBS-like sampling (3.3, 6.1.1) and
//! Telescope itself (5). Each reports a hot set every profiling window and,
//! only when asked (`<name>.migration.enabled = true`), migrates hot regions
//! to the fast tier with the paper's rules (section 6.3.2).
//!
//! Every technique counts the Accessed bits it flipped (a clear of a set bit)
//! and reports the CPU time the backend charged it as cycles at
//! [`CPU_GHZ`]; both are cumulative gauges (`bits_flipped_count`,
//! `cpu_cycles_count`).
//!
//! What is charged per probe (issue #20 item 3, Table 2's cycles): the
//! backend's cost table, 20 ns for a leaf entry read or cleared and 5-15 ns
//! above it (crates/model `costs.rs`, inferred), two probes per region per
//! sample interval (check, then prepare); Telescope adds one INVLPG with an
//! IPI to the application's core (2.1 us) per interval to empty the
//! paging-structure caches. Table 2 implies ~0.5 us per region per sample
//! for the kernel's walks (DAMON-MOD, 2 MiB pages: 2.42 Gcycles over tens of
//! regions in a few minutes), so with our cheaper probes the fixed flush is
//! most of Telescope's cycles, and DAMON spends less than Telescope where it
//! keeps few regions (multi-phase with huge pages, the 1 GiB heap). The
//! issue's reversed 4 KiB order (Telescope 0.65 vs DAMON 0.21 Gcycles) came
//! from DAMON starting from the workload's span and keeping ~10-40 regions;
//! since it starts from vaddr's three regions and merges as the kernel does
//! it grows to ~1000 regions when it fails at 4 KiB, and the order is the
//! paper's (DAMON-AGG 5.30 > DAMON-MOD 1.18 > Telescope-BND 0.49). The cost
//! table is shared by every manager and not changed here.
//!
//! **Intervals auto-tuning** (issue #24, [`crate::telemetry::intervals`]):
//! DAMON and Telescope
//! (every [`RegionSampler`]) take an `intervals_goal` (`access_bp`, `aggrs`,
//! `min_sample_us`, `max_sample_us`, the kernel's `struct
//! damon_intervals_goal`); given, the sampling interval (and with it the
//! aggregation, which keeps its samples) is tuned every `aggrs`
//! aggregations towards `access_bp` of observed access events, exactly by
//! the kernel's integer formulas. Left out (the default), nothing changes.
//! The linear scans and PEBS-like sampling are not region-based and keep
//! their fixed intervals; [`crate::telemetry::intervals`] says why, and
//! lists where the tuning differs from the kernel's.
//!
//! What a profile is ([`Counted`]) and the migration rules
//! ([`crate::telemetry::Migration`]) are the shared telemetry core
//! ([`crate::telemetry`]), which Thermostat, Memos, Ambix and the schemes
//! use too.

mod linear;
mod pebs;
mod regions;

pub use linear::{LinearScan, LinearScanParams};
pub use pebs::{Pebs, PebsParams};
pub use regions::{
    Layout, Pick, RegionSampler, RegionSamplerParams, Source, HEAP_SIDE, LIBS_BYTES, STACK_SIDE,
};

use crate::telemetry::Counted;
use crate::HotSet;
use thermocline_backend::Backend;

/// Clock of the paper's machine (Xeon Gold 6238M, 2.1 GHz base), to turn
/// charged CPU time into cycles as Table 2 reports them.
pub const CPU_GHZ: f64 = 2.1;

/// The ranges with `count >= min` as a hot set.
pub fn hot_set(profile: &[Counted], min: f64) -> HotSet {
    HotSet {
        ranges: profile
            .iter()
            .filter(|c| c.count >= min && c.end > c.start)
            .map(|c| (c.asid, c.start, c.end - c.start))
            .collect(),
    }
}

/// Cumulative costs every technique reports.
#[derive(Clone, Debug, Default)]
pub struct Costs {
    /// Accessed bits cleared that were set.
    pub bits_flipped: u64,
    /// Manager time the backend had charged when the technique started (ns).
    pub ns_at_start: f64,
    /// Manager time charged since (ns), as of the last tick.
    pub ns: f64,
    /// Bytes migrated.
    pub migrated_bytes: u64,
}

impl Costs {
    /// The gauges of a technique.
    pub fn gauges(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("bits_flipped_count", self.bits_flipped as f64),
            ("cpu_cycles_count", self.ns * CPU_GHZ),
            ("migrated_bytes", self.migrated_bytes as f64),
        ]
    }

    /// Reads the backend's manager time.
    pub fn update(&mut self, b: &dyn Backend) {
        self.ns = b.manager_ns() - self.ns_at_start;
    }
}
