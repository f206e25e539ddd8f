//! HeteroOS's guest mechanisms (crates/managers/src/heteroos/guest.rs) on
//! the exact machine: which page types get FastMem under each of Table 5's
//! mechanisms, the eager eviction of I/O pages when their I/O completes,
//! HeteroOS-LRU's eviction of inactive FastMem pages under pressure (and
//! only then), and the per-type thresholds.

use thermocline_backend::Backend;
use thermocline_managers::heteroos::guest::{GuestParams, HeteroOsGuest, Mechanism};
use thermocline_managers::heteroos::lru::Thresholds;
use thermocline_managers::Manager;
use thermocline_model::{tiers, MachineConfig};
use thermocline_sim::Machine;
use thermocline_vocab::{Access, Asid, MemEvent, PageType, RegionInfo, TierId};

const PAGE: u64 = 4096;
const HEAP: u64 = 1 << 30;
const CACHE: u64 = 2 << 30;
const SLAB: u64 = 3 << 30;
const PAGES: u64 = 64;
const A0: Asid = Asid(0);

fn region(name: &str, start: u64, page_type: PageType) -> RegionInfo {
    RegionInfo {
        asid: A0,
        name: name.into(),
        start,
        len: PAGES * PAGE,
        page_type,
        thp: false,
    }
}

/// A heap, a page cache and a slab of 64 pages each; FastMem of
/// `fast_pages`.
fn machine(fast_pages: u64) -> Machine {
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = fast_pages * PAGE;
    t[1].capacity_bytes = 4 * PAGES * PAGE;
    let regions = vec![
        region("heap", HEAP, PageType::Anon),
        region("page-cache", CACHE, PageType::FileCache),
        region("slab", SLAB, PageType::Slab),
    ];
    Machine::new(MachineConfig::with_tiers(t), regions).unwrap()
}

fn touch(m: &mut Machine, va: u64) {
    m.access(Access {
        va,
        asid: 0,
        core: 0,
        write: true,
    });
    m.settle();
}

fn touch_range(m: &mut Machine, start: u64, pages: u64) {
    for i in 0..pages {
        touch(m, start + i * PAGE);
    }
}

fn tier_of(m: &Machine, va: u64) -> Option<TierId> {
    m.translate(A0, va).unwrap().map(|t| t.tier)
}

fn count_in(m: &Machine, start: u64, tier: TierId) -> u64 {
    (0..PAGES)
        .filter(|i| tier_of(m, start + i * PAGE) == Some(tier))
        .count() as u64
}

fn gauge(g: &HeteroOsGuest, name: &str) -> f64 {
    g.gauges().into_iter().find(|x| x.0 == name).unwrap().1
}

fn guest(mechanism: Mechanism, params: GuestParams) -> HeteroOsGuest {
    params.check().unwrap();
    HeteroOsGuest::new(mechanism, params)
}

/// Heap-OD gives FastMem to the heap only; Heap-IO-Slab-OD to the page
/// cache and the slab as well, in allocation order until FastMem is full,
/// then SlowMem, counting the misses per type.
#[test]
fn on_demand_placement_follows_the_page_type() {
    for (mechanism, cache_fast) in [(Mechanism::HeapOd, 0), (Mechanism::HeapIoSlabOd, 16)] {
        let mut m = machine(48);
        let mut g = guest(mechanism, GuestParams::default());
        g.start(&mut m).unwrap();
        touch_range(&mut m, HEAP, 32);
        touch_range(&mut m, CACHE, 16);
        touch_range(&mut m, SLAB, 8);
        g.tick(&mut m).unwrap();
        assert_eq!(count_in(&m, HEAP, TierId::FAST), 32, "{mechanism:?}");
        assert_eq!(
            count_in(&m, CACHE, TierId::FAST),
            cache_fast,
            "{mechanism:?}"
        );
        assert_eq!(
            count_in(&m, SLAB, TierId::FAST),
            0,
            "{mechanism:?}: FastMem is full"
        );
        let slab_ratio = gauge(&g, "slab_miss_ratio");
        let (misses, ratio) = match mechanism {
            // Heap-OD never asks FastMem for slab pages: no miss.
            Mechanism::HeapOd => (0.0, 0.0),
            _ => (8.0, 1.0),
        };
        assert_eq!(
            gauge(&g, "fastmem_alloc_misses_count"),
            misses,
            "{mechanism:?}"
        );
        assert_eq!(slab_ratio, ratio, "{mechanism:?}");
        // Figure 10 counts the requests that asked for FastMem.
        let asked = if mechanism == Mechanism::HeapOd {
            32.0
        } else {
            56.0
        };
        assert_eq!(
            gauge(&g, "fastmem_alloc_requests_count"),
            asked,
            "{mechanism:?}"
        );
    }
}

