//! What HeteroOS' section-2 reproductions (`heteroos-sensitivity`,
//! `heteroos-pages`, in `heteroos_sensitivity.rs`) run and their claims
//! (`heteroos_sensitivity_claims.rs`) read: Figure 1's SlowMem
//! configurations, Figure 3's ratios and Figure 4's columns, kept apart so
//! that neither imports the other.

use thermocline_model::presets::HETEROOS_TABLE3;

/// The evaluation's machine, SlowMem at L:5,B:9 (Figure 3's).
pub const EVAL_PRESET: &str = "fastmem+slowmem-heteroos";

/// Figure 1's Remote NUMA label (and JSON key).
pub const REMOTE: &str = "Remote NUMA";
/// Figure 3's ratios: (label, JSON key, FastMem as a share of the footprint).
pub const RATIOS: [(&str, &str, &str); 4] = [
    ("1/2", "1:2", "50%"),
    ("1/4", "1:4", "25%"),
    ("1/8", "1:8", "12.5%"),
    ("1/16", "1:16", "6.25%"),
];

/// One bar group of Figure 1: its label (`L:x,B:y`, the JSON key), the
/// machine preset, and the SlowMem latency factor and bandwidth factor it
/// is sorted by.
pub struct Config {
    /// `L:x,B:y`, the JSON key.
    pub label: String,
    /// The machine preset.
    pub preset: String,
    /// The SlowMem latency and bandwidth factors it is sorted by.
    pub order: (u32, u32),
}

/// Figure 1's SlowMem configurations, slowest last: Table 3's SlowMem
/// columns and the evaluation's L:5,B:9.
pub fn slow_configs() -> Vec<Config> {
    let mut v: Vec<Config> = HETEROOS_TABLE3
        .iter()
        .map(|c| Config {
            label: format!("L:{},B:{}", c.latency_factor, c.bandwidth_factor),
            preset: c.preset.to_string(),
            order: (c.latency_factor, c.bandwidth_factor),
        })
        .collect();
    v.push(Config {
        label: "L:5,B:9".into(),
        preset: EVAL_PRESET.into(),
        order: (5, 9),
    });
    v.sort_by_key(|c| c.order);
    v
}

/// The labels of Figure 1's SlowMem configurations, slowest last.
pub fn slow_labels() -> Vec<String> {
    slow_configs().into_iter().map(|c| c.label).collect()
}

/// Figure 4's page-table column.
pub const PAGE_TABLES: &str = "page tables";
