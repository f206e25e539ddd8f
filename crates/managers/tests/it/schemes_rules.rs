//! Schemes acting on telemetry's profiles, through `Manager::start` and
//! `tick` on the fake backend: the same rule over DAMON's regions and over
//! a linear Accessed-bit scan demotes what stays idle and promotes what is
//! hot, and leaves the rest where it is.

use super::common;

use common::{Fake, PAGE};
use thermocline_vocab::TierId;

const BASE: u64 = 1 << 30;
const PAGES: u64 = 12_800; // 50 MiB

fn build(manager: &str, schemes: &str) -> Box<dyn thermocline_managers::Manager> {
    let params: toml::Table = toml::from_str(schemes).unwrap();
    thermocline_managers::registry::build(manager, params, 1).unwrap()
}

/// Runs `m` for `seconds` of 5 ms ticks, touching `hot` before each.
fn run(m: &mut dyn thermocline_managers::Manager, b: &mut Fake, hot: (u64, u64), seconds: u64) {
    m.start(b).unwrap();
    let tick = m.tick_ns().unwrap();
    let mut next = 0;
    while b.now < seconds * 1_000_000_000 {
        if b.now >= next {
            let mut va = hot.0;
            while va < hot.1 {
                b.touch(va, false);
                va += PAGE;
            }
            m.tick(b).unwrap();
            next += tick;
        }
        b.now += 1_000_000;
    }
}

fn share_in(b: &Fake, (s, e): (u64, u64), tier: TierId) -> f64 {
    let pages = (e - s) / PAGE;
    let n = (0..pages)
        .filter(|i| b.tier_of(s + i * PAGE) == tier)
        .count();
    n as f64 / pages as f64
}

const COLD: &str = r#"
[[schemes]]
action = "migrate_cold"
max_access_pct = 0
min_age_s = 2.0
"#;

const HOT: &str = r#"
[[schemes]]
action = "migrate_hot"
min_access_pct = 50
"#;

#[test]
fn an_idle_rule_demotes_the_idle_memory_over_damon_and_over_a_linear_scan() {
    let hot = (BASE + (10 << 20), BASE + (14 << 20));
    for manager in ["damon-moderate", "linear-scan-moderate"] {
        let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
        for i in 0..PAGES {
            b.touch(BASE + i * PAGE, false);
        }
        let mut m = build(manager, COLD);
        run(m.as_mut(), &mut b, hot, 12);
        let idle = share_in(&b, (BASE + (20 << 20), BASE + PAGES * PAGE), TierId(1));
        let kept = share_in(&b, hot, TierId(0));
        eprintln!("{manager}: idle memory {idle:.2} demoted, hot {kept:.2} kept");
        assert!(idle >= 0.9, "{manager}: {idle}");
        assert_eq!(kept, 1.0, "{manager}");
        let g: std::collections::BTreeMap<_, _> = m.gauges().into_iter().collect();
        assert!(g["schemes_applied_bytes"] > 0.0, "{g:?}");
        assert!(
            m.notes()[0].contains("migrate_cold to tier 1"),
            "{:?}",
            m.notes()
        );
    }
}

#[test]
fn a_hot_rule_promotes_only_the_hot_memory() {
    let hot = (BASE + (10 << 20), BASE + (14 << 20));
    for manager in ["damon-moderate", "linear-scan-moderate"] {
        let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
        for i in 0..PAGES {
            b.place(BASE + i * PAGE, TierId(1), false, false);
        }
        let mut m = build(manager, HOT);
        run(m.as_mut(), &mut b, hot, 12);
        let promoted = share_in(&b, hot, TierId(0));
        let left = share_in(&b, (BASE + (20 << 20), BASE + PAGES * PAGE), TierId(1));
        eprintln!("{manager}: hot {promoted:.2} promoted, idle {left:.2} left");
        assert!(promoted >= 0.9, "{manager}: {promoted}");
        assert_eq!(left, 1.0, "{manager}");
    }
}

