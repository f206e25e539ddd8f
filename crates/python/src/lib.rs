//! `thermocline._native`: the catalogue, runs, comparisons, reproductions
//! and sweeps of the engine, sweep and reproductions crates for the `thermocline` Python
//! package (python/thermocline), which wraps these functions in typed
//! objects. Reports cross as their JSON (docs/report-schema.md).
//!
//! Runs release the GIL. A run asks after each look at its clock whether
//! the interpreter has a pending signal, so a Ctrl-C in a notebook stops
//! it there and raises `KeyboardInterrupt`. Errors are Python exceptions
//! with the CLI's messages: `ConfigError` (with `file` and `line` where the
//! message names them) for the user's input, `InternalError` for a bug,
//! `HostError` (with its `kind`) for what a live host refused or lacks.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;
use thermocline_engine::compare;
use thermocline_engine::config;
use thermocline_engine::runner;
use thermocline_engine::ConfigError as RustConfigError;
use thermocline_engine::RunError;
use thermocline_reproductions::catalogue;
use thermocline_reproductions::reproduce;
use thermocline_sweep::{self as sweep, Cell, SweepDir, SweepSpec};

create_exception!(
    _native,
    ThermoclineError,
    PyException,
    "Any thermocline failure."
);
create_exception!(
    _native,
    ConfigError,
    ThermoclineError,
    "Input that cannot be used: a configuration, a spec, a name or a value. `file` and `line` say where, when the message names them."
);
create_exception!(
    _native,
    InternalError,
    ThermoclineError,
    "A failure of thermocline itself; the message says how to reproduce it."
);

create_exception!(
    _native,
    HostError,
    ThermoclineError,
    "What a live host refused or lacks: `kind` is permission, missing-feature, target-gone or out-of-memory; the message says what to do."
);

/// The Python exception for a run's error.
fn py_err(py: Python<'_>, e: RunError) -> PyErr {
    if matches!(e, RunError::Internal { .. }) {
        return InternalError::new_err(e.to_string());
    }
    if let Some(kind) = e.host_kind() {
        let err = HostError::new_err(e.to_string());
        // Attributes on a fresh exception instance cannot fail to set.
        let _ = err.value(py).setattr("kind", kind.name());
        return err;
    }
    let (file, line) = match &e {
        RunError::Config(RustConfigError::AtLine { file, line, .. }) => {
            (Some(file.clone()), Some(*line))
        }
        RunError::Config(RustConfigError::InFile { file, .. }) => (Some(file.clone()), None),
        _ => (None, None),
    };
    let err = ConfigError::new_err(e.to_string());
    let value = err.value(py);
    // Attributes on a fresh exception instance cannot fail to set.
    let _ = value.setattr("file", file);
    let _ = value.setattr("line", line);
    err
}

/// Runs `f` on a thread of its own while this one, without the GIL but for
/// a moment every 50 ms, waits for it and checks for a pending signal: a
/// Ctrl-C sets the stop flag `f`'s runs ask, and its Python exception
/// (`KeyboardInterrupt`) is raised once `f` has stopped. Only the main
/// thread ever sees a signal, which is why the work moves off it.
fn without_gil<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(&(dyn Fn() -> bool + Sync)) -> Result<T, RunError> + Send,
) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let mut signal: Option<PyErr> = None;
    let out = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        // waited on without the GIL, which asks for Sync
        let rx = std::sync::Mutex::new(rx);
        let stop = &stop;
        let worker = scope.spawn(move || {
            // the receiver lives until the scope ends: send cannot fail
            let _ = tx.send(f(&|| stop.load(Ordering::Relaxed)));
        });
        loop {
            let next = py.detach(|| {
                rx.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .recv_timeout(Duration::from_millis(50))
            });
            match next {
                Ok(out) => return out,
                Err(RecvTimeoutError::Timeout) => {
                    if signal.is_none() {
                        if let Err(e) = py.check_signals() {
                            signal = Some(e);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // the worker panicked: carry its panic on
                    if let Err(panic) = worker.join() {
                        std::panic::resume_unwind(panic);
                    }
                    unreachable!("a worker that returned has sent its result");
                }
            }
        }
    });
    match (out, signal) {
        (_, Some(interrupt)) => Err(interrupt),
        (Ok(v), None) => Ok(v),
        (Err(e), None) => Err(py_err(py, e)),
    }
}