/// HeteroOS-LRU evicts page-cache pages from FastMem as soon as their I/O
/// completes (section 3.3 (2)); Heap-IO-Slab-OD keeps them there.
#[test]
fn completed_io_leaves_fastmem_under_heteroos_lru_only() {
    for (mechanism, left) in [(Mechanism::HeapIoSlabOd, 16), (Mechanism::Lru, 0)] {
        let mut m = machine(256);
        let mut g = guest(mechanism, GuestParams::default());
        g.start(&mut m).unwrap();
        touch_range(&mut m, CACHE, 16);
        assert_eq!(count_in(&m, CACHE, TierId::FAST), 16);
        m.apply_event(MemEvent::IoDone {
            asid: A0,
            start: CACHE,
            len: 16 * PAGE,
        })
        .unwrap();
        g.tick(&mut m).unwrap();
        assert_eq!(count_in(&m, CACHE, TierId::FAST), left, "{mechanism:?}");
        assert_eq!(
            count_in(&m, CACHE, TierId::SLOW),
            16 - left,
            "{mechanism:?}"
        );
    }
}

/// Without pressure HeteroOS-LRU leaves idle FastMem pages alone; once
/// allocations miss FastMem, its clock hand evicts FastMem pages not
/// accessed since it last passed them, as many as the misses and the free
/// watermark ask for, and the freed FastMem serves the next allocations.
#[test]
fn inactive_fastmem_pages_are_evicted_under_pressure_only() {
    let mut m = machine(32);
    let mut g = guest(Mechanism::Lru, GuestParams::default());
    g.start(&mut m).unwrap();
    touch_range(&mut m, HEAP, 16);
    g.tick(&mut m).unwrap();
    g.tick(&mut m).unwrap();
    assert_eq!(
        gauge(&g, "lru_passes_count"),
        0.0,
        "half of FastMem free: no pressure"
    );
    assert_eq!(count_in(&m, HEAP, TierId::FAST), 16);
    // 24 more heap pages: 16 fit, 8 miss. The pass finds every page
    // accessed (their first touch), clears the bits and evicts nothing.
    touch_range(&mut m, HEAP + 16 * PAGE, 24);
    g.tick(&mut m).unwrap();
    assert_eq!(gauge(&g, "lru_passes_count"), 1.0);
    assert_eq!(
        gauge(&g, "lru_evicted_pages_count"),
        0.0,
        "every page was accessed"
    );
    assert_eq!(
        gauge(&g, "lru_scanned_pages_count"),
        32.0,
        "the hand went round once"
    );
    // Pages 16-39 are used again, 0-15 are not; 8 new pages miss again.
    // Demand: 8 misses + the watermark's page (1% of 32, rounded up).
    touch_range(&mut m, HEAP + 16 * PAGE, 24);
    touch_range(&mut m, HEAP + 40 * PAGE, 8);
    g.tick(&mut m).unwrap();
    assert_eq!(gauge(&g, "lru_passes_count"), 2.0);
    assert_eq!(gauge(&g, "lru_evicted_pages_count"), 9.0);
    assert!(
        (0..9).all(|i| tier_of(&m, HEAP + i * PAGE) == Some(TierId::SLOW)),
        "the first idle pages the hand met left FastMem"
    );
    assert!((9..32).all(|i| tier_of(&m, HEAP + i * PAGE) == Some(TierId::FAST)));
    // FastMem freed by the eviction takes the next allocations.
    touch_range(&mut m, HEAP + 48 * PAGE, 9);
    assert!((48..57).all(|i| tier_of(&m, HEAP + i * PAGE) == Some(TierId::FAST)));
}

