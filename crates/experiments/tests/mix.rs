//! Multi-programmed mixes end to end on the exact machine: each component
//! in its own address space and on its own core, its footprint counted,
//! and a manager that walks every address space (Memos) acting on both.

use thermocline_experiments::config;
use thermocline_experiments::report::Report;
use thermocline_experiments::runner;
use thermocline_experiments::RunError;

fn run(workload: &str, manager: &str) -> Result<Report, RunError> {
    let sets: Vec<String> = [
        format!("run.workload=\"{workload}\""),
        format!("run.manager=\"{manager}\""),
        "run.machine=\"dram+pcm\"".into(),
        "workload.access_rate=2000000".into(),
    ]
    .into();
    runner::run(&config::load(None, &sets)?, &mut |_, _| {})
}

#[test]
fn a_mix_runs_each_part_in_its_own_space_and_core() {
    let alone = run("memos:mcf:0.02:25", "memos").unwrap();
    let r = run("mix:memos:mcf:0.02:25+memos:stream:0.02:25", "memos").unwrap();
    let stream = run("memos:stream:0.02:25", "all-fast").unwrap();
    assert_eq!(
        r.footprint_bytes,
        alone.footprint_bytes + stream.footprint_bytes
    );
    // Two cores at the same nominal rate: twice the accesses in the same
    // nominal time (the mix ends with its first part).
    let ratio = r.accesses as f64 / alone.accesses as f64;
    assert!((1.9..=2.01).contains(&ratio), "{ratio}");
    // Memos found hot pages in both spaces and moved some.
    let last = &r.windows.last().unwrap().manager;
    assert!(last["promoted_pages_count"] > 0.0);
    assert!(
        last["stream_pages_count"] > 0.0,
        "the STREAM-like part's sweeps"
    );
}

#[test]
fn bad_mixes_are_clear_errors() {
    for (spec, why) in [
        ("mix:memos-mcf", "2 to 16"),
        ("mix:memos-mcf+mix:memos-mcf+memos-lbm", "cannot hold a mix"),
        ("mix:memos-mcf+heteroos-nginx", "cannot be mixed"),
        ("mix:memos-mcf+nope", "nope"),
    ] {
        let Err(e) = run(spec, "first-touch") else {
            panic!("{spec} accepted")
        };
        assert!(e.to_string().contains(why), "{spec}: {e}");
    }
}