/// The run configuration from an optional file and `--set`-style overrides.
fn load(config_path: Option<&str>, sets: &[String]) -> Result<config::RunConfig, RunError> {
    let text;
    let file = match config_path {
        Some(p) => {
            text = std::fs::read_to_string(p).map_err(|e| RustConfigError::InFile {
                file: p.to_string(),
                msg: format!("cannot read: {e}"),
            })?;
            Some((p, text.as_str()))
        }
        None => None,
    };
    Ok(config::load(file, sets)?)
}

/// Every workload, manager, machine and reproduction: (name, description).
#[pyfunction]
fn catalogue_entries() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut add = |kind: &str, items: Vec<catalogue::Named>| {
        for n in items {
            out.push((
                kind.to_string(),
                n.name.to_string(),
                n.description.to_string(),
            ));
        }
    };
    add("workload", catalogue::workloads());
    add("manager", catalogue::managers());
    add("machine", catalogue::machines());
    add("reproduction", catalogue::reproductions());
    out
}

/// One run: its report's JSON.
#[pyfunction]
#[pyo3(signature = (sets, config_path=None))]
fn run(py: Python<'_>, sets: Vec<String>, config_path: Option<String>) -> PyResult<String> {
    let cfg = load(config_path.as_deref(), &sets).map_err(|e| py_err(py, e))?;
    without_gil(py, |stop| {
        runner::run_stoppable(&cfg, &mut |_, _| {}, &mut |_| {}, stop).map(|r| r.to_json())
    })
}

/// One workload under several managers, on `jobs` threads: each report's
/// JSON, in the managers' order.
#[pyfunction]
#[pyo3(signature = (sets, managers, jobs, config_path=None))]
fn compare_runs(
    py: Python<'_>,
    sets: Vec<String>,
    managers: Vec<String>,
    jobs: usize,
    config_path: Option<String>,
) -> PyResult<Vec<String>> {
    let base = load(config_path.as_deref(), &sets).map_err(|e| py_err(py, e))?;
    let cfgs = compare::configs(&base, &managers);
    compare::preflight(&cfgs).map_err(|e| py_err(py, e))?;
    without_gil(py, |stop| {
        let reports =
            compare::run_all_stoppable(&cfgs, jobs.max(1), &|_, _| {}, &|_| {}, &|_| {}, stop)?;
        Ok(reports.iter().map(|r| r.to_json()).collect())
    })
}

/// A reproduction's outputs: (name, text, summary JSON).
type Reproduced = (String, String, String);

fn reproduced(done: &[reproduce::Reproduced]) -> Vec<Reproduced> {
    done.iter()
        .map(|d| {
            (
                d.name.to_string(),
                d.output.text.clone(),
                d.output.json.to_string(),
            )
        })
        .collect()
}

/// Reproductions by name, run here on `jobs` threads, their runs kept in
/// the sweep directory `out` (keyed by `code`) when one is given.
#[pyfunction]
#[pyo3(signature = (names, seed, jobs, duration_s=None, out=None, code=None))]
fn reproduce_named(
    py: Python<'_>,
    names: Vec<String>,
    seed: u64,
    jobs: usize,
    duration_s: Option<f64>,
    out: Option<&str>,
    code: Option<&str>,
) -> PyResult<Vec<Reproduced>> {
    let repros = reproduce::find(&names).map_err(|e| py_err(py, e))?;
    let opts = reproduce::Options { duration_s, seed };
    let dir = out
        .map(SweepDir::open)
        .transpose()
        .map_err(|e| py_err(py, e))?;
    let code = code.unwrap_or_default();
    without_gil(py, |_| {
        let at = dir.as_ref().map(|d| (d, code));
        let done = reproduce::reproduce(&repros, &opts, jobs.max(1), at, &|_, _, _, _| {})?;
        Ok(reproduced(&done))
    })
}