/// A type's threshold share of FastMem keeps its inactive pages there under
/// pressure; the other types' inactive pages still go.
#[test]
fn a_threshold_keeps_its_share_of_fastmem() {
    let params = GuestParams {
        thresholds: Thresholds {
            page_cache: 0.25,
            ..Thresholds::default()
        },
        ..GuestParams::default()
    };
    let mut m = machine(32);
    let mut g = guest(Mechanism::Lru, params);
    g.start(&mut m).unwrap();
    touch_range(&mut m, HEAP, 16);
    touch_range(&mut m, CACHE, 16);
    // FastMem is full: a slab page misses, the pass clears every bit as
    // the hand goes round; then 40 slab pages miss with every FastMem page
    // idle, asking for more than FastMem holds.
    touch(&mut m, SLAB);
    g.tick(&mut m).unwrap();
    touch_range(&mut m, SLAB + PAGE, 40);
    g.tick(&mut m).unwrap();
    assert_eq!(
        count_in(&m, HEAP, TierId::FAST),
        0,
        "heap threshold 0: all go"
    );
    assert_eq!(
        count_in(&m, CACHE, TierId::FAST),
        8,
        "a quarter of 32 pages stays"
    );
}

/// Bad parameters name themselves.
#[test]
fn bad_parameters_are_refused_with_their_name() {
    let bad = GuestParams {
        fast_free_watermark: 2.0,
        ..GuestParams::default()
    };
    assert!(bad.check().unwrap_err().contains("fast_free_watermark"));
    let bad = GuestParams {
        interval_ms: 0.0,
        ..GuestParams::default()
    };
    assert!(bad.check().unwrap_err().contains("interval_ms"));
}

/// VMM-exclusive allocates every page in SlowMem, promotes the pages a
/// scan finds accessed, and evicts FastMem pages found idle to make room:
/// FastMem ends up holding the pages in use.
#[test]
fn vmm_exclusive_promotes_what_it_sees_accessed_and_evicts_the_idle() {
    use thermocline_managers::heteroos::vmm::{VmmExclusive, VmmParams};
    let mut m = machine(16);
    let mut g = VmmExclusive::new(VmmParams::default());
    g.start(&mut m).unwrap();
    touch_range(&mut m, HEAP, 16);
    assert_eq!(count_in(&m, HEAP, TierId::FAST), 0, "lazy: SlowMem first");
    g.tick(&mut m).unwrap();
    assert_eq!(count_in(&m, HEAP, TierId::FAST), 16, "all 16 were accessed");
    // Pages 0-15 idle from now on, 16-31 used: one scan finds 0-15 idle
    // and 16-31 accessed; the promotions need the room the idle pages
    // leave.
    touch_range(&mut m, HEAP + 16 * PAGE, 16);
    g.tick(&mut m).unwrap();
    assert!((16..32).all(|i| tier_of(&m, HEAP + i * PAGE) == Some(TierId::FAST)));
    assert!((0..16).all(|i| tier_of(&m, HEAP + i * PAGE) == Some(TierId::SLOW)));
    let scanned = g
        .gauges()
        .into_iter()
        .find(|x| x.0 == "scanned_pages_count")
        .unwrap()
        .1;
    assert_eq!(scanned, 16.0 + 32.0);
    assert!(
        m.manager_ns() > 48.0 * 37_000.0,
        "Table 6's walk cost is charged"
    );
}

/// Accesses to one page (TLB hits) until the machine's clock reaches `ns`.
fn advance_to(m: &mut Machine, ns: u64, va: u64) {
    let mut n = 0;
    while m.now_ns() < ns {
        for _ in 0..1000 {
            m.access(Access {
                va,
                asid: 0,
                core: 0,
                write: false,
            });
        }
        m.settle();
        n += 1;
        assert!(n < 100_000, "the clock does not advance");
    }
}

