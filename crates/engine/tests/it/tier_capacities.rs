//! `machine.tier_capacities` sizes each tier after the fast one on its own
//! (a small SlowMem above a large swap tier, say), and says which key is
//! wrong when the list does not fit the machine or the footprint.

use thermocline_engine::config;
use thermocline_engine::runner;
use thermocline_engine::RunError;

fn run(extra: &[&str]) -> Result<thermocline_engine::report::Report, RunError> {
    let mut sets: Vec<String> = vec![
        "run.workload=\"uniform-1g\"".into(),
        "run.manager=\"first-touch\"".into(),
        "run.machine=\"dram+cxl\"".into(),
        "run.fast_capacity=\"256MiB\"".into(),
        "run.duration_s=0.001".into(),
    ];
    sets.extend(extra.iter().map(|s| s.to_string()));
    runner::run(&config::load(None, &sets)?, &mut |_, _| {})
}

#[test]
fn each_tier_after_the_fast_one_gets_its_capacity() {
    let r = run(&["machine.tier_capacities=[\"2GiB\"]"]).unwrap();
    assert_eq!(r.tiers[0].capacity_bytes, 256 << 20);
    assert_eq!(r.tiers[1].capacity_bytes, 2 << 30);
    let r = run(&["machine.tier_capacities=[\"100%\"]"]).unwrap();
    assert_eq!(r.tiers[1].capacity_bytes, r.footprint_bytes);
}

#[test]
fn a_list_that_does_not_fit_is_a_clear_error() {
    for (set, why) in [
        (
            "machine.tier_capacities=[\"1GiB\", \"1GiB\"]",
            "2 capacities for the 1 tiers",
        ),
        ("machine.tier_capacities=[\"512MiB\"]", "cannot hold the"),
        (
            "machine.tier_capacities=[\"lots\"]",
            "machine.tier_capacities",
        ),
    ] {
        let e = run(&[set]).unwrap_err();
        assert!(matches!(e, RunError::Config(_)), "{set}: {e:?}");
        let text = e.to_string();
        assert!(
            text.contains(why) && text.contains("machine.tier_capacities"),
            "{set}: {text}"
        );
    }
}
