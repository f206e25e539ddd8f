//! Memory Mode on the rate machine: with every page in the slow tier, the
//! accesses split between DRAM-cache hits and misses as
//! `thermocline_rate::dram_cache` says, misses fill the cache, and dirty
//! victims are written back to the slow tier.

use thermocline_backend::MemoryMode;
use thermocline_backend::{Backend, MemPolicy};
use thermocline_model::rates::{RatePhase, RateProfile, RateSegment};
use thermocline_model::{tiers, MachineConfig};
use thermocline_rate::dram_cache::dirty_on_eviction;
use thermocline_rate::RateMachine;
use thermocline_vocab::{Asid, PageType, RegionInfo, TierId};

#[test]
fn hits_fills_and_writebacks_follow_the_cache_model() {
    let region = RegionInfo {
        asid: Asid(0),
        name: "r".into(),
        start: 1 << 30,
        len: 8 << 20,
        page_type: PageType::Anon,
        thp: false,
    };
    let w = 0.25;
    let profile = RateProfile {
        phases: vec![RatePhase {
            name: "a".into(),
            accesses: 10_000_000,
            segments: vec![RateSegment {
                asid: Asid(0),
                start: region.start,
                len: region.len,
                share: 1.0,
                write_fraction: w,
                burst_bytes: 64,
                stride_bytes: 64,
                sweep: false,
            }],
        }],
    };
    let mut fast = tiers::dram();
    fast.capacity_bytes = 4 << 20; // half the footprint: two lines a set
    let mut slow = tiers::dcpmm();
    slow.capacity_bytes = 1 << 30;
    let cfg = MachineConfig::with_tiers(vec![fast, slow]);
    let mut m = RateMachine::new(cfg, vec![region], &profile).unwrap();
    m.set_policy(Asid(0), MemPolicy::Bind { tier: TierId(1) })
        .unwrap();
    m.set_memory_mode(true).unwrap();
    let before = m.time_ns();
    m.advance(f64::INFINITY, 1e7);
    let n = 1e7;
    let lambda: f64 = 2.0;
    let h = (1.0 - (-lambda).exp()) / lambda;
    let d = dirty_on_eviction(h, w);
    let app = m.app_counters();
    let near = |what: &str, got: u64, want: f64| {
        assert!(
            (got as f64 - want).abs() <= 1e-3 * want + 2.0,
            "{what}: {got} against {want:.0}"
        );
    };
    near("hits read", app[0].reads, n * (1.0 - w) * h);
    near("hits written", app[0].writes, n * w * h);
    near(
        "misses read from the slow tier",
        app[1].reads,
        n * (1.0 - h),
    );
    near("writebacks", app[1].writes, n * (1.0 - h) * d);
    let all = [
        m.tier_counters(TierId(0)).unwrap(),
        m.tier_counters(TierId(1)).unwrap(),
    ];
    near(
        "fills and hit stores",
        all[0].writes,
        n * (1.0 - h) + n * w * h,
    );
    near("slow-tier writes", all[1].writes, n * (1.0 - h) * d);
    assert!(m.time_ns() > before);
}
