//! Everything a user can name, in one place for the command line: workloads,
//! managers, machines and reproductions, each with a one-line description.
//! The CLI lists and validates names through this module only, so it never
//! reaches past `experiments` into the crates below.

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
        assert_eq!(machines()[0].name, crate::DEFAULT_MACHINE);
    }

    /// What `compare` runs when no manager is named must run on a simulated
    /// machine: a fraction of a second of the default workload under each.
    #[test]
    fn every_manager_compare_runs_by_default_runs_on_the_simulator() {
        for m in simulated_managers() {
            let mut cfg = crate::config::load(None, &[]).unwrap();
            cfg.run.manager = m.name.to_string();
            cfg.run.duration_s = Some(0.05);
            if let Err(e) = crate::runner::run(&cfg, &mut |_, _| {}) {
                panic!("{}: {e}", m.name);
            }
        }
        assert!(!simulated_managers()
            .iter()
            .any(|m| thermocline_managers::registry::LIVE_ONLY.contains(&m.name)));
    }
}
