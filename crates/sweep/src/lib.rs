//! Sweeps: a grid of runs named by a spec, each run a *cell* with a stable
//! id, its report kept in a directory so that an interrupted sweep goes on
//! where it stopped, and one table of every cell.
//!
//! A spec is TOML (or the same keys from Python):
//!
//! ```toml
//! name = "thermostat-sensitivity"
//! seeds = [1]                  # one cell per seed; default [1]
//! memory_gib = 2               # optional: what each cell asks a scheduler for
//! duration_s = 60              # optional cap on every run
//! [grid]                       # every combination is a cell
//! workload = ["redis-hotspot", "tpcc"]
//! manager = ["thermostat"]
//! "thermostat.slowdown" = [0.03, 0.06, 0.1]
//! [set]                        # the same for every cell
//! "metrics.window_s" = 5.0
//! ```
//!
//! Runs that are not a grid are listed instead, each an array entry
//! (`[[runs]]`) of the keys it sets; they follow the grid's cells, and a
//! reproduction's runs are such a list (`thermocline_reproductions::reproduce::sweep_spec`).
//!
//! A grid, run or set key is a configuration key as `--set` takes it
//! (`thermostat.slowdown`, `machine.llc.bytes`); `workload`, `manager`,
//! `machine`, `fast_capacity`, `backend` and `duration_s` stand for their
//! `run.` keys. A cell's id is a hash of every key it sets (the grid's,
//! the run's and the shared ones, in key order) and its seed, the same on
//! every machine: it names the run, not where in a sweep it sits, so the
//! same run has the same id in every sweep and every reproduction.
//!
//! The directory holds `cells/ID.json` (the cell's parameters, the code
//! that ran it and its report; written whole, then renamed into place) and
//! `table.csv` (one row per cell, in grid order). A cell whose file is
//! there, for the same parameters and code, is not run again.
#![deny(missing_docs)]

pub mod host_memory;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thermocline_engine::config::{self, line_of};
use thermocline_engine::error::{ConfigError, RunError};
use thermocline_engine::report::Report;
use thermocline_engine::runner;

/// Keys that stand for `run.KEY`.
const RUN_KEYS: &[&str] = &[
    "workload",
    "manager",
    "machine",
    "fast_capacity",
    "backend",
    "duration_s",
];

/// A sweep spec: see the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSpec {
    /// A name for the table and progress lines.
    pub name: String,
    /// One cell per seed for each grid point.
    pub seeds: Vec<u64>,
    /// The grid: key and its values, as TOML values.
    pub grid: BTreeMap<String, Vec<toml::Value>>,
    /// Runs listed one by one, after the grid's: each the keys it sets.
    pub runs: Vec<BTreeMap<String, toml::Value>>,
    /// Overrides every cell shares.
    pub set: BTreeMap<String, toml::Value>,
    /// The host memory each cell asks a scheduler for (`memory_gib`), in
    /// place of its estimate ([`crate::host_memory`]).
    pub memory_bytes: Option<u64>,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// Stable id: a hash of `sets`.
    pub id: String,
    /// What sets it apart from the sweep's other cells: its grid or run
    /// values (key, value as TOML text), in key order.
    pub params: Vec<(String, String)>,
    /// Its seed.
    pub seed: u64,
    /// Its whole configuration as `--set` overrides, in key order, the
    /// seed last: the shared keys and `params`.
    pub sets: Vec<String>,
}

/// A cell as stored: what ran and what it gave.
#[derive(Serialize, Deserialize)]
struct Stored {
    id: String,
    params: Vec<(String, String)>,
    seed: u64,
    sets: Vec<String>,
    /// The code that ran it (a commit, or a package version).
    code: String,
    report: Report,
}

/// What a sweep did: its cells' reports in grid order, and how many were
/// read back rather than run.
#[derive(Debug)]
pub struct SweepOutcome {
    /// Each cell and its report, in grid order.
    pub cells: Vec<(Cell, Report)>,
    /// Cells whose stored report was used.
    pub resumed: usize,
}

