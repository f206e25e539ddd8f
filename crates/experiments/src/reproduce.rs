//! `thermocline reproduce NAME...`: regenerate a paper's key figures and
//! tables from scratch.
//!
//! A reproduction names the runs it needs and turns their reports into a
//! JSON summary, a text table and SVG charts. Runs are shared between the
//! reproductions asked for together and spread over worker threads; each run
//! is deterministic, so the output does not depend on the thread count.

use crate::claims::{self, Verdict};
use crate::config::{self, RunConfig};
use crate::error::{ConfigError, RunError};
use crate::run_cache::RunCache;
use crate::runner;
use std::collections::BTreeMap;
use std::sync::Mutex;

pub use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};

/// Every reproduction.
pub fn all() -> Vec<Reproduction> {
    let mut all = crate::thermostat::reproductions();
    all.extend(crate::ambix::reproductions());
    all.extend(crate::telescope::reproductions());
    all.extend(crate::memos::reproductions());
    all.extend(crate::memos_eval::reproductions());
    all.extend(crate::memos_breakdown::reproductions());
    all.extend(crate::memos_steps::reproductions());
    all.extend(crate::heteroos::reproductions());
    all.extend(crate::heteroos_vmm::reproductions());
    all.extend(crate::heteroos_sensitivity::reproductions());
    all.extend(crate::heteroos_drf::reproductions());
    all.extend(crate::live_agreement::reproductions());
    all.extend(crate::live_damon::reproductions());
    all.extend(crate::schemes_tiering::reproductions());
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

/// The configuration of one run.
fn config_of(spec: &RunSpec, o: &Options) -> Result<RunConfig, RunError> {
    let mut sets = vec![
        format!("run.workload={}", toml_string(&spec.workload)),
        format!("run.manager={}", toml_string(&spec.manager)),
        format!("run.seed={}", o.seed),
    ];
    if let Some(d) = o.duration_s {
        sets.push(format!("run.duration_s={d}"));
    }
    sets.extend(spec.sets.iter().cloned());
    Ok(config::load(None, &sets)?)
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Where a run's report came from, for progress lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Run now.
    Ran,
    /// Read from the `--cache` directory.
    Cache,
}

/// Reports each finished run: `(done, total, spec, source)`.
pub type Progress<'a> = &'a (dyn Fn(usize, usize, &RunSpec, Source) + Sync);

/// Runs every spec on `jobs` threads, taking the reports `cache` holds
/// instead of running them and storing the new ones as they finish;
/// `progress` after each.
pub fn run_specs(
    specs: &[RunSpec],
    o: &Options,
    jobs: usize,
    cache: Option<&RunCache>,
    progress: Progress<'_>,
) -> Result<Results, RunError> {
    let configs = specs
        .iter()
        .map(|s| config_of(s, o))
        .collect::<Result<Vec<_>, _>>()?;
    let mut stored = BTreeMap::new();
    let mut todo = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        match cache.and_then(|c| c.load(spec, o)) {
            Some(r) => {
                stored.insert(spec.clone(), r);
                progress(stored.len(), specs.len(), spec, Source::Cache);
            }
            None => todo.push(i),
        }
    }
    let finished = Mutex::new(stored.len());
    let ran = crate::parallel::map_in_order(
        todo.len(),
        jobs,
        |k| {
            let i = todo[k];
            let r = runner::run(&configs[i], &mut |_, _| {})?;
            cache.map_or(Ok(()), |c| c.store(&specs[i], o, &r))?;
            Ok::<_, RunError>(r)
        },
        |k, _| {
            let mut n = finished.lock().unwrap_or_else(|e| e.into_inner());
            *n += 1;
            progress(*n, specs.len(), &specs[todo[k]], Source::Ran);
        },
    )?;
    for (k, r) in ran.into_iter().enumerate() {
        stored.insert(specs[todo[k]].clone(), r);
    }
    Ok(stored)
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

/// Runs the union of the reproductions' runs (those `cache` does not hold),
/// then summarizes each and checks its claims.
pub fn reproduce(
    repros: &[Reproduction],
    o: &Options,
    jobs: usize,
    cache: Option<&RunCache>,
    progress: Progress<'_>,
) -> Result<Vec<Reproduced>, RunError> {
    let mut specs: Vec<RunSpec> = repros.iter().flat_map(|r| (r.runs)(o)).collect();
    specs.sort();
    specs.dedup();
    let results = run_specs(&specs, o, jobs, cache, progress)?;
    Ok(repros.iter().map(|r| summarize(r, o, &results)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Report, TierReport, Window};
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
                    .map(|n| crate::report::RegionTiers {
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
                .map(|(k, w)| crate::report::TenantReport {
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
                .then(|| crate::live_damon::fixture_trace(&spec.workload)),
            time_breakdown: Some(crate::report::TimeBreakdown {
                compute_s: 200.0,
                memory_s: 150.0,
                sampling_s: 30.0,
                monitor_shootdown_s: 10.0,
                migration_shootdown_s: 10.0,
                monitor_cpu_s: 5.0,
                migration_cpu_s: 5.0,
            }),
            ..Default::default()
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
                let why = v.reason.as_deref().unwrap_or("");
                assert!(!why.starts_with("not measured"), "{}: {why}", v.id);
                assert!(!v.values.is_empty(), "{}", v.id);
            }
        }
    }
}