/// HeteroOS-coordinated tracks nothing while the guest finds FastMem;
/// after a miss, the VMM scans the heap (not the page cache, which is on
/// the exception list) and the guest promotes the accessed SlowMem heap
/// pages into the FastMem that HeteroOS-LRU freed.
#[test]
fn coordinated_tracking_starts_on_a_miss_and_scans_only_the_heap() {
    use thermocline_managers::heteroos::coordinated::{Coordinated, CoordinatedParams};
    let gauge = |g: &Coordinated, k: &str| g.gauges().into_iter().find(|x| x.0 == k).unwrap().1;
    let mut m = machine(24);
    let mut g = Coordinated::new(CoordinatedParams::default());
    g.start(&mut m).unwrap();
    touch_range(&mut m, HEAP, 8);
    g.tick(&mut m).unwrap();
    assert_eq!(
        gauge(&g, "tracking_epochs_count"),
        0.0,
        "no miss, no tracking"
    );
    // The page cache fills the rest of FastMem; 8 more heap pages miss it.
    touch_range(&mut m, CACHE, 16);
    touch_range(&mut m, HEAP + 8 * PAGE, 8);
    assert_eq!(count_in(&m, HEAP, TierId::SLOW), 8);
    advance_to(&mut m, 100_000_000, HEAP);
    g.tick(&mut m).unwrap();
    assert_eq!(
        gauge(&g, "tracking_epochs_count"),
        1.0,
        "the miss starts tracking"
    );
    // The first epoch found the SlowMem heap pages accessed once (their
    // first touch): not hot yet. Now the page cache idles while the heap
    // pages in SlowMem are used: the next epoch finds them accessed a
    // second time, hot, and the guest evicts idle cache pages for them (8,
    // HeteroOS-LRU's room) and promotes them.
    touch_range(&mut m, HEAP, 16);
    touch(&mut m, SLAB);
    advance_to(&mut m, 250_000_000, HEAP);
    touch_range(&mut m, HEAP, 16);
    g.tick(&mut m).unwrap();
    assert_eq!(
        count_in(&m, CACHE, TierId::FAST),
        8,
        "HeteroOS-LRU freed the room from the idle cache, as much as needed"
    );
    assert_eq!(
        count_in(&m, HEAP, TierId::FAST),
        16,
        "the guest promoted the heap"
    );
    let scanned = gauge(&g, "scanned_pages_count");
    assert!(
        scanned > 0.0 && scanned <= 32.0,
        "heap pages only: {scanned}"
    );
}

/// A VM's HeteroOS-coordinated is ticked by the VMM more often than its
/// guest's 100 ms: I/O completions handed over between two guest ticks
/// are kept for the next one, not lost.
#[test]
fn a_vms_io_completions_between_guest_ticks_are_kept() {
    use thermocline_managers::heteroos::coordinated::{Coordinated, CoordinatedParams};
    let mut m = machine(256);
    let mut g = Coordinated::for_vm(CoordinatedParams::default(), A0, 256, 1 << 20);
    g.start(&mut m).unwrap();
    touch_range(&mut m, CACHE, 16);
    g.tick_with_events(&mut m, &[]).unwrap();
    assert_eq!(count_in(&m, CACHE, TierId::FAST), 16);
    let done = MemEvent::IoDone {
        asid: A0,
        start: CACHE,
        len: 16 * PAGE,
    };
    // Before the guest's next tick: kept.
    g.tick_with_events(&mut m, &[done]).unwrap();
    assert_eq!(count_in(&m, CACHE, TierId::FAST), 16);
    let due = m.now_ns() + 100_000_000;
    advance_to(&mut m, due, HEAP);
    g.tick_with_events(&mut m, &[]).unwrap();
    assert_eq!(
        count_in(&m, CACHE, TierId::FAST),
        0,
        "evicted at the guest's tick"
    );
}

/// The VMM's tracker on its own (no guest): a SlowMem page used before
/// each of its last three scans is hot, and the guest's migration evicts
/// the least recently used tracked FastMem page for it, not one used more
/// recently; a page used once is not hot, and a hot page less recently
/// used than every FastMem page does not displace one.
#[test]
fn the_least_recently_used_tracked_page_makes_room_for_a_hotter_one() {
    use thermocline_managers::heteroos::coordinated::GuidedTracker;
    let mut m = machine(4);
    let mut t = GuidedTracker::new(vec![(A0, HEAP, HEAP + PAGES * PAGE)], 1024, 2, TierId::SLOW);
    let p = |i: u64| HEAP + i * PAGE;
    // First touch: pages 0-3 fill FastMem, 4-9 go to SlowMem; scan 0
    // finds them all accessed once (not hot: one scan).
    touch_range(&mut m, HEAP, 10);
    assert_eq!(count_in(&m, HEAP, TierId::FAST), 4);
    // Before scans 1-3: 0-2 and 8 used every time, 3 before scan 1 only,
    // 9 before scans 1 and 3, 10 first touched before scan 3.
    for scan in 0..4 {
        if scan > 0 {
            for i in [0, 1, 2, 8] {
                touch(&mut m, p(i));
            }
        }
        if scan == 1 {
            touch(&mut m, p(3));
        }
        if scan == 1 || scan == 3 {
            touch(&mut m, p(9));
        }
        if scan == 3 {
            touch(&mut m, p(10));
        }
        t.scan(&mut m).unwrap();
        t.migrate(&mut m).unwrap();
    }
    let h = |i: u64| t.history().bits((A0, p(i))).unwrap();
    assert_eq!(h(0), 0xf0);
    assert_eq!(h(8), 0xf0);
    assert_eq!(h(3), 0x30);
    assert_eq!(h(9), 0xb0);
    assert_eq!(h(10), 0x80, "used once: not hot");
    assert_eq!(
        tier_of(&m, p(3)),
        Some(TierId::SLOW),
        "page 3 was the least recently used when page 8 became hot"
    );
    assert_eq!(tier_of(&m, p(8)), Some(TierId::FAST));
    assert_eq!(
        tier_of(&m, p(9)),
        Some(TierId::SLOW),
        "0xb0 is hot but older than every FastMem page (0xf0)"
    );
    assert_eq!(tier_of(&m, p(10)), Some(TierId::SLOW));
    assert_eq!((t.promoted, t.evicted), (1, 1));
    assert_eq!(t.scanned, 10 + 10 + 10 + 11);
}

