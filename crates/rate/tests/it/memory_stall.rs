//! The rate machine's simulated PSI: the expected page-ins from a zswap
//! tier, at its 6 us fault each.

use thermocline_backend::Backend;
use thermocline_model::rates::{RatePhase, RateProfile, RateSegment};
use thermocline_model::{tiers, MachineConfig};
use thermocline_rate::RateMachine;
use thermocline_vocab::{Asid, PageType, RegionInfo, TierId};

#[test]
fn page_ins_from_zswap_are_the_memory_stall() {
    let region = RegionInfo {
        asid: Asid(0),
        name: "r".into(),
        start: 1 << 30,
        len: 8 << 20,
        page_type: PageType::Anon,
        thp: false,
    };
    let profile = RateProfile {
        phases: vec![RatePhase {
            name: "a".into(),
            accesses: 2_000_000,
            segments: vec![RateSegment {
                asid: Asid(0),
                start: region.start,
                len: region.len,
                share: 1.0,
                write_fraction: 0.0,
                burst_bytes: 64,
                stride_bytes: 64,
                sweep: false,
            }],
        }],
    };
    let mut fast = tiers::dram();
    fast.capacity_bytes = 1 << 30;
    let mut zswap = tiers::zswap();
    zswap.capacity_bytes = 1 << 30;
    let cfg = MachineConfig::with_tiers(vec![fast, zswap]);
    let mut m = RateMachine::new(cfg, vec![region.clone()], &profile).unwrap();
    m.advance(f64::INFINITY, 500_000.0);
    assert_eq!(m.some_memory_stall_us(), 0, "nothing paged out yet");
    m.migrate_range(Asid(0), region.start, region.len, TierId(1), u64::MAX)
        .unwrap();
    let before = m.stats().tier_faults;
    m.advance(f64::INFINITY, 1_000_000.0);
    let faults = m.stats().tier_faults - before;
    let stall = m.some_memory_stall_us();
    assert!(faults > 0);
    // 6 us a fault, up to the rounding of the expected counts
    assert!(
        stall.abs_diff(faults * 6) <= 12,
        "{stall} us for {faults} faults"
    );
    assert!(stall * 1000 <= m.now_ns());
}
