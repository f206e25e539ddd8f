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
    // The LRU pass found every page accessed: nothing left FastMem, so the
    // first epoch could promote nothing. Now the page cache idles while the
    // heap pages in SlowMem are used: the next epoch finds them accessed,
    // and the guest evicts idle cache pages for them (8) and promotes them.
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
