//! The rules of the baselines Ambix is compared with
//! (crates/managers/src/tiering.rs), one at a time on the fake backend:
//! `autonuma-tiering`'s watermark reclaim and hint-fault promotion, and
//! `memos-placement`'s clear-delay-promote cycle with its bandwidth feedback.

use super::common;

use common::{Fake, FAST, PAGE, SLOW};
use thermocline_backend::{Backend, MemPolicy};
use thermocline_managers::ambix::baselines::{AutonumaTiering, MemosPlacement};
use thermocline_managers::Manager;

const BASE: u64 = 1 << 30;

fn va(i: u64) -> u64 {
    BASE + i * PAGE
}

fn idx(v: &[u64]) -> Vec<u64> {
    v.iter().map(|&a| (a - BASE) / PAGE).collect()
}

fn tick(m: &mut dyn Manager, b: &mut dyn Backend, n: usize) {
    for _ in 0..n {
        m.tick(b).unwrap();
    }
}

fn moved(b: &Fake, from: usize, to: thermocline_vocab::TierId) -> Vec<u64> {
    let mut v: Vec<u64> = b
        .migrations_since(from)
        .into_iter()
        .filter(|m| m.1 == to)
        .map(|m| (m.0 - BASE) / PAGE)
        .collect();
    v.sort_unstable();
    v
}

fn autonuma(toml_text: &str) -> AutonumaTiering {
    toml::from_str(toml_text).unwrap()
}

fn memos(toml_text: &str) -> MemosPlacement {
    toml::from_str(toml_text).unwrap()
}

// ---- autonuma-tiering ----

/// Watermarks as exact binary fractions of a 64-page DRAM: low 1/16
/// (4 pages free), high 1/8 (8 pages free).
const MARKS: &str = "low_watermark = 0.0625\nhigh_watermark = 0.125\n";

/// kswapd-like reclaim: nothing happens while DRAM free memory is at or
/// over the low watermark; under it, inactive (Accessed clear) DRAM pages
/// are demoted until free memory is back at the high watermark, and the
/// Accessed bits of the active pages met on the way are cleared.
#[test]
fn autonuma_reclaims_inactive_pages_from_the_low_to_the_high_watermark() {
    // 60 pages used: 4 free = exactly the low watermark, no reclaim.
    let mut b = Fake::new(BASE, 128, 64, 128, false);
    for i in 0..60 {
        b.place(va(i), FAST, i % 2 == 0, false);
    }
    let mut m = autonuma(MARKS);
    m.start(&mut b).unwrap();
    assert_eq!(b.policy, Some(MemPolicy::PreferFast));
    tick(&mut m, &mut b, 1);
    assert!(moved(&b, 0, SLOW).is_empty());
    assert!(b.page(va(0)).accessed, "no pass, no bits cleared");

    // 62 used: 2 free < 4, so 6 pages go to reach 8 free. Odd pages are
    // inactive; even ones active and skipped, in address order.
    let mut b = Fake::new(BASE, 128, 64, 128, false);
    for i in 0..62 {
        b.place(va(i), FAST, i % 2 == 0, false);
    }
    let mut m = autonuma(MARKS);
    m.start(&mut b).unwrap();
    tick(&mut m, &mut b, 1);
    assert_eq!(moved(&b, 0, SLOW), vec![1, 3, 5, 7, 9, 11]);
    assert_eq!(b.tiers()[0].free_bytes, 8 * PAGE);
    for i in [0, 2, 4, 6, 8, 10] {
        assert!(!b.page(va(i)).accessed, "active page {i} not aged");
    }
    assert!(
        b.page(va(12)).accessed,
        "the pass stopped once it had enough"
    );
    assert!(
        b.log.contains(&common::Event::Flush),
        "aged bits need a flush"
    );
}

/// Reclaim demotes inactive pages only: when every DRAM page was accessed
/// since the last pass, the pass demotes nothing and only ages them; the
/// next pass finds them inactive if they stay untouched.
#[test]
fn autonuma_reclaim_spares_pages_accessed_since_its_last_pass() {
    let mut b = Fake::new(BASE, 128, 64, 128, false);
    for i in 0..62 {
        b.place(va(i), FAST, true, i < 10);
    }
    let mut m = autonuma(MARKS);
    m.start(&mut b).unwrap();
    tick(&mut m, &mut b, 1);
    assert!(moved(&b, 0, SLOW).is_empty());
    // Pages 0-3 are used again; the rest stay idle.
    for i in 0..4 {
        b.touch(va(i), false);
    }
    tick(&mut m, &mut b, 1);
    let out = moved(&b, 0, SLOW);
    assert_eq!(out.len(), 6);
    assert!(out.iter().all(|&i| i >= 4), "{out:?}");
}

