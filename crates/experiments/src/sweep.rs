//! Sweeps: a grid of runs named by a spec, each run a *cell* with a stable
//! id, its report kept in a directory so that an interrupted sweep goes on
//! where it stopped, and one table of every cell.
//!
//! A spec is TOML (or the same keys from Python):
//!
//! ```toml
//! name = "thermostat-sensitivity"
//! seeds = [1]                  # one cell per seed; default [1]
//! duration_s = 60              # optional cap on every run
//! [grid]                       # every combination is a cell
//! workload = ["redis-hotspot", "tpcc"]
//! manager = ["thermostat"]
//! "thermostat.slowdown" = [0.03, 0.06, 0.1]
//! [set]                        # the same for every cell
//! "metrics.window_s" = 5.0
//! ```
//!
//! A grid or set key is a configuration key as `--set` takes it
//! (`thermostat.slowdown`, `machine.llc.bytes`); `workload`, `manager`,
//! `machine`, `fast_capacity`, `backend` and `duration_s` stand for their
//! `run.` keys. A cell's id is a hash of its canonical parameters and seed
//! (the same on every machine), so it names the same run wherever and
//! whenever it is made.
//!
//! The directory holds `cells/ID.json` (the cell's parameters, the code
//! that ran it and its report; written whole, then renamed into place) and
//! `table.csv` (one row per cell, in grid order). A cell whose file is
//! there, for the same parameters and code, is not run again.

use crate::config::{self, line_of};
use crate::error::{ConfigError, RunError};
use crate::report::Report;
use crate::runner;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    /// Overrides every cell shares.
    pub set: BTreeMap<String, toml::Value>,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// Stable id: a hash of `key`.
    pub id: String,
    /// Its grid values (key, value as TOML text), in key order.
    pub params: Vec<(String, String)>,
    /// Its seed.
    pub seed: u64,
}

