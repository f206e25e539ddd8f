//! Memos' rules (crates/managers/src/memos/; ../shared/papers/
//! 003_4ce7a4cbf1361ba3.txt, sections 3 and 4.2), one at a time on the fake
//! backend, where every touch of a poisoned page counts a TLB-miss fault and
//! sets the Accessed (and on a store the Dirty) bit.

use super::common;

use common::{Fake, FAST, PAGE, SLOW};
use thermocline_backend::Backend;
use thermocline_managers::memos::{Memos, MemosParams};
use thermocline_managers::Manager;

const BASE: u64 = 1 << 30;
const PAGES: u64 = 64;

fn va(i: u64) -> u64 {
    BASE + i * PAGE
}

fn gauge(m: &Memos, k: &str) -> f64 {
    m.gauges().into_iter().find(|g| g.0 == k).unwrap().1
}

/// A workload second: `reads` and `writes` touches per page, by page range.
struct Second<'a> {
    reads: &'a [(std::ops::Range<u64>, u32)],
    writes: &'a [(std::ops::Range<u64>, u32)],
}

fn run_second(b: &mut Fake, s: &Second) {
    for (pages, n) in s.reads {
        for i in pages.clone() {
            for _ in 0..*n {
                b.touch(va(i), false);
            }
        }
    }
    for (pages, n) in s.writes {
        for i in pages.clone() {
            for _ in 0..*n {
                b.touch(va(i), true);
            }
        }
    }
}

/// Memos started on a fresh fake (all pages touched once, so mapped in
/// NVM), then its first tick: the first cycle begins.
fn started(p: MemosParams) -> (Memos, Fake) {
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    let mut m = Memos::new(p);
    m.start(&mut b).unwrap();
    for i in 0..PAGES {
        b.touch(va(i), false);
    }
    assert_eq!(b.used(SLOW), PAGES, "application data starts in NVM");
    assert!(m.tick(&mut b).unwrap().is_none());
    (m, b)
}

/// Ticks `n` seconds, running `s` before each; returns the hot sets reported.
fn seconds(m: &mut Memos, b: &mut Fake, n: u32, s: &Second) -> Vec<thermocline_managers::HotSet> {
    let mut out = Vec::new();
    for _ in 0..n {
        run_second(b, s);
        out.extend(m.tick(b).unwrap());
    }
    out
}

#[test]
fn pages_with_ten_misses_in_five_seconds_are_hot() {
    let (mut m, mut b) = started(MemosParams::default());
    assert_eq!(
        b.poisoned().len() as u64,
        PAGES,
        "every NVM page is counted"
    );
    // Pages 0-7: 2 misses a second (10 in 5 s); pages 8-15: 1 a second (5).
    let s = Second {
        reads: &[(0..8, 2), (8..16, 1)],
        writes: &[],
    };
    let hot = seconds(&mut m, &mut b, 5, &s);
    assert_eq!(hot.len(), 1, "the hot set comes at the end of counting");
    let ranges = &hot[0].ranges;
    assert_eq!(ranges.len(), 1);
    assert_eq!((ranges[0].1, ranges[0].2), (va(0), 8 * PAGE));
    assert!(b.poisoned().is_empty(), "counting ends after 5 s");
    assert_eq!(gauge(&m, "hot_pages_count"), 8.0);
}

#[test]
fn counting_of_a_page_stops_at_the_cap() {
    let (mut m, mut b) = started(MemosParams::default());
    seconds(
        &mut m,
        &mut b,
        1,
        &Second {
            reads: &[(0..1, 250)],
            writes: &[],
        },
    );
    assert!(
        !b.poisoned().contains(&va(0)),
        "200 reached: no more faults"
    );
    assert!(b.poisoned().contains(&va(1)));
}

