//! The worked example of docs/sweeps.md: the Thermostat sensitivity sweep's
//! cells give the reports `reproduce thermostat-sensitivity` gives for the
//! same runs (here two of them, capped at a fraction of a second).

use thermocline_experiments::reproduce::{self, Options};
use thermocline_experiments::sweep::{self, SweepSpec};

#[test]
fn the_sensitivity_sweep_cells_are_the_reproductions_runs() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/sweeps/thermostat-sensitivity.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut spec = SweepSpec::parse(path, &text).unwrap();
    assert_eq!(spec.cells().len(), 24, "8 models x 3 targets");
    spec.set
        .insert("run.duration_s".into(), toml::Value::Float(0.3));
    let o = Options {
        duration_s: Some(0.3),
        seed: 1,
    };
    let repro = reproduce::find(&["thermostat-sensitivity".to_string()]).unwrap();
    let runs = (repro[0].runs)(&o);
    assert_eq!(runs.len(), 24);
    for (target, set) in [
        ("0.03", None),
        ("0.06", Some("thermostat-badgertrap.slowdown=0.06")),
    ] {
        let run = runs
            .iter()
            .find(|r| r.workload == "tpcc" && r.sets.first().map(String::as_str) == set)
            .unwrap_or_else(|| panic!("the reproduction runs tpcc at {target}"));
        let want = reproduce::run_specs(std::slice::from_ref(run), &o, 1, None, &|_, _, _, _| {})
            .unwrap()
            .remove(run)
            .unwrap();
        let cell = spec
            .cells()
            .into_iter()
            .find(|c| {
                c.params
                    .contains(&("run.workload".into(), "\"tpcc\"".into()))
                    && c.params
                        .iter()
                        .any(|(k, v)| k == "thermostat-badgertrap.slowdown" && v == target)
            })
            .unwrap();
        let got = sweep::run_cell(&spec, &cell).unwrap();
        assert_eq!(got.to_json(), want.to_json(), "tpcc at {target}");
    }
}
