//! `thermocline compare`: one workload under several managers, run in
//! parallel, every name checked before anything runs.

use crate::config::RunConfig;
use crate::error::{ConfigError, RunError};
use crate::parallel;
use crate::report::Report;
use crate::runner;
use crate::setup;
use crate::validate;
use thermocline_managers::registry;

/// One configuration per manager: `base` with `run.manager` set. A name
/// may carry its own fast-tier size as `name@size` (`kstaled@100%`); every
/// other row gets the same size: `base`'s, else the machine preset's, else
/// [`SHARED_FAST_CAPACITY`] -- never a manager's own default, so the rows
/// compare like with like.
pub fn configs(base: &RunConfig, managers: &[String]) -> Vec<RunConfig> {
    let shared = base
        .run
        .fast_capacity
        .clone()
        .unwrap_or_else(|| shared_fast_capacity(base.run.machine.as_deref()));
    managers
        .iter()
        .map(|m| {
            let mut cfg = base.clone();
            let (name, own) = split_size(m);
            cfg.run.manager = name.to_string();
            cfg.run.fast_capacity = Some(own.unwrap_or(&shared).to_string());
            cfg
        })
        .collect()
}

/// The fast tier every row of a comparison gets when nothing sets it.
pub const SHARED_FAST_CAPACITY: &str = "50%";

/// The fast-tier size rows get on `machine` when the configuration sets
/// none: the preset's own (a machine modelled at a paper's size), else
/// [`SHARED_FAST_CAPACITY`].
fn shared_fast_capacity(machine: Option<&str>) -> String {
    thermocline_model::machine_preset(machine.unwrap_or(setup::DEFAULT_MACHINE))
        .and_then(|p| p.fast_capacity)
        .map_or(SHARED_FAST_CAPACITY.to_string(), |b| format!("{b}"))
}

/// `name@size` as (name, size); a plain name has no size of its own.
pub fn split_size(entry: &str) -> (&str, Option<&str>) {
    match entry.split_once('@') {
        Some((name, size)) => (name.trim(), Some(size.trim())),
        None => (entry.trim(), None),
    }
}

/// What the header says of the rows' fast tiers, and a line per row whose
/// fast tier or machine differs from the most common: (header, marked rows
/// by manager, lines). Sizes are the reports' own, so what is said is what
/// ran.
pub fn tier_sizes(reports: &[Report]) -> (String, Vec<String>, Vec<String>) {
    let key = |r: &Report| {
        (
            r.tiers.first().map_or(0, |t| t.capacity_bytes),
            r.machine.clone(),
        )
    };
    let mut counts: Vec<((u64, String), usize)> = Vec::new();
    for r in reports {
        let k = key(r);
        match counts.iter_mut().find(|(c, _)| *c == k) {
            Some((_, n)) => *n += 1,
            None => counts.push((k, 1)),
        }
    }
    // the most common size, the first row's on a tie
    let Some(common) = counts
        .iter()
        .rev()
        .max_by_key(|(_, n)| *n)
        .map(|(k, _)| k.clone())
    else {
        return (String::new(), Vec::new(), Vec::new());
    };
    let size = |r: &Report| {
        let b = r.tiers.first().map_or(0, |t| t.capacity_bytes);
        let share = b as f64 * 100.0 / r.footprint_bytes.max(1) as f64;
        format!("{} ({share:.0}% of the footprint)", human_bytes(b))
    };
    let first = reports
        .iter()
        .find(|r| key(r) == common)
        .expect("the common size is some row's");
    let mut header = format!("fast tier {} on {}", size(first), common.1);
    let mut marked = Vec::new();
    let mut lines = Vec::new();
    for r in reports.iter().filter(|r| key(r) != common) {
        marked.push(r.manager.clone());
        lines.push(format!(
            "{} ran with fast tier {} on {}, the other rows {} on {}: not like for like",
            r.manager,
            size(r),
            r.machine,
            size(first),
            common.1
        ));
    }
    header += if marked.is_empty() {
        " for every row"
    } else {
        " for every row not marked *"
    };
    (header, marked, lines)
}