/// Pages 0-7 hot and read, 8-15 hot and written, through preparation.
fn prepared(p: MemosParams) -> (Memos, Fake) {
    let (mut m, mut b) = started(p);
    let s = Second {
        reads: &[(0..8, 3)],
        writes: &[(8..16, 3)],
    };
    // 5 s counting plus 8 intervals of 2 s: the action starts at 21 s.
    seconds(&mut m, &mut b, 21, &s);
    (m, b)
}

#[test]
fn write_dominated_pages_move_first_within_the_budget() {
    let p = MemosParams {
        max_migrate_pages: 4,
        ..Default::default()
    };
    let (m, b) = prepared(p);
    let moved: Vec<u64> = b
        .migrations_since(0)
        .into_iter()
        .map(|(v, to)| {
            assert_eq!(to, FAST);
            (v - BASE) / PAGE
        })
        .collect();
    assert_eq!(moved.len(), 4, "at most max_migrate_pages per period");
    assert!(moved.iter().all(|i| (8..16).contains(i)), "{moved:?}");
    assert_eq!(gauge(&m, "wd_pages_count"), 8.0);
    assert_eq!(gauge(&m, "rd_pages_count"), 8.0);
}

#[test]
fn dram_pages_idle_for_two_scans_go_back() {
    let (mut m, mut b) = prepared(MemosParams::default());
    assert_eq!(b.used(FAST), 16);
    let log = b.log.len();
    // Pages 8-15 stay in use; 0-7 are idle from now on.
    let busy = Second {
        reads: &[(8..16, 1)],
        writes: &[],
    };
    // The first scan (23 s) reads the bits set before the move.
    seconds(&mut m, &mut b, 2, &busy);
    seconds(&mut m, &mut b, 2, &busy);
    assert!(
        b.migrations_since(log).is_empty(),
        "one idle scan is not enough"
    );
    seconds(&mut m, &mut b, 2, &busy);
    let back: Vec<u64> = b
        .migrations_since(log)
        .into_iter()
        .map(|(v, to)| {
            assert_eq!(to, SLOW);
            (v - BASE) / PAGE
        })
        .collect();
    assert_eq!(back, (0..8).collect::<Vec<_>>());
    assert_eq!(gauge(&m, "reclaimed_pages_count"), 8.0);
}

/// Pages 0-15 read 3 times a second: all hot, read-dominated.
const ALL_HOT: Second<'static> = Second {
    reads: &[(0..16, 3)],
    writes: &[],
};

/// Runs the rest of the cycle (from 21 s) with `dram` and `nvm` extra line
/// reads during the action period.
fn finish_cycle(m: &mut Memos, b: &mut Fake, dram: u64, nvm: u64) {
    b.counters[0].reads += dram;
    b.counters[1].reads += nvm;
    seconds(m, b, 20, &ALL_HOT);
}

#[test]
fn a_smaller_dram_gain_cuts_the_next_moves_to_a_fifth() {
    let (mut m, mut b) = prepared(MemosParams::default());
    finish_cycle(&mut m, &mut b, 100_000, 0);
    assert_eq!(gauge(&m, "migrate_budget_pages"), 10_000.0);
    // Second cycle: preparation, then an action period with less DRAM traffic.
    seconds(&mut m, &mut b, 21, &ALL_HOT);
    finish_cycle(&mut m, &mut b, 50_000, 0);
    assert_eq!(gauge(&m, "migrate_budget_pages"), 2_000.0);
    assert_eq!(gauge(&m, "cut_periods_count"), 1.0);
}

#[test]
fn an_nvm_loss_above_the_dram_gain_stops_the_next_period() {
    let (mut m, mut b) = prepared(MemosParams::default());
    finish_cycle(&mut m, &mut b, 10_000, 1_000_000);
    // Second cycle: DRAM gains a little, NVM loses a lot.
    seconds(&mut m, &mut b, 21, &ALL_HOT);
    finish_cycle(&mut m, &mut b, 20_000, 0);
    assert_eq!(gauge(&m, "stopped_periods_count"), 1.0);
    // Third cycle: its action period moves nothing.
    for i in 0..16 {
        b.migrate(common::A0, &[va(i)], SLOW).unwrap();
    }
    let log = b.log.len();
    seconds(&mut m, &mut b, 21, &ALL_HOT);
    assert!(b.migrations_since(log).iter().all(|m| m.1 == SLOW));
}

