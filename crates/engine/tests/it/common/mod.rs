//! Helpers shared by the experiment tests.

use thermocline_engine::config;
use thermocline_engine::report::Report;
use thermocline_engine::runner;

/// Writes `cfg_text` (a MASIM config) to a temporary file named after
/// `name`, runs it with the `--set` overrides `sets`, and removes the file.
pub fn run_masim(name: &str, cfg_text: &str, sets: &[&str]) -> Report {
    let path = std::env::temp_dir().join(format!(
        "thermocline-test-{}-{name}.cfg",
        std::process::id()
    ));
    std::fs::write(&path, cfg_text).unwrap();
    let mut all = vec![format!("run.workload={}", path.display())];
    all.extend(sets.iter().map(|s| s.to_string()));
    let r = runner::run(&config::load(None, &all).unwrap(), &mut |_, _| {}).unwrap();
    std::fs::remove_file(&path).ok();
    r
}