impl SweepSpec {
    /// Reads a spec from TOML `text` (`file` names it in errors).
    pub fn parse(file: &str, text: &str) -> Result<Self, ConfigError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            located(
                file,
                text,
                e.span().map(|s| s.start),
                e.message().to_string(),
            )
        })?;
        Self::from_table(table)
            .map_err(|(key, msg)| located(file, text, key.and_then(|k| text.find(&k)), msg))
    }

    /// Reads a spec from a TOML table (Python hands a dict as one). An
    /// error names the key it is about, where there is one.
    pub fn from_table(mut t: toml::Table) -> Result<Self, (Option<String>, String)> {
        let err = |k: &str, m: String| (Some(k.to_string()), m);
        let name = match t.remove("name") {
            None => "sweep".to_string(),
            Some(toml::Value::String(s)) => s,
            Some(_) => return Err(err("name", "name: a string".into())),
        };
        let seeds = match t.remove("seeds") {
            None => vec![1],
            Some(toml::Value::Array(a)) if !a.is_empty() => a
                .iter()
                .map(|v| match v {
                    toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
                    _ => Err(err("seeds", "seeds: whole numbers, at least 0".into())),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(err("seeds", "seeds: a non-empty list".into())),
        };
        let memory_bytes = match t.remove("memory_gib") {
            None => None,
            Some(v) => match v.as_float().or(v.as_integer().map(|i| i as f64)) {
                Some(g) if g.is_finite() && g > 0.0 => Some((g * f64::from(1u32 << 30)) as u64),
                _ => {
                    return Err(err(
                        "memory_gib",
                        "memory_gib: a positive number of GiB".into(),
                    ))
                }
            },
        };
        let mut set = BTreeMap::new();
        if let Some(d) = t.remove("duration_s") {
            set.insert("run.duration_s".to_string(), d);
        }
        match t.remove("set") {
            None => {}
            Some(toml::Value::Table(s)) => {
                for (k, v) in s {
                    set.insert(full_key(&k), v);
                }
            }
            Some(_) => return Err(err("set", "[set]: a table of key = value".into())),
        }
        let mut grid = BTreeMap::new();
        match t.remove("grid") {
            None => {}
            Some(toml::Value::Table(g)) => {
                for (k, v) in g {
                    match v {
                        toml::Value::Array(a) if !a.is_empty() => {
                            if set.contains_key(&full_key(&k)) {
                                return Err(err(&k, format!("{k}: both in [grid] and in [set]")));
                            }
                            grid.insert(full_key(&k), a);
                        }
                        _ => return Err(err(&k, format!("{k}: a non-empty list of values"))),
                    }
                }
            }
            Some(_) => return Err(err("grid", "[grid]: a table of key = [values]".into())),
        }
        let mut runs = Vec::new();
        match t.remove("runs") {
            None => {}
            Some(toml::Value::Array(a)) => {
                for entry in a {
                    let toml::Value::Table(entry) = entry else {
                        return Err(err("runs", "runs: a list of tables ([[runs]])".into()));
                    };
                    let mut run = BTreeMap::new();
                    for (k, v) in entry {
                        if set.contains_key(&full_key(&k)) {
                            return Err(err(
                                &k,
                                format!("{k}: both in a [[runs]] entry and in [set]"),
                            ));
                        }
                        run.insert(full_key(&k), v);
                    }
                    runs.push(run);
                }
            }
            Some(_) => return Err(err("runs", "runs: a list of tables ([[runs]])".into())),
        }
        if grid.is_empty() && runs.is_empty() {
            return Err((
                Some("grid".into()),
                "[grid] (a table of key = [values]) or [[runs]] (a table per run): at least one run"
                    .into(),
            ));
        }
        if let Some(k) = t.keys().next() {
            return Err(err(
                k,
                format!("{k}: not a sweep key (name, seeds, duration_s, memory_gib, [grid], [[runs]], [set])"),
            ));
        }
        let spec = SweepSpec {
            name,
            seeds,
            grid,
            runs,
            set,
            memory_bytes,
        };
        let keys = spec.param_keys();
        if let Some(k) = keys
            .iter()
            .chain(spec.set.keys())
            .find(|k| *k == "run.seed" || *k == "seed")
        {
            return Err(err(
                k.trim_start_matches("run."),
                "seed: set by seeds = [...], one cell per seed".into(),
            ));
        }
        // Two cells of one run would be one file written twice.
        let mut seen = BTreeMap::new();
        for (i, cell) in spec.cells().iter().enumerate() {
            if let Some(first) = seen.insert(cell.id.clone(), i) {
                return Err((
                    Some("runs".into()),
                    format!(
                        "cells {} and {} are the same run ({}): list each run once",
                        first + 1,
                        i + 1,
                        cell.sets.join(" ")
                    ),
                ));
            }
        }
        Ok(spec)
    }

    /// Every cell, in order: the grid's (the keys' values varying last
    /// key fastest), then the listed runs', each for every seed in turn.
    pub fn cells(&self) -> Vec<Cell> {
        let mut points: Vec<Vec<(String, String)>> = Vec::new();
        if !self.grid.is_empty() {
            points.push(Vec::new());
            for (k, values) in &self.grid {
                points = points
                    .into_iter()
                    .flat_map(|p| {
                        values.iter().map(move |v| {
                            let mut p = p.clone();
                            p.push((k.clone(), v.to_string()));
                            p
                        })
                    })
                    .collect();
            }
        }
        points.extend(self.runs.iter().map(|run| {
            run.iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect()
        }));
        points
            .into_iter()
            .flat_map(|params| {
                self.seeds
                    .iter()
                    .map(move |&seed| self.cell(params.clone(), seed))
            })
            .collect()
    }

    /// The cell of `params` (its own keys) and `seed`.
    fn cell(&self, params: Vec<(String, String)>, seed: u64) -> Cell {
        let mut all: BTreeMap<&str, String> = self
            .set
            .iter()
            .map(|(k, v)| (k.as_str(), v.to_string()))
            .collect();
        all.extend(params.iter().map(|(k, v)| (k.as_str(), v.clone())));
        let mut sets: Vec<String> = all.iter().map(|(k, v)| format!("{k}={v}")).collect();
        sets.push(format!("run.seed={seed}"));
        Cell {
            id: format!("{:016x}", fnv1a(sets.join("\n").as_bytes())),
            params,
            seed,
            sets,
        }
    }

    /// The spec as TOML that [`SweepSpec::parse`] reads back the same
    /// (what `reproduce --cache DIR` leaves in `DIR/spec.toml`).
    pub fn to_toml(&self) -> String {
        let mut t = toml::Table::new();
        t.insert("name".into(), toml::Value::String(self.name.clone()));
        t.insert(
            "seeds".into(),
            toml::Value::Array(
                self.seeds
                    .iter()
                    .map(|&s| toml::Value::Integer(s as i64))
                    .collect(),
            ),
        );
        if let Some(b) = self.memory_bytes {
            t.insert(
                "memory_gib".into(),
                toml::Value::Float(b as f64 / f64::from(1u32 << 30)),
            );
        }
        if !self.set.is_empty() {
            t.insert(
                "set".into(),
                toml::Value::Table(self.set.clone().into_iter().collect()),
            );
        }
        if !self.grid.is_empty() {
            let grid = self
                .grid
                .iter()
                .map(|(k, v)| (k.clone(), toml::Value::Array(v.clone())))
                .collect();
            t.insert("grid".into(), toml::Value::Table(grid));
        }
        if !self.runs.is_empty() {
            let runs = self
                .runs
                .iter()
                .map(|r| toml::Value::Table(r.clone().into_iter().collect()))
                .collect();
            t.insert("runs".into(), toml::Value::Array(runs));
        }
        toml::to_string(&t).expect("a table of TOML values serialises")
    }

    /// The host memory `cell` asks a scheduler for: the spec's
    /// `memory_gib`, else the run's estimate ([`crate::host_memory`]).
    pub fn memory_bytes(&self, cell: &Cell) -> Result<u64, RunError> {
        match self.memory_bytes {
            Some(b) => Ok(b),
            None => crate::host_memory::estimate_bytes(&config::load(None, &cell.sets)?),
        }
    }

    /// Every key a cell's `params` may hold, the grid's and the runs', in
    /// key order: the table's parameter columns.
    pub fn param_keys(&self) -> Vec<String> {
        let mut keys: std::collections::BTreeSet<&String> = self.grid.keys().collect();
        keys.extend(self.runs.iter().flat_map(|r| r.keys()));
        keys.into_iter().cloned().collect()
    }

    /// Checks every cell's configuration and manager, and each workload's
    /// setup once, before anything runs. With the spec's `source` (file,
    /// text), an error names the file and the line of the value at fault.
    pub fn check(&self, source: Option<(&str, &str)>) -> Result<(), RunError> {
        let mut set_up = std::collections::BTreeSet::new();
        for cell in self.cells() {
            let checked = config::load(None, &cell.sets)
                .map_err(RunError::from)
                .and_then(|cfg| {
                    thermocline_engine::compare::check_manager(&cfg)?;
                    if set_up.insert((cfg.run.workload.clone(), cfg.run.machine.clone())) {
                        thermocline_engine::setup::setup(&cfg)?;
                    }
                    Ok(())
                });
            if let Err(e) = checked {
                let Some((file, text)) = source else {
                    return Err(e);
                };
                // a cell's values are the spec's lines, not `--set`s
                let msg = match e {
                    RunError::Config(ConfigError::Set { msg, .. }) => msg,
                    e => e.to_string(),
                };
                let values = cell.params.iter().map(|(_, v)| v.trim_matches('"'));
                let at = values
                    .filter(|v| msg.contains(v))
                    .find_map(|v| text.find(v));
                let params: Vec<String> = cell
                    .params
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                let msg = format!("cell {}: {msg}", params.join(" "));
                return Err(located(file, text, at, msg).into());
            }
        }
        Ok(())
    }
}

/// An error in the spec `file` (of `text`), at the line of byte `at`
/// where there is one.
fn located(file: &str, text: &str, at: Option<usize>, msg: String) -> ConfigError {
    match at {
        Some(at) => ConfigError::AtLine {
            file: file.to_string(),
            line: line_of(text, at),
            msg,
        },
        None => ConfigError::InFile {
            file: file.to_string(),
            msg,
        },
    }
}

/// `run.KEY` for the short keys.
fn full_key(k: &str) -> String {
    if RUN_KEYS.contains(&k) {
        format!("run.{k}")
    } else {
        k.to_string()
    }
}

/// 64-bit FNV-1a: the same id on every machine and Rust version.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Runs one cell: its report.
pub fn run_cell(cell: &Cell) -> Result<Report, RunError> {
    run_cell_stoppable(cell, &|| false)
}

/// [`run_cell`], asking `stop` after each look at the clock.
fn run_cell_stoppable(cell: &Cell, stop: &dyn Fn() -> bool) -> Result<Report, RunError> {
    let cfg = config::load(None, &cell.sets)?;
    runner::run_stoppable(&cfg, &mut |_, _| {}, &mut |_| {}, stop)
}

/// The stored form of a cell's report: the bytes `cells/ID.json` holds,
/// whoever ran it (a local thread or a remote worker).
pub fn cell_json(cell: &Cell, code: &str, report: &Report) -> String {
    let stored = Stored {
        id: cell.id.clone(),
        params: cell.params.clone(),
        seed: cell.seed,
        sets: cell.sets.clone(),
        code: code.to_string(),
        report: report.clone(),
    };
    let mut s = serde_json::to_string_pretty(&stored).expect("reports serialise");
    s.push('\n');
    s
}

/// A sweep's directory.
pub struct SweepDir {
    dir: PathBuf,
}

impl SweepDir {
    /// `dir`, with its `cells` folder created.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self, RunError> {
        let dir = dir.into();
        let cells = dir.join("cells");
        std::fs::create_dir_all(&cells).map_err(|e| output(&cells, e))?;
        Ok(SweepDir { dir })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    fn cell_path(&self, cell: &Cell) -> PathBuf {
        self.dir.join("cells").join(format!("{}.json", cell.id))
    }

    /// The stored report of `cell` if it was made by `code` for the same
    /// configuration; an unreadable or foreign file is a miss.
    pub fn load(&self, cell: &Cell, code: &str) -> Option<Report> {
        let text = std::fs::read_to_string(self.cell_path(cell)).ok()?;
        let s: Stored = serde_json::from_str(&text).ok()?;
        (s.id == cell.id && s.sets == cell.sets && s.code == code).then_some(s.report)
    }

    /// Every cell's stored report made by `code`, in order; else the
    /// index of the first cell without one.
    pub fn load_all(&self, cells: &[Cell], code: &str) -> Result<Vec<Report>, usize> {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| self.load(c, code).ok_or(i))
            .collect()
    }

    /// Stores `json` ([`cell_json`]) as `cell`'s file: written whole, then
    /// renamed into place, so an interruption leaves no half file.
    pub fn store(&self, cell: &Cell, json: &str) -> Result<(), RunError> {
        let path = self.cell_path(cell);
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json).map_err(|e| output(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| output(&path, e))
    }

    /// Writes `table.csv` and returns its path.
    pub fn write_table(
        &self,
        spec: &SweepSpec,
        cells: &[(Cell, Report)],
    ) -> Result<PathBuf, RunError> {
        let path = self.dir.join("table.csv");
        std::fs::write(&path, table_csv(spec, cells)).map_err(|e| output(&path, e))?;
        Ok(path)
    }
}

