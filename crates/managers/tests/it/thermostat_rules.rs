//! Thermostat's mechanisms one at a time (crates/managers/src/thermostat.rs;
//! ../shared/papers/000_5488ae48d80721cc.txt, sections 3.2-3.5): the cap of
//! K poisoned pages per sampled unit, the extrapolation of the sampled
//! 4 KiB pages' faults to the unit's rate, the classification against the
//! budget, and the correction that sends a cold unit that turned hot back.
//! The fake backend counts one fault per access to a poisoned page, so
//! every rate below is a hand computation; one test runs the huge-page path
//! on the exact machine.

use super::common;

use common::{Fake, FAST, PAGE, SLOW};
use thermocline_backend::Backend;
use thermocline_managers::thermostat::{Thermostat, ThermostatParams};
use thermocline_managers::Manager;

const BASE: u64 = 1 << 30;
const UNIT_PAGES: u64 = 512;
const UNIT_BYTES: f64 = (UNIT_PAGES * PAGE) as f64;

fn va(unit: u64, page: u64) -> u64 {
    BASE + (unit * UNIT_PAGES + page) * PAGE
}

fn gauge(m: &Thermostat, k: &str) -> f64 {
    m.gauges().into_iter().find(|g| g.0 == k).unwrap().1
}

/// 1 s periods; t_s = 1 s so that the budget in accesses per second is
/// the `slowdown` number itself (exact in floating point).
fn params(budget_per_s: f64, sample_fraction: f64) -> ThermostatParams {
    ThermostatParams {
        scan_period_s: 1.0,
        sample_fraction,
        slowdown: budget_per_s,
        slow_access_ns: 1e9,
        ..Default::default()
    }
}

/// `units` 2 MiB units of 4 KiB pages (no THP), every page touched once,
/// Thermostat started on them.
fn setup(units: u64, p: ThermostatParams) -> (Fake, Thermostat) {
    let n = units * UNIT_PAGES;
    let mut b = Fake::new(BASE, n, n, n, false);
    let mut m = Thermostat::new(p, false);
    m.start(&mut b).unwrap();
    for i in 0..n {
        b.touch(BASE + i * PAGE, false);
    }
    assert_eq!(b.used(FAST), n, "all pages start in fast memory");
    (b, m)
}

/// Runs one unit through split (tick 1) and poison (tick 2) with pages
/// `0..accessed` touched in between; returns the poisoned pages.
fn sample_one_unit(b: &mut Fake, m: &mut Thermostat, accessed: u64) -> Vec<u64> {
    m.tick(b).unwrap();
    for p in 0..UNIT_PAGES {
        assert!(!b.page(va(0, p)).accessed, "stage 1 clears the A bits");
    }
    for p in 0..accessed {
        b.touch(va(0, p), false);
    }
    m.tick(b).unwrap();
    b.poisoned()
        .into_iter()
        .map(|a| (a - BASE) / PAGE)
        .collect()
}

/// Section 3.2: at most K of the base pages with a non-zero rate (Accessed
/// set) are poisoned, and never a page that was not accessed.
#[test]
fn at_most_k_accessed_pages_are_poisoned_per_unit() {
    for (k, accessed, want) in [(50, 200, 50), (50, 30, 30), (7, 200, 7), (50, 0, 0)] {
        let p = ThermostatParams {
            poison_max: k,
            ..params(1e9, 1.0)
        };
        let (mut b, mut m) = setup(1, p);
        let poisoned = sample_one_unit(&mut b, &mut m, accessed);
        assert_eq!(poisoned.len(), want, "K = {k}, {accessed} accessed");
        assert!(poisoned.iter().all(|&i| i < accessed), "{poisoned:?}");
    }
}