/// The runs of the named reproductions as sweep specs (TOML): one, or two
/// when a run that no seed changes is made at its one seed
/// (`reproduce::sweep_specs`).
#[pyfunction]
#[pyo3(signature = (names, seed, duration_s=None))]
fn reproduce_spec(
    py: Python<'_>,
    names: Vec<String>,
    seed: u64,
    duration_s: Option<f64>,
) -> PyResult<Vec<String>> {
    let repros = reproduce::find(&names).map_err(|e| py_err(py, e))?;
    let opts = reproduce::Options { duration_s, seed };
    let (specs, _) =
        reproduce::sweep_specs(&names.join("+"), &reproduce::runs_of(&repros, &opts), &opts)
            .map_err(|e| py_err(py, e))?;
    Ok(specs.iter().map(SweepSpec::to_toml).collect())
}

/// Reproductions summarized from the runs in the sweep directory `out`
/// (made by `code`, every one of them there).
#[pyfunction]
#[pyo3(signature = (names, seed, out, code, duration_s=None))]
fn reproduce_from(
    py: Python<'_>,
    names: Vec<String>,
    seed: u64,
    out: &str,
    code: &str,
    duration_s: Option<f64>,
) -> PyResult<Vec<Reproduced>> {
    let repros = reproduce::find(&names).map_err(|e| py_err(py, e))?;
    let opts = reproduce::Options { duration_s, seed };
    let dir = SweepDir::open(out).map_err(|e| py_err(py, e))?;
    let done = reproduce::reproduce_from(&repros, &opts, &dir, code).map_err(|e| py_err(py, e))?;
    Ok(reproduced(&done))
}

/// A sweep spec from JSON (a Python dict) or TOML text with its file name.
fn spec_of(py: Python<'_>, spec: &str, toml_file: Option<&str>) -> PyResult<SweepSpec> {
    let parsed = match toml_file {
        Some(file) => SweepSpec::parse(file, spec).map_err(RunError::from),
        None => serde_json::from_str::<serde_json::Value>(spec)
            .map_err(|e| e.to_string())
            .and_then(|v| toml::Table::try_from(v).map_err(|e| format!("not a TOML table: {e}")))
            .and_then(|t| {
                SweepSpec::from_table(t).map_err(|(key, msg)| match key {
                    Some(k) if !msg.starts_with(&k) => format!("{k}: {msg}"),
                    _ => msg,
                })
            })
            .map_err(|msg| RustConfigError::invalid("sweep spec", msg).into()),
    };
    parsed.map_err(|e| py_err(py, e))
}

fn find_cell(py: Python<'_>, spec: &SweepSpec, id: &str) -> PyResult<Cell> {
    spec.cells()
        .into_iter()
        .find(|c| c.id == id)
        .ok_or_else(|| {
            py_err(
                py,
                RustConfigError::invalid("sweep", format!("no cell {id:?} in this spec")).into(),
            )
        })
}

/// A cell as Python sees it: (id, [(key, value)], seed).
type CellTuple = (String, Vec<(String, String)>, u64);

/// A sweep's cells: (id, [(key, value)], seed) each, in grid order.
#[pyfunction]
#[pyo3(signature = (spec, toml_file=None))]
fn sweep_cells(py: Python<'_>, spec: &str, toml_file: Option<&str>) -> PyResult<Vec<CellTuple>> {
    let spec = spec_of(py, spec, toml_file)?;
    Ok(spec
        .cells()
        .into_iter()
        .map(|c| (c.id, c.params, c.seed))
        .collect())
}

/// Checks every cell of a sweep before any runs.
#[pyfunction]
#[pyo3(signature = (spec, toml_file=None))]
fn sweep_check(py: Python<'_>, spec: &str, toml_file: Option<&str>) -> PyResult<()> {
    let parsed = spec_of(py, spec, toml_file)?;
    let source = toml_file.map(|f| (f, spec));
    parsed.check(source).map_err(|e| py_err(py, e))
}

/// Runs a sweep here on `jobs` threads into `out`: (cells, resumed).
#[pyfunction]
#[pyo3(signature = (spec, out, jobs, code, toml_file=None))]
fn sweep_local(
    py: Python<'_>,
    spec: &str,
    out: &str,
    jobs: usize,
    code: &str,
    toml_file: Option<&str>,
) -> PyResult<(usize, usize)> {
    let parsed = spec_of(py, spec, toml_file)?;
    let dir = SweepDir::open(out).map_err(|e| py_err(py, e))?;
    let source = toml_file.map(|f| (f, spec));
    without_gil(py, |stop| {
        let o = sweep::run_local(
            &parsed,
            source,
            Some(&dir),
            code,
            jobs.max(1),
            &|_, _, _| {},
            stop,
        )?;
        Ok((o.cells.len(), o.resumed))
    })
}

