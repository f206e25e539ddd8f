//! What `seed_free` lists draws no random number: a seed-free manager gives
//! the same report on seeds 1 and 2 over a trace (a workload that draws
//! none) long enough for its periods to act, while a seeded one does not;
//! and an executed NPB kernel emits the same accesses on both seeds.

use thermocline_engine::{config, runner};
use thermocline_reproductions::reproduce::{self, Options};
use thermocline_reproductions::seed_free::{self, SEED_FREE_MANAGERS};
use thermocline_vocab::Access;
use thermocline_workloads::presets::{self, WorkloadOptions};
use thermocline_workloads::trace;

const BASE: u64 = 0x1000_0000;
const MIB: u64 = 1 << 20;

/// 3 M accesses over 64 MiB: the first 8 MiB hot (a quarter of them
/// stores) for the first third, the last 8 MiB after it, a tail over the
/// 48 MiB between; 30 simulated seconds at 100 K/s, so that the first 8 MiB
/// lie idle for 20 s (kstaled's 10 s idle rule acts).
fn trace_file(dir: &std::path::Path) -> String {
    let mut x: u64 = 88172645463325252;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let n = 3_000_000u64;
    let accesses: Vec<Access> = (0..n)
        .map(|i| {
            let r = next();
            let hot = if i < n / 3 { 0 } else { 56 * MIB };
            let va = if r % 10 < 8 {
                BASE + hot + (r >> 8) % (8 * MIB)
            } else {
                BASE + 8 * MIB + (r >> 8) % (48 * MIB)
            };
            Access {
                va: va & !63,
                asid: 0,
                core: 0,
                write: r % 10 < 2,
            }
        })
        .collect();
    let path = dir.join("seed-free.trace").to_string_lossy().into_owned();
    let regions = thermocline_workloads::lay_out_at(&[("heap".into(), 64 * MIB)], false, BASE);
    trace::write(&path, &regions, &accesses).unwrap();
    path
}

fn report(trace: &str, manager: &str, seed: u64) -> serde_json::Value {
    let sets = [
        format!("run.workload=\"trace:{trace}\""),
        format!("run.manager=\"{manager}\""),
        "run.machine=\"dram+dcpmm-ambix\"".into(),
        "run.fast_capacity=\"25%\"".into(),
        "workload.access_rate=1e5".into(),
        format!("run.seed={seed}"),
    ];
    let cfg = config::load(None, &sets).unwrap();
    let r = runner::run(&cfg, &mut |_, _| {}).unwrap();
    let mut j = serde_json::to_value(&r).unwrap();
    j.as_object_mut().unwrap().remove("seed");
    j
}

#[test]
fn a_seed_free_manager_gives_the_same_report_on_two_seeds_and_a_seeded_one_does_not() {
    let dir = std::env::temp_dir().join(format!("thermocline-seed-free-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = trace_file(&dir);
    for m in SEED_FREE_MANAGERS {
        let one = report(&trace, m, 1);
        assert!(
            one["sim_time_s"].as_f64().unwrap() > 25.0,
            "{m}: the run must outlast its periods"
        );
        if ["ambix", "autonuma-tiering", "memos-placement", "kstaled"].contains(m) {
            assert!(
                one["migrations"]["bytes"].as_u64().unwrap() > 0,
                "{m} must move pages here for the comparison to mean something"
            );
        }
        assert_eq!(one, report(&trace, m, 2), "{m} is listed seed-free");
    }
    // the control: the same comparison sees a manager's draws
    assert_ne!(report(&trace, "random", 1), report(&trace, "random", 2));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_executed_npb_kernel_emits_the_same_accesses_on_two_seeds() {
    for kernel in ["bt", "ft", "mg", "cg"] {
        let name = format!("npb-{kernel}-small");
        assert!(seed_free::seed_free_workload(&name));
        let first = |seed| {
            let o = WorkloadOptions {
                seed,
                access_rate: None,
                compute_ns: None,
                thp: None,
                base_va: None,
                masim_burst: None,
                fast_read_ns: 80.0,
                mlp: 4.0,
            };
            let mut w = presets::load(&name, &o).unwrap();
            let mut buf = vec![Access::default(); 1 << 16];
            let mut all = Vec::new();
            for _ in 0..32 {
                let n = w.stream.fill(&mut buf).unwrap();
                all.extend_from_slice(&buf[..n]);
            }
            (w.regions.clone(), all)
        };
        assert_eq!(first(1), first(2), "{name}");
    }
}

#[test]
fn seeds_after_the_first_run_only_the_seeded_runs() {
    let runs = [
        reproduce::RunSpec::new("npb-mg-small", "ambix", &["run.machine=dram+dcpmm-ambix"]),
        reproduce::RunSpec::new("npb-mg-small", "memos", &["run.machine=dram+dcpmm-ambix"]),
    ];
    let at = |seed| Options {
        duration_s: Some(0.1),
        seed,
    };
    let (one, cells_one) = reproduce::sweep_specs("r", &runs, &at(1)).unwrap();
    assert_eq!(one.len(), 1, "on seed 1 every run is one sweep");
    let (two, cells_two) = reproduce::sweep_specs("r", &runs, &at(2)).unwrap();
    assert_eq!(two.len(), 2, "the seed-free run at seed 1, the other at 2");
    assert_eq!(two[0].seeds, vec![1]);
    assert_eq!(two[1].seeds, vec![2]);
    assert_eq!(
        cells_two[0].id, cells_one[0].id,
        "the seed-free run is seed 1's cell"
    );
    assert_ne!(cells_two[1].id, cells_one[1].id);
}
