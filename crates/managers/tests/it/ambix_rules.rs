//! Ambix's rules (crates/managers/src/ambix.rs; ../shared/papers/
//! 004_5016d0e3a63ff357.txt, section 4.2), one at a time on the fake
//! backend, where the test sets the R/D bits, the tiers and DCPMM's write
//! traffic by hand. One test drives the exact machine to check the written
//! page rule through real TLBs.

use super::common;

use common::{Fake, FAST, PAGE, SLOW};
use thermocline_backend::Backend;
use thermocline_managers::ambix::{Ambix, AmbixParams};
use thermocline_managers::Manager;

const BASE: u64 = 1 << 30;

fn va(i: u64) -> u64 {
    BASE + i * PAGE
}

fn tick(m: &mut Ambix, b: &mut dyn Backend, n: usize) {
    for _ in 0..n {
        m.tick(b).unwrap();
    }
}

fn gauge(m: &Ambix, k: &str) -> f64 {
    m.gauges().into_iter().find(|g| g.0 == k).unwrap().1
}

/// Starts Ambix on `b` and ticks to just before the first period boundary
/// (tick 40 of 50 ms with the defaults).
fn started(p: AmbixParams, b: &mut Fake) -> Ambix {
    let mut m = Ambix::new(p);
    m.start(b).unwrap();
    let per = m.tick_ns().unwrap() as f64 / 1e9;
    let n = (2.0 / per).round() as usize;
    tick(&mut m, b, n - 1);
    assert!(b.log.is_empty(), "nothing happens inside a period");
    m
}

fn threshold(t: f64) -> AmbixParams {
    AmbixParams {
        dram_threshold: t,
        ..Default::default()
    }
}

fn demoted(b: &Fake, from: usize) -> Vec<u64> {
    b.migrations_since(from)
        .into_iter()
        .filter(|m| m.1 == SLOW)
        .map(|m| (m.0 - BASE) / PAGE)
        .collect()
}

fn promoted(b: &Fake, from: usize) -> Vec<u64> {
    b.migrations_since(from)
        .into_iter()
        .filter(|m| m.1 == FAST)
        .map(|m| (m.0 - BASE) / PAGE)
        .collect()
}

/// Algorithm 1: priority = not referenced, backup = referenced and clean;
/// referenced and modified pages are retained. DRAM holds 20 pages and the
/// threshold 0.5 asks for 10: the 6 cold pages go, then 4 clean ones, and
/// no written page, even when that leaves DRAM over its threshold.
#[test]
fn demote_takes_cold_then_clean_pages_and_never_a_written_one() {
    let mut b = Fake::new(BASE, 40, 20, 40, false);
    // Address order mixes the kinds: written 0-7, clean 8-13, cold 14-19.
    for i in 0..20 {
        let (a, d) = match i {
            0..=7 => (true, true),
            8..=13 => (true, false),
            _ => (false, false),
        };
        b.place(va(i), FAST, a, d);
    }
    let mut m = started(threshold(0.5), &mut b);
    tick(&mut m, &mut b, 1);
    let out = demoted(&b, 0);
    assert_eq!(out.len(), 10, "used - limit = 10 pages: {out:?}");
    assert!(
        out.iter().all(|&i| i >= 8),
        "a written page was demoted: {out:?}"
    );
    for i in 14..20 {
        assert!(
            out.contains(&i),
            "cold page {i} kept while clean pages went"
        );
    }
    assert_eq!(out.iter().filter(|&&i| (8..14).contains(&i)).count(), 4);
    assert_eq!(gauge(&m, "demote_count"), 1.0);
    // DEMOTE needs no DCPMM_CLEAR and no delay: nothing is pending.
    let n = b.log.len();
    tick(&mut m, &mut b, 1);
    assert_eq!(b.log.len(), n);

    // Only written pages left besides 2 cold ones: 2 go, the written stay
    // although DRAM is still over its threshold.
    let mut b = Fake::new(BASE, 40, 20, 40, false);
    for i in 0..20 {
        b.place(va(i), FAST, i < 18, i < 18);
    }
    let mut m = started(threshold(0.5), &mut b);
    tick(&mut m, &mut b, 1);
    assert_eq!(demoted(&b, 0), vec![18, 19]);
}

/// "Pages written since the last walk are retained, never demoted", and
/// DEMOTE clears the bits of every page it does not pick: a written page is
/// retained once, then judged again by what happens before the next walk.
#[test]
fn a_retained_written_page_is_judged_again_at_the_next_walk() {
    let mut b = Fake::new(BASE, 40, 20, 40, false);
    for i in 0..20 {
        b.place(va(i), FAST, true, true);
    }
    let mut m = started(threshold(0.5), &mut b);
    tick(&mut m, &mut b, 1);
    assert!(demoted(&b, 0).is_empty(), "every DRAM page was written");
    for i in 0..20 {
        let p = b.page(va(i));
        assert!(!p.accessed && !p.dirty, "page {i}: R/D bits not cleared");
    }
    // Half of them are written again before the next period.
    for i in 0..10 {
        b.touch(va(i), true);
    }
    let n = b.log.len();
    tick(&mut m, &mut b, 40);
    assert_eq!(demoted(&b, n), (10..20).collect::<Vec<_>>());
}

