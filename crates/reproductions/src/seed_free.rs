//! Runs whose report cannot depend on the seed: a workload that draws no
//! random number under a manager that draws none. Over `--seeds 1,2,3` such
//! a run is made once, at [`SEED_FREE_SEED`], and its report serves every
//! seed: the other seeds would repeat it byte for byte
//! (`tests/seed_free.rs` checks it), and the executed NPB kernels of
//! `ambix-npb` are most of a regeneration's CPU time (docs/claims.md,
//! "Seeds").
//!
//! Where a seed enters a run: the workload's generator
//! ([`thermocline_workloads::presets::WorkloadOptions`]' `seed`), the
//! manager's own draws (the registry hands a builder the run's seed), and
//! the exact machine's two draws, PEBS-like sampling (asked for by
//! Telescope's PEBS manager only) and the `random` policy's placement. The
//! rate machine draws its own streams, so only exact-machine workloads are
//! listed here.

use crate::reproduction::RunSpec;

/// The seed a seed-free run is made at, whatever the seeds asked for.
pub const SEED_FREE_SEED: u64 = 1;

/// Managers that draw no random number: their registry builders ignore the
/// run's seed, they hold no random stream, and none asks the machine for
/// sampling or random placement.
pub const SEED_FREE_MANAGERS: &[&str] = &[
    "all-fast",
    "all-slow",
    "first-touch",
    "interleave",
    "adm-default",
    "memory-mode",
    "ambix",
    "autonuma-tiering",
    "memos-placement",
    "kstaled",
];

/// NPB's kernels executed (ports of the NPB 3.4 sources, not the
/// `-sketch-` models): a program's own loops over its own data, generated
/// by NPB's fixed-seed `randlc` where it needs any.
const NPB_KERNELS: [&str; 4] = ["bt", "ft", "mg", "cg"];
const NPB_SIZES: [&str; 3] = ["small", "medium", "large"];

/// Whether `workload` is a preset that draws no random number.
pub fn seed_free_workload(workload: &str) -> bool {
    workload
        .strip_prefix("npb-")
        .and_then(|rest| rest.split_once('-'))
        .is_some_and(|(kernel, size)| NPB_KERNELS.contains(&kernel) && NPB_SIZES.contains(&size))
}

/// Whether `spec`'s report is the same on every seed; a set of the seed
/// itself, of a workload option or of the backend keeps it seeded.
pub fn is_seed_free(spec: &RunSpec) -> bool {
    seed_free_workload(&spec.workload)
        && SEED_FREE_MANAGERS.contains(&spec.manager.as_str())
        && spec.sets.iter().all(|s| {
            !(s.starts_with("run.seed")
                || s.starts_with("workload.")
                || s.starts_with("run.backend"))
        })
}

/// The seed `spec` runs at when `seed` is asked for.
pub fn seed_of(spec: &RunSpec, seed: u64) -> u64 {
    if is_seed_free(spec) {
        SEED_FREE_SEED
    } else {
        seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_executed_npb_kernels_are_seed_free_workloads() {
        for w in [
            "npb-bt-small",
            "npb-cg-large",
            "npb-mg-medium",
            "npb-ft-small",
        ] {
            assert!(seed_free_workload(w), "{w}");
        }
        for w in [
            "npb-bt-sketch-small",
            "npb-mg",
            "npb-xx-small",
            "zipf-1g",
            "multiphase",
        ] {
            assert!(!seed_free_workload(w), "{w}");
        }
    }

    #[test]
    fn a_seeded_manager_or_a_workload_set_keeps_a_run_seeded() {
        let free = RunSpec::new("npb-mg-small", "ambix", &["run.machine=dram+dcpmm-ambix"]);
        assert!(is_seed_free(&free));
        assert_eq!(seed_of(&free, 3), SEED_FREE_SEED);
        assert!(!is_seed_free(&RunSpec::new("npb-mg-small", "memos", &[])));
        assert!(!is_seed_free(&RunSpec::new("npb-mg-small", "random", &[])));
        assert!(!is_seed_free(&RunSpec::new("zipf-1g", "ambix", &[])));
        let set = RunSpec::new("npb-mg-small", "ambix", &["workload.access_rate=1e6"]);
        assert!(!is_seed_free(&set));
        assert_eq!(seed_of(&set, 3), 3);
    }
}
