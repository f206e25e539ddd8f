//! `thermocline reproduce NAME...`: regenerate a paper's key figures and
//! tables from scratch.
//!
//! A reproduction names the runs it needs and turns their reports into a
//! JSON summary, a text table and SVG charts. The runs of the reproductions
//! asked for together are one sweep ([`sweep_spec`]: a listed run per
//! distinct run), made by the sweep machinery: on worker threads here, or
//! cell by cell on a Ray cluster (`reproduce --ray`), kept in a sweep
//! directory that an interrupted reproduction resumes from. Each run is
//! deterministic, so the output depends neither on the thread count nor on
//! where a cell ran.

use crate::claims::{self, Verdict};
use crate::seed_free;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use thermocline_engine::config;
use thermocline_engine::error::{ConfigError, RunError};
use thermocline_sweep::{self as sweep, SweepDir, SweepSpec};

pub use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};

/// Every reproduction.
pub fn all() -> Vec<Reproduction> {
    let mut all = crate::thermostat::reproductions();
    all.extend(crate::ambix::reproductions());
    all.extend(crate::telescope::reproductions());
    all.extend(crate::memos::reproductions());
    all.extend(crate::heteroos::reproductions());
    all.extend(crate::live::reproductions());
    all.extend(crate::schemes::reproductions());
    all
}

/// Looks up reproductions by name.
pub fn find(names: &[String]) -> Result<Vec<Reproduction>, RunError> {
    let mut all = all();
    let mut out = Vec::new();
    for n in names {
        let i = all
            .iter()
            .position(|r| r.name == n)
            .ok_or_else(|| ConfigError::UnknownName {
                kind: "reproduction",
                name: n.clone(),
                listing: "reproduce --list",
            })?;
        out.push(all.swap_remove(i));
    }
    Ok(out)
}

/// The runs `specs` as a sweep spec named `name`: one listed run per
/// distinct run, at the options' seed and duration cap; and the cell of
/// each spec, in order (two specs that set the same keys share one).
pub fn sweep_spec(
    name: &str,
    specs: &[RunSpec],
    o: &Options,
) -> Result<(SweepSpec, Vec<sweep::Cell>), RunError> {
    let mut set = BTreeMap::new();
    if let Some(d) = o.duration_s {
        set.insert("run.duration_s".to_string(), toml::Value::Float(d));
    }
    let mut spec = SweepSpec {
        name: name.to_string(),
        seeds: vec![o.seed],
        grid: BTreeMap::new(),
        runs: Vec::new(),
        set,
        memory_bytes: None,
    };
    for s in specs {
        let mut run = BTreeMap::new();
        run.insert(
            "run.workload".into(),
            toml::Value::String(s.workload.clone()),
        );
        run.insert("run.manager".into(), toml::Value::String(s.manager.clone()));
        // applied in order: a later set of a key wins, as with --set
        for set in &s.sets {
            let (key, value) = config::parse_set(set)?;
            run.insert(key, value);
        }
        spec.runs.push(run);
    }
    let all = spec.cells();
    let mut seen = std::collections::BTreeSet::new();
    let mut runs = Vec::new();
    for (run, cell) in spec.runs.iter().zip(&all) {
        if seen.insert(cell.id.clone()) {
            runs.push(run.clone());
        }
    }
    spec.runs = runs;
    Ok((spec, all))
}

/// The runs `specs` as the sweeps that make them: one per seed they run at
/// ([`seed_free::seed_of`]: the options' seed, or [`seed_free::SEED_FREE_SEED`]
/// for a run that no seed changes), seed-free first; and each spec's cell, in
/// order.
pub fn sweep_specs(
    name: &str,
    specs: &[RunSpec],
    o: &Options,
) -> Result<(Vec<SweepSpec>, Vec<sweep::Cell>), RunError> {
    let seeds: Vec<u64> = specs
        .iter()
        .map(|s| seed_free::seed_of(s, o.seed))
        .collect();
    let mut distinct = seeds.clone();
    distinct.sort_by_key(|&s| (s != seed_free::SEED_FREE_SEED, s));
    distinct.dedup();
    let mut sweeps = Vec::new();
    let mut cells: Vec<Option<sweep::Cell>> = vec![None; specs.len()];
    for seed in distinct {
        let at = Options { seed, ..o.clone() };
        let (idx, group): (Vec<usize>, Vec<RunSpec>) = specs
            .iter()
            .enumerate()
            .filter(|(i, _)| seeds[*i] == seed)
            .map(|(i, s)| (i, s.clone()))
            .unzip();
        let (spec, group_cells) = sweep_spec(name, &group, &at)?;
        for (i, c) in idx.into_iter().zip(group_cells) {
            cells[i] = Some(c);
        }
        sweeps.push(spec);
    }
    Ok((sweeps, cells.into_iter().flatten().collect()))
}