#[test]
fn bad_parameters_are_errors_not_panics() {
    for p in [
        MemosParams {
            interval_s: 0,
            ..Default::default()
        },
        MemosParams {
            full_scan_intervals: 0,
            ..Default::default()
        },
        MemosParams {
            backoff: 0.0,
            ..Default::default()
        },
    ] {
        let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
        assert!(Memos::new(p).start(&mut b).is_err());
    }
}

#[test]
fn cold_pages_go_back_by_dma_and_a_page_written_during_its_copy_stays() {
    let (mut m, mut b) = prepared(MemosParams::default());
    b.dma = Some(Vec::new());
    let log = b.log.len();
    let busy = Second {
        reads: &[(8..16, 1)],
        writes: &[],
    };
    // Scans at 23 (stale bits), 25 and 27 s: pages 0-7 queued for DMA at 27.
    seconds(&mut m, &mut b, 6, &busy);
    assert!(b.migrations_since(log).is_empty(), "queued, not moved");
    assert_eq!(b.dma.as_ref().unwrap().len(), 8);
    // Page 3 is written while the engine copies it.
    let write3 = Second {
        reads: &[(8..16, 1)],
        writes: &[(3..4, 1)],
    };
    seconds(&mut m, &mut b, 1, &write3);
    let back: Vec<u64> = b
        .migrations_since(log)
        .into_iter()
        .map(|(v, _)| (v - BASE) / PAGE)
        .collect();
    assert_eq!(back, vec![0, 1, 2, 4, 5, 6, 7]);
    assert_eq!(b.tier_of(va(3)), FAST, "written during its copy: aborted");
    assert_eq!(gauge(&m, "dma_aborted_pages_count"), 1.0);
    assert_eq!(gauge(&m, "dma_moved_pages_count"), 7.0);
    // Page 3 is tracked again: idle from now on, it goes back at the next
    // try (scans at 29, 31 and 33 s, copied by 34 s).
    seconds(&mut m, &mut b, 6, &busy);
    assert_eq!(b.tier_of(va(3)), SLOW);
    assert_eq!(gauge(&m, "dma_moved_pages_count"), 8.0);
}

#[test]
fn footprints_beyond_the_shadow_array_are_declined() {
    let mut b = Fake::new(BASE, (1 << 26) + 1, PAGES, PAGES, false);
    let err = Memos::new(MemosParams::default())
        .start(&mut b)
        .unwrap_err();
    assert!(
        matches!(err, thermocline_backend::BackendError::Unfit(_)),
        "{err}"
    );
}

fn has_gauge(m: &Memos, k: &str) -> bool {
    m.gauges().iter().any(|g| g.0 == k)
}

