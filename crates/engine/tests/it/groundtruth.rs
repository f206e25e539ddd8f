//! Precision and recall against the machine's ground truth.

use thermocline_engine::groundtruth::score;
use thermocline_managers::HotSet;
use thermocline_model::{tiers, MachineConfig};
use thermocline_sim::Machine;
use thermocline_vocab::Access;
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Asid, PageType};

/// Touches every 4 KiB page of 2 MiB units 0..4 once, and unit 10 once.
fn touch_pattern(m: &mut Machine, base: u64) {
    let load = |va| Access {
        va,
        asid: 0,
        core: 0,
        write: false,
    };
    for p in 0..(4 * 512) {
        m.access(load(base + p * 4096));
    }
    m.access(load(base + (10 << 21)));
}

#[test]
fn scores_hot_sets_at_2mib_granularity_and_resets_counts() {
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = 64 << 20;
    t[1].capacity_bytes = 64 << 20;
    let cfg = MachineConfig::with_tiers(t);
    let base = 1u64 << 30;
    let r = RegionInfo {
        asid: Asid(0),
        name: "r".into(),
        start: base,
        len: 32 << 20,
        page_type: PageType::Anon,
        thp: false,
    };
    let mut m = Machine::new(cfg, vec![r]).unwrap();
    // Units 0..4 are hot (every 4 KiB page touched), unit 10 touched once.
    touch_pattern(&mut m, base);
    // Report units 2..6: 2 right (2, 3), 2 wrong (4, 5); misses 0, 1 and 10.
    let hot = HotSet {
        ranges: vec![(Asid(0), base + (2 << 21), 4 << 21)],
    };
    let s = score(&mut m, &hot, 1);
    assert_eq!(s.precision, Some(0.5));
    assert_eq!(s.recall, Some(2.0 / 5.0));
    let s = score(&mut m, &hot, 1);
    assert_eq!(s.recall, None, "counts were reset by the previous score");
    touch_pattern(&mut m, base);
    // Threshold 2: unit 10 (one access) is cold; units 0-3 stay hot.
    let s = score(&mut m, &hot, 2);
    assert_eq!((s.precision, s.recall), (Some(0.5), Some(0.5)));
}
