//! The memory system (`dram+pcm-memos`, `machine.memory`): it reaches the
//! report, it can be turned off, and bad settings are the user's errors.

use thermocline_engine::config;
use thermocline_engine::report::Report;
use thermocline_engine::runner;
use thermocline_engine::RunError;

fn run(sets: &[&str]) -> Result<Report, RunError> {
    let mut all = vec![
        "run.manager=\"first-touch\"".to_string(),
        "run.workload=\"zipf-1g\"".to_string(),
        "run.machine=\"dram+pcm-memos\"".to_string(),
        "run.duration_s=0.05".to_string(),
    ];
    all.extend(sets.iter().map(|s| s.to_string()));
    let cfg = config::load(None, &all).unwrap();
    runner::run(&cfg, &mut |_, _| {})
}

#[test]
fn the_memos_machine_reports_banks_rows_slabs_energy_and_wear() {
    // A small DRAM, so that PCM is read and written early.
    let r = run(&["run.fast_capacity=\"10%\""]).unwrap();
    let m = r.memory_system.as_ref().expect("a memory-system section");
    assert_eq!(m.llc_slab_misses.len(), 16);
    assert_eq!(m.llc_slab_misses.iter().sum::<u64>(), r.stats.llc_misses);
    assert_eq!(m.channels.len(), 2);
    for (c, t) in m.channels.iter().zip(&r.tiers) {
        assert_eq!(c.tier, t.name);
        assert_eq!(c.bank_accesses.len(), 32);
        assert_eq!(c.bank_accesses.iter().sum::<u64>(), t.reads + t.writes);
        let any = c.bank_accesses.iter().any(|&n| n > 0);
        assert!(c.bank_imbalance >= 1.0 || !any, "{c:?}");
        assert!((0.0..=1.0).contains(&c.row_hit_rate));
        // The split energy adds up to the tier's total.
        let sum = c.read_energy_j + c.write_energy_j + c.standby_energy_j;
        assert!(
            (sum - t.energy_j).abs() <= 1e-9 * t.energy_j,
            "{sum} {}",
            t.energy_j
        );
    }
    assert!(m.channels[0].wear.is_none(), "DRAM does not wear");
    let w = m.channels[1].wear.as_ref().expect("PCM wears");
    assert!(w.lifetime_years_start_gap.unwrap() > w.lifetime_years_unlevelled.unwrap());
    let json = r.to_json();
    assert!(json.contains("\"memory_system\""));
    assert!(json.contains("\"lifetime_years_start_gap\""));
}

#[test]
fn the_memory_system_can_be_turned_off_and_then_changes_nothing_else() {
    let off = run(&["machine.memory.enabled=false"]).unwrap();
    assert!(off.memory_system.is_none());
    assert!(!off.to_json().contains("memory_system"));
    // Without it the preset is dram+pcm with an 8 MiB LLC.
    let mut plain = vec![
        "run.manager=\"first-touch\"".to_string(),
        "run.workload=\"zipf-1g\"".to_string(),
        "run.machine=\"dram+pcm\"".to_string(),
        "run.duration_s=0.05".to_string(),
        "machine.llc.bytes=8388608".to_string(),
    ];
    plain.push("machine.llc.ways=16".into());
    let cfg = config::load(None, &plain).unwrap();
    let plain = runner::run(&cfg, &mut |_, _| {}).unwrap();
    assert_eq!(plain.sim_time_s, off.sim_time_s);
    assert_eq!(plain.stats, off.stats);
}

#[test]
fn bad_memory_settings_are_the_users_errors() {
    for (set, says) in [
        ("machine.memory.map.bank_bits=[12, 12]", "twice"),
        ("machine.memory.map.slab_bits=[9]", "falls among"),
        ("machine.memory.cycle_ns=-1", "cycle_ns"),
        ("machine.memory.read_queue=0", "read_queue"),
        ("machine.memory.timings=[]", "timings"),
        ("machine.llc.ways=3", "3-way"),
        // 0 turns the preset's LLC off (it was taken for "not given")
        ("machine.llc.bytes=0", "needs an LLC"),
        ("run.backend=\"rate\"", "rate"),
    ] {
        let e = match run(&[set]) {
            Ok(_) => panic!("{set} ran"),
            Err(e) => e,
        };
        assert_eq!(e.exit_code(), 2, "{set}: {e}");
        assert!(e.to_string().contains(says), "{set}: {e}");
    }
    // A memory system needs an LLC: dram+pcm has none.
    let e = run(&["run.machine=\"dram+pcm\"", "machine.memory.enabled=true"]).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("needs an LLC"), "{e}");
}