/// SelMo "keeps ... last address ... pairs, which set the start of the next
/// page selection phase for that tier": a walk that stopped early resumes
/// there, so pages inspected longest ago go first.
#[test]
fn demote_resumes_the_dram_walk_where_the_last_one_stopped() {
    let mut b = Fake::new(BASE, 40, 20, 40, false);
    for i in 0..20 {
        b.place(va(i), FAST, false, false);
    }
    // 0.75 x 20 = 15 pages: 5 to demote each period.
    let mut m = started(threshold(0.75), &mut b);
    tick(&mut m, &mut b, 1);
    assert_eq!(demoted(&b, 0), vec![0, 1, 2, 3, 4]);
    // Pages 5-19 were not all visited: the walk stopped once it had 5. Put
    // the demoted pages back, cold: the next walk still starts at page 5.
    for i in 0..5 {
        b.place(va(i), FAST, false, false);
    }
    let n = b.log.len();
    tick(&mut m, &mut b, 40);
    assert_eq!(demoted(&b, n), vec![5, 6, 7, 8, 9]);
}

/// Before any promoting PageFind, DCPMM_CLEAR clears the R/D bits of every
/// DCPMM page, and Control waits the 50 ms delay: pages referenced in the
/// delay are intensive, pages referenced only before it are not.
#[test]
fn promotion_waits_one_clear_delay_after_clearing_dcpmm_bits() {
    assert_eq!(Ambix::default().tick_ns(), Some(50_000_000));
    let mut b = Fake::new(BASE, 40, 100, 40, false);
    for i in 0..10 {
        b.place(va(i), FAST, false, false);
    }
    // DCPMM pages 10-29, all referenced and half written before the clear.
    for i in 10..30 {
        b.place(va(i), SLOW, true, i % 2 == 0);
    }
    let mut m = started(AmbixParams::default(), &mut b);
    // DCPMM writes over 50 MB/s: PROMOTE_INT (DRAM has room).
    b.counters[1].writes += 2_000_000;
    tick(&mut m, &mut b, 1);
    assert!(
        b.migrations_since(0).is_empty(),
        "nothing moves before the delay"
    );
    assert!(
        b.log.contains(&common::Event::Flush),
        "cleared bits need a flush"
    );
    for i in 10..30 {
        let p = b.page(va(i));
        assert!(!p.accessed && !p.dirty, "DCPMM page {i} not cleared");
    }
    for i in 0..10 {
        assert_eq!(b.page(va(i)), Default::default(), "DRAM pages untouched");
    }
    // During the delay: 3 pages read, 2 written.
    for i in [12, 15, 21] {
        b.touch(va(i), false);
    }
    for i in [17, 28] {
        b.touch(va(i), true);
    }
    tick(&mut m, &mut b, 1);
    let mut up = promoted(&b, 0);
    up.sort_unstable();
    assert_eq!(up, vec![12, 15, 17, 21, 28]);
    assert_eq!(gauge(&m, "promote_int_count"), 1.0);

    // A longer delay is a longer tick, and a period has fewer of them.
    let p = AmbixParams {
        clear_delay_ms: 100.0,
        ..Default::default()
    };
    assert_eq!(Ambix::new(p.clone()).tick_ns(), Some(100_000_000));
    let mut b = Fake::new(BASE, 40, 100, 40, false);
    b.place(va(10), SLOW, false, false);
    let mut m = Ambix::new(p);
    m.start(&mut b).unwrap();
    tick(&mut m, &mut b, 20);
    assert!(b.migrations_since(0).is_empty());
    assert_eq!(b.log, vec![common::Event::Flush], "cleared at tick 20");
    tick(&mut m, &mut b, 1);
    assert_eq!(promoted(&b, 0), vec![10], "PROMOTE takes any page");
}

/// DRAM has room for 9 pages under its threshold (0.95 x 20 = 19, 10
/// used), DCPMM holds 20: 3 written, 4 read, 13 cold.
fn promote_setup() -> Fake {
    let mut b = Fake::new(BASE, 40, 20, 40, false);
    for i in 0..10 {
        b.place(va(i), FAST, false, false);
    }
    for i in 10..30 {
        b.place(va(i), SLOW, false, false);
    }
    b
}