/// Section 3.3: the unit's rate is the poisoned pages' faults per second
/// scaled by accessed / poisoned: 200 accessed pages, 50 poisoned, each
/// accessed 3 times in the period: 150 faults -> 150 x 200 / 50 = 600/s.
/// With 30 accessed pages all are poisoned and the rate is the count.
#[test]
fn the_unit_rate_extrapolates_sampled_faults_by_accessed_over_poisoned() {
    for (accessed, faults, rate) in [(200u64, 150.0, 600.0), (30, 90.0, 90.0)] {
        let (mut b, mut m) = setup(1, params(1e9, 1.0));
        sample_one_unit(&mut b, &mut m, accessed);
        for _ in 0..3 {
            for p in 0..accessed {
                b.touch(va(0, p), false);
            }
        }
        m.tick(&mut b).unwrap();
        assert_eq!(gauge(&m, "sampling_faults_per_s"), faults);
        assert_eq!(gauge(&m, "cold_counted_rate_per_s"), rate);
        assert_eq!(gauge(&m, "cold_base_bytes"), UNIT_BYTES);
        assert_eq!(b.used(SLOW), UNIT_PAGES);
        // A cold unit is poisoned whole (section 3.5).
        assert_eq!(b.poisoned().len() as u64, UNIT_PAGES);
    }
}

/// Section 3.4: the coldest units go to slow memory while their summed
/// rate stays within f x budget; the sampling faults themselves are paid
/// out of the budget. The unit above (600/s, 150 sampling faults/s) is cold
/// at a 750/s budget (750 - 150 = 600) and hot at 749/s.
#[test]
fn a_unit_is_cold_only_if_its_rate_fits_the_budget_left_by_sampling() {
    for (budget, cold) in [(750.0, true), (749.0, false)] {
        let (mut b, mut m) = setup(1, params(budget, 1.0));
        sample_one_unit(&mut b, &mut m, 200);
        for _ in 0..3 {
            for p in 0..200 {
                b.touch(va(0, p), false);
            }
        }
        m.tick(&mut b).unwrap();
        assert_eq!(b.used(SLOW), if cold { UNIT_PAGES } else { 0 }, "{budget}");
        assert_eq!(
            gauge(&m, "demoted_bytes"),
            if cold { UNIT_BYTES } else { 0.0 }
        );
        if !cold {
            assert!(b.poisoned().is_empty(), "a hot unit is unpoisoned");
        }
    }
}

/// Section 3: the tolerable slowdown covers "Thermostat's monitoring" too,
/// so the TLB shootdowns its own actions cost the application last period
/// are paid out of the budget, as slow accesses of t_s each. The unit
/// above (600/s, 150 sampling faults/s) fits a 750/s budget exactly; one
/// second of stall in the 1 s period (t_s = 1 s: one slow access per
/// second) leaves 599/s, and it stays hot. Stall before the last period
/// was paid already and does not count again.
#[test]
fn the_managers_shootdown_stalls_are_paid_out_of_the_budget() {
    for (earlier_ns, last_period_ns, cold) in
        [(0.0, 0.0, true), (0.0, 1e9, false), (5e9, 0.0, true)]
    {
        let (mut b, mut m) = setup(1, params(750.0, 1.0));
        b.stall_ns += earlier_ns;
        sample_one_unit(&mut b, &mut m, 200);
        for _ in 0..3 {
            for p in 0..200 {
                b.touch(va(0, p), false);
            }
        }
        b.stall_ns += last_period_ns;
        m.tick(&mut b).unwrap();
        assert_eq!(gauge(&m, "shootdown_stall_per_s"), last_period_ns / 1e9);
        assert_eq!(
            b.used(SLOW),
            if cold { UNIT_PAGES } else { 0 },
            "{earlier_ns} ns earlier, {last_period_ns} ns last period"
        );
    }
}

/// Which units had their Accessed bits cleared (a batch started) since the
/// last call, from the fake's per-page counters.
fn started_units(b: &Fake, units: u64, seen: &mut [u64]) -> Vec<u64> {
    let mut out = Vec::new();
    for u in 0..units {
        let c: u64 = (0..UNIT_PAGES).map(|p| b.page(va(u, p)).a_clears).sum();
        if c != seen[u as usize] {
            out.push(u);
            seen[u as usize] = c;
        }
    }
    out
}