/// What each cell asks a scheduler for: (id, bytes of host memory), in
/// order (the spec's `memory_gib`, else the run's estimate).
#[pyfunction]
#[pyo3(signature = (spec, toml_file=None))]
fn sweep_memory(
    py: Python<'_>,
    spec: &str,
    toml_file: Option<&str>,
) -> PyResult<Vec<(String, u64)>> {
    let parsed = spec_of(py, spec, toml_file)?;
    parsed
        .cells()
        .into_iter()
        .map(|c| {
            let bytes = parsed.memory_bytes(&c).map_err(|e| py_err(py, e))?;
            Ok((c.id, bytes))
        })
        .collect()
}

/// Whether `out` holds cell `id`'s report made by `code`.
#[pyfunction]
#[pyo3(signature = (spec, out, id, code, toml_file=None))]
fn sweep_has(
    py: Python<'_>,
    spec: &str,
    out: &str,
    id: &str,
    code: &str,
    toml_file: Option<&str>,
) -> PyResult<bool> {
    let parsed = spec_of(py, spec, toml_file)?;
    let cell = find_cell(py, &parsed, id)?;
    let dir = SweepDir::open(out).map_err(|e| py_err(py, e))?;
    Ok(dir.load(&cell, code).is_some())
}

/// Runs cell `id` (on whatever machine this is): the bytes its file holds.
#[pyfunction]
#[pyo3(signature = (spec, id, code, toml_file=None))]
fn sweep_run_cell(
    py: Python<'_>,
    spec: &str,
    id: &str,
    code: &str,
    toml_file: Option<&str>,
) -> PyResult<String> {
    let parsed = spec_of(py, spec, toml_file)?;
    let cell = find_cell(py, &parsed, id)?;
    without_gil(py, |_| {
        let r = sweep::run_cell(&cell)?;
        Ok(sweep::cell_json(&cell, code, &r))
    })
}

/// Stores a cell's file, as [`sweep_run_cell`] gave it, in `out`.
#[pyfunction]
#[pyo3(signature = (spec, out, id, cell_json, toml_file=None))]
fn sweep_store(
    py: Python<'_>,
    spec: &str,
    out: &str,
    id: &str,
    cell_json: &str,
    toml_file: Option<&str>,
) -> PyResult<()> {
    let parsed = spec_of(py, spec, toml_file)?;
    let cell = find_cell(py, &parsed, id)?;
    let dir = SweepDir::open(out).map_err(|e| py_err(py, e))?;
    dir.store(&cell, cell_json).map_err(|e| py_err(py, e))
}

/// Writes `out/table.csv` from the stored cells (every one must be there,
/// made by `code`); returns its path.
#[pyfunction]
#[pyo3(signature = (spec, out, code, toml_file=None))]
fn sweep_table(
    py: Python<'_>,
    spec: &str,
    out: &str,
    code: &str,
    toml_file: Option<&str>,
) -> PyResult<String> {
    let parsed = spec_of(py, spec, toml_file)?;
    let dir = SweepDir::open(out).map_err(|e| py_err(py, e))?;
    let cells = parsed.cells();
    let reports = dir.load_all(&cells, code).map_err(|i| {
        let msg = format!("cell {} is not in {out} (made by {code})", cells[i].id);
        py_err(py, RustConfigError::invalid("sweep", msg).into())
    })?;
    let cells: Vec<_> = cells.into_iter().zip(reports).collect();
    let path = dir
        .write_table(&parsed, &cells)
        .map_err(|e| py_err(py, e))?;
    Ok(path.display().to_string())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    thermocline_daemon::guest::install();
    m.add("ThermoclineError", py.get_type::<ThermoclineError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add("HostError", py.get_type::<HostError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(catalogue_entries, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(compare_runs, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce_named, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce_spec, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce_from, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_cells, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_check, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_local, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_has, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_memory, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run_cell, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_store, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_table, m)?)?;
    Ok(())
}