/// Where a run's report came from, for progress lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Run now.
    Ran,
    /// Read from the sweep directory (`--cache`).
    Cache,
}

/// Reports each finished run: `(done, total, spec, source)`.
pub type Progress<'a> = &'a (dyn Fn(usize, usize, &RunSpec, Source) + Sync);

/// Runs every spec as a cell of one sweep on `jobs` threads, taking the
/// reports `dir` holds for the code named beside it instead of running
/// them and storing the new ones as they finish; `progress` after each.
pub fn run_specs(
    specs: &[RunSpec],
    o: &Options,
    jobs: usize,
    dir: Option<(&SweepDir, &str)>,
    progress: Progress<'_>,
) -> Result<Results, RunError> {
    let (sweeps, cells) = sweep_specs("reproduce", specs, o)?;
    // each cell's first spec names it in progress lines
    let mut named: BTreeMap<&str, &RunSpec> = BTreeMap::new();
    for (s, c) in specs.iter().zip(&cells) {
        named.entry(c.id.as_str()).or_insert(s);
    }
    let total: usize = sweeps.iter().map(|s| s.cells().len()).sum();
    let finished = AtomicUsize::new(0);
    let mut reports = BTreeMap::new();
    for spec in &sweeps {
        let outcome = sweep::run_local(
            spec,
            None,
            dir.map(|(d, _)| d),
            dir.map_or("", |(_, code)| code),
            jobs,
            &|_, cell, resumed| {
                let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                let source = if resumed { Source::Cache } else { Source::Ran };
                progress(n, total, named[cell.id.as_str()], source);
            },
            &|| false,
        )?;
        reports.extend(outcome.cells.into_iter().map(|(c, r)| (c.id, r)));
    }
    Ok(specs
        .iter()
        .zip(&cells)
        .map(|(s, c)| (s.clone(), reports[&c.id].clone()))
        .collect())
}

/// What one reproduction produced and how its claims fared.
#[derive(Clone, Debug)]
pub struct Reproduced {
    /// The reproduction's name.
    pub name: &'static str,
    /// Its summary, table and charts.
    pub output: Output,
    /// Its claims, checked against the summary.
    pub verdicts: Vec<Verdict>,
}

/// Summarizes one reproduction from the runs' reports and checks its
/// claims against the summary.
pub fn summarize(r: &Reproduction, o: &Options, results: &Results) -> Reproduced {
    let output = (r.summarize)(o, results);
    let verdicts = claims::check_all(&(r.claims)(), &output.json);
    Reproduced {
        name: r.name,
        output,
        verdicts,
    }
}

/// The union of the reproductions' runs, each once, in order.
pub fn runs_of(repros: &[Reproduction], o: &Options) -> Vec<RunSpec> {
    let mut specs: Vec<RunSpec> = repros.iter().flat_map(|r| (r.runs)(o)).collect();
    specs.sort();
    specs.dedup();
    specs
}

/// Runs the union of the reproductions' runs (those `dir` does not hold),
/// then summarizes each and checks its claims.
pub fn reproduce(
    repros: &[Reproduction],
    o: &Options,
    jobs: usize,
    dir: Option<(&SweepDir, &str)>,
    progress: Progress<'_>,
) -> Result<Vec<Reproduced>, RunError> {
    let results = run_specs(&runs_of(repros, o), o, jobs, dir, progress)?;
    Ok(repros.iter().map(|r| summarize(r, o, &results)).collect())
}

/// [`reproduce`] on each of `seeds` in turn (`o`'s own seed aside), a
/// seed-free run made once and its report given to every seed
/// ([`seed_free`]); each seed's reproductions, for [`merge_seeds`].
pub fn reproduce_seeds(
    repros: &[Reproduction],
    o: &Options,
    seeds: &[u64],
    jobs: usize,
    dir: Option<(&SweepDir, &str)>,
    progress: &(dyn Fn(u64, usize, usize, &RunSpec, Source) + Sync),
) -> Result<Vec<(u64, Vec<Reproduced>)>, RunError> {
    let mut seed_free_runs = Results::new();
    let mut per_seed = Vec::new();
    for &seed in seeds {
        let at = Options { seed, ..o.clone() };
        let specs = runs_of(repros, &at);
        let to_run: Vec<RunSpec> = specs
            .iter()
            .filter(|s| !seed_free_runs.contains_key(*s))
            .cloned()
            .collect();
        let mut results = run_specs(&to_run, &at, jobs, dir, &|done, total, spec, source| {
            progress(seed, done, total, spec, source)
        })?;
        for (spec, report) in &results {
            if seed_free::is_seed_free(spec) {
                seed_free_runs.insert(spec.clone(), report.clone());
            }
        }
        results.extend(
            specs
                .iter()
                .filter_map(|s| Some((s.clone(), seed_free_runs.get(s)?.clone()))),
        );
        per_seed.push((
            seed,
            repros.iter().map(|r| summarize(r, &at, &results)).collect(),
        ));
    }
    Ok(per_seed)
}