/// Section 3 samples "a fraction of the application footprint" and
/// section 3.2 splits "a random sample of huge pages": units the
/// application has reserved but never touched are not part of it. 200
/// units reserved, 2 touched, f = 0.5: every batch is one of the two
/// touched units, every period (drawing from all 200 units would pick
/// about 100 units, some 0-2 of them touched, and drop the rest), and f is
/// a share of the touched units. A unit touched later joins the footprint.
#[test]
fn sampling_draws_from_the_mapped_footprint_only() {
    let units = 200;
    let n = units * UNIT_PAGES;
    let mut b = Fake::new(BASE, n, n, n, false);
    let mut m = Thermostat::new(params(1e9, 0.5), false);
    m.start(&mut b).unwrap();
    let mut touched = vec![17u64, 150];
    let touch = |b: &mut Fake, u: u64| {
        for p in 0..UNIT_PAGES {
            b.touch(va(u, p), false);
        }
    };
    for &u in &touched {
        touch(&mut b, u);
    }
    let clears =
        |b: &Fake, u: u64| -> u64 { (0..UNIT_PAGES).map(|p| b.page(va(u, p)).a_clears).sum() };
    let mut seen = vec![0u64; units as usize];
    for tick in 0..12 {
        if tick == 6 {
            // Two more units mapped: four in all, still two per batch.
            touched.extend([3, 90]);
            touch(&mut b, 3);
            touch(&mut b, 90);
        }
        m.tick(&mut b).unwrap();
        let mut started = Vec::new();
        for &u in &touched {
            let c = clears(&b, u);
            if c != seen[u as usize] {
                started.push(u);
                seen[u as usize] = c;
            }
        }
        let want = if tick < 6 { 1 } else { 2 };
        assert_eq!(started.len(), want, "tick {tick}: {started:?}");
        assert!((gauge(&m, "sampled_fraction") - 0.5).abs() < 1e-12);
    }
    assert!(touched.iter().all(|&u| seen[u as usize] > 0));
}

/// Six untouched units, one sampled per period, until all are cold.
/// Returns the units in a batch at the next tick's correction (started in
/// the last two ticks) and the others.
fn all_cold(budget: f64) -> (Fake, Thermostat, Vec<u64>, Vec<u64>) {
    let units = 6;
    let (mut b, mut m) = setup(units, params(budget, 0.17));
    let mut seen = vec![0; units as usize];
    let mut starts = Vec::new();
    for _ in 0..100 {
        m.tick(&mut b).unwrap();
        starts.push(started_units(&b, units, &mut seen));
        if gauge(&m, "cold_base_bytes") == units as f64 * UNIT_BYTES {
            break;
        }
    }
    assert_eq!(
        b.used(SLOW),
        units * UNIT_PAGES,
        "every idle unit goes cold"
    );
    assert!(starts.iter().all(|s| s.len() <= 1), "one unit per batch");
    let busy: Vec<u64> = starts.iter().rev().take(2).flatten().copied().collect();
    let free = (0..units).filter(|u| !busy.contains(u)).collect();
    (b, m, busy, free)
}

fn tier(b: &Fake, u: u64) -> thermocline_vocab::TierId {
    let t = b.tier_of(va(u, 0));
    assert!(
        (0..UNIT_PAGES).all(|p| b.tier_of(va(u, p)) == t),
        "unit {u} split across tiers"
    );
    t
}

fn hammer(b: &mut Fake, u: u64, faults: u64) {
    for i in 0..faults {
        b.touch(va(u, i % UNIT_PAGES), false);
    }
}

/// Section 3.5: cold units stay poisoned and their faults are counted
/// every period; when the slow tier's rate exceeds the budget, the most
/// accessed cold units go back to fast memory until the rest fit. Budget
/// 100/s; units at 300, 50 and 20 faults/s: only the first goes back.
#[test]
fn correction_sends_the_most_accessed_cold_units_back_until_the_rest_fit() {
    let (mut b, mut m, _, free) = all_cold(100.0);
    let (hot, warm, mild) = (free[0], free[1], free[2]);
    hammer(&mut b, hot, 300);
    hammer(&mut b, warm, 50);
    hammer(&mut b, mild, 20);
    let sampled_before = gauge(&m, "promoted_by_sampling_bytes");
    m.tick(&mut b).unwrap();
    assert_eq!(tier(&b, hot), FAST, "the mistake is corrected");
    assert_eq!(tier(&b, warm), SLOW);
    assert_eq!(tier(&b, mild), SLOW);
    assert_eq!(gauge(&m, "promoted_by_correction_bytes"), UNIT_BYTES);
    assert_eq!(gauge(&m, "promoted_by_sampling_bytes"), sampled_before);
    assert!(
        (0..UNIT_PAGES).all(|p| !b.page(va(hot, p)).poisoned),
        "a unit back in fast memory is unpoisoned"
    );
    // The rest fit: the counted rate of what stays cold is within budget.
    assert!(gauge(&m, "cold_counted_rate_per_s") <= 100.0);
}