fn promote_delay_accesses(b: &mut Fake) {
    // Read pages early in the walk, written pages at its very end.
    for i in [11, 13, 14, 16] {
        b.touch(va(i), false);
    }
    for i in [27, 28, 29] {
        b.touch(va(i), true);
    }
}

/// PROMOTE (DCPMM writes low, DRAM has room) fills DRAM with any DCPMM
/// pages, modified ones first; read pages rank with cold ones.
#[test]
fn promote_fills_dram_with_any_pages_modified_first() {
    let mut b = promote_setup();
    let mut m = started(AmbixParams::default(), &mut b);
    tick(&mut m, &mut b, 1);
    promote_delay_accesses(&mut b);
    tick(&mut m, &mut b, 1);
    let up = promoted(&b, 0);
    assert_eq!(up.len(), 9, "room is 9 pages: {up:?}");
    for i in [27, 28, 29] {
        assert!(up.contains(&i), "written page {i} not promoted: {up:?}");
    }
    // The other 6 are the first non-written pages of the walk, cold or not.
    let mut rest: Vec<u64> = up.into_iter().filter(|&i| i < 27).collect();
    rest.sort_unstable();
    assert_eq!(rest, vec![10, 11, 12, 13, 14, 15]);
    assert_eq!(gauge(&m, "promote_count"), 1.0);
    assert_eq!(gauge(&m, "promote_int_count"), 0.0);
}

/// PROMOTE_INT (DCPMM writes high, DRAM has room) moves only pages
/// referenced or modified in the delay, even with room to spare.
#[test]
fn promote_int_moves_only_intensive_pages() {
    let mut b = promote_setup();
    let mut m = started(AmbixParams::default(), &mut b);
    b.counters[1].writes += 10_000_000;
    tick(&mut m, &mut b, 1);
    promote_delay_accesses(&mut b);
    tick(&mut m, &mut b, 1);
    let mut up = promoted(&b, 0);
    up.sort_unstable();
    assert_eq!(up, vec![11, 13, 14, 16, 27, 28, 29]);
    assert_eq!(gauge(&m, "promote_int_count"), 1.0);
    assert_eq!(gauge(&m, "promote_count"), 0.0);

    // With room for 2 only (12 pages at threshold 1.0, 10 used), the
    // written pages win over the read ones met earlier in the walk.
    let mut b = promote_setup();
    b.capacity[0] = 12;
    let mut m = started(threshold(1.0), &mut b);
    b.counters[1].writes += 10_000_000;
    tick(&mut m, &mut b, 1);
    promote_delay_accesses(&mut b);
    tick(&mut m, &mut b, 1);
    let up = promoted(&b, 0);
    assert_eq!(up.len(), 2, "{up:?}");
    assert!(up.iter().all(|i| [27, 28, 29].contains(i)), "{up:?}");
}

/// Control compares DCPMM's write throughput with 50 MB/s: line writes x
/// 64 B over the 2 s period since the last decision. 1 562 500 lines are
/// exactly 50 MB/s (not above: PROMOTE); one more line is PROMOTE_INT.
#[test]
fn the_write_threshold_is_50_mb_per_s_over_the_period() {
    for (lines, int) in [(1_562_500u64, false), (1_562_501, true)] {
        // DRAM with room for every DCPMM page, so every period promotes.
        let mut b = promote_setup();
        b.capacity[0] = 100;
        let mut m = started(AmbixParams::default(), &mut b);
        b.counters[1].writes += lines;
        tick(&mut m, &mut b, 2);
        assert_eq!(gauge(&m, "promote_int_count"), f64::from(u8::from(int)));
        assert_eq!(gauge(&m, "promote_count"), f64::from(u8::from(!int)));
        // The next period sees only its own writes.
        tick(&mut m, &mut b, 40);
        assert_eq!(gauge(&m, "promote_count"), f64::from(u8::from(!int)) + 1.0);
    }
}

/// SWITCH (DCPMM writes high, DRAM full) runs PROMOTE_INT on DCPMM and
/// DEMOTE on DRAM, and "the backup pages from a tier are only added ... if
/// matched with a page that is in the priority array of the other tier".
#[test]
fn switch_pairs_backup_pages_only_with_priority_pages() {
    let mut b = Fake::new(BASE, 40, 10, 40, false);
    // DRAM: 0 cold, 1-2 read, 3-9 written.
    for i in 0..10 {
        b.place(va(i), FAST, i > 0, i > 2);
    }
    for i in 10..30 {
        b.place(va(i), SLOW, false, false);
    }
    let mut m = started(AmbixParams::default(), &mut b);
    b.counters[1].writes += 10_000_000;
    tick(&mut m, &mut b, 1);
    assert!(
        b.exchanges_since(0).is_empty(),
        "SWITCH also waits the delay"
    );
    // In the delay: DCPMM 10-11 written (priority), 12-13 read (backup).
    b.touch(va(10), true);
    b.touch(va(11), true);
    b.touch(va(12), false);
    b.touch(va(13), false);
    tick(&mut m, &mut b, 1);
    let x: Vec<(u64, u64)> = b
        .exchanges_since(0)
        .into_iter()
        .map(|(a, d)| ((a - BASE) / PAGE, (d - BASE) / PAGE))
        .collect();
    // 10 pairs with the cold DRAM page, 11 with a read one (priority with
    // backup); 12 and 13 (backup) find no priority page left in DRAM and
    // do not pair with DRAM's backup page 2. Written DRAM pages never move.
    assert_eq!(x, vec![(10, 0), (11, 1)]);
    assert_eq!(gauge(&m, "switch_count"), 1.0);
    assert!(b.migrations_since(0).is_empty());
}

