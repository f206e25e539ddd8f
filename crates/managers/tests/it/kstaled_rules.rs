//! The kstaled-like baseline's rules (crates/managers/src/thermostat/kstaled.rs)
//! on the fake backend, where every access sets the page's Accessed bit.

use super::common;

use common::{Fake, FAST, PAGE, SLOW};
use thermocline_managers::thermostat::kstaled::{Kstaled, KstaledParams};
use thermocline_managers::Manager;

const BASE: u64 = 1 << 30;

fn gauge(m: &Kstaled, k: &str) -> f64 {
    m.gauges().into_iter().find(|g| g.0 == k).unwrap().1
}

/// `pages` 4 KiB pages, each touched once, seen by one scan.
fn setup(pages: u64, idle_scans: u8) -> (Fake, Kstaled) {
    let mut b = Fake::new(BASE, pages, pages, pages, false);
    let mut m = Kstaled::new(KstaledParams {
        idle_scans,
        ..Default::default()
    });
    m.start(&mut b).unwrap();
    for i in 0..pages {
        b.touch(BASE + i * PAGE, false);
    }
    m.tick(&mut b).unwrap();
    assert_eq!(b.used(FAST), pages);
    (b, m)
}

/// A page idle for `idle_scans` scans goes to the slow tier; a slow page
/// stays counted cold however long it idles (here 200 scans, more than the
/// 127 an idle count sharing a byte with the slow flag could hold), and
/// comes back to fast memory at the first scan that finds it accessed.
#[test]
fn a_slow_page_idle_for_200_scans_is_still_cold_and_comes_back_when_touched() {
    let pages = 4;
    let (mut b, mut m) = setup(pages, 10);
    for _ in 0..10 {
        m.tick(&mut b).unwrap();
    }
    assert_eq!(b.used(SLOW), pages, "idle for 10 scans: cold");
    let all = (pages * PAGE) as f64;
    assert_eq!(gauge(&m, "cold_base_bytes"), all);
    for scan in 0..200 {
        m.tick(&mut b).unwrap();
        assert_eq!(gauge(&m, "cold_base_bytes"), all, "idle scan {scan}");
    }
    let logged = b.log.len();
    b.touch(BASE + PAGE, false);
    m.tick(&mut b).unwrap();
    assert_eq!(b.migrations_since(logged), vec![(BASE + PAGE, FAST)]);
    assert_eq!(b.tier_of(BASE + PAGE), FAST, "touched: promoted");
    assert_eq!(b.used(SLOW), pages - 1);
    assert_eq!(gauge(&m, "cold_base_bytes"), all - PAGE as f64);
    // Back in fast memory it is an ordinary page again: idle 10 scans, cold.
    for _ in 0..10 {
        m.tick(&mut b).unwrap();
    }
    assert_eq!(b.tier_of(BASE + PAGE), SLOW);
    assert_eq!(gauge(&m, "cold_base_bytes"), all);
}

/// The idle count is no longer limited by the slow flag's bit: the whole
/// `u8` range of `idle_scans` is accepted and honoured; 0 is refused.
#[test]
fn idle_scans_up_to_255_are_honoured_and_0_is_refused() {
    let (mut b, mut m) = setup(2, 255);
    for _ in 0..254 {
        m.tick(&mut b).unwrap();
    }
    assert_eq!(b.used(SLOW), 0, "254 idle scans are not 255");
    m.tick(&mut b).unwrap();
    assert_eq!(b.used(SLOW), 2);

    let mut b = Fake::new(BASE, 2, 2, 2, false);
    let mut m = Kstaled::new(KstaledParams {
        idle_scans: 0,
        ..Default::default()
    });
    assert!(m.start(&mut b).is_err());
}