#[test]
fn the_study_counts_past_the_cap_and_tallies_each_monitors_work() {
    let p = MemosParams {
        study: true,
        ..Default::default()
    };
    let (mut m, mut b) = started(p);
    // Page 0: 60 misses a second (300 in 5 s); pages 1-7: 4 a second (20).
    let s = Second {
        reads: &[(0..1, 60), (1..8, 4)],
        writes: &[],
    };
    seconds(&mut m, &mut b, 2, &s);
    assert!(b.poisoned().contains(&va(0)), "the study counts past 200");
    seconds(&mut m, &mut b, 3, &s);
    assert_eq!(gauge(&m, "uncapped_faults_count"), 300.0 + 7.0 * 20.0);
    assert_eq!(gauge(&m, "hymm_faults_count"), 200.0 + 7.0 * 20.0);
    assert_eq!(
        gauge(&m, "hot_pages_count"),
        8.0,
        "decisions use capped counts"
    );
    assert_eq!(gauge(&m, "nvm_pages_count"), PAGES as f64);
    // One hot region (pages 0-7): raw counts 300, 20 x 7, IQR 0.
    assert_eq!(gauge(&m, "iqr_regions_count"), 1.0);
    assert_eq!(gauge(&m, "iqr_sum"), 0.0);
    // The end of counting reads each hot page's Dirty bit once.
    assert_eq!(gauge(&m, "hymm_pte_reads_count"), 8.0);
    // 3 full scans of the 8 hot pages, then 5 of one representative (all
    // read: one sub-region).
    seconds(&mut m, &mut b, 16, &s);
    assert_eq!(gauge(&m, "representatives_count"), 1.0);
    assert_eq!(gauge(&m, "hymm_pte_reads_count"), 8.0 + 3.0 * 8.0 + 5.0);
    // Without the study none of this is reported (reports stay as they were).
    let (m, _) = started(MemosParams::default());
    assert!(!has_gauge(&m, "hymm_faults_count") && !has_gauge(&m, "history_judged_w1"));
}

#[test]
fn the_iqr_of_a_hot_regions_counts_is_figure_4s_spread() {
    let p = MemosParams {
        study: true,
        ..Default::default()
    };
    let (mut m, mut b) = started(p);
    // Pages 0-7 miss 2, 4, ... 16 times a second: 10, 20, ... 80 in 5 s.
    let s = Second {
        reads: &[
            (0..1, 2),
            (1..2, 4),
            (2..3, 6),
            (3..4, 8),
            (4..5, 10),
            (5..6, 12),
            (6..7, 14),
            (7..8, 16),
        ],
        writes: &[],
    };
    seconds(&mut m, &mut b, 5, &s);
    // Quartiles by interpolation: 27.5 and 62.5.
    assert_eq!(gauge(&m, "iqr_sum"), 35.0);
    assert_eq!(gauge(&m, "stream_pages_count"), 0.0, "35 is above 2.6");
}

#[test]
fn the_history_study_scores_each_window_against_the_future() {
    let p = MemosParams {
        history_study: true,
        history_max_window: 2,
        history_future: 2,
        ..Default::default()
    };
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    let mut m = Memos::new(p);
    m.start(&mut b).unwrap();
    for i in 0..PAGES {
        b.touch(va(i), false);
    }
    // Six 2 s intervals: page 0 written in all, page 1 read in all, page 2
    // written in intervals 1, 3, 5 and read in 2, 4, 6; the rest idle.
    for second in 1..=12u32 {
        b.touch(va(0), true);
        b.touch(va(1), false);
        let interval = second.div_ceil(2);
        b.touch(va(2), interval % 2 == 1);
        m.tick(&mut b).unwrap();
    }
    assert!(b.migrations_since(0).is_empty(), "a study, not Memos");
    // Judged at records 4, 5, 6 for pages 0-2. Page 2 (W R W R W R): a
    // window of 1 predicts the last record and is wrong twice (at 4 and 6:
    // R predicted, the future "W R" is half dirty, WD); a window of 2 is
    // always half dirty, WD, right.
    assert_eq!(gauge(&m, "history_judged_w1"), 9.0);
    assert_eq!(gauge(&m, "history_correct_w1"), 7.0);
    assert_eq!(gauge(&m, "history_judged_w2"), 9.0);
    assert_eq!(gauge(&m, "history_correct_w2"), 9.0);
    assert!(!has_gauge(&m, "history_judged_w3"));
}

#[test]
fn bad_history_study_parameters_are_errors() {
    for p in [
        MemosParams {
            history_max_window: 0,
            ..Default::default()
        },
        MemosParams {
            history_max_window: 17,
            ..Default::default()
        },
        MemosParams {
            history_future: 0,
            ..Default::default()
        },
    ] {
        let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
        assert!(Memos::new(p).start(&mut b).is_err());
    }
}

