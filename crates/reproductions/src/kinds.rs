//! Which claims are not the papers' own (docs/claims.md, rule 5): the
//! calibrations and model checks, each with why, and the project goals.
//! Every other claim is a paper claim. Kept in one table so that a reader
//! sees every exception at once, and a test checks that each id names a
//! claim that exists.

use serde::{Deserialize, Serialize};

/// What a claim is, counted apart in RESULTS.md (docs/claims.md, rule 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A paper's statement about its system: the headline counts these.
    Paper,
    /// A value fitted to or copied from the paper, or a check of our own
    /// model's assumption: shown, never counted as held.
    Calibration,
    /// A project goal (a live testbed's agreement, an issue's target).
    Goal,
}

impl Kind {
    /// The kind's name in tables and summaries.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Paper => "paper claim",
            Kind::Calibration => "calibration",
            Kind::Goal => "project goal",
        }
    }
}

/// Claims whose checked value was fitted to or copied from the paper, or
/// that test an assumption of our own model: (id, why).
pub const CALIBRATIONS: &[(&str, &str)] = &[
    (
        "heteroos-costs/walk-cost-is-table-6",
        "the per-page walk cost is HeteroOS Table 6's, copied into the cost table; the check compares it with itself",
    ),
    (
        "heteroos-costs/walk-cost-falls-with-batch",
        "the walk cost by batch size is Table 6's, copied into the cost table",
    ),
    (
        "heteroos-placement/fastmem-only-bounds",
        "all of the footprint in FastMem is the model's upper bound by construction",
    ),
    (
        "heteroos-coordinated/fastmem-only-bounds",
        "all of the footprint in FastMem is the model's upper bound by construction",
    ),
    (
        "heteroos-sensitivity/memory-intensive-slow-most",
        "the models' slowdowns follow Table 4's MPKI, an input of the models",
    ),
    (
        "heteroos-sensitivity/bandwidth-hurts-graph-models-most",
        "follows the models' MPKI times Table 3's latencies, inputs of the models",
    ),
    (
        "heteroos-sensitivity/remote-below-slowmem",
        "the remote-socket and SlowMem latencies are inputs (Table 3), so their order is set by them",
    ),
    (
        "heteroos-pages/io-models-allocate-os-pages",
        "the models' page-type mixes were written after the text of section 2 and Figure 4",
    ),
    (
        "heteroos-pages/xstream-page-cache-most",
        "the models' page-type mixes were written after Figure 4",
    ),
    (
        "heteroos-pages/redis-slab-most",
        "the models' page-type mixes were written after Figure 4",
    ),
    (
        "heteroos-pages/heap-dominates-in-memory-models",
        "the models' page-type mixes were written after Figure 4",
    ),
    (
        "heteroos-pages/page-tables-small",
        "page-table pages follow from the models' footprints and the page size, by construction",
    ),
    (
        "heteroos-costs/migration-cost-falls-with-batch",
        "the migration cost by batch size is Table 6's, copied into the cost table",
    ),
    (
        "heteroos-drf/drf-guarantees-graphchi-slowmem",
        "tests our own DRF implementation's guarantee, which holds by construction",
    ),
    (
        "thermostat-threads/spread-faults-cost-less",
        "tests our own model of a fault's cost spread over T threads, not a figure of the paper",
    ),
    (
        "thermostat-rate/tracks-budget",
        "the application models' warm tail was sized from Figure 3's slow-access rate, which this claim checks",
    ),
    (
        "ambix-iwb/all-dram-best-before-saturation",
        "the DCPMM model was fitted to the IWB tables this claim reads (reference/ambix-iwb.csv)",
    ),
    (
        "ambix-iwb/ro-best-share-32",
        "the DCPMM model was fitted to the IWB tables this claim reads",
    ),
    (
        "ambix-iwb/wo-best-share-32",
        "the DCPMM model was fitted to the IWB tables this claim reads",
    ),
    (
        "ambix-iwb/ro-gain-32",
        "the DCPMM model was fitted to the IWB tables this claim reads",
    ),
    (
        "ambix-iwb/wo-gain-32",
        "the DCPMM model was fitted to the IWB tables this claim reads",
    ),
    (
        "memos-monitor/fig4-stream-shaped-below-threshold",
        "our stream threshold (2.6, from Figure 4's two averages) against models that are streams by construction; the paper's 0.28 is fig4-stream-iqr's",
    ),
    (
        "memos-monitor/fig4-random-shaped-above-threshold",
        "our stream threshold against models that are random by construction; the paper's 24.4 is fig4-mcf-iqr's",
    ),
    (
        "memos-energy/saving-grows-with-capacity",
        "rises by construction of the standby-power model (NVM's standby W/GB below DRAM's); the paper's two savings are checked by the claims beside it",
    ),
    (
        "telescope-subtb/pebs-precise",
        "the PEBS model samples only accesses that happened, so its precision is 1 by construction",
    ),
    (
        "telescope-multiphase/pebs-precise",
        "the PEBS model samples only accesses that happened, so its precision is 1 by construction",
    ),
];

/// Reproductions whose claims are project goals, not a paper's: the live
/// testbed's agreement with the simulator, and issues' targets (Thermostat
/// on 1, 4 and 16 threads and Telescope on scattered hot regions go beyond
/// what their papers ran). A calibration among them stays a calibration.
pub const GOAL_REPRODUCTIONS: &[&str] = &[
    "thermostat-threads",
    "telescope-scattered",
    "live-agreement",
    "live-damon",
    "schemes-tiering",
];

/// The kind of the claim `id` (`reproduction/what`).
pub fn kind_of(id: &str) -> Kind {
    let reproduction = id.split('/').next().unwrap_or(id);
    if CALIBRATIONS.iter().any(|(c, _)| *c == id) {
        Kind::Calibration
    } else if GOAL_REPRODUCTIONS.contains(&reproduction) {
        Kind::Goal
    } else {
        Kind::Paper
    }
}

/// Why the claim `id` is a calibration, if it is one.
pub fn why_calibration(id: &str) -> Option<&'static str> {
    CALIBRATIONS.iter().find(|(c, _)| *c == id).map(|(_, w)| *w)
}
