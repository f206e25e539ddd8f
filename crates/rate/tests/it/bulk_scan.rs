//! The rate machine's bulk Accessed-bit scan answers exactly what reading
//! and clearing each leaf entry in turn answers.

use thermocline_backend::{Backend, Flush};
use thermocline_model::rates::{RatePhase, RateProfile, RateSegment};
use thermocline_model::{tiers, MachineConfig};
use thermocline_rate::RateMachine;
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Asid, Level, PageType};

fn machine(thp: bool, hot_share: f64) -> (RateMachine, Vec<RegionInfo>) {
    let regions: Vec<RegionInfo> = [(1u64 << 30, 8u64 << 20), (2 << 30, 32 << 20)]
        .iter()
        .enumerate()
        .map(|(i, &(start, len))| RegionInfo {
            asid: Asid(0),
            name: format!("r{i}"),
            start,
            len,
            page_type: PageType::Anon,
            thp,
        })
        .collect();
    let seg = |r: &RegionInfo, share: f64| RateSegment {
        asid: Asid(0),
        start: r.start,
        len: r.len / 2,
        share,
        write_fraction: 0.0,
        burst_bytes: 64,
        stride_bytes: 64,
        sweep: false,
    };
    let profile = RateProfile {
        phases: vec![
            RatePhase {
                name: "a".into(),
                accesses: 400_000,
                segments: vec![
                    seg(&regions[0], hot_share),
                    seg(&regions[1], 1.0 - hot_share),
                ],
            },
            RatePhase {
                name: "b".into(),
                accesses: 400_000,
                segments: vec![seg(&regions[1], 1.0)],
            },
        ],
    };
    let mut fast = tiers::dram();
    fast.capacity_bytes = 1 << 30;
    let mut slow = tiers::dcpmm();
    slow.capacity_bytes = 1 << 30;
    let cfg = MachineConfig {
        seed: 4,
        ..MachineConfig::with_tiers(vec![fast, slow])
    };
    (
        RateMachine::new(cfg, regions.clone(), &profile).unwrap(),
        regions,
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn bulk_scan_matches_entry_by_entry(
        thp: bool,
        hot_share in 0.05f64..0.95,
        steps in proptest::collection::vec((1u64..200_000, proptest::bool::ANY), 2..6),
    ) {
        let (mut bulk, regions) = machine(thp, hot_share);
        let (mut each, _) = machine(thp, hot_share);
        let mut done = 0u64;
        let mut scans: Vec<(usize, u64)> = Vec::new();
        for (n, flush) in steps {
            done += n;
            bulk.advance(f64::INFINITY, done as f64);
            each.advance(f64::INFINITY, done as f64);
            for r in &regions {
                let mut a = Vec::new();
                let read_a = bulk.scan_accessed(r.asid, r.start, r.len, true, &mut a).unwrap();
                let page = if thp { 2u64 << 20 } else { 4096 };
                let mut b = Vec::new();
                let mut read_b = 0;
                for va in (r.start..r.end()).step_by(page as usize) {
                    read_b += 1;
                    if each.accessed(r.asid, va, Level::Pte, true).unwrap() {
                        b.push(va);
                    }
                }
                proptest::prop_assert_eq!(read_a, read_b);
                scans.push((a.len(), read_a));
                proptest::prop_assert_eq!(a, b);
                if flush {
                    bulk.flush_tlb(r.asid, Flush::All).unwrap();
                    each.flush_tlb(r.asid, Flush::All).unwrap();
                }
            }
        }
        // The first scan of each region finds every initialised page set;
        // later ones find fewer (the cold halves stay clear).
        proptest::prop_assert!(scans[..2].iter().all(|&(f, r)| f as u64 == r));
        proptest::prop_assert!(scans[2..].iter().all(|&(f, r)| (f as u64) < r));
    }
}