fn output(path: &Path, e: std::io::Error) -> RunError {
    RunError::Output {
        path: path.display().to_string(),
        msg: e.to_string(),
    }
}

/// The table's columns after the cell's id, seed and grid keys.
const COLUMNS: &[&str] = &[
    "workload",
    "manager",
    "machine",
    "backend",
    "slowdown",
    "sim_time_s",
    "fast_gib_s",
    "slow_access_share",
    "migrated_bytes",
    "manager_cpu_util",
    "mean_recall",
    "mean_precision",
];

/// One row per cell: id, seed, each parameter key's value, then
/// [`COLUMNS`].
pub fn table_csv(spec: &SweepSpec, cells: &[(Cell, Report)]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head = vec!["id".to_string(), "seed".to_string()];
    let keys = spec.param_keys();
    head.extend(keys.iter().cloned());
    head.extend(COLUMNS.iter().map(|c| c.to_string()));
    w.write_record(&head).expect("in memory");
    for (cell, r) in cells {
        let mut row = vec![cell.id.clone(), cell.seed.to_string()];
        // TOML strings lose their quotes in the table; a key the cell
        // does not set is empty
        row.extend(keys.iter().map(|k| {
            cell.params
                .iter()
                .find(|(pk, _)| pk == k)
                .map_or(String::new(), |(_, v)| v.trim_matches('"').to_string())
        }));
        let (fast, all) = r
            .tiers
            .iter()
            .enumerate()
            .fold((0u64, 0u64), |(f, a), (i, t)| {
                let n = t.reads + t.writes;
                (if i == 0 { f + n } else { f }, a + n)
            });
        let fast_gib_s = r.tiers.first().map_or(0.0, |t| {
            t.avg_resident_bytes / f64::from(1u32 << 30) * r.sim_time_s
        });
        let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
        row.extend([
            r.workload.clone(),
            r.manager.clone(),
            r.machine.clone(),
            r.backend.clone(),
            r.slowdown.to_string(),
            r.sim_time_s.to_string(),
            fast_gib_s.to_string(),
            (if all == 0 {
                0.0
            } else {
                (all - fast) as f64 / all as f64
            })
            .to_string(),
            r.migrations.bytes.to_string(),
            r.manager_cpu_util.to_string(),
            opt(r.mean_recall),
            opt(r.mean_precision),
        ]);
        w.write_record(&row).expect("in memory");
    }
    String::from_utf8(w.into_inner().expect("in memory")).expect("utf-8 in, utf-8 out")
}