// Schemes over HyMM's profile (issue #24; *Schemes* in the module docs), on
// the exact machine: real page tables and TLBs, a TLB miss on a poisoned
// page counted as a fault. Every access is followed by a flush, so each
// access misses the TLB.

mod exact {
    use super::{BASE, PAGE};
    use thermocline_backend::{Backend, Flush};
    use thermocline_managers::memos::{Memos, MemosParams};
    use thermocline_managers::schemes::SchemeParams;
    use thermocline_managers::Manager;
    use thermocline_sim::Machine;
    use thermocline_vocab::{Access, Asid, TierId};

    /// 1 MiB of 4 KiB pages; DRAM and NVM of 16 MiB each.
    const N: u64 = 256;

    fn touch(mc: &mut Machine, page: u64, times: u32) {
        for _ in 0..times {
            mc.access(Access {
                va: BASE + page * PAGE,
                asid: 0,
                core: 0,
                write: false,
            });
            mc.flush_tlb(Asid(0), Flush::All).unwrap();
        }
    }

    fn tier(mc: &Machine, page: u64) -> TierId {
        mc.translate(Asid(0), BASE + page * PAGE)
            .unwrap()
            .unwrap()
            .tier
    }

    /// The pages in DRAM.
    fn in_dram(mc: &Machine) -> Vec<u64> {
        (0..N).filter(|&p| tier(mc, p) == TierId::FAST).collect()
    }

    fn schemes(text: &str) -> Vec<SchemeParams> {
        #[derive(serde::Deserialize)]
        struct S {
            schemes: Vec<SchemeParams>,
        }
        toml::from_str::<S>(text).unwrap().schemes
    }

    /// Memos started with `p` on a fresh machine whose pages were all
    /// touched once (so mapped, in NVM), then `seconds` ticks, each after
    /// `each(second, machine)`.
    fn run(p: MemosParams, seconds: u32, each: impl Fn(u32, &mut Machine)) -> (Memos, Machine) {
        let mut mc = super::common::exact_machine(16 << 20, 16 << 20, BASE, N * PAGE, false);
        let mut m = Memos::new(p);
        m.start(&mut mc).unwrap();
        for p in 0..N {
            touch(&mut mc, p, 1);
        }
        assert!(in_dram(&mc).is_empty(), "application data starts in NVM");
        for s in 0..seconds {
            each(s, &mut mc);
            mc.settle();
            m.tick(&mut mc).unwrap();
        }
        (m, mc)
    }

    fn gauge(m: &Memos, k: &str) -> f64 {
        m.gauges()
            .into_iter()
            .find(|g| g.0 == k)
            .unwrap_or_else(|| panic!("no gauge {k}"))
            .1
    }

    /// Pages 0-31 miss the TLB 3 times a second (15 in the 5 s counting:
    /// 7.5% of the cap of 200), pages 32-63 once a second (5: 2.5%), the
    /// rest never after the first touch.
    fn hot_and_warm(_: u32, mc: &mut Machine) {
        for p in 0..32 {
            touch(mc, p, 3);
        }
        for p in 32..64 {
            touch(mc, p, 1);
        }
    }

    const HOT_RULE: &str = r#"
[[schemes]]
action = "migrate_hot"
min_access_pct = 5
quota_bytes = 67108864
"#;

