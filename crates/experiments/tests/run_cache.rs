//! A reproduction resumed from `--cache` gives the bytes a fresh one gives:
//! real reports (machine counts, windows with gauges, hot maps, memory
//! system sections) read back identical.

use thermocline_experiments::reproduce::{self, Options, RunSpec, Source};
use thermocline_experiments::run_cache::RunCache;

#[test]
fn runs_from_the_cache_are_the_runs_made_fresh() {
    let dir = std::env::temp_dir().join(format!("thermocline-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = RunCache::open(&dir, "0123456789ab").unwrap();
    let o = Options {
        duration_s: Some(0.5),
        seed: 3,
    };
    let specs = vec![
        RunSpec::new(
            "telescope-subtb-10g",
            "telescope-bounded",
            &["run.backend=\"rate\""],
        ),
        RunSpec::new(
            "memos:mcf:0.01:1",
            "memos",
            &["run.machine=\"dram+pcm-memos\""],
        ),
        RunSpec::new("multiphase", "thermostat", &[]),
    ];
    let sources = std::sync::Mutex::new(Vec::new());
    let progress = |_, _, _: &RunSpec, s: Source| sources.lock().unwrap().push(s);
    let fresh = reproduce::run_specs(&specs, &o, 2, Some(&cache), &progress).unwrap();
    let resumed = reproduce::run_specs(&specs, &o, 2, Some(&cache), &progress).unwrap();
    let sources = sources.into_inner().unwrap();
    assert_eq!(sources[..3], [Source::Ran; 3]);
    assert_eq!(sources[3..], [Source::Cache; 3]);
    assert_eq!(fresh, resumed);
    for (a, b) in fresh.values().zip(resumed.values()) {
        assert_eq!(a.to_json(), b.to_json());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
