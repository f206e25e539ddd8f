//! Golden reports: small fixed runs whose JSON must not change unless the
//! model does. Regenerate with `UPDATE_GOLDEN=1 cargo test -p thermocline-engine`
//! and review the diff: every changed number is a behaviour change.

use thermocline_engine::config;
use thermocline_engine::runner;

fn check(name: &str, sets: &[&str]) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let cfg = config::load(None, &sets).unwrap();
    let json = runner::run(&cfg, &mut |_, _| {}).unwrap().to_json();
    let again = runner::run(&cfg, &mut |_, _| {}).unwrap().to_json();
    assert_eq!(json, again, "same inputs must give byte-identical reports");
    let path = format!("{}/tests/golden/{name}.json", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &json).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == json,
        "{name}: report differs from {path} (UPDATE_GOLDEN=1 to regenerate)"
    );
}

#[test]
fn first_touch_on_multiphase() {
    check(
        "first-touch-multiphase",
        &[
            "run.manager=\"first-touch\"",
            "run.duration_s=0.05",
            "run.fast_capacity=\"25%\"",
            "metrics.window_s=0.01",
        ],
    );
}

#[test]
fn interleave_on_zipf_with_llc_and_thp() {
    check(
        "interleave-zipf-llc-thp",
        &[
            "run.manager=\"interleave\"",
            "run.workload=\"zipf-1g\"",
            "run.duration_s=0.02",
            "machine.llc.bytes=1048576",
            "workload.thp=true",
            "metrics.window_s=0.01",
        ],
    );
}

#[test]
fn telescope_on_the_rate_machine() {
    check(
        "telescope-bounded-subtb-rate",
        &[
            "run.manager=\"telescope-bounded\"",
            "run.workload=\"telescope-subtb-10g\"",
            "run.backend=\"rate\"",
            "run.duration_s=2",
            "metrics.window_s=0.5",
            "metrics.hot_map_bins=8",
        ],
    );
}
