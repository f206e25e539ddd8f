//! One capacity invariant for both machines: whatever the manager, its
//! placement policy and its migrations, the fast tier never holds more than
//! its capacity, in any report window or on average.

use proptest::prelude::*;
use thermocline_engine::config;
use thermocline_engine::report::Report;
use thermocline_engine::runner;
use thermocline_engine::RunError;
use thermocline_managers::registry;

fn run(manager: &str, backend: &str, fast: &str, extra: &[String]) -> Result<Report, RunError> {
    let mut sets = vec![
        "run.workload=\"multiphase\"".to_string(),
        format!("run.manager=\"{manager}\""),
        format!("run.backend=\"{backend}\""),
        format!("run.fast_capacity=\"{fast}\""),
        "run.duration_s=0.3".to_string(),
        "metrics.window_s=0.05".to_string(),
    ];
    sets.extend(extra.iter().cloned());
    runner::run(&config::load(None, &sets)?, &mut |_, _| {})
}

/// The fast tier's capacity against its residency in every window and on
/// average (one byte of rounding allowed: the rate machine counts bytes
/// in floating point).
fn assert_within(r: &Report, what: &str) {
    let cap = r.tiers[0].capacity_bytes;
    assert!(
        r.tiers[0].avg_resident_bytes <= cap as f64 + 1.0,
        "{what}: mean residency {} over capacity {cap}",
        r.tiers[0].avg_resident_bytes
    );
    for w in &r.windows {
        assert!(
            w.resident_bytes[0] <= cap,
            "{what}: {} B resident at {} s, capacity {cap}",
            w.resident_bytes[0],
            w.t_s
        );
    }
}

/// Every registered manager that runs on a simulated machine, on both
/// machines, at fast tier `fast`. A manager that cannot run on a machine (a
/// machine of its own that the rate machine does not model, say) must say
/// so as a configuration error, not overfill.
fn no_manager_overfills_a_fast_tier_of(fast: &str) {
    let mut ran = 0;
    for entry in registry::MANAGERS {
        if registry::LIVE_ONLY.contains(&entry.name) {
            continue;
        }
        for backend in ["exact", "rate"] {
            let what = format!("{} on {backend} at {fast}", entry.name);
            match run(entry.name, backend, fast, &[]) {
                Ok(r) => {
                    assert_within(&r, &what);
                    ran += 1;
                }
                Err(RunError::Config(e)) => {
                    assert!(backend == "rate", "{what}: {e}");
                }
                Err(e) => panic!("{what}: {e}"),
            }
        }
    }
    // Most managers run on both machines: a test that ran nothing proves
    // nothing.
    assert!(ran > registry::MANAGERS.len(), "only {ran} runs at {fast}");
}

// A small, a middling and a large fast tier, as three tests that the
// harness runs side by side.
#[test]
fn no_manager_overfills_a_small_fast_tier() {
    no_manager_overfills_a_fast_tier_of("10%");
}

#[test]
fn no_manager_overfills_a_middling_fast_tier() {
    no_manager_overfills_a_fast_tier_of("35%");
}

#[test]
fn no_manager_overfills_a_large_fast_tier() {
    no_manager_overfills_a_fast_tier_of("80%");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The spreading placements at any capacity and probability: the
    /// fallback when the fast tier fills must keep both machines within it.
    #[test]
    fn spreading_placements_stay_within_any_capacity(
        pct in 1u32..100,
        p in 0.0f64..=1.0,
        interleave in any::<bool>(),
        rate in any::<bool>(),
    ) {
        let manager = if interleave { "interleave" } else { "random" };
        let backend = if rate { "rate" } else { "exact" };
        let extra = [format!("random.fast_probability={p}")];
        let r = run(manager, backend, &format!("{pct}%"), &extra).unwrap();
        assert_within(&r, &format!("{manager} (p {p}) on {backend} at {pct}%"));
    }

    /// A probability outside [0, 1] is the user's mistake on both machines
    /// alike, named before anything runs.
    #[test]
    fn a_probability_outside_zero_to_one_is_a_configuration_error(
        p in prop_oneof![-10.0f64..-1e-9, 1.0f64 + 1e-9..10.0],
        rate in any::<bool>(),
    ) {
        let backend = if rate { "rate" } else { "exact" };
        let extra = [format!("random.fast_probability={p}")];
        match run("random", backend, "50%", &extra) {
            Err(e @ (RunError::Config(_) | RunError::Manager(_))) => {
                prop_assert!(e.to_string().contains("fast_probability"), "{}", e);
            }
            other => prop_assert!(false, "{backend}, p {p}: {:?}", other.map(|r| r.slowdown)),
        }
    }
}
