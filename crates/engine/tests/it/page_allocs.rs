//! The report's pages allocated per page type (`page_allocs`, HeteroOS'
//! Figure 4): present for the page-typed models and adding up to their
//! first touches, absent (and not in the JSON) for untyped workloads.

use thermocline_engine::config;
use thermocline_engine::report::Report;
use thermocline_engine::runner;

fn run(sets: &[&str]) -> Report {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let cfg = config::load(None, &sets).unwrap();
    runner::run(&cfg, &mut |_, _| {}).unwrap()
}

#[test]
fn typed_models_report_their_allocations_by_type() {
    // A small LevelDB-like model: heap, page cache, buffer cache and slab,
    // with heap chunks, file pages and skbuff-like slab pages released and
    // allocated again.
    let r = run(&[
        "run.workload=\"heteroos:leveldb:0.02\"",
        "run.manager=\"all-fast\"",
        "run.machine=\"fastmem+slowmem-heteroos\"",
    ]);
    let a = r.page_allocs.as_ref().expect("a typed workload");
    for k in ["anon", "file-cache", "io-buffer", "slab"] {
        assert!(a[k] > 0, "{k}: {a:?}");
    }
    assert_eq!(a["page-table"], 0, "page tables are not allocated pages");
    let total: u64 = a.values().sum();
    // 4 KiB pages only (no THP): one page per first-touch fault.
    assert_eq!(total, r.stats.first_touch_faults);
    // Released pages are allocated again, so more than the footprint.
    assert!(total * 4096 > r.footprint_bytes);
    assert!(r.to_json().contains("\"page_allocs\""));
}

#[test]
fn untyped_workloads_have_none() {
    let r = run(&["run.manager=\"first-touch\"", "run.duration_s=0.01"]);
    assert!(r.page_allocs.is_none());
    assert!(!r.to_json().contains("page_allocs"));
}