/// A cold unit accessed exactly at the budget stays cold: the correction
/// acts only when the slow tier's rate exceeds the budget.
#[test]
fn correction_leaves_cold_units_that_fit_the_budget() {
    let (mut b, mut m, _, free) = all_cold(100.0);
    hammer(&mut b, free[0], 60);
    hammer(&mut b, free[1], 40);
    m.tick(&mut b).unwrap();
    assert_eq!(tier(&b, free[0]), SLOW, "60 + 40 fits a 100/s budget");
    assert_eq!(tier(&b, free[1]), SLOW);
    assert_eq!(gauge(&m, "promoted_by_correction_bytes"), 0.0);
    assert_eq!(gauge(&m, "cold_counted_rate_per_s"), 100.0);
}

/// Only units outside a batch are the correction's candidates: a cold unit
/// being sampled that turns hot is left to its batch, which re-decides it
/// from the faults counted on it and sends it back.
#[test]
fn a_hot_cold_unit_in_a_batch_goes_back_through_its_batch() {
    let (mut b, mut m, busy, _) = all_cold(100.0);
    // busy[0] started in the last tick: poisoned at the next, classified
    // at the one after.
    let u = busy[0];
    hammer(&mut b, u, 1000);
    m.tick(&mut b).unwrap();
    assert_eq!(tier(&b, u), SLOW, "in a batch: not the correction's");
    hammer(&mut b, u, 1000);
    m.tick(&mut b).unwrap();
    assert_eq!(tier(&b, u), FAST);
    assert!(gauge(&m, "promoted_by_sampling_bytes") >= UNIT_BYTES);
}

/// Section 3.5: "the most frequently accessed pages are then migrated back
/// to fast memory until the access rate to the remaining cold pages is
/// below the threshold". Moving a unit with no counted access back does
/// not lower that rate; it only undoes a right classification.
#[test]
fn correction_does_not_promote_cold_units_with_no_accesses() {
    let (mut b, mut m, busy, free) = all_cold(100.0);
    hammer(&mut b, busy[0], 1000);
    m.tick(&mut b).unwrap();
    for &u in &free {
        assert_eq!(tier(&b, u), SLOW, "unit {u} had no access and went back");
    }
    assert_eq!(gauge(&m, "promoted_by_correction_bytes"), 0.0);
}

/// The huge-page path on the exact machine: a sampled 2 MiB page is split
/// into base pages, 50 of the 200 accessed ones are poisoned, their faults
/// (one per TLB miss; the test flushes after every access) extrapolate to
/// the huge page's rate, and the cold unit is collapsed back and moved to
/// slow memory as one huge page.
#[test]
fn a_sampled_huge_page_is_split_rated_from_base_pages_and_collapsed() {
    use thermocline_backend::Flush;
    use thermocline_sim::Machine;
    use thermocline_vocab::Access;
    use thermocline_vocab::{Asid, PageSize};

    let mut mc = common::exact_machine(8 << 20, 8 << 20, BASE, 2 << 20, true);
    let mut m = Thermostat::new(params(1e9, 1.0), false);
    m.start(&mut mc).unwrap();
    let touch = |mc: &mut Machine, p: u64| {
        mc.access(Access {
            va: va(0, p),
            asid: 0,
            core: 0,
            write: false,
        });
        mc.flush_tlb(Asid(0), Flush::All).unwrap();
    };
    let size = |mc: &Machine| mc.translate(Asid(0), BASE).unwrap().unwrap().size;
    touch(&mut mc, 0);
    assert_eq!(size(&mc), PageSize::Huge);
    m.tick(&mut mc).unwrap();
    assert_eq!(size(&mc), PageSize::Base, "split for sampling");
    for p in 0..200 {
        touch(&mut mc, p);
    }
    m.tick(&mut mc).unwrap();
    for _ in 0..3 {
        for p in 0..200 {
            touch(&mut mc, p);
        }
    }
    mc.settle();
    m.tick(&mut mc).unwrap();
    assert_eq!(gauge(&m, "sampling_faults_per_s"), 150.0);
    assert_eq!(gauge(&m, "cold_counted_rate_per_s"), 600.0);
    // Collapsed before it moved: one 2 MiB migration, not 512 of 4 KiB.
    assert_eq!(mc.stats().demoted_pages, 1);
    assert_eq!(mc.stats().migrated_bytes, 2 << 20);
    assert_eq!(gauge(&m, "demoted_bytes"), UNIT_BYTES);
    // (The same tick starts the unit's next sample, which splits it again.)
    let cold = gauge(&m, "cold_huge_bytes") + gauge(&m, "cold_base_bytes");
    assert_eq!(cold, UNIT_BYTES);
    for p in 0..UNIT_PAGES {
        assert_eq!(mc.translate(Asid(0), va(0, p)).unwrap().unwrap().tier, SLOW);
    }
}

