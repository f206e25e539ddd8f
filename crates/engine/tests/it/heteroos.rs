//! HeteroOS end to end: every mechanism runs on the page-typed models
//! through the one run loop (memory events applied and drained, typed
//! allocation, per-type statistics in the report), and the mechanisms
//! place the types as Table 5 says.

use thermocline_engine::config;
use thermocline_engine::report::Report;
use thermocline_engine::runner;

const MANAGERS: [&str; 5] = [
    "heteroos-heap-od",
    "heteroos-heap-io-slab-od",
    "heteroos-lru",
    "heteroos-coordinated",
    "heteroos-vmm-exclusive",
];

fn run(workload: &str, manager: &str) -> Report {
    let sets = [
        format!("run.workload=\"{workload}\""),
        format!("run.manager=\"{manager}\""),
        "run.machine=\"fastmem+slowmem-heteroos\"".to_string(),
        "run.fast_capacity=\"25%\"".to_string(),
    ];
    let cfg = config::load(None, &sets).unwrap();
    runner::run(&cfg, &mut |_, _| {}).unwrap()
}

fn gauge(r: &Report, name: &str) -> f64 {
    r.windows.last().unwrap().manager[name]
}

/// A small LevelDB-like model (heap, page cache, buffer cache and slab,
/// all four with events): every mechanism runs to the end, and only
/// HeteroOS-LRU and coordinated evict completed I/O.
#[test]
fn every_mechanism_runs_on_a_page_typed_model() {
    for m in MANAGERS {
        let r = run("heteroos:leveldb:0.02", m);
        assert!(r.accesses > 0 && r.sim_time_s > 0.0, "{m}");
        let io = r
            .windows
            .last()
            .unwrap()
            .manager
            .get("io_evicted_pages_count")
            .copied();
        match m {
            "heteroos-lru" | "heteroos-coordinated" => assert!(io.unwrap() > 0.0, "{m}"),
            "heteroos-vmm-exclusive" => assert!(io.is_none()),
            _ => assert_eq!(io, Some(0.0), "{m}"),
        }
    }
}

/// Heap-OD asks FastMem for heap pages only, so its FastMem requests are
/// the heap's; Heap-IO-Slab-OD asks for the page cache too, and on the
/// X-Stream-like model (page-cache intensive) gives it FastMem that Heap-OD
/// leaves to SlowMem, which shows as fewer slow-tier accesses.
#[test]
fn io_pages_get_fastmem_under_heap_io_slab_od_only() {
    let heap = run("heteroos:xstream:0.02", "heteroos-heap-od");
    let all = run("heteroos:xstream:0.02", "heteroos-heap-io-slab-od");
    assert_eq!(gauge(&heap, "page_cache_miss_ratio"), 0.0);
    let slow = |r: &Report| r.tiers[1].reads + r.tiers[1].writes;
    assert!(
        slow(&all) < slow(&heap),
        "{} vs {}",
        slow(&all),
        slow(&heap)
    );
}