/// On the exact machine a store through a cached translation sets neither
/// R nor D. The module promises to flush the TLBs after clearing bits "so
/// later accesses set them again", so a page written between two DEMOTE
/// walks must be seen as written by the second one and kept in DRAM.
#[test]
fn demote_keeps_a_page_written_through_a_cached_translation() {
    use thermocline_sim::Machine;
    use thermocline_vocab::Access;
    use thermocline_vocab::Asid;

    let mut mc = common::exact_machine(32 * PAGE, 4 << 20, BASE, 64 * PAGE, false);
    let touch = |mc: &mut Machine, i: u64, write: bool| {
        mc.access(Access {
            va: va(i),
            asid: 0,
            core: 0,
            write,
        });
        mc.settle();
    };
    let mut m = Ambix::new(threshold(0.75));
    m.start(&mut mc).unwrap();
    // Page 0 is written, 1-31 read: DRAM is full, 8 pages over 0.75 x 32.
    touch(&mut mc, 0, true);
    for i in 1..32 {
        touch(&mut mc, i, false);
    }
    tick(&mut m, &mut mc, 40);
    let tier = |mc: &Machine, i| mc.translate(Asid(0), va(i)).unwrap().unwrap().tier;
    assert_eq!(
        tier(&mc, 0),
        FAST,
        "written page retained by the first walk"
    );
    // Page 0 is written again; 8 new pages fill DRAM over its threshold.
    for _ in 0..100 {
        touch(&mut mc, 0, true);
    }
    for i in 32..40 {
        touch(&mut mc, i, false);
    }
    tick(&mut m, &mut mc, 40);
    assert_eq!(gauge(&m, "demote_count"), 2.0);
    assert_eq!(
        tier(&mc, 0),
        FAST,
        "a page written since the last walk was demoted"
    );
}

/// Section 5.2.3 runs Ambix with "the Switch component ... always
/// activated": with DRAM at its threshold and DCPMM's writes low, a page
/// read in DCPMM during the clear delay is exchanged with a cold DRAM page
/// (section 4: read-intensive pages are preferred over cold ones in DRAM),
/// never with a read or written one. With `switch_always = false`, the
/// literal 4.2.1 tree, the read page stays in DCPMM.
#[test]
fn with_low_dcpmm_writes_a_full_dram_switches_read_pages_for_cold_ones() {
    for always in [true, false] {
        let mut b = Fake::new(BASE, 40, 10, 40, false);
        // DRAM (full at the 0.95 threshold): 0-1 cold, 2-4 read, 5-9 written.
        for i in 0..10 {
            b.place(va(i), FAST, i > 1, i > 4);
        }
        for i in 10..30 {
            b.place(va(i), SLOW, false, false);
        }
        let p = AmbixParams {
            switch_always: always,
            ..Default::default()
        };
        let mut m = started(p, &mut b);
        tick(&mut m, &mut b, 1);
        assert!(b.exchanges_since(0).is_empty(), "SWITCH waits the delay");
        // In the delay DCPMM pages 10, 11 and 12 are read, none written.
        for i in 10..13 {
            b.touch(va(i), false);
        }
        tick(&mut m, &mut b, 1);
        let x: Vec<(u64, u64)> = b
            .exchanges_since(0)
            .into_iter()
            .map(|(a, d)| ((a - BASE) / PAGE, (d - BASE) / PAGE))
            .collect();
        if always {
            // Two cold DRAM pages: 10 and 11 take them; 12 finds no cold
            // page left and does not displace a read or written one.
            assert_eq!(x, vec![(10, 0), (11, 1)]);
            assert_eq!(gauge(&m, "switch_count"), 1.0);
        } else {
            assert!(x.is_empty(), "literal tree: {x:?}");
            assert_eq!(gauge(&m, "switch_count"), 0.0);
        }
        assert!(promoted(&b, 0).is_empty());
    }
}