fn slow_pages(n: u64) -> Fake {
    let mut b = Fake::new(BASE, 64, 1000, 64, false);
    for i in 0..n {
        b.place(va(i), SLOW, false, false);
    }
    b
}

/// NUMA hint faults: each period a window of `scan_size_mb` of DCPMM pages
/// is marked (10 pages here); a marked page that is accessed before the
/// next period is promoted then, and only it.
#[test]
fn autonuma_promotes_marked_pages_that_fault_within_one_period() {
    let mut b = slow_pages(25);
    let mut m = autonuma("scan_size_mb = 0.04096\n");
    m.start(&mut b).unwrap();
    tick(&mut m, &mut b, 1);
    assert_eq!(idx(&b.armed()), (0..10).collect::<Vec<_>>());
    // 2, 5 and 7 are marked; 15 is not.
    for i in [2, 5, 7, 15] {
        b.touch(va(i), false);
    }
    tick(&mut m, &mut b, 1);
    assert_eq!(moved(&b, 0, FAST), vec![2, 5, 7]);
    // A page touched only after its mark was lifted is not hot: 0 was
    // marked in period 1, untouched, and is not marked in period 2.
    assert!(!idx(&b.armed()).contains(&0));
    let n = b.log.len();
    b.touch(va(0), false);
    tick(&mut m, &mut b, 1);
    assert!(!moved(&b, n, FAST).contains(&0));
}

/// The scan windows walk the DCPMM pages round-robin: with no promotion,
/// ceil(25 / 10) periods mark every page, and the third wraps around.
#[test]
fn autonuma_scan_windows_cover_every_slow_page_in_turn() {
    let mut b = slow_pages(25);
    let mut m = autonuma("scan_size_mb = 0.04096\n");
    m.start(&mut b).unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        tick(&mut m, &mut b, 1);
        let armed = idx(&b.armed());
        assert_eq!(armed.len(), 10);
        seen.push(armed);
    }
    assert_eq!(seen[1], (10..20).collect::<Vec<_>>());
    let mut third = (20..25).chain(0..5).collect::<Vec<_>>();
    third.sort_unstable();
    assert_eq!(seen[2], third);
}

/// Promotion is rate-limited (`rate_limit_mb_s` x period, here 3 pages)
/// and never exceeds DRAM's free space.
#[test]
fn autonuma_promotion_obeys_the_rate_limit_and_free_dram() {
    let mut b = slow_pages(25);
    let mut m = autonuma("scan_size_mb = 0.04096\nrate_limit_mb_s = 0.012288\n");
    m.start(&mut b).unwrap();
    tick(&mut m, &mut b, 1);
    for i in 0..10 {
        b.touch(va(i), false);
    }
    tick(&mut m, &mut b, 1);
    assert_eq!(moved(&b, 0, FAST), vec![0, 1, 2]);

    // DRAM with 2 free pages and reclaim off (low watermark 0).
    let mut b = slow_pages(25);
    b.capacity[0] = 40;
    for i in 25..63 {
        b.place(va(i), FAST, true, false);
    }
    let mut m = autonuma("scan_size_mb = 0.04096\nlow_watermark = 0.0\n");
    m.start(&mut b).unwrap();
    tick(&mut m, &mut b, 1);
    for i in 0..10 {
        b.touch(va(i), false);
    }
    tick(&mut m, &mut b, 1);
    assert_eq!(moved(&b, 0, FAST).len(), 2);
    assert!(moved(&b, 0, SLOW).is_empty());
}

// ---- memos-placement ----

/// Every page starts in NVM, whatever room DRAM has.
#[test]
fn memos_allocates_every_page_in_nvm() {
    let mut b = Fake::new(BASE, 64, 1000, 64, false);
    let mut m = memos("");
    m.start(&mut b).unwrap();
    assert_eq!(b.policy, Some(MemPolicy::Bind { tier: SLOW }));
    for i in 0..20 {
        b.touch(va(i), i % 3 == 0);
    }
    assert_eq!(b.used(FAST), 0);
    assert_eq!(b.used(SLOW), 20);
}

