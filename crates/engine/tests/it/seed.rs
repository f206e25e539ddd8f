//! One seed drives every random stream: the run's seed reaches the managers'
//! own random choices unless a manager's `seed` is set explicitly.

use thermocline_engine::config;
use thermocline_engine::runner;

fn hot_sets(sets: &[&str]) -> Vec<String> {
    let mut all = vec![
        "run.manager=\"damon-moderate\"".to_string(),
        "run.workload=\"telescope-subtb-10g\"".to_string(),
        "run.backend=\"rate\"".to_string(),
        "run.duration_s=1".to_string(),
    ];
    all.extend(sets.iter().map(|s| s.to_string()));
    let cfg = config::load(None, &all).unwrap();
    let mut out = Vec::new();
    runner::run_reporting(&cfg, &mut |_, _| {}, &mut |t, hot| {
        out.push(format!("{t}:{:?}", hot.ranges));
    })
    .unwrap();
    out
}

#[test]
fn the_run_seed_reaches_the_manager_unless_the_manager_sets_its_own() {
    let one = hot_sets(&["run.seed=1"]);
    let two = hot_sets(&["run.seed=2"]);
    assert!(!one.is_empty());
    assert_ne!(one, two, "a different seed must give different draws");
    // The manager's seed defaults to the run's: setting it to the run's seed
    // changes nothing, setting it to another changes the manager's draws.
    assert_eq!(two, hot_sets(&["run.seed=2", "damon-moderate.seed=2"]));
    assert_ne!(two, hot_sets(&["run.seed=2", "damon-moderate.seed=1"]));
}
