//! What HeteroOS' VMM-level reproductions (`heteroos-coordinated`,
//! `heteroos-costs`, in `heteroos_vmm.rs`) run and their claims
//! (`heteroos_vmm_claims.rs`) read: the figures' models, ratios and the
//! paper's Table 6, kept apart so that neither imports the other.

/// Figure 11's ratios: (label, FastMem as a share of the footprint); the
/// JSON keys write them `1:4`, `1:8`.
pub const RATIOS: [(&str, &str); 2] = [("1/4", "25%"), ("1/8", "12.5%")];
/// Figure 11's models (Figure 9's without Metis, see the module docs).
pub const MODELS: [&str; 4] = ["graphchi", "xstream", "leveldb", "redis"];
/// Figure 12's applications, in the paper's order.
pub const FIG12_MODELS: [&str; 3] = ["graphchi", "redis", "leveldb"];
/// Figure 8's intervals (ms).
pub const FIG8_INTERVALS_MS: [u64; 5] = [100, 200, 300, 400, 500];
/// Table 6 as the paper gives it: (batch pages, T_page_move us,
/// T_page_walk us), printed beside ours.
pub const PAPER_T6: [(u64, f64, f64); 3] = [
    (8 * 1024, 25.5, 43.21),
    (64 * 1024, 15.7, 26.32),
    (128 * 1024, 11.12, 10.25),
];
