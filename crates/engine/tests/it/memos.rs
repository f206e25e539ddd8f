//! Memos' monitor end to end on the exact machine: HyMM's stream test and
//! Figure 4's spread separate the streamed Memos-like models from the
//! randomly accessed ones (crates/reproductions/src/memos/monitor.rs; paper
//! ../shared/papers/003_4ce7a4cbf1361ba3.txt, section 3.4), at small
//! footprints and a fifth of the nominal rate so the test stays short.
//! HyMM's hot threshold is absolute (10 misses in 5 s), so each footprint
//! is one whose pages are hot at that rate: a sweep over 30 MiB passes
//! often enough, Memcached-like's popular slab class must outgrow the
//! STLB's reach (6 MiB) to miss at all.

use thermocline_engine::config;
use thermocline_engine::report::Report;
use thermocline_engine::runner;

fn study(model: &str, gib: f64) -> Report {
    let sets: Vec<String> = [
        format!("run.workload=\"memos:{model}:{gib}:8\""),
        "run.manager=\"memos\"".into(),
        "memos.study=true".into(),
        "workload.access_rate=2000000".into(),
    ]
    .into();
    runner::run(&config::load(None, &sets).unwrap(), &mut |_, _| {}).unwrap()
}

fn gauge(r: &Report, name: &str) -> f64 {
    r.windows.last().unwrap().manager[name]
}

#[test]
fn the_stream_test_separates_streams_from_pointer_chasing() {
    for (model, gib, stream) in [
        ("stream", 0.03, true),
        ("lbm", 0.03, true),
        ("mcf", 0.03, false),
        ("memcached", 0.125, false),
    ] {
        let r = study(model, gib);
        let iqr = gauge(&r, "iqr_sum") / gauge(&r, "iqr_regions_count");
        let share = gauge(&r, "stream_pages_count") / gauge(&r, "hot_pages_count");
        assert!(gauge(&r, "hot_pages_count") > 0.0, "{model}: nothing hot");
        if stream {
            assert!(
                iqr < 2.6 && share > 0.5,
                "{model}: IQR {iqr}, {share} stream-like"
            );
        } else {
            assert!(
                iqr > 2.6 && share < 0.5,
                "{model}: IQR {iqr}, {share} stream-like"
            );
        }
        // The cap: HyMM counts no more than a monitor without it.
        assert!(gauge(&r, "hymm_faults_count") <= gauge(&r, "uncapped_faults_count"));
    }
}

/// Memos on its own machine (banks, slabs) moves hot pages into a chosen
/// bank and slab: a streamed model's into the reserved stream slab, a
/// pointer-chasing one's elsewhere; on a machine without banks it places
/// by channel only (section 4.2 (1)-(3), 5.1).
#[test]
fn hot_pages_are_placed_by_bank_and_slab_where_the_machine_has_them() {
    let run = |model: &str, machine: &str| {
        let sets: Vec<String> = [
            format!("run.workload=\"memos:{model}:0.03:30\""),
            "run.manager=\"memos\"".into(),
            format!("run.machine=\"{machine}\""),
            "workload.access_rate=2000000".into(),
        ]
        .into();
        runner::run(&config::load(None, &sets).unwrap(), &mut |_, _| {}).unwrap()
    };
    let r = run("stream", "dram+pcm-memos");
    let placed = gauge(&r, "placed_pages_count");
    assert!(placed > 0.0, "nothing placed");
    assert_eq!(gauge(&r, "placed_stream_pages_count"), placed);
    assert_eq!(gauge(&r, "promoted_pages_count"), placed);
    // DRAM (half the footprint) fills first; the streamed pages left in NVM
    // move into its stream slabs (4.3 case 4).
    assert!(gauge(&r, "nvm_stream_placed_pages_count") > 0.0);
    let r = run("mcf", "dram+pcm-memos");
    let placed = gauge(&r, "placed_pages_count");
    assert!(placed > 0.0, "nothing placed");
    assert!(gauge(&r, "placed_stream_pages_count") < placed);
    let r = run("stream", "dram+pcm");
    assert!(gauge(&r, "promoted_pages_count") > 0.0);
    assert!(!r
        .windows
        .last()
        .unwrap()
        .manager
        .contains_key("placed_pages_count"));
}