/// Sets up 20 NVM pages that were all written before the period began,
/// runs memos to its first period start (tick 40: bits cleared) with the
/// given DRAM/NVM traffic since start, then touches pages in the delay.
fn memos_period(
    m: &mut MemosPlacement,
    dram_cap: u64,
    traffic: [u64; 2],
    reads: &[u64],
    writes: &[u64],
) -> Fake {
    let mut b = Fake::new(BASE, 64, dram_cap, 64, false);
    m.start(&mut b).unwrap();
    for i in 0..20 {
        b.place(va(i), SLOW, true, true);
    }
    // Tick 1 (the promotion step of a period that had no clear) would see
    // these bits; the test is about a full period, so start after it.
    for i in 0..20 {
        b.set_bits(va(i), false, false);
    }
    tick(m, &mut b, 1);
    for i in 0..20 {
        b.set_bits(va(i), true, true);
    }
    tick(m, &mut b, 38);
    assert!(b.migrations_since(0).is_empty());
    b.counters[0].reads = traffic[0];
    b.counters[1].reads = traffic[1];
    tick(m, &mut b, 1);
    for i in 0..20 {
        let p = b.page(va(i));
        assert!(
            !p.accessed && !p.dirty,
            "NVM page {i} not cleared at period start"
        );
    }
    assert!(
        b.migrations_since(0).is_empty(),
        "nothing moves before the delay"
    );
    for &i in reads {
        b.touch(va(i), false);
    }
    for &i in writes {
        b.touch(va(i), true);
    }
    b
}

/// Each period clears NVM pages' R/D bits, waits the 50 ms delay, and
/// promotes the pages touched in it, write-dominated first, at most
/// `max_promotions`.
#[test]
fn memos_promotes_pages_touched_in_the_delay_writes_first() {
    let mut m = memos("");
    assert_eq!(m.tick_ns(), Some(50_000_000));
    let mut b = memos_period(&mut m, 1000, [0, 1000], &[1, 3], &[10, 12]);
    tick(&mut m, &mut b, 1);
    assert_eq!(moved(&b, 0, FAST), vec![1, 3, 10, 12]);

    // At most 3: the two written pages, then one read page.
    let mut m = memos("max_promotions = 3\n");
    let mut b = memos_period(&mut m, 1000, [0, 1000], &[1, 3, 5], &[10, 12]);
    tick(&mut m, &mut b, 1);
    let up = moved(&b, 0, FAST);
    assert_eq!(up.len(), 3);
    assert!(up.contains(&10) && up.contains(&12), "{up:?}");
    // Nothing more until the next period's clear and delay.
    let n = b.log.len();
    for i in 0..20 {
        b.touch(va(i), true);
    }
    tick(&mut m, &mut b, 38);
    assert!(b.migrations_since(n).is_empty());
}

/// Bandwidth feedback: read-hot pages are promoted only while DRAM served
/// less than its target share (80%) of last period's traffic; written
/// pages are promoted either way.
#[test]
fn memos_promotes_read_pages_only_under_the_dram_traffic_target() {
    // DRAM served 79% of the traffic: under the target.
    let mut m = memos("");
    let mut b = memos_period(&mut m, 1000, [790, 210], &[1, 3], &[10]);
    tick(&mut m, &mut b, 1);
    assert_eq!(moved(&b, 0, FAST), vec![1, 3, 10]);
    // 80%: at the target, written pages only.
    let mut m = memos("");
    let mut b = memos_period(&mut m, 1000, [800, 200], &[1, 3], &[10]);
    tick(&mut m, &mut b, 1);
    assert_eq!(moved(&b, 0, FAST), vec![10]);
}

/// When the promotions do not fit under DRAM's threshold, cold DRAM pages
/// (Accessed clear) are demoted to make room; accessed ones stay.
#[test]
fn memos_demotes_cold_dram_pages_to_make_room() {
    let mut m = memos("");
    // DRAM of 20 pages, threshold 0.95: 19 usable.
    let mut b = memos_period(&mut m, 20, [0, 1000], &[], &[1, 2, 3]);
    // Fill DRAM to its threshold: pages 40-58, 40-49 accessed, 50-58 cold.
    for i in 40..59 {
        b.place(va(i), FAST, i < 50, false);
    }
    tick(&mut m, &mut b, 1);
    assert_eq!(moved(&b, 0, FAST), vec![1, 2, 3]);
    assert_eq!(moved(&b, 0, SLOW), vec![50, 51, 52]);
}