    #[test]
    fn without_placement_a_hot_rule_moves_the_pages_hymm_counted_hot() {
        let p = MemosParams {
            placement: false,
            schemes: schemes(HOT_RULE),
            ..MemosParams::default()
        };
        // The first tick starts the cycle; the sixth ends the counting.
        let (m, mc) = run(p.clone(), 5, hot_and_warm);
        assert!(in_dram(&mc).is_empty(), "nothing moves before the profile");
        let (m6, mc) = run(p, 6, hot_and_warm);
        assert_eq!(in_dram(&mc), (0..32).collect::<Vec<_>>());
        assert_eq!(gauge(&m6, "schemes_applied_bytes"), (32 * PAGE) as f64);
        // tried: the 32 hot pages, as one region (merged)
        let notes = m6.notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("migrate_hot to tier 0")
                && notes[0]
                    .contains("tried on 1 regions (131072 bytes), applied to 1 (131072 bytes)"),
            "{notes:?}"
        );
        // Memos itself moved nothing
        assert_eq!(gauge(&m6, "promoted_pages_count"), 0.0);
        assert_eq!(gauge(&m, "schemes_applied_bytes"), 0.0);
    }

    #[test]
    fn without_placement_or_schemes_memos_moves_nothing() {
        // Two cycles (41 s each): with its placement Memos moves the hot
        // pages at the first action period (21 s in) ...
        let (m, mc) = run(MemosParams::default(), 83, hot_and_warm);
        assert!(gauge(&m, "promoted_pages_count") >= 32.0);
        assert!(!in_dram(&mc).is_empty());
        // ... without it, nothing moves and no scheme gauge is shown.
        let p = MemosParams {
            placement: false,
            ..MemosParams::default()
        };
        let (m, mc) = run(p, 83, hot_and_warm);
        assert!(in_dram(&mc).is_empty());
        assert_eq!(mc.stats().migrated_bytes, 0);
        assert_eq!(
            gauge(&m, "hot_pages_count"),
            64.0,
            "HyMM monitors as always"
        );
        assert!(m.notes().is_empty());
        assert!(!m.gauges().iter().any(|g| g.0.starts_with("schemes_")));
    }

    /// The DRAM pages' inference: a page the action period's scans never
    /// found Accessed counts 0, so an idle rule sends it back; one found
    /// Accessed in every scan counts at the cap and stays.
    #[test]
    fn an_idle_rule_finds_dram_pages_no_scan_found_accessed() {
        let p = MemosParams {
            placement: false,
            schemes: schemes(&format!(
                "{HOT_RULE}\n[[schemes]]\naction = \"migrate_cold\"\nmax_access_pct = 0\n"
            )),
            ..MemosParams::default()
        };
        // Pages 0-31 are hot through the first counting; after it, 0-15
        // are never touched again while 16-31 go on.
        let each = |s: u32, mc: &mut Machine| {
            for p in 0..32 {
                if s < 6 || p >= 16 {
                    touch(mc, p, 3);
                }
            }
        };
        // The second counting ends 41 s after the first (tick 47).
        let (_, mc) = run(p.clone(), 46, each);
        assert_eq!(in_dram(&mc), (0..32).collect::<Vec<_>>());
        let (m, mc) = run(p, 47, each);
        assert_eq!(in_dram(&mc), (16..32).collect::<Vec<_>>());
        let notes = m.notes();
        assert!(
            notes[1].contains("migrate_cold to tier 1")
                && notes[1].contains("applied to 1 (65536 bytes)"),
            "{notes:?}"
        );
    }

    #[test]
    fn a_bad_scheme_is_refused_when_the_parameters_are_read() {
        let params: toml::Table =
            toml::from_str("schemes = [{action = \"migrate_hot\", min_access_pct = 120}]").unwrap();
        let e = thermocline_managers::registry::build("memos", params, 1)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("schemes[0]: min_access_pct (120)"), "{e}");
    }
}

// Bank moves within a channel (4.3; *Bank moves* in the module docs), on
// the exact machine with Memos' memory system: 32 banks per channel, 16
// LLC slabs, one channel per tier.

mod banks {
    use super::{BASE, PAGE};
    use thermocline_backend::{Backend, Colours, Flush};
    use thermocline_managers::memos::{Memos, MemosParams};
    use thermocline_managers::Manager;
    use thermocline_model::config::LlcConfig;
    use thermocline_model::{tiers, MachineConfig};
    use thermocline_sim::Machine;
    use thermocline_vocab::{Access, Asid, TierId};

