//! Everything a user can name, in one place for the command line: workloads,
//! managers, machines and reproductions, each with a one-line description.
//! The CLI lists and validates names through this module only, so it never
//! reaches past the crates above the engine into the ones below.

/// A name a user can give, and what it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named {
    /// The name, as given on the command line.
    pub name: &'static str,
    /// One line for `thermocline list`.
    pub description: &'static str,
}

/// Workload presets (besides MASIM config paths, `lackey:PATH` and `trace:PATH`).
pub fn workloads() -> Vec<Named> {
    thermocline_workloads::presets::PRESETS
        .iter()
        .map(|p| Named {
            name: p.name,
            description: p.description,
        })
        .collect()
}

/// The managers `compare` runs when none are named: every one a simulated
/// machine can run (not the live-only ones), in the registry's order.
pub fn simulated_managers() -> Vec<Named> {
    managers()
        .into_iter()
        .filter(|m| !thermocline_managers::registry::LIVE_ONLY.contains(&m.name))
        .collect()
}

/// The main job's workload: `compare` with neither a workload nor a
/// configuration file.
pub const MAIN_JOB_WORKLOAD: &str = "multiphase-2min";
/// The main job's machine backend: the rate machine runs the 2-minute
/// workload in seconds per manager.
pub const MAIN_JOB_BACKEND: &str = "rate";
/// The main job's fast tier, the same for every manager.
pub const MAIN_JOB_FAST_CAPACITY: &str = "50%";

/// Managers the main job leaves out, and why (printed under its table).
pub const MAIN_JOB_LEFT_OUT: &[(&str, &str)] = &[
    (
        "all-fast",
        "the slowdown reference: every row's slowdown is against it",
    ),
    (
        "damon-moderate",
        "telemetry alone: damon-tiering acts on it",
    ),
    (
        "damon-aggressive",
        "telemetry alone: damon-tiering acts on damon-moderate",
    ),
    (
        "damon-paddr",
        "telemetry alone, and the rate machine's frames are not physical",
    ),
    (
        "linear-scan-aggressive",
        "telemetry alone: linear-scan-tiering acts on linear-scan-moderate",
    ),
    (
        "linear-scan-moderate",
        "telemetry alone: linear-scan-tiering acts on it",
    ),
    (
        "linear-scan-conservative",
        "telemetry alone: linear-scan-tiering acts on linear-scan-moderate",
    ),
    ("pebs-5khz", "telemetry alone: pebs-tiering acts on it"),
    (
        "pebs-10khz",
        "telemetry alone: pebs-tiering acts on pebs-5khz",
    ),
    (
        "telescope-bounded",
        "telemetry alone: telescope-tiering acts on it",
    ),
    (
        "telescope-flex",
        "telemetry alone: telescope-tiering acts on telescope-bounded",
    ),
];

/// The managers of the main job: every simulated one that acts by itself
/// (telemetry techniques through their `*-tiering` schemes), the costliest
/// first so that parallel runs end together.
pub fn main_job_managers() -> Vec<Named> {
    let mut ms: Vec<Named> = simulated_managers()
        .into_iter()
        .filter(|m| !MAIN_JOB_LEFT_OUT.iter().any(|(n, _)| *n == m.name))
        .collect();
    ms.sort_by_key(|m| !MAIN_JOB_COSTLY.contains(&m.name));
    ms
}

/// The main job's managers that take the most wall time on its workload
/// (measured with `compare --verbose --jobs 1`), started first.
const MAIN_JOB_COSTLY: &[&str] = &[
    "linear-scan-tiering",
    "heteroos-coordinated",
    "heteroos-vmm-exclusive",
    "heteroos-vms",
];

/// Managers, in the order `compare` runs them.
pub fn managers() -> Vec<Named> {
    thermocline_managers::registry::MANAGERS
        .iter()
        .map(|m| Named {
            name: m.name,
            description: m.description,
        })
        .collect()
}

/// Machine presets; the first is the default.
pub fn machines() -> Vec<Named> {
    thermocline_model::MACHINE_PRESETS
        .iter()
        .map(|m| Named {
            name: m.name,
            description: m.description,
        })
        .collect()
}

/// Reproductions, in the papers' order.
pub fn reproductions() -> Vec<Named> {
    crate::reproduce::all()
        .iter()
        .map(|r| Named {
            name: r.name,
            description: r.description,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_described() {
        for list in [workloads(), managers(), machines(), reproductions()] {
            assert!(!list.is_empty());
            let mut names: Vec<_> = list.iter().map(|n| n.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), list.len(), "duplicate names");
            assert!(list.iter().all(|n| !n.description.trim().is_empty()));
        }
        assert_eq!(machines()[0].name, thermocline_engine::DEFAULT_MACHINE);
    }

    /// What `compare` runs when no manager is named must run on a simulated
    /// machine: a fraction of a second of the default workload under each.
    #[test]
    fn every_manager_compare_runs_by_default_runs_on_the_simulator() {
        for m in simulated_managers() {
            let mut cfg = thermocline_engine::config::load(None, &[]).unwrap();
            cfg.run.manager = m.name.to_string();
            cfg.run.duration_s = Some(0.05);
            if let Err(e) = thermocline_engine::runner::run(&cfg, &mut |_, _| {}) {
                panic!("{}: {e}", m.name);
            }
        }
        assert!(!simulated_managers()
            .iter()
            .any(|m| thermocline_managers::registry::LIVE_ONLY.contains(&m.name)));
    }
}
