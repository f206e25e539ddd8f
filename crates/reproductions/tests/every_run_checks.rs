//! Every reproduction's runs are written as `key=value` strings (the keys
//! `--set` takes): this test checks every one of them, for every registered
//! reproduction, before anything runs, so a typo in a key, a manager's
//! parameter or a workload's name fails here and not minutes into
//! `reproduce --all`. Each run's configuration is loaded and its manager
//! built ([`thermocline_sweep::SweepSpec::check`]), and each distinct
//! workload and machine set up once, as `reproduce` itself does first.

use thermocline_reproductions::reproduce::{self, Options};

#[test]
fn every_reproductions_runs_load_and_set_up() {
    // Reproductions name their MASIM configs from the repository's root,
    // where `thermocline reproduce` runs.
    std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).unwrap();
    let o = Options {
        duration_s: None,
        seed: 1,
    };
    let mut failures = Vec::new();
    for r in reproduce::all() {
        let specs = (r.runs)(&o);
        assert!(!specs.is_empty(), "{} names no run", r.name);
        let checked =
            reproduce::sweep_spec(r.name, &specs, &o).and_then(|(spec, _)| spec.check(None));
        if let Err(e) = checked {
            failures.push(format!("{}: {e}", r.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_typo_in_a_runs_key_is_found_by_the_check() {
    let o = Options {
        duration_s: None,
        seed: 1,
    };
    let bad = [reproduce::RunSpec::new(
        "redis-hotspot",
        "thermostat",
        &["thermostat.slowdwn=0.03"],
    )];
    let (spec, _) = reproduce::sweep_spec("typo", &bad, &o).unwrap();
    let e = spec.check(None).unwrap_err().to_string();
    assert!(e.contains("slowdwn"), "{e}");
}