    /// 16 MiB of 4 KiB pages.
    const N: u64 = 4096;
    /// Pages in banks below this of NVM are hot.
    const HOT_BANKS: u16 = 8;

    /// DRAM (2 MiB) and PCM (64 MiB) with the paper's mapping, and an LLC
    /// small enough (64 KiB, 16 slabs of 4 sets) that the hot pages' lines
    /// reach the banks.
    fn machine() -> Machine {
        let mut t = vec![tiers::dram(), tiers::pcm()];
        t[0].capacity_bytes = 2 << 20;
        t[1].capacity_bytes = 64 << 20;
        let cfg = MachineConfig {
            llc: LlcConfig {
                bytes: 64 << 10,
                ways: 16,
                hit_ns: 15.0,
            },
            memory: Some(Default::default()),
            ..MachineConfig::with_tiers(t)
        };
        let region = thermocline_vocab::RegionInfo {
            asid: Asid(0),
            name: "r".into(),
            start: BASE,
            len: N * PAGE,
            page_type: thermocline_vocab::PageType::Anon,
            thp: false,
        };
        Machine::new(cfg, vec![region]).unwrap()
    }

    /// (tier, bank, slab) of page `p`.
    fn place(mc: &Machine, p: u64) -> (TierId, u16, u16) {
        let t = mc.translate(Asid(0), BASE + p * PAGE).unwrap().unwrap();
        let f = mc.frame_place(t.frame).unwrap();
        (t.tier, f.bank, f.slab)
    }

    /// The busiest bank's accesses over the mean, in `tier`'s channel,
    /// between two readings of the controllers' counts.
    fn imbalance(before: &[u64], after: &[u64]) -> f64 {
        let d: Vec<u64> = after.iter().zip(before).map(|(a, b)| a - b).collect();
        let max = *d.iter().max().unwrap() as f64;
        max * d.len() as f64 / d.iter().sum::<u64>() as f64
    }

    fn bank_accesses(mc: &Machine, tier: TierId) -> Vec<u64> {
        let s = mc.memory_system_stats().unwrap();
        let c = &s.channels[tier.index()];
        c.bank_reads
            .iter()
            .zip(&c.bank_writes)
            .map(|(r, w)| r + w)
            .collect()
    }

    /// Memos with `p` on a fresh machine whose pages were all touched once
    /// (so mapped in NVM, taking the colours in turn); the pages that
    /// landed in NVM banks 0-7 (a quarter) are then each read three times a
    /// second, a different line each time and each a TLB miss, for
    /// `seconds` ticks. Returns the hot pages too.
    fn run(p: MemosParams, seconds: u32) -> (Memos, Machine, Vec<u64>, Vec<u64>) {
        let mut mc = machine();
        let mut m = Memos::new(p);
        m.start(&mut mc).unwrap();
        let touch = |mc: &mut Machine, page: u64, line: u64| {
            mc.access(Access {
                va: BASE + page * PAGE + (line % 64) * 64,
                asid: 0,
                core: 0,
                write: false,
            });
            mc.flush_tlb(Asid(0), Flush::All).unwrap();
        };
        for p in 0..N {
            touch(&mut mc, p, 0);
        }
        mc.settle();
        let hot: Vec<u64> = (0..N)
            .filter(|&p| {
                let (tier, bank, _) = place(&mc, p);
                assert_eq!(tier, TierId::SLOW, "application data starts in NVM");
                bank < HOT_BANKS
            })
            .collect();
        assert_eq!(
            hot.len() as u64,
            N * HOT_BANKS as u64 / 32,
            "colours in turn"
        );
        // The accesses of the 10 s after the first action period (it
        // starts at the 22nd tick).
        let mut window = Vec::new();
        for s in 0..seconds {
            if s == 22 {
                window = bank_accesses(&mc, TierId::SLOW);
            }
            for (i, &p) in hot.iter().enumerate() {
                for k in 0..3 {
                    touch(&mut mc, p, u64::from(s) * 3 + k + i as u64);
                }
            }
            mc.settle();
            m.tick(&mut mc).unwrap();
        }
        (m, mc, hot, window)
    }