/// Touches every page of `units` units once (one fault per poisoned page).
fn touch_all(b: &mut Fake, units: u64) {
    for u in 0..units {
        for p in 0..UNIT_PAGES {
            b.touch(va(u, p), false);
        }
    }
}

/// Ticks four periods over 20 units all touched every period (10 sampled
/// per batch, K = 50); returns the pages poisoned after the fourth tick,
/// when the third batch (started after the first measurement) is poisoned.
fn poisoned_in_third_batch(p: ThermostatParams) -> (Fake, Thermostat, usize) {
    let units = 20;
    let (mut b, mut m) = setup(units, p);
    for _ in 0..4 {
        touch_all(&mut b, units);
        m.tick(&mut b).unwrap();
    }
    let n = b.poisoned().len();
    (b, m, n)
}

/// Beyond the paper (issue: the target includes the monitoring): when the
/// faults on sampled pages exceed their share of the budget, the next
/// batches sample fewer pages in proportion. A batch of 10 units x 50
/// pages each touched once per 1 s period costs 500 faults/s; at a 300/s
/// budget and a 1/3 share (100/s) the next batch takes 100 / 500 of the
/// pages: 2 units x 50. Every unit is far above the budget, so none is
/// cold and only the batch's sampled pages are poisoned.
#[test]
fn sampling_shrinks_to_its_share_of_the_budget() {
    let p = ThermostatParams {
        poison_max: 50,
        ..params(300.0, 0.5)
    };
    let (_, m, poisoned) = poisoned_in_third_batch(p.clone());
    assert_eq!(gauge(&m, "sampling_faults_per_s"), 500.0);
    assert_eq!(poisoned, 100, "2 units x K = 50");
    assert_eq!(gauge(&m, "cold_base_bytes"), 0.0);
    assert!((gauge(&m, "sampling_scale") - 0.2).abs() < 1e-12);
    assert!((gauge(&m, "sampled_fraction") - 0.1).abs() < 1e-12);
    assert!(gauge(&m, "reduced_batches_count") >= 1.0);
    let notes = m.notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("2 units x 50 pages"), "{notes:?}");

    // The paper's fixed fractions, whatever they cost: 10 x 50.
    let (_, m, poisoned) = poisoned_in_third_batch(ThermostatParams {
        adaptive_sampling: false,
        ..p.clone()
    });
    assert_eq!(poisoned, 500);
    assert_eq!(gauge(&m, "sampling_scale"), 1.0);
    assert_eq!(gauge(&m, "reduced_batches_count"), 0.0);
    assert!(m.notes().is_empty());

    // Never zero: a share 1/1000 of what one batch costs leaves one page
    // of one unit.
    let (_, m, poisoned) = poisoned_in_third_batch(ThermostatParams {
        sampling_share: 1e-3,
        ..p
    });
    assert_eq!(poisoned, 1, "one unit, one page");
    assert!(
        m.notes()[0].contains("1 units x 1 pages"),
        "{:?}",
        m.notes()
    );
}

