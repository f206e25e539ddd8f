//! What `heteroos-drf` (`heteroos_drf.rs`) runs and its claims
//! (`heteroos_drf_claims.rs`) read, kept apart so that neither imports the
//! other: section 5.5's two VMs, the paper's machine and reservations, and
//! the scale of the models.

/// The VMs, in the mix's order: (model, label).
pub const VMS: [(&str, &str); 2] = [("graphchi-6g", "GraphChi-like"), ("metis-8g", "Metis-like")];

/// The compared configurations: (key, `heteroos-vms.sharing`,
/// `heteroos-vms.guest`, label), in Figure 13's order.
pub const CONFIGS: [(&str, &str, &str, &str); 3] = [
    (
        "maxmin-vmm",
        "max-min",
        "vmm-exclusive",
        "Max-min VMM-exclusive",
    ),
    (
        "maxmin-coordinated",
        "max-min",
        "coordinated",
        "Max-min HeteroOS-coordinated",
    ),
    (
        "drf-coordinated",
        "drf",
        "coordinated",
        "DRF HeteroOS-coordinated",
    ),
];

/// Section 5.5's machine in GB: FastMem 4, SlowMem 8.
pub const PAPER_MACHINE_GB: [f64; 2] = [4.0, 8.0];
/// Section 5.5's reservations in GB (FastMem, SlowMem), per VM.
pub const PAPER_RESERVATIONS_GB: [[f64; 2]; 2] = [[1.0, 4.0], [3.0, 4.0]];
/// Section 5.5's heaps in GB (Graphchi "requires 6GB", Metis "uses 8GB").
pub const PAPER_HEAPS_GB: [f64; 2] = [6.0, 8.0];
/// MiB of ours per GB of the paper's: the section-5.5 models are the
/// paper's heaps in GiB (`heteroos-graphchi-6g`, `heteroos-metis-8g`), so
/// the machine and the reservations are its GB read as GiB.
pub fn scale_mib_per_gb() -> f64 {
    1024.0
}

/// `gb` of the paper's, scaled, in whole MiB.
pub fn scaled_mib(gb: f64) -> u64 {
    (gb * scale_mib_per_gb()).round() as u64
}