/// Checks the spec ([`SweepSpec::check`], with its `source` if it came
/// from a file), then runs every cell not already stored in `dir` by
/// `code`, on `jobs` threads, storing each as it finishes;
/// `done(i, cell, resumed)` is called as each cell is settled. Writes the
/// table at the end. `stop` is asked after each look at a run's clock: a
/// stopped sweep keeps the cells it finished, for the next to resume.
/// Without a `dir`, every cell runs and nothing is written.
pub fn run_local(
    spec: &SweepSpec,
    source: Option<(&str, &str)>,
    dir: Option<&SweepDir>,
    code: &str,
    jobs: usize,
    done: &(dyn Fn(usize, &Cell, bool) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<SweepOutcome, RunError> {
    spec.check(source)?;
    let cells = spec.cells();
    let resumed = std::sync::atomic::AtomicUsize::new(0);
    let reports = thermocline_engine::parallel::map_in_order(
        cells.len(),
        jobs,
        |i| {
            let cell = &cells[i];
            if let Some(r) = dir.and_then(|d| d.load(cell, code)) {
                resumed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                done(i, cell, true);
                return Ok(r);
            }
            let r = run_cell_stoppable(cell, stop)?;
            if let Some(d) = dir {
                d.store(cell, &cell_json(cell, code, &r))?;
            }
            done(i, cell, false);
            Ok::<_, RunError>(r)
        },
        |_, _| {},
    )?;
    let cells: Vec<(Cell, Report)> = cells.into_iter().zip(reports).collect();
    if let Some(d) = dir {
        d.write_table(spec, &cells)?;
    }
    Ok(SweepOutcome {
        cells,
        resumed: resumed.into_inner(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
name = "t"
seeds = [1, 2]
duration_s = 0.05
[grid]
manager = ["first-touch", "all-slow"]
fast_capacity = ["25%", "50%"]
[set]
"metrics.window_s" = 0.01
"#;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("thermocline-sweep-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn cells_are_the_grid_times_the_seeds_with_stable_distinct_ids() {
        let spec = SweepSpec::parse("s.toml", SPEC).unwrap();
        let cells = spec.cells();
        assert_eq!(cells.len(), 8);
        let ids: std::collections::BTreeSet<&str> = cells.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), 8, "ids are distinct");
        // The id names the run, not the sweep around it: the same keys
        // listed as a run, or split between a run and [set], give it.
        let listed = SweepSpec::parse(
            "s.toml",
            r#"
seeds = [2]
[[runs]]
manager = "first-touch"
[[runs]]
manager = "all-slow"
fast_capacity = "50%"
duration_s = 0.05
"metrics.window_s" = 0.01
"#,
        )
        .unwrap();
        let shared = SweepSpec::parse(
            "s.toml",
            "seeds = [2]\nduration_s = 0.05\n[[runs]]\nmanager = \"all-slow\"\nfast_capacity = \"50%\"\n[set]\n\"metrics.window_s\" = 0.01\n",
        )
        .unwrap();
        let same = cells
            .iter()
            .find(|c| {
                c.seed == 2
                    && c.params.iter().any(|p| p.1 == "\"all-slow\"")
                    && c.params.iter().any(|p| p.1 == "\"50%\"")
            })
            .unwrap();
        assert_eq!(listed.cells()[1].id, same.id);
        assert_eq!(shared.cells()[0].id, same.id);
        assert_eq!(
            listed.cells()[1].params.len(),
            4,
            "a run's params are all its keys"
        );
        assert_ne!(listed.cells()[0].id, same.id);
        assert_eq!(
            cells[0].sets,
            vec![
                "metrics.window_s=0.01",
                "run.duration_s=0.05",
                "run.fast_capacity=\"25%\"",
                "run.manager=\"first-touch\"",
                "run.seed=1"
            ]
        );
    }

    #[test]
    fn a_spec_reads_back_from_its_toml() {
        let mut spec = SweepSpec::parse("s.toml", SPEC).unwrap();
        let mut run = BTreeMap::new();
        run.insert(
            "run.manager".into(),
            toml::Value::String("thermostat".into()),
        );
        run.insert("thermostat.slowdown".into(), toml::Value::Float(0.1));
        spec.runs.push(run);
        spec.memory_bytes = Some(3 << 29);
        let text = spec.to_toml();
        let back = SweepSpec::parse("spec.toml", &text).unwrap();
        assert_eq!(back, spec, "{text}");
        assert_eq!(back.cells(), spec.cells());
        assert_eq!(spec.cells().len(), 10);
    }

    #[test]
    fn bad_specs_name_their_line() {
        for (text, line, what) in [
            ("[grid]\nmanager = \"first-touch\"\n", 2, "non-empty list"),
            (
                "bogus = 3\n[grid]\nmanager = [\"a\"]\n",
                1,
                "not a sweep key",
            ),
            (
                "[grid]\nmanager = [\"a\"]\nbogus = 3\n",
                3,
                "non-empty list",
            ),
            (
                "seeds = [-1]\n[grid]\nmanager = [\"a\"]\n",
                1,
                "whole numbers",
            ),
            ("[grid\n", 1, ""),
            ("[[runs]]\nseed = 3\n", 2, "seeds = [...]"),
            (
                "[[runs]]\nmanager = \"a\"\n[[runs]]\nmanager = \"a\"\n",
                1,
                "cells 1 and 2 are the same run",
            ),
            (
                "duration_s = 1\n[[runs]]\nduration_s = 2\n",
                1,
                "both in a [[runs]] entry and in [set]",
            ),
        ] {
            match SweepSpec::parse("s.toml", text) {
                Err(ConfigError::AtLine { file, line: l, msg }) => {
                    assert_eq!((file.as_str(), l), ("s.toml", line), "{text}: {msg}");
                    assert!(msg.contains(what), "{msg}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        match SweepSpec::parse("s.toml", "name = \"x\"\n") {
            Err(ConfigError::InFile { msg, .. }) => assert!(msg.contains("at least one run")),
            other => panic!("a spec without runs: {other:?}"),
        }
        let text = "[grid]\nfast_capacity = [\"50%\"]\nmanager = [\"first-touch\", \"no-such\"]\n";
        let spec = SweepSpec::parse("s.toml", text).unwrap();
        let e = spec.check(Some(("s.toml", text))).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "s.toml:3: cell run.fast_capacity=\"50%\" run.manager=\"no-such\": unknown manager"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_sweep_resumes_and_gives_the_same_bytes_whatever_the_jobs() {
        let spec = SweepSpec::parse("s.toml", SPEC).unwrap();
        let d = dir("resume");
        let sd = SweepDir::open(&d).unwrap();
        let first = run_local(&spec, None, Some(&sd), "c1", 2, &|_, _, _| {}, &|| false).unwrap();
        assert_eq!(first.resumed, 0);
        let table = std::fs::read_to_string(d.join("table.csv")).unwrap();
        assert_eq!(table.lines().count(), 9, "{table}");
        assert!(
            table.starts_with("id,seed,run.fast_capacity,run.manager,workload,"),
            "{table}"
        );
        let files = |d: &Path| {
            let mut v: Vec<(String, String)> = std::fs::read_dir(d.join("cells"))
                .unwrap()
                .map(|e| {
                    let p = e.unwrap().path();
                    (
                        p.file_name().unwrap().to_string_lossy().into_owned(),
                        std::fs::read_to_string(&p).unwrap(),
                    )
                })
                .collect();
            v.sort();
            v
        };
        let before = files(&d);
        // One cell lost, as a killed sweep would lose it: only it runs again.
        std::fs::remove_file(
            d.join("cells")
                .join(format!("{}.json", first.cells[3].0.id)),
        )
        .unwrap();
        let again = run_local(&spec, None, Some(&sd), "c1", 1, &|_, _, _| {}, &|| false).unwrap();
        assert_eq!(again.resumed, 7);
        assert_eq!(files(&d), before, "byte-identical whatever ran it");
        assert_eq!(std::fs::read_to_string(d.join("table.csv")).unwrap(), table);
        // Another code: nothing is reused.
        let other = run_local(&spec, None, Some(&sd), "c2", 2, &|_, _, _| {}, &|| false).unwrap();
        assert_eq!(other.resumed, 0);
    }
}
