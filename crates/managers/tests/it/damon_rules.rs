//! DAMON as the kernel runs it, through `Manager::start` and `tick` on the
//! fake backend: vaddr's three initial regions around the workload, and a
//! hot range found while the regions stay within their limits.

use super::common;

use common::{Fake, PAGE};
use thermocline_managers::telescope::{
    Layout, Pick, RegionSampler, RegionSamplerParams, HEAP_SIDE, STACK_SIDE,
};
use thermocline_managers::Manager;

const BASE: u64 = 1 << 30;
const PAGES: u64 = 25_600; // 100 MiB

fn damon(layout: Layout) -> RegionSampler {
    RegionSampler::new(
        "damon-moderate",
        Pick::Leaf,
        RegionSamplerParams {
            layout,
            threshold_from_max: true,
            max_regions: 40,
            ..RegionSamplerParams::default()
        },
    )
}

#[test]
fn starts_from_three_regions_over_the_default_process() {
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    let mut d = damon(Layout::Process);
    d.start(&mut b).unwrap();
    let r = d.regions();
    // The mmap side (the workload and 4 MiB of libraries) in about
    // min_regions pieces; the image-and-heap and stack sides whole.
    assert_eq!(r[0].0, BASE);
    assert!((9..=11).contains(&(r.len() - 2)), "{r:?}");
    assert_eq!(r[r.len() - 3].1, BASE + PAGES * PAGE + (4 << 20));
    assert_eq!((r[r.len() - 2].0, r[r.len() - 2].1), HEAP_SIDE);
    assert_eq!((r[r.len() - 1].0, r[r.len() - 1].1), STACK_SIDE);
    // The span layout covers the workload only.
    let mut s = damon(Layout::Span);
    s.start(&mut b).unwrap();
    let r = s.regions();
    assert_eq!((r[0].0, r.last().unwrap().1), (BASE, BASE + PAGES * PAGE));
}

#[test]
fn finds_a_hot_range_and_keeps_within_max_regions() {
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    for i in 0..PAGES {
        b.touch(BASE + i * PAGE, false);
    }
    let mut d = damon(Layout::Process);
    d.start(&mut b).unwrap();
    // 10 MiB hot from 30 MiB on: touched before every sample.
    let hot = (BASE + (30 << 20), BASE + (40 << 20));
    let mut last = None;
    for _ in 0..40 * 15 {
        let mut va = hot.0;
        while va < hot.1 {
            b.touch(va, false);
            va += PAGE;
        }
        if let Some(h) = d.tick(&mut b).unwrap() {
            assert!(d.regions().len() <= 40, "{}", d.regions().len());
            last = Some(h);
        }
    }
    let h = last.expect("reports every window");
    let covered: u64 = h
        .ranges
        .iter()
        .map(|&(_, s, l)| (s + l).min(hot.1).saturating_sub(s.max(hot.0)))
        .sum();
    let reported: u64 = h.ranges.iter().map(|r| r.2).sum();
    assert!(covered * 10 >= (hot.1 - hot.0) * 9, "recall: {covered}");
    assert!(reported <= 3 * (hot.1 - hot.0), "precision: {reported}");
}

/// The registry's DAMON reports a region hot only when more than 5 of its
/// window's samples read set (paper 002, 6.3.2's test, as for Telescope): a
/// hot range whose pages are touched in one sample interval in ten (4 of
/// 40 samples set, as a 4 KiB page of a large, evenly loaded region) is
/// not reported; touched in every interval, it is.
#[test]
fn registry_damon_reports_a_region_hot_above_five_of_its_samples() {
    let hot = (BASE + (30 << 20), BASE + (40 << 20));
    for (every, want_hot) in [(10, false), (1, true)] {
        let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
        for i in 0..PAGES {
            b.touch(BASE + i * PAGE, false);
        }
        let mut d =
            thermocline_managers::registry::build("damon-moderate", toml::Table::new(), 1).unwrap();
        d.start(&mut b).unwrap();
        let mut reported = 0u64;
        for tick in 0..40 * 15 {
            if tick % every == 0 {
                let mut va = hot.0;
                while va < hot.1 {
                    b.touch(va, false);
                    va += PAGE;
                }
            }
            if let Some(h) = d.tick(&mut b).unwrap() {
                reported = h
                    .ranges
                    .iter()
                    .map(|&(_, s, l)| (s + l).min(hot.1).saturating_sub(s.max(hot.0)))
                    .sum();
            }
        }
        if want_hot {
            assert!(
                reported * 10 >= (hot.1 - hot.0) * 9,
                "every {every}: {reported}"
            );
        } else {
            assert_eq!(reported, 0, "every {every}");
        }
    }
}

