//! The exact machine's time breakdown (the report's `time_breakdown`,
//! Memos Figure 13's parts): its parts add up to the simulated time, and
//! the manager's CPU time splits into monitoring and migration, for
//! managers that sample by poisoning (Memos) and by Accessed bits
//! (kstaled) and migrate by DMA and by CPU copy.

use thermocline_engine::config;
use thermocline_engine::report::Report;
use thermocline_engine::runner;

fn run(workload: &str, manager: &str, machine: &str, seconds: u32) -> Report {
    let mut sets: Vec<String> = [
        format!("run.workload=\"{workload}\""),
        format!("run.manager=\"{manager}\""),
        format!("run.machine=\"{machine}\""),
        format!("run.duration_s={seconds}"),
        "workload.access_rate=2000000".into(),
    ]
    .into();
    if manager == "kstaled" {
        // Pages start in the slow tier and move up when found accessed.
        sets.push("kstaled.start_slow=true".into());
    }
    runner::run(&config::load(None, &sets).unwrap(), &mut |_, _| {}).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn the_parts_add_up_to_the_time_and_the_managers_cpu() {
    for (workload, manager, machine, seconds) in [
        ("memos:mcf:0.03:30", "memos", "dram+pcm-memos", 30),
        ("memos:mcf:0.03:30", "kstaled", "dram+dcpmm", 30),
        ("multiphase", "all-fast", "dram+dcpmm", 2),
    ] {
        let r = run(workload, manager, machine, seconds);
        let t = r
            .time_breakdown
            .clone()
            .expect("the exact machine splits its time");
        let parts = t.compute_s
            + t.memory_s
            + t.sampling_s
            + t.monitor_shootdown_s
            + t.migration_shootdown_s;
        assert!(
            close(parts, r.sim_time_s),
            "{manager}: {t:?} vs {}",
            r.sim_time_s
        );
        let cpu = r.manager_cpu_util * r.sim_time_s;
        assert!(
            close(t.monitor_cpu_s + t.migration_cpu_s, cpu),
            "{manager}: {t:?} vs {cpu}"
        );
        assert!(t.compute_s > 0.0 && t.memory_s > 0.0, "{manager}: {t:?}");
        if manager == "all-fast" {
            assert_eq!(
                t.sampling_s + t.monitor_cpu_s + t.migration_cpu_s,
                0.0,
                "{t:?}"
            );
        } else {
            // Memos counts misses by poisoning; kstaled reads Accessed bits.
            assert_eq!(t.sampling_s > 0.0, manager == "memos", "{manager}: {t:?}");
            assert!(r.migrations.bytes > 0, "{manager} moved nothing");
            assert!(
                t.migration_cpu_s > 0.0 && t.migration_shootdown_s > 0.0,
                "{manager}: {t:?}"
            );
            assert!(t.monitor_cpu_s > 0.0, "{manager}: {t:?}");
        }
    }
}