#[test]
fn a_bad_scheme_stops_the_manager_at_start_with_the_reason() {
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    let mut m = build(
        "damon-moderate",
        "[[schemes]]\naction = \"migrate_hot\"\ntier = 5\n",
    );
    let e = m.start(&mut b).unwrap_err().to_string();
    assert!(e.contains("schemes[0]: tier 5 does not exist"), "{e}");
    // an unknown field, or an impossible range, is refused when the
    // parameters are read
    for (text, says) in [
        ("[[schemes]]\nactoin = \"stat\"\n", "actoin"),
        (
            "[[schemes]]\nmin_age_s = 3.0\nmax_age_s = 1.0\n",
            "schemes[0]: min_age_s (3) is above max_age_s (1)",
        ),
    ] {
        let params: toml::Table = toml::from_str(text).unwrap();
        for m in ["damon-moderate", "linear-scan-moderate", "pebs-5khz"] {
            let e = thermocline_managers::registry::build(m, params.clone(), 1)
                .err()
                .unwrap()
                .to_string();
            assert!(e.contains(says), "{m}: {e}");
        }
    }
}

/// The huge-page actions and `stat` on the exact machine, against the
/// reference of what each should do to a 16 MiB THP region (eight 2 MiB
/// pages): `nohugepage` over the first 8 MiB splits exactly its four huge
/// pages, `hugepage` over the same range collapses them again, and `stat`
/// changes nothing while counting what it was tried on.
#[test]
fn huge_page_actions_and_stat_do_what_the_reference_says() {
    use thermocline_backend::Backend;
    use thermocline_managers::schemes::{SchemeParams, SchemeSet};
    use thermocline_managers::telemetry::Counted;
    use thermocline_vocab::{Access, Asid, PageSize};

    const HUGE: u64 = 2 << 20;
    let mut mc = common::exact_machine(32 << 20, 32 << 20, BASE, 8 * HUGE, true);
    for p in 0..8 * HUGE / PAGE {
        mc.access(Access {
            va: BASE + p * PAGE,
            asid: 0,
            core: 0,
            write: false,
        });
    }
    let sizes = |mc: &thermocline_sim::Machine| -> Vec<PageSize> {
        (0..8)
            .map(|i| {
                mc.translate(Asid(0), BASE + i * HUGE)
                    .unwrap()
                    .unwrap()
                    .size
            })
            .collect()
    };
    assert_eq!(sizes(&mc), vec![PageSize::Huge; 8], "THP from the start");
    // the profile: the first 8 MiB idle, the rest busy
    let profile = [
        Counted {
            asid: Asid(0),
            start: BASE,
            end: BASE + 4 * HUGE,
            count: 0.0,
        },
        Counted {
            asid: Asid(0),
            start: BASE + 4 * HUGE,
            end: BASE + 8 * HUGE,
            count: 20.0,
        },
    ];
    let scheme = |action: &str, mc: &thermocline_sim::Machine| -> SchemeSet {
        let p: SchemeParams =
            toml::from_str(&format!("action = \"{action}\"\nmax_access_pct = 0")).unwrap();
        SchemeSet::start(&[p], mc).unwrap()
    };
    // each scheme its own set, applied once
    let apply = |set: &mut SchemeSet, mc: &mut thermocline_sim::Machine| {
        set.apply(mc, &profile, 20.0, 200_000_000).unwrap()
    };
    let base_then_huge: Vec<PageSize> = [[PageSize::Base; 4], [PageSize::Huge; 4]].concat();

    let mut split = scheme("nohugepage", &mc);
    let changed = apply(&mut split, &mut mc);
    assert_eq!(changed, 4 * HUGE);
    assert_eq!(sizes(&mc), base_then_huge);

    let mut stat = scheme("stat", &mc);
    let before: Vec<_> = (0..8 * HUGE / PAGE)
        .map(|p| mc.translate(Asid(0), BASE + p * PAGE).unwrap())
        .collect();
    assert_eq!(apply(&mut stat, &mut mc), 0);
    let after: Vec<_> = (0..8 * HUGE / PAGE)
        .map(|p| mc.translate(Asid(0), BASE + p * PAGE).unwrap())
        .collect();
    assert_eq!(before, after, "stat changes nothing");
    let st = &stat.stats()[0];
    assert_eq!((st.sz_tried, st.sz_applied), (4 * HUGE, 0));

    let mut collapse = scheme("hugepage", &mc);
    assert_eq!(apply(&mut collapse, &mut mc), 4 * HUGE);
    assert_eq!(sizes(&mc), vec![PageSize::Huge; 8]);
}
