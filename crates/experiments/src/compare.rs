//! `thermocline compare`: one workload under several managers, run in
//! parallel, every name checked before anything runs.

use crate::config::RunConfig;
use crate::error::{ConfigError, RunError};
use crate::report::Report;
use crate::{parallel, runner, setup, validate};
use thermocline_managers::registry;

/// One configuration per manager: `base` with `run.manager` set.
pub fn configs(base: &RunConfig, managers: &[String]) -> Vec<RunConfig> {
    managers
        .iter()
        .map(|m| {
            let mut cfg = base.clone();
            cfg.run.manager = m.clone();
            cfg
        })
        .collect()
}

/// Checks what can be checked before a run: every manager is known, can run
/// on a simulated machine, accepts its parameters and its machine; the
/// first run's workload, machine and capacities resolve (they are the same
/// for every run but a manager's default fast capacity). A name that is
/// wrong is found before any run has taken time.
pub fn preflight(cfgs: &[RunConfig]) -> Result<(), RunError> {
    let mut seen = std::collections::BTreeSet::new();
    for cfg in cfgs {
        let name = &cfg.run.manager;
        if !seen.insert(name.as_str()) {
            return Err(ConfigError::invalid("managers", format!("{name} is named twice")).into());
        }
        if !registry::exists(name) {
            return Err(ConfigError::UnknownName {
                kind: "manager",
                name: name.clone(),
                listing: "list",
            }
            .into());
        }
        if registry::LIVE_ONLY.contains(&name.as_str()) {
            return Err(ConfigError::invalid(
                "managers",
                format!("{name} acts only on a live host (thermocline daemon or exec); compare runs simulated machines"),
            )
            .into());
        }
        let manager = registry::build(name, cfg.manager_params(name), cfg.run.seed)
            .map_err(|e| validate::manager_error(cfg, name, e))?;
        setup::resolve_machine(cfg.run.machine.as_deref(), manager.as_ref())?;
    }
    if let Some(first) = cfgs.first() {
        setup::setup(first)?;
    }
    Ok(())
}

/// A finished run, for progress lines.
pub struct Finished<'a> {
    /// Its index in the configurations.
    pub index: usize,
    /// Its report.
    pub report: &'a Report,
}

/// Runs every configuration on `jobs` threads and returns the reports in
/// the configurations' order, byte for byte the same whatever `jobs` is.
/// `warn(manager, line)` gets each configuration warning before its run,
/// `done` each run as it finishes.
pub fn run_all(
    cfgs: &[RunConfig],
    jobs: usize,
    warn: &(dyn Fn(&str, &str) + Sync),
    started: &(dyn Fn(usize) + Sync),
    done: &(dyn Fn(Finished<'_>) + Sync),
) -> Result<Vec<Report>, RunError> {
    parallel::map_in_order(
        cfgs.len(),
        jobs,
        |i| {
            started(i);
            let cfg = &cfgs[i];
            runner::run_warned(cfg, &mut |_, _| {}, &mut |w| warn(&cfg.run.manager, w))
        },
        |index, report| done(Finished { index, report }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;

    fn base() -> RunConfig {
        config::load(None, &["run.duration_s=0.02".into()]).unwrap()
    }

    #[test]
    fn an_unknown_manager_is_found_before_anything_runs() {
        let names = ["first-touch".to_string(), "no-such-manager".to_string()];
        let e = preflight(&configs(&base(), &names)).unwrap_err();
        assert!(e.to_string().contains("no-such-manager"), "{e}");
    }

    #[test]
    fn a_live_only_manager_and_a_repeated_name_are_refused() {
        let live = ["kernel-tiering".to_string()];
        let e = preflight(&configs(&base(), &live)).unwrap_err();
        assert!(e.to_string().contains("live host"), "{e}");
        let twice = ["random".to_string(), "random".to_string()];
        let e = preflight(&configs(&base(), &twice)).unwrap_err();
        assert!(e.to_string().contains("named twice"), "{e}");
    }

    #[test]
    fn reports_are_the_same_whatever_the_number_of_jobs() {
        let names: Vec<String> = ["first-touch", "ambix", "damon-tiering", "kstaled"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let cfgs = configs(&base(), &names);
        preflight(&cfgs).unwrap();
        let json = |jobs| {
            run_all(&cfgs, jobs, &|_, _| {}, &|_| {}, &|_| {})
                .unwrap()
                .iter()
                .map(Report::to_json)
                .collect::<String>()
        };
        assert_eq!(json(1), json(3));
    }
}
