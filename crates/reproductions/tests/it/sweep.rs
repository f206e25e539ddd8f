//! The worked example of docs/sweeps.md: the Thermostat sensitivity sweep's
//! cells give the reports `reproduce thermostat-sensitivity` gives for the
//! same runs (here two of them, capped at a fraction of a second), and a
//! reproduction is a sweep: it takes a run a sweep stored as its own.

use thermocline_reproductions::reproduce::{self, Options, Source};
use thermocline_sweep::{self as sweep, SweepDir, SweepSpec};

fn figure_11() -> SweepSpec {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/sweeps/thermostat-sensitivity.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut spec = SweepSpec::parse(path, &text).unwrap();
    assert_eq!(spec.cells().len(), 24, "8 models x 3 targets");
    spec.set
        .insert("run.duration_s".into(), toml::Value::Float(0.3));
    spec
}

const O: Options = Options {
    duration_s: Some(0.3),
    seed: 1,
};

/// The reproduction's run of tpcc at `set` (None: the default 3%).
fn reproduction_run(set: Option<&str>) -> reproduce::RunSpec {
    let repro = reproduce::find(&["thermostat-sensitivity".to_string()]).unwrap();
    let runs = (repro[0].runs)(&O);
    assert_eq!(runs.len(), 24);
    runs.into_iter()
        .find(|r| r.workload == "tpcc" && r.sets.first().map(String::as_str) == set)
        .unwrap_or_else(|| panic!("the reproduction runs tpcc at {set:?}"))
}

fn tpcc_cell(spec: &SweepSpec, target: &str) -> sweep::Cell {
    spec.cells()
        .into_iter()
        .find(|c| {
            c.params
                .contains(&("run.workload".into(), "\"tpcc\"".into()))
                && c.params
                    .iter()
                    .any(|(k, v)| k == "thermostat-badgertrap.slowdown" && v == target)
        })
        .unwrap()
}

#[test]
fn the_sensitivity_sweep_cells_are_the_reproductions_runs() {
    let spec = figure_11();
    for (target, set) in [
        ("0.03", None),
        ("0.06", Some("thermostat-badgertrap.slowdown=0.06")),
    ] {
        let run = reproduction_run(set);
        let want = reproduce::run_specs(std::slice::from_ref(&run), &O, 1, None, &|_, _, _, _| {})
            .unwrap()
            .remove(&run)
            .unwrap();
        let got = sweep::run_cell(&tpcc_cell(&spec, target)).unwrap();
        assert_eq!(got.to_json(), want.to_json(), "tpcc at {target}");
    }
}

#[test]
fn a_reproduction_takes_the_run_a_sweep_stored() {
    let dir = std::env::temp_dir().join(format!("thermocline-sweep-repro-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = SweepDir::open(&dir).unwrap();
    // one cell of Figure 11's sweep: tpcc at 6%
    let mut spec = figure_11();
    spec.grid.insert(
        "run.workload".into(),
        vec![toml::Value::String("tpcc".into())],
    );
    spec.grid.insert(
        "thermostat-badgertrap.slowdown".into(),
        vec![toml::Value::Float(0.06)],
    );
    let swept = sweep::run_local(&spec, None, Some(&d), "c1", 1, &|_, _, _| {}, &|| false).unwrap();
    assert_eq!(swept.cells.len(), 1);
    let run = reproduction_run(Some("thermostat-badgertrap.slowdown=0.06"));
    let (_, cells) = reproduce::sweep_spec("r", std::slice::from_ref(&run), &O).unwrap();
    assert_eq!(cells[0].id, swept.cells[0].0.id, "one run, one id");
    let sources = std::sync::Mutex::new(Vec::new());
    let got = reproduce::run_specs(
        std::slice::from_ref(&run),
        &O,
        1,
        Some((&d, "c1")),
        &|_, _, _, source| sources.lock().unwrap().push(source),
    )
    .unwrap();
    assert_eq!(sources.into_inner().unwrap(), vec![Source::Cache]);
    assert_eq!(got[&run].to_json(), swept.cells[0].1.to_json());
    // and summarizes from the directory alone, as after `reproduce --ray`
    let repro = reproduce::find(&["thermostat-sensitivity".to_string()]).unwrap();
    let e = reproduce::reproduce_from(&repro, &O, &d, "c1").unwrap_err();
    assert!(e.to_string().contains("is not in"), "{e}");
}