/// Sampling that costs less than its share is the paper's: the same
/// choices, the same poisoned pages, no note; and once the cost falls, a
/// shrunk sampling grows back (at most doubling per period) to the paper's.
#[test]
fn cheap_sampling_is_the_papers_and_shrunk_sampling_grows_back() {
    // 500 sampling faults/s under a 3000/s budget: within a third.
    let p = ThermostatParams {
        poison_max: 50,
        ..params(3000.0, 0.5)
    };
    let (b, m, poisoned) = poisoned_in_third_batch(p.clone());
    let (b0, m0, poisoned0) = poisoned_in_third_batch(ThermostatParams {
        adaptive_sampling: false,
        ..p.clone()
    });
    assert_eq!(poisoned, poisoned0);
    assert_eq!(b.poisoned(), b0.poisoned());
    assert_eq!(b.used(SLOW), b0.used(SLOW));
    assert!(b.used(SLOW) > 0, "some units went cold");
    assert_eq!(m.gauges(), m0.gauges());
    assert_eq!(gauge(&m, "sampling_scale"), 1.0);
    assert!(m.notes().is_empty());

    let (mut b, mut m, _) = poisoned_in_third_batch(ThermostatParams {
        slowdown: 300.0,
        ..p
    });
    assert!((gauge(&m, "sampling_scale") - 0.2).abs() < 1e-12);
    // No more accesses: nothing costs anything, the scale doubles per
    // period up to 1 (0.2 -> 0.4 -> 0.8 -> 1).
    let mut scales = Vec::new();
    for _ in 0..6 {
        m.tick(&mut b).unwrap();
        scales.push(gauge(&m, "sampling_scale"));
    }
    assert_eq!(*scales.last().unwrap(), 1.0, "{scales:?}");
    assert!(
        scales.windows(2).all(|w| w[1] <= 2.0 * w[0] + 1e-12),
        "{scales:?}"
    );
}

/// Thermostat as telemetry (`placement = false`): its estimates drive a
/// scheme pair, the units it never saw accessed go slow, the ones it saw
/// busy come back fast; without schemes nothing moves.
#[test]
fn with_placement_off_schemes_act_on_thermostats_estimates() {
    const RULE: &str = r#"
[[schemes]]
action = "migrate_cold"
max_access_pct = 0

[[schemes]]
action = "migrate_hot"
min_access_pct = 5
"#;
    for schemes in [RULE, ""] {
        let mut p = params(1000.0, 1.0);
        p.placement = false;
        p.adaptive_sampling = false;
        let rule: toml::Table = toml::from_str(schemes).unwrap();
        if let Some(list) = rule.get("schemes") {
            p.schemes = list.clone().try_into().unwrap();
        }
        let (mut b, mut m) = setup(4, p);
        // units 0 and 1 are busy and start slow, 2 and 3 idle and fast
        for u in 0..2 {
            let vas: Vec<u64> = (0..UNIT_PAGES).map(|i| va(u, i)).collect();
            b.migrate(thermocline_vocab::Asid(0), &vas, SLOW).unwrap();
        }
        for _ in 0..6 {
            // 30 accesses a page a period of 1 s: one DAMON sample of 5 ms
            // would find such a page accessed 14% of the time
            for _ in 0..30 {
                for u in 0..2 {
                    for i in 0..UNIT_PAGES {
                        b.touch(va(u, i), false);
                    }
                }
            }
            m.tick(&mut b).unwrap();
        }
        let fast: Vec<bool> = (0..4).map(|u| b.tier_of(va(u, 7)) == FAST).collect();
        if schemes.is_empty() {
            assert_eq!(
                fast,
                [false, false, true, true],
                "placement off, no schemes: nothing moves"
            );
            assert!(m.notes().is_empty(), "{:?}", m.notes());
        } else {
            assert_eq!(fast, [true, true, false, false], "{:?}", m.notes());
            for n in &m.notes()[..2] {
                assert!(n.contains("applied to 2"), "{n}");
            }
            assert_eq!(gauge(&m, "schemes_applied_bytes"), 4.0 * UNIT_BYTES);
        }
    }
}