/// The thrashing symptom: a hot set that fits FastMem, and pages outside
/// it touched once in a while (each once every 24 epochs, more scans than
/// the history keeps). After warm-up the hot set is in FastMem and
/// HeteroOS-coordinated moves nothing: no promotions, no evictions. (With
/// a page hot when accessed since its last scan, every one-off touch was
/// promoted and another page evicted for it, epoch after epoch.)
#[test]
fn a_stable_hot_set_that_fits_fastmem_is_not_churned() {
    use thermocline_managers::heteroos::coordinated::{Coordinated, CoordinatedParams};
    let gauge = |g: &Coordinated, k: &str| g.gauges().into_iter().find(|x| x.0 == k).unwrap().1;
    let moves = |g: &Coordinated| {
        gauge(g, "promoted_pages_count")
            + gauge(g, "evicted_pages_count")
            + gauge(g, "lru_evicted_pages_count")
    };
    let mut m = machine(24);
    let mut g = Coordinated::new(CoordinatedParams::default());
    g.start(&mut m).unwrap();
    // Every heap page once: 0-23 in FastMem, 24-63 miss it.
    touch_range(&mut m, HEAP, PAGES);
    let hot: Vec<u64> = (32..48).collect();
    let cold: Vec<u64> = (0..32).chain(48..64).collect();
    let mut next_cold = 0;
    let step_ns = 50_000_000;
    let mut at_warm = None;
    for step in 1..=240u64 {
        for &i in &hot {
            touch(&mut m, HEAP + i * PAGE);
        }
        for _ in 0..2 {
            touch(&mut m, HEAP + cold[next_cold % cold.len()] * PAGE);
            next_cold += 1;
        }
        advance_to(&mut m, step * step_ns, HEAP + hot[0] * PAGE);
        g.tick(&mut m).unwrap();
        if step == 120 {
            at_warm = Some((moves(&g), gauge(&g, "tracking_epochs_count")));
        }
    }
    assert!(
        hot.iter()
            .all(|&i| tier_of(&m, HEAP + i * PAGE) == Some(TierId::FAST)),
        "the hot set is in FastMem"
    );
    assert!(gauge(&g, "promoted_pages_count") >= hot.len() as f64);
    let (warm_moves, warm_epochs) = at_warm.unwrap();
    let epochs = gauge(&g, "tracking_epochs_count") - warm_epochs;
    assert!(epochs >= 20.0, "tracking went on: {epochs} epochs");
    assert_eq!(
        moves(&g) - warm_moves,
        0.0,
        "no promote/evict churn over the last {epochs} epochs"
    );
}

mod two_readers {
    use super::*;
    use proptest::prelude::*;
    use thermocline_backend::Flush;
    use thermocline_managers::heteroos::history::AccessHistory;