/// A cell as stored: what ran and what it gave.
#[derive(Serialize, Deserialize)]
struct Stored {
    id: String,
    params: Vec<(String, String)>,
    seed: u64,
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
            Some(toml::Value::Table(g)) if !g.is_empty() => {
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
            _ => {
                return Err((
                    Some("grid".into()),
                    "[grid]: a table of key = [values], at least one".into(),
                ))
            }
        }
        if let Some(k) = t.keys().next() {
            return Err(err(
                k,
                format!("{k}: not a sweep key (name, seeds, duration_s, [grid], [set])"),
            ));
        }
        Ok(SweepSpec {
            name,
            seeds,
            grid,
            set,
        })
    }

    /// Every cell, in grid order: the keys' values varying last key
    /// fastest, then the seeds.
    pub fn cells(&self) -> Vec<Cell> {
        let keys: Vec<&String> = self.grid.keys().collect();
        let mut points: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for k in &keys {
            points = points
                .into_iter()
                .flat_map(|p| {
                    self.grid[*k].iter().map(move |v| {
                        let mut p = p.clone();
                        p.push(((*k).clone(), v.to_string()));
                        p
                    })
                })
                .collect();
        }
        points
            .into_iter()
            .flat_map(|params| {
                self.seeds.iter().map(move |&seed| Cell {
                    id: format!("{:016x}", fnv1a(canonical(&params, seed).as_bytes())),
                    params: params.clone(),
                    seed,
                })
            })
            .collect()
    }

    /// The `--set` overrides of `cell`: the shared ones, then its own.
    pub fn sets(&self, cell: &Cell) -> Vec<String> {
        let mut sets: Vec<String> = self.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
        sets.extend(cell.params.iter().map(|(k, v)| format!("{k}={v}")));
        sets.push(format!("run.seed={}", cell.seed));
        sets
    }

    /// Checks every cell's configuration and manager, and each workload's
    /// setup once, before anything runs. With the spec's `source` (file,
    /// text), an error names the file and the line of the value at fault.
    pub fn check(&self, source: Option<(&str, &str)>) -> Result<(), RunError> {
        let mut set_up = std::collections::BTreeSet::new();
        for cell in self.cells() {
            let checked = config::load(None, &self.sets(&cell))
                .map_err(RunError::from)
                .and_then(|cfg| {
                    crate::compare::check_manager(&cfg)?;
                    if set_up.insert((cfg.run.workload.clone(), cfg.run.machine.clone())) {
                        crate::setup::setup(&cfg)?;
                    }
                    Ok(())
                });
            if let Err(e) = checked {
                let Some((file, text)) = source else {
                    return Err(e);
                };
                let msg = e.to_string();
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

/// A cell's parameters and seed as one string: what its id hashes.
fn canonical(params: &[(String, String)], seed: u64) -> String {
    let mut s: String = params.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    s.push_str(&format!("seed={seed}\n"));
    s
}

/// 64-bit FNV-1a: the same id on every machine and Rust version.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Runs one cell: its report.
pub fn run_cell(spec: &SweepSpec, cell: &Cell) -> Result<Report, RunError> {
    run_cell_stoppable(spec, cell, &|| false)
}

/// [`run_cell`], asking `stop` after each look at the clock.
fn run_cell_stoppable(
    spec: &SweepSpec,
    cell: &Cell,
    stop: &dyn Fn() -> bool,
) -> Result<Report, RunError> {
    let cfg = config::load(None, &spec.sets(cell))?;
    runner::run_stoppable(&cfg, &mut |_, _| {}, &mut |_| {}, stop)
}

/// The stored form of a cell's report: the bytes `cells/ID.json` holds,
/// whoever ran it (a local thread or a remote worker).
pub fn cell_json(cell: &Cell, code: &str, report: &Report) -> String {
    let stored = Stored {
        id: cell.id.clone(),
        params: cell.params.clone(),
        seed: cell.seed,
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

    fn cell_path(&self, cell: &Cell) -> PathBuf {
        self.dir.join("cells").join(format!("{}.json", cell.id))
    }

    /// The stored report of `cell` if it was made by `code` for the same
    /// parameters; an unreadable or foreign file is a miss.
    pub fn load(&self, cell: &Cell, code: &str) -> Option<Report> {
        let text = std::fs::read_to_string(self.cell_path(cell)).ok()?;
        let s: Stored = serde_json::from_str(&text).ok()?;
        (s.id == cell.id && s.params == cell.params && s.seed == cell.seed && s.code == code)
            .then_some(s.report)
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

/// One row per cell: id, seed, each grid key's value, then [`COLUMNS`].
pub fn table_csv(spec: &SweepSpec, cells: &[(Cell, Report)]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut head = vec!["id".to_string(), "seed".to_string()];
    head.extend(spec.grid.keys().cloned());
    head.extend(COLUMNS.iter().map(|c| c.to_string()));
    w.write_record(&head).expect("in memory");
    for (cell, r) in cells {
        let mut row = vec![cell.id.clone(), cell.seed.to_string()];
        // TOML strings lose their quotes in the table
        row.extend(
            cell.params
                .iter()
                .map(|(_, v)| v.trim_matches('"').to_string()),
        );
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
pub fn run_local(
    spec: &SweepSpec,
    source: Option<(&str, &str)>,
    dir: &SweepDir,
    code: &str,
    jobs: usize,
    done: &(dyn Fn(usize, &Cell, bool) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<SweepOutcome, RunError> {
    spec.check(source)?;
    let cells = spec.cells();
    let resumed = std::sync::atomic::AtomicUsize::new(0);
    let reports = crate::parallel::map_in_order(
        cells.len(),
        jobs,
        |i| {
            let cell = &cells[i];
            if let Some(r) = dir.load(cell, code) {
                resumed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                done(i, cell, true);
                return Ok(r);
            }
            let r = run_cell_stoppable(spec, cell, stop)?;
            dir.store(cell, &cell_json(cell, code, &r))?;
            done(i, cell, false);
            Ok::<_, RunError>(r)
        },
        |_, _| {},
    )?;
    let cells: Vec<(Cell, Report)> = cells.into_iter().zip(reports).collect();
    dir.write_table(spec, &cells)?;
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
        // The id depends on the cell, not on the grid around it.
        let alone = SweepSpec::parse(
            "s.toml",
            "seeds = [2]\n[grid]\nmanager = [\"all-slow\"]\nfast_capacity = [\"50%\"]\n",
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
        assert_eq!(alone.cells()[0].id, same.id);
        assert_eq!(
            spec.sets(&cells[0]),
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
        ] {
            match SweepSpec::parse("s.toml", text) {
                Err(ConfigError::AtLine { file, line: l, msg }) => {
                    assert_eq!((file.as_str(), l), ("s.toml", line), "{text}: {msg}");
                    assert!(msg.contains(what), "{msg}");
                }
                other => panic!("{text}: {other:?}"),
            }
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
        let first = run_local(&spec, None, &sd, "c1", 2, &|_, _, _| {}, &|| false).unwrap();
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
        let again = run_local(&spec, None, &sd, "c1", 1, &|_, _, _| {}, &|| false).unwrap();
        assert_eq!(again.resumed, 7);
        assert_eq!(files(&d), before, "byte-identical whatever ran it");
        assert_eq!(std::fs::read_to_string(d.join("table.csv")).unwrap(), table);
        // Another code: nothing is reused.
        let other = run_local(&spec, None, &sd, "c2", 2, &|_, _, _| {}, &|| false).unwrap();
        assert_eq!(other.resumed, 0);
    }
}