/// Figures 10-11's census: from one classification to the next, pages only
/// move between classes (NVM hot to DRAM, idle DRAM back to NVM as cold),
/// so the total of the five classes stays the same within a cycle; DRAM's
/// classes hold the pages Memos placed there.
#[test]
fn the_page_census_conserves_pages_within_a_cycle() {
    let sets: Vec<String> = [
        "run.workload=\"memos:astar:0.03:70\"".to_string(),
        "run.manager=\"memos\"".into(),
        "run.machine=\"dram+pcm\"".into(),
        "workload.access_rate=2000000".into(),
    ]
    .into();
    let r = runner::run(&config::load(None, &sets).unwrap(), &mut |_, _| {}).unwrap();
    let classes = [
        "dram_wd_pages",
        "dram_rd_pages",
        "nvm_wd_pages",
        "nvm_rd_pages",
        "nvm_cold_pages",
    ];
    let census: Vec<(f64, f64, f64)> = r
        .windows
        .iter()
        .filter(|w| w.manager.contains_key("nvm_cold_pages"))
        .map(|w| {
            let total: f64 = classes.iter().map(|c| w.manager[*c]).sum();
            let dram = w.manager["dram_wd_pages"] + w.manager["dram_rd_pages"];
            assert!(dram >= w.manager["dram_pages"], "at {} s", w.t_s);
            assert!(w.manager["dram_wd_pages"] <= w.manager["wd_pages_count"]);
            (w.t_s, total, dram)
        })
        .collect();
    // The first classification ends the first preparation (1 + 21 s); the
    // second ends 41 s later.
    let first: Vec<_> = census.iter().filter(|c| c.0 < 62.0).collect();
    assert!(first.len() > 10, "{census:?}");
    assert!(first.iter().all(|c| c.1 == first[0].1), "{first:?}");
    assert!(first[0].2 > 0.0, "nothing moved to DRAM: {first:?}");
}

/// Figure 9's steps 1-2 (`memos.scope`): pages interleaved over the two
/// channels stay in their channel; hot ones move only between its slabs
/// (and banks). They need a machine with slabs.
#[test]
fn partial_scopes_place_pages_within_their_channel() {
    let run = |scope: &str, machine: &str| {
        let sets: Vec<String> = [
            "run.workload=\"memos:mcf:0.03:25\"".to_string(),
            "run.manager=\"memos\"".into(),
            format!("run.machine=\"{machine}\""),
            format!("memos.scope=\"{scope}\""),
            "workload.access_rate=2000000".into(),
        ]
        .into();
        runner::run(&config::load(None, &sets).unwrap(), &mut |_, _| {})
    };
    for scope in ["cache", "cache+bank"] {
        let r = run(scope, "dram+dram-memos").unwrap();
        assert!(
            gauge(&r, "placed_pages_count") > 0.0,
            "{scope}: nothing placed"
        );
        assert_eq!(
            r.migrations.promoted_pages + r.migrations.demoted_pages,
            0,
            "{scope}"
        );
        assert!(
            r.migrations.bytes > 0,
            "{scope}: moves within a channel copy pages"
        );
        // Interleaved: both channels hold half the pages.
        let (a, b) = (r.tiers[0].avg_resident_bytes, r.tiers[1].avg_resident_bytes);
        assert!((a / b - 1.0).abs() < 0.05, "{scope}: {a} vs {b}");
    }
    let Err(e) = run("cache", "dram+pcm") else {
        panic!("step 1 ran on a machine without slabs");
    };
    assert!(e.to_string().contains("memory system"), "{e}");
}