    #[derive(Debug, Clone, Copy)]
    enum Op {
        Touch(u64),
        Vmm(u64),
        Guest(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..4u64).prop_map(Op::Touch),
            (0..4u64).prop_map(Op::Vmm),
            (0..4u64).prop_map(Op::Guest),
        ]
    }

    proptest! {
        /// The VMM and the guest reading one machine bit through the
        /// history each see what two sets of bits would show them: a page
        /// accessed since their own last read, whatever the other cleared.
        #[test]
        fn each_reader_sees_the_accesses_since_its_own_last_read(
            ops in prop::collection::vec(op(), 1..80),
        ) {
            let mut m = machine(16);
            let mut h = AccessHistory::new();
            let va = |i: u64| HEAP + i * PAGE;
            touch_range(&mut m, HEAP, 4);
            // Both readers have seen the first touches.
            for i in 0..4 {
                h.vmm_read(&mut m, (A0, va(i))).unwrap();
                h.guest_read(&mut m, (A0, va(i)), true).unwrap();
            }
            m.flush_tlb(A0, Flush::All).unwrap();
            let (mut vmm, mut guest) = ([false; 4], [false; 4]);
            for op in ops {
                match op {
                    Op::Touch(i) => {
                        touch(&mut m, va(i));
                        vmm[i as usize] = true;
                        guest[i as usize] = true;
                    }
                    Op::Vmm(i) => {
                        let seen = h.vmm_read(&mut m, (A0, va(i))).unwrap();
                        prop_assert_eq!(seen, std::mem::take(&mut vmm[i as usize]));
                        m.flush_tlb(A0, Flush::All).unwrap();
                    }
                    Op::Guest(i) => {
                        let seen = h.guest_read(&mut m, (A0, va(i)), true).unwrap();
                        prop_assert_eq!(seen, std::mem::take(&mut guest[i as usize]));
                        m.flush_tlb(A0, Flush::All).unwrap();
                    }
                }
            }
        }
    }
}

/// The VMM's hotness is exported to the guest: HeteroOS-LRU's pass, reading
/// its Accessed bits through the tracker, keeps a tracked page that is hot
/// by the VMM's history although it was idle since the pass before, and
/// evicts the idle pages that are not hot.
#[test]
fn heteroos_lru_keeps_the_pages_the_vmm_found_hot() {
    use thermocline_managers::heteroos::coordinated::GuidedTracker;
    let mut m = machine(8);
    let mut g = guest(Mechanism::Lru, GuestParams::default());
    g.start(&mut m).unwrap();
    let mut t = GuidedTracker::new(vec![(A0, HEAP, HEAP + PAGES * PAGE)], 1024, 2, TierId::SLOW);
    touch_range(&mut m, HEAP, 8);
    assert_eq!(count_in(&m, HEAP, TierId::FAST), 8);
    // Pages 0-3 used before each of three scans, 4-7 only first touched.
    for scan in 0..3 {
        if scan > 0 {
            touch_range(&mut m, HEAP, 4);
        }
        t.scan(&mut m).unwrap();
    }
    // The guest's first pass sees every page used since it began (its own
    // bits, which the VMM's reads left set); the second, after no access,
    // sees none: it keeps 0-3, hot by the VMM's history.
    g.reclaim_with(&mut m, 8, &mut t).unwrap();
    assert_eq!(count_in(&m, HEAP, TierId::FAST), 8);
    g.reclaim_with(&mut m, 8, &mut t).unwrap();
    assert!((0..4).all(|i| tier_of(&m, HEAP + i * PAGE) == Some(TierId::FAST)));
    assert!((4..8).all(|i| tier_of(&m, HEAP + i * PAGE) == Some(TierId::SLOW)));
}

/// Equation 1 compares the LLC misses of consecutive epochs per second: at
/// a steady miss rate the tracking interval stays where it started (100
/// ms), whatever the epochs' lengths. (Counting misses per epoch, the
/// first epoch, which tracking starts with and has no length, had none,
/// and the next sent the interval to 50 ms.)
#[test]
fn a_steady_miss_rate_keeps_the_tracking_interval() {
    use thermocline_managers::heteroos::coordinated::{Coordinated, CoordinatedParams};
    let gauge = |g: &Coordinated, k: &str| g.gauges().into_iter().find(|x| x.0 == k).unwrap().1;
    let mut m = machine(24);
    let mut g = Coordinated::new(CoordinatedParams::default());
    g.start(&mut m).unwrap();
    touch_range(&mut m, HEAP, PAGES);
    let step_ns = 50_000_000;
    for step in 1..=20u64 {
        advance_to(&mut m, step * step_ns, HEAP);
        g.tick(&mut m).unwrap();
    }
    assert!(gauge(&g, "tracking_epochs_count") >= 5.0);
    let ms = gauge(&g, "tracking_interval_ms");
    assert!((90.0..=110.0).contains(&ms), "{ms} ms");
}