#[test]
fn paddr_finds_the_frames_of_a_hot_range_through_the_reverse_map() {
    use thermocline_backend::Backend;
    use thermocline_vocab::{Access, Asid};
    // 100 MiB touched in order: the first 16 MiB land in DRAM, the rest in
    // the slow tier (128 MiB, the biggest: paddr's one initial region).
    let mut m = common::exact_machine(16 << 20, 128 << 20, BASE, PAGES * PAGE, false);
    let touch = |m: &mut thermocline_sim::Machine, va: u64| {
        m.access(Access {
            va,
            asid: 0,
            core: 0,
            write: false,
        });
    };
    for i in 0..PAGES {
        touch(&mut m, BASE + i * PAGE);
    }
    m.settle();
    let mut d = damon(Layout::Paddr);
    d.start(&mut m).unwrap();
    let slow = &m.tiers()[1];
    let first = slow.first_frame.unwrap() * PAGE;
    assert_eq!(
        d.regions(),
        vec![(first, first + slow.capacity_bytes, 0)],
        "one region over the biggest tier"
    );
    // 10 MiB hot at 30-40 MiB, in the slow tier.
    let hot = (BASE + (30 << 20), BASE + (40 << 20));
    let mut last = None;
    for _ in 0..40 * 15 {
        let mut va = hot.0;
        while va < hot.1 {
            touch(&mut m, va);
            va += PAGE;
        }
        m.settle();
        if let Some(h) = d.tick(&mut m).unwrap() {
            last = Some(h);
        }
    }
    let h = last.expect("reports every window");
    assert!(h.ranges.iter().all(|r| r.0 == Asid(0)));
    let covered: u64 = h
        .ranges
        .iter()
        .map(|&(_, s, l)| (s + l).min(hot.1).saturating_sub(s.max(hot.0)))
        .sum();
    let reported: u64 = h.ranges.iter().map(|r| r.2).sum();
    assert!(covered * 10 >= (hot.1 - hot.0) * 9, "recall: {covered}");
    assert!(reported <= 3 * (hot.1 - hot.0), "precision: {reported}");
}

#[test]
fn paddr_needs_a_backend_with_frames() {
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    let err = damon(Layout::Paddr).start(&mut b).unwrap_err();
    assert_eq!(
        err,
        thermocline_backend::BackendError::Unsupported(thermocline_backend::Capability::ReverseMap)
    );
}

/// `damon-kernel`: the host's regions (a fake monitor here) go through the
/// same hot test and Telescope's migration rules; on a backend that cannot
/// set the target's allocation policy (a live host), `start_in_slow` moves
/// the pages already there to the slow tier at start.
#[test]
fn kernel_regions_are_profiled_and_migrated_by_the_same_rules() {
    use thermocline_backend::{MonitorAttrs, MonitorRegion};
    use thermocline_vocab::{Asid, TierId};
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    for i in 0..PAGES {
        b.touch(BASE + i * PAGE, false);
    }
    b.no_policy = true;
    let region = |start: u64, len: u64, nr_accesses: u32| MonitorRegion {
        asid: Asid(0),
        start,
        len,
        nr_accesses,
        max_nr_accesses: 40,
        age: 3,
    };
    let hot = (BASE + (30 << 20), 10u64 << 20);
    b.monitor = Some(vec![
        region(BASE, 30 << 20, 0),
        region(hot.0, hot.1, 38),
        region(hot.0 + hot.1, PAGES * PAGE - (40 << 20), 2),
    ]);
    let params: toml::Table =
        toml::from_str("[migration]\nenabled = true\nwarmup_s = 0.0\nstart_in_slow = true\n")
            .unwrap();
    let mut d = thermocline_managers::registry::build("damon-kernel", params, 1).unwrap();
    d.start(&mut b).unwrap();
    assert_eq!(
        b.monitor_attrs,
        Some(MonitorAttrs {
            sample_us: 5_000,
            aggr_us: 200_000,
            min_regions: 10,
            max_regions: 1000,
        }),
        "damon-moderate's attributes"
    );
    assert_eq!(b.used(TierId::FAST), 0, "start_in_slow moved every page");
    assert_eq!(
        d.tick_ns(),
        Some(200_000_000),
        "one profile per aggregation"
    );
    let h = d.tick(&mut b).unwrap().expect("a profile every tick");
    assert_eq!(h.ranges, vec![(Asid(0), hot.0, hot.1)]);
    assert_eq!(b.used(TierId::FAST), hot.1 / PAGE, "the hot region moved");
    assert!(b
        .in_tier(TierId::FAST)
        .iter()
        .all(|&va| va >= hot.0 && va < hot.0 + hot.1));
    let g: std::collections::BTreeMap<_, _> = d.gauges().into_iter().collect();
    assert_eq!(g["regions"], 3.0);
    assert_eq!(g["migrated_bytes"], hot.1 as f64);
}

#[test]
fn kernel_regions_need_a_host_monitor() {
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    b.touch(BASE, false);
    let mut d =
        thermocline_managers::registry::build("damon-kernel", toml::Table::new(), 1).unwrap();
    assert_eq!(
        d.start(&mut b).unwrap_err(),
        thermocline_backend::BackendError::Unsupported(
            thermocline_backend::Capability::RegionMonitor
        )
    );
}