    fn gauge(m: &Memos, k: &str) -> f64 {
        m.gauges().into_iter().find(|g| g.0 == k).unwrap().1
    }

    /// Few pages move to DRAM (64), so most hot pages stay in NVM's banks
    /// 0-7. With bank moves NVM's hot pages spread over all 32 banks and
    /// the busiest bank's share of the accesses falls to about the mean;
    /// without, it stays near 4x. Each moved page keeps its channel and
    /// LLC slab.
    #[test]
    fn hot_pages_move_from_busy_banks_to_idle_ones_within_their_channel() {
        let params = |bank_moves: bool| MemosParams {
            max_migrate_pages: 64,
            bank_moves,
            ..MemosParams::default()
        };
        let (on, mc_on, hot, w_on) = run(params(true), 32);
        let (off, mc_off, _, w_off) = run(params(false), 32);
        let after_on = imbalance(&w_on, &bank_accesses(&mc_on, TierId::SLOW));
        let after_off = imbalance(&w_off, &bank_accesses(&mc_off, TierId::SLOW));
        eprintln!("NVM banks' accesses, busiest/mean, after the first action period: {after_off:.3} without bank moves, {after_on:.3} with");
        assert!(after_off > 3.5, "without bank moves: {after_off}");
        assert!(after_on < 1.3, "with bank moves: {after_on}");
        assert_eq!(gauge(&off, "bank_moved_pages_count"), 0.0);
        let moved = gauge(&on, "bank_moved_pages_count");
        // 1024 hot pages, 64 to DRAM: 960 in NVM levelled to 30 a bank, so
        // 720 leave banks 0-7.
        assert_eq!(moved, 720.0);
        assert_eq!(gauge(&on, "promoted_pages_count"), 64.0);
        let mut per_bank = [0u32; 32];
        for &p in &hot {
            let (tier, bank, slab) = place(&mc_on, p);
            let (tier0, bank0, slab0) = place(&mc_off, p);
            if tier == TierId::SLOW {
                per_bank[bank as usize] += 1;
                assert_eq!(tier0, TierId::SLOW, "the same pages went to DRAM");
                assert_eq!(slab, slab0, "page {p}: a bank move keeps the slab");
                assert!(bank0 < HOT_BANKS);
            }
        }
        assert!(per_bank.iter().all(|&n| n == 30), "{per_bank:?}");
        // The moves are CPU copies the backend charges, within the channel.
        assert_eq!(
            mc_on.stats().promoted_pages,
            mc_off.stats().promoted_pages,
            "bank moves change no page's channel"
        );
        assert!(mc_on.stats().migrated_bytes >= mc_off.stats().migrated_bytes + 720 * PAGE);
        assert!(mc_on.migration_costs_ns().0 > mc_off.migration_costs_ns().0);
    }

    /// A machine without banks says so, in a note, rather than placing
    /// pages differently without a word.
    #[test]
    fn a_machine_without_banks_says_bank_moves_are_unsupported() {
        let mut mc = super::common::exact_machine(16 << 20, 16 << 20, BASE, 64 * PAGE, false);
        assert!(matches!(
            mc.colours().map(|_| ()),
            Err(thermocline_backend::BackendError::Unsupported(
                thermocline_backend::Capability::Colours
            ))
        ));
        let mut m = Memos::new(MemosParams::default());
        m.start(&mut mc).unwrap();
        let notes = m.notes();
        assert!(
            notes
                .iter()
                .any(|n| n.contains("no bank moves within a channel")),
            "{notes:?}"
        );
        // With banks: no such note.
        let mut mc = machine();
        let mut m = Memos::new(MemosParams::default());
        m.start(&mut mc).unwrap();
        assert!(m.notes().is_empty());
    }
}