/// The reproductions of several seeds (in seed order, each the same
/// reproductions in the same order) as one: the first seed's output, each
/// claim's verdict merged over the seeds ([`claims::merge_seeds`]). One
/// seed gives its reproductions unchanged.
pub fn merge_seeds(mut per_seed: Vec<(u64, Vec<Reproduced>)>) -> Vec<Reproduced> {
    if per_seed.len() <= 1 {
        return per_seed.pop().map(|(_, d)| d).unwrap_or_default();
    }
    let mut merged = per_seed[0].1.clone();
    for (i, m) in merged.iter_mut().enumerate() {
        m.verdicts = (0..m.verdicts.len())
            .map(|j| {
                let of_seeds: Vec<(u64, &Verdict)> = per_seed
                    .iter()
                    .filter_map(|(seed, d)| d.get(i)?.verdicts.get(j).map(|v| (*seed, v)))
                    .collect();
                claims::merge_seeds(&of_seeds)
            })
            .collect();
        if let Some(obj) = m.output.json.as_object_mut() {
            let seeds: Vec<u64> = per_seed.iter().map(|(s, _)| *s).collect();
            obj.insert("seeds".into(), serde_json::json!(seeds));
        }
    }
    merged
}

/// Summarizes the reproductions from the reports a sweep directory holds,
/// made by `code` (after their cells ran elsewhere: `reproduce --ray`).
/// Every run must be there.
pub fn reproduce_from(
    repros: &[Reproduction],
    o: &Options,
    dir: &SweepDir,
    code: &str,
) -> Result<Vec<Reproduced>, RunError> {
    let specs = runs_of(repros, o);
    let (_, cells) = sweep_specs("reproduce", &specs, o)?;
    let reports = dir.load_all(&cells, code).map_err(|i| {
        ConfigError::invalid(
            "reproduce",
            format!(
                "the run of {} on {} (cell {}) is not in {} for code {code}",
                specs[i].manager,
                specs[i].workload,
                cells[i].id,
                dir.path().display()
            ),
        )
    })?;
    let results: Results = specs.into_iter().zip(reports).collect();
    Ok(repros.iter().map(|r| summarize(r, o, &results)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_engine::report::{Report, TierReport, Window};
    use thermocline_workloads::PhaseMark;

    /// A report with every figure the summarizers read: two tiers, one
    /// phase, scored windows, the managers' gauges.
    fn fixture(spec: &RunSpec) -> Report {
        let tier = |reads| TierReport {
            name: "t".into(),
            reads,
            writes: reads / 2,
            energy_j: 1.0,
            lifetime_years: Some(1.0),
            ..Default::default()
        };
        let window = |t_s: f64| Window {
            t_s,
            resident_bytes: vec![3 << 30, 1 << 30],
            accesses_per_s: 1e6,
            slow_tier_faults_per_s: 1e4,
            precision: Some(0.5),
            recall: Some(0.5),
            manager: [
                ("cold_huge_bytes", 1e9),
                ("cold_base_bytes", 1e8),
                ("cpu_cycles_count", 1e9),
                ("bits_flipped_count", 1e3),
                ("dram_wd_pages", 1e3),
                ("dram_rd_pages", 1e3),
                ("nvm_wd_pages", 1e2),
                ("nvm_rd_pages", 1e2),
                ("nvm_cold_pages", 1e4),
                ("vm0_slow_quota_pages", 1e6),
                ("vm1_slow_quota_pages", 1e6),
                ("ballooned_pages_count", 1e3),
                ("dma_moved_pages_count", 1e3),
                ("dma_aborted_pages_count", 10.0),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            ..Default::default()
        };
        Report {
            workload: spec.workload.clone(),
            manager: spec.manager.clone(),
            sim_time_s: 400.0,
            accesses: 4_000_000_000,
            slowdown: 0.01,
            mean_precision: Some(0.5),
            mean_recall: Some(0.5),
            tiers: vec![tier(3_000_000), tier(1_000_000)],
            phases: vec![PhaseMark {
                name: "phase 1".into(),
                first_access: 0,
            }],
            phase_starts_s: vec![0.0],
            windows: (1..=400).map(|t| window(f64::from(t))).collect(),
            // Where each region ended, when a reproduction asks for it.
            regions: if spec.sets.iter().any(|s| s == "metrics.region_tiers=true") {
                ["hot", "cold"]
                    .iter()
                    .map(|n| thermocline_engine::report::RegionTiers {
                        name: n.to_string(),
                        bytes: 4 << 20,
                        pages: vec![512, 512],
                        elsewhere: 0,
                    })
                    .collect()
            } else {
                Vec::new()
            },
            // A mix's parts are its tenants.
            tenants: thermocline_workloads::mix::components(&spec.workload)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(k, w)| thermocline_engine::report::TenantReport {
                    workload: w.to_string(),
                    asid: k as u16,
                    memory_bound_slowdown: 0.5,
                    slow_access_share: 0.2,
                    ..Default::default()
                })
                .collect(),
            // DAMON's regions per aggregation, when a reproduction asks.
            damon: spec
                .sets
                .iter()
                .any(|s| s == "metrics.damon_regions=true")
                .then(|| crate::live::damon::fixture_trace(&spec.workload)),
            time_breakdown: Some(thermocline_engine::report::TimeBreakdown {
                compute_s: 200.0,
                memory_s: 150.0,
                sampling_s: 30.0,
                monitor_shootdown_s: 10.0,
                migration_shootdown_s: 10.0,
                monitor_cpu_s: 5.0,
                migration_cpu_s: 5.0,
            }),
            migrations: thermocline_engine::report::MigrationTotals {
                promoted_pages: 1000,
                demoted_pages: 500,
                bytes: 1500 * 4096,
            },
            ..Default::default()
        }
    }

    /// A reproduction's run as a sweep cell (its keys in key order) loads
    /// the configuration its overrides give in the order it lists them,
    /// for every run of every reproduction: the cell runs what the
    /// reproduction asked for.
    #[test]
    fn every_run_as_a_cell_has_the_configuration_of_its_overrides() {
        for o in [
            Options {
                duration_s: None,
                seed: 1,
            },
            Options {
                duration_s: Some(2.5),
                seed: 7,
            },
        ] {
            let specs = runs_of(&all(), &o);
            let (_, cells) = sweep_spec("all", &specs, &o).unwrap();
            for (spec, cell) in specs.iter().zip(&cells) {
                let mut sets = vec![
                    format!(
                        "run.workload={}",
                        toml::Value::String(spec.workload.clone())
                    ),
                    format!("run.manager={}", toml::Value::String(spec.manager.clone())),
                    format!("run.seed={}", o.seed),
                ];
                if let Some(d) = o.duration_s {
                    sets.push(format!("run.duration_s={d}"));
                }
                sets.extend(spec.sets.iter().cloned());
                let mut want = config::load(None, &sets).unwrap();
                let mut got = config::load(None, &cell.sets).unwrap();
                want.origin = Default::default();
                got.origin = Default::default();
                assert_eq!(got, want, "{spec:?}");
            }
        }
    }

    /// Every claim of every reproduction finds its numbers in the summary:
    /// none is "not measured". This pins the JSON paths the claims read to
    /// the summaries the reproductions write.
    #[test]
    fn every_claim_is_measured_from_its_reproductions_summary() {
        let o = Options {
            duration_s: None,
            seed: 1,
        };
        let mut ids = std::collections::BTreeSet::new();
        for r in all() {
            let res: Results = (r.runs)(&o)
                .into_iter()
                .map(|s| {
                    let rep = fixture(&s);
                    (s, rep)
                })
                .collect();
            let done = summarize(&r, &o, &res);
            assert!(!done.verdicts.is_empty(), "{} has no claims", r.name);
            for v in &done.verdicts {
                assert!(
                    v.id.starts_with(&format!("{}/", r.name)),
                    "{} is not named after {}",
                    v.id,
                    r.name
                );
                assert!(ids.insert(v.id.clone()), "{} twice", v.id);
                // A place the summary has but the fixture leaves empty (no
                // DMA copy, no bank imbalance) is a path found: what the
                // test pins. A path the summary lacks is not.
                let why = v.reason.as_deref().unwrap_or("");
                let empty = why.starts_with("not measured: the run has nothing to measure");
                assert!(!why.starts_with("not measured") || empty, "{}: {why}", v.id);
                assert!(!v.values.is_empty() || empty, "{}", v.id);
            }
        }
    }
}