/// Bytes in the largest binary unit that keeps a whole number above 1.
fn human_bytes(b: u64) -> String {
    let units = [("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (name, shift) in units {
        if b >= 1 << shift {
            return format!("{:.2} {name}", b as f64 / (1u64 << shift) as f64);
        }
    }
    format!("{b} B")
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
        check_manager(cfg)?;
    }
    if let Some(first) = cfgs.first() {
        setup::setup(first)?;
    }
    Ok(())
}

/// Checks `cfg`'s manager: known, able to run on a simulated machine, and
/// accepting its parameters and its machine.
pub fn check_manager(cfg: &RunConfig) -> Result<(), RunError> {
    check_manager_unlocated(cfg).map_err(|e| validate::locate(cfg, e))
}

fn check_manager_unlocated(cfg: &RunConfig) -> Result<(), RunError> {
    let name = &cfg.run.manager;
    if let Some(size) = &cfg.run.fast_capacity {
        thermocline_vocab::CapacitySpec::parse(size).map_err(|e| {
            ConfigError::invalid("managers", format!("{name}'s fast capacity: {e}"))
        })?;
    }
    {
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
    run_all_stoppable(cfgs, jobs, warn, started, done, &|| false)
}

/// [`run_all`], every run asking `stop` after each look at its clock
/// ([`runner::run_stoppable`]); the first stopped run ends them all.
pub fn run_all_stoppable(
    cfgs: &[RunConfig],
    jobs: usize,
    warn: &(dyn Fn(&str, &str) + Sync),
    started: &(dyn Fn(usize) + Sync),
    done: &(dyn Fn(Finished<'_>) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<Report>, RunError> {
    parallel::map_in_order(
        cfgs.len(),
        jobs,
        |i| {
            started(i);
            let cfg = &cfgs[i];
            let mut warned = |w: &str| warn(&cfg.run.manager, w);
            runner::run_stoppable(cfg, &mut |_, _| {}, &mut warned, stop)
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

/// Why a row looks wrong, from the reports' own time breakdowns: a manager
/// that ended exactly as first-touch without being a fixed placement (the
/// registry's `fixed_placement`), a manager
/// that ran on another machine than the baselines (its slowdown is against
/// all-fast there), one slower than leaving everything in the slow tier
/// (all-slow), or one that migrates and still ends slower than
/// first-touch's placement. One line per such row; nothing when the
/// baselines are not in the table.
pub fn explanations(reports: &[Report]) -> Vec<String> {
    let find = |name: &str| reports.iter().find(|r| r.manager == name);
    let slow_share = |r: &Report| {
        let slow: u64 = r.tiers.iter().skip(1).map(|t| t.reads + t.writes).sum();
        let all: u64 = r.tiers.iter().map(|t| t.reads + t.writes).sum();
        slow as f64 * 100.0 / all.max(1) as f64
    };
    let memory = |r: &Report| r.time_breakdown.as_ref().map_or(0.0, |b| b.memory_s);
    let mut out = Vec::new();
    for r in reports {
        let Some(t) = &r.time_breakdown else {
            continue;
        };
        if let Some(line) = over_one_core(r, t) {
            out.push(line);
        }
        let overhead = t.sampling_s + t.monitor_shootdown_s + t.migration_shootdown_s;
        let costs = format!(
            "{:.2} s of monitoring faults and samples, {:.2} s of TLB shootdowns for monitoring, {:.2} s for migrations",
            t.sampling_s, t.monitor_shootdown_s, t.migration_shootdown_s
        );
        let baseline = find("first-touch").or_else(|| find("all-slow"));
        if let Some(base) = baseline.filter(|b| b.machine != r.machine) {
            out.push(format!(
                "{} ran on its own machine, {}, the baselines on {}: its slowdown is against all-fast on {} (memory time {:.2} s, {:.1}% of accesses to the slow tier), not comparable with the other rows",
                r.manager, r.machine, base.machine, r.machine, t.memory_s, slow_share(r)
            ));
            continue;
        }
        if let Some(base) = find("all-slow").filter(|b| b.manager != r.manager) {
            if r.sim_time_s > base.sim_time_s && overhead > 0.0 {
                let relation = if t.memory_s < memory(base) {
                    "although its memory time is"
                } else {
                    "with a memory time of"
                };
                out.push(format!(
                    "{} is slower than all-slow ({:.3} s against {:.3} s) {relation} {:.2} s against {:.2} s: its monitoring and moving cost {costs}",
                    r.manager, r.sim_time_s, base.sim_time_s, t.memory_s, memory(base)
                ));
                continue;
            }
        }
        if let Some(base) = find("first-touch").filter(|b| b.manager != r.manager) {
            if r.migrations.bytes == 0
                && !registry::traits(&r.manager).fixed_placement
                && r.sim_time_s == base.sim_time_s
                && r.tiers == base.tiers
            {
                out.push(format!(
                    "{} ended exactly as first-touch: it placed every page where first-touch did and moved none",
                    r.manager
                ));
                continue;
            }
            if r.migrations.bytes > 0 && r.sim_time_s > base.sim_time_s {
                let (mine, theirs) = (t.memory_s, memory(base));
                let moved = r.migrations.bytes as f64 / 1e6;
                let why = if mine > theirs * 1.001 {
                    format!(
                        "its placement serves more from the slow tiers ({:.1}% of accesses against first-touch's {:.1}%; memory time {mine:.2} s against {theirs:.2} s)",
                        slow_share(r),
                        slow_share(base),
                    )
                } else if mine < theirs * 0.999 {
                    format!("its placement saves memory time ({mine:.2} s against {theirs:.2} s) but its monitoring and moving cost more: {costs}")
                } else {
                    format!("it moved {moved:.1} MB, too little to change the memory time ({mine:.2} s against {theirs:.2} s), and its monitoring and moving cost {costs}")
                };
                out.push(format!(
                    "{} migrates and is still slower than first-touch ({:.3} s against {:.3} s): {why}",
                    r.manager, r.sim_time_s, base.sim_time_s
                ));
            }
        }
    }
    out.extend(identical_rows(reports, &out));
    out
}

/// Why two managers that are not the same can end the same, by pair.
const SAME_FOR_A_REASON: &[(&str, &str, &str)] = &[
    (
        "interleave",
        "random",
        "on the rate machine a page's home is a share of each tier, not a draw: random at its fast_probability of 0.5 and interleave over two tiers both put half of every region in each tier",
    ),
    (
        "heteroos-coordinated",
        "heteroos-vms",
        "heteroos-vms runs heteroos-coordinated in each VM and divides the machine among the VMs by weighted DRF; one workload is one VM, whose share is the whole machine",
    ),
    (
        "first-touch",
        "heteroos-heap-io-slab-od",
        "HeteroOS's on-demand placement of heap, I/O and slab pages puts a new page of every type it covers in the fast tier while it has room, as first-touch does, and nothing moves",
    ),
    (
        "adm-default",
        "heteroos-heap-io-slab-od",
        "both put a new page in the fast tier while it has room (ADM's default policy; HeteroOS's on-demand placement of heap, I/O and slab pages), and nothing moves",
    ),
    (
        "adm-default",
        "first-touch",
        "ADM's default policy is first-touch's: a new page goes to the fast tier while it has room, and nothing moves",
    ),
];

/// A line for each pair of rows that are the same to the last access
/// (every tier's reads and writes, bytes migrated, and the simulated time
/// to the millisecond the table prints) and
/// that no earlier line (`said`) explains: a reader otherwise takes them
/// for a copy-paste mistake.
fn identical_rows(reports: &[Report], said: &[String]) -> Vec<String> {
    // the same accesses to every tier and the same time as the table prints
    // it (a sum taken in another order differs in its last bits)
    let accesses = |r: &Report| {
        r.tiers
            .iter()
            .map(|t| (t.reads, t.writes))
            .collect::<Vec<_>>()
    };
    let same = |a: &Report, b: &Report| {
        (a.sim_time_s - b.sim_time_s).abs() < 5e-4
            && accesses(a) == accesses(b)
            && a.migrations.bytes == b.migrations.bytes
            && a.machine == b.machine
    };
    let explained = |m: &str| {
        said.iter()
            .any(|l| l.starts_with(&format!("{m} ended exactly as")))
    };
    let mut out = Vec::new();
    for (i, a) in reports.iter().enumerate() {
        for b in &reports[i + 1..] {
            if !same(a, b) || explained(&a.manager) || explained(&b.manager) {
                continue;
            }
            let (x, y) = if a.manager <= b.manager {
                (a.manager.as_str(), b.manager.as_str())
            } else {
                (b.manager.as_str(), a.manager.as_str())
            };
            let why = SAME_FOR_A_REASON
                .iter()
                .find(|(p, q, _)| (*p, *q) == (x, y))
                .map_or_else(
                    || {
                        if a.migrations.bytes == 0 {
                            "neither moved a page, and both placed every page where the other did when it was first touched".to_string()
                        } else {
                            "they placed and moved the same pages on this workload".to_string()
                        }
                    },
                    |(_, _, why)| why.to_string(),
                );
            out.push(format!("{x} and {y} give the same row: {why}"));
        }
    }
    out
}

/// A line for a manager whose own CPU time exceeds one core: what it was
/// for, and that the application does not pay for it on a simulated
/// machine (docs/costs.md, the cost ledger).
fn over_one_core(r: &Report, t: &crate::report::TimeBreakdown) -> Option<String> {
    if r.manager_cpu_util <= 1.0 {
        return None;
    }
    Some(format!(
        "{} used {:.0}% of a core ({:.2} s monitoring, {:.2} s migrating in {:.2} s simulated): a manager runs on cores of its own here, so none of it slows the application; on a machine without {} spare cores it would (docs/costs.md)",
        r.manager,
        r.manager_cpu_util * 100.0,
        t.monitor_cpu_s,
        t.migration_cpu_s,
        r.sim_time_s,
        r.manager_cpu_util.ceil() as u64
    ))
}

#[cfg(test)]
mod explanation_tests {
    use super::*;
    use crate::report::{TierReport, TimeBreakdown};

    fn report(
        manager: &str,
        sim: f64,
        memory: f64,
        shootdowns: f64,
        moved: u64,
        slow_reads: u64,
    ) -> Report {
        let mut r = Report {
            manager: manager.into(),
            sim_time_s: sim,
            ..Report::default()
        };
        r.migrations.bytes = moved;
        r.tiers = vec![
            TierReport {
                reads: 100 - slow_reads,
                ..TierReport::default()
            },
            TierReport {
                reads: slow_reads,
                ..TierReport::default()
            },
        ];
        r.time_breakdown = Some(TimeBreakdown {
            memory_s: memory,
            monitor_shootdown_s: shootdowns,
            ..TimeBreakdown::default()
        });
        r
    }

    #[test]
    fn rows_slower_than_their_baselines_are_explained_by_their_own_times() {
        let reports = vec![
            report("first-touch", 10.0, 3.5, 0.0, 0, 50),
            report("all-slow", 10.7, 4.3, 0.0, 0, 100),
            report("autonuma-tiering", 11.3, 3.5, 1.2, 1 << 20, 50),
            report("memos-placement", 10.1, 3.6, 0.0, 1 << 20, 64),
            report("ambix", 9.8, 3.0, 0.1, 1 << 20, 20),
        ];
        let e = explanations(&reports);
        assert_eq!(e.len(), 2, "{e:#?}");
        assert!(
            e[0].starts_with("autonuma-tiering is slower than all-slow")
                && e[0].contains("1.20 s of TLB shootdowns"),
            "{}",
            e[0]
        );
        assert!(
            e[1].starts_with("memos-placement migrates and is still slower than first-touch")
                && e[1].contains("64.0% of accesses"),
            "{}",
            e[1]
        );
        assert!(
            explanations(&reports[2..]).is_empty(),
            "no baselines, nothing to explain against"
        );
    }

    #[test]
    fn identical_rows_say_why_and_different_ones_say_nothing() {
        let mut reports = vec![
            report("random", 10.0, 3.5, 0.0, 0, 50),
            report("interleave", 10.0, 3.5, 0.0, 0, 50),
            report("heteroos-vms", 9.0, 3.0, 0.0, 1 << 20, 30),
            report("heteroos-coordinated", 9.0, 3.0, 0.0, 1 << 20, 30),
            report("kstaled", 9.5, 3.2, 0.0, 1 << 20, 30),
            report("pebs-tiering", 9.5, 3.2, 0.0, 1 << 20, 30),
            report("damon-tiering", 9.7, 3.2, 0.0, 1 << 20, 30),
        ];
        let e = explanations(&reports);
        assert_eq!(e.len(), 3, "{e:#?}");
        assert!(
            e[0].starts_with("interleave and random give the same row: on the rate machine"),
            "{}",
            e[0]
        );
        assert!(
            e[1].starts_with(
                "heteroos-coordinated and heteroos-vms give the same row: heteroos-vms runs"
            ),
            "{}",
            e[1]
        );
        assert!(
            e[2].starts_with("kstaled and pebs-tiering give the same row: they placed and moved"),
            "{}",
            e[2]
        );
        // one access apart is not the same row
        reports[1].tiers[1].reads += 1;
        assert_eq!(explanations(&reports).len(), 2);
    }

    #[test]
    fn a_manager_over_one_core_says_what_for() {
        let mut busy = report("heteroos-coordinated", 9.0, 3.0, 0.0, 1 << 20, 30);
        busy.manager_cpu_util = 9.2;
        if let Some(t) = busy.time_breakdown.as_mut() {
            t.monitor_cpu_s = 80.0;
            t.migration_cpu_s = 12.0;
        }
        let mut idle = report("first-touch", 10.0, 3.5, 0.0, 0, 50);
        idle.manager_cpu_util = 1.0;
        let e = explanations(&[idle, busy]);
        assert_eq!(e.len(), 1, "{e:#?}");
        assert!(
            e[0].starts_with(
                "heteroos-coordinated used 920% of a core (80.00 s monitoring, 12.00 s migrating"
            ) && e[0].contains("without 10 spare cores"),
            "{}",
            e[0]
        );
    }

    #[test]
    fn a_row_on_another_machine_or_ending_as_first_touch_is_named() {
        let mut own = report("thermostat-badgertrap", 40.0, 30.0, 0.0, 1 << 20, 40);
        own.machine = "dram+badgertrap".into();
        let mut reports = vec![
            report("first-touch", 10.0, 3.5, 0.0, 0, 50),
            report("adm-default", 10.0, 3.5, 0.0, 0, 50),
            report("heteroos-heap-io-slab-od", 10.0, 3.5, 0.0, 0, 50),
            own,
        ];
        for r in &mut reports[..3] {
            r.machine = "dram+dcpmm".into();
        }
        let e = explanations(&reports);
        assert_eq!(e.len(), 3, "{e:#?}");
        assert!(
            e[0].starts_with("heteroos-heap-io-slab-od ended exactly as first-touch"),
            "{}",
            e[0]
        );
        assert!(
            e[1].starts_with("thermostat-badgertrap ran on its own machine, dram+badgertrap"),
            "{}",
            e[1]
        );
        assert!(
            e[2].starts_with("adm-default and first-touch give the same row: ADM's default"),
            "{}",
            e[2]
        );
    }
}
