//! Memos' Figure 13 (../shared/papers/003_4ce7a4cbf1361ba3.txt, section
//! 6.2, "Performance Breakdown"): where the runtime of the cloud-like
//! models goes (memory accesses, sampling, page migration, computing)
//! under random mapping between DRAM and NVM (case 1), a page-level
//! sampling and migration baseline (case 2) and Memos (case 3), on the
//! same 4 GB DRAM + 32 GB NVM machine as `memos-performance` (capacities
//! scaled with the footprint, see `memos_eval.rs`).
//!
//! Case 2 is the paper's own composite ("absorbs the core ideas" of
//! CLOCK-DWF [57], a PTE walker with a clock hand, and of hot-page
//! sampling [87]; footnote 5): *inferred* here as the `kstaled` baseline
//! with `start_slow` (data start in NVM, as under Memos): every page's
//! Accessed bit read each second, a page found accessed moved to DRAM by
//! CPU copy, one idle for 10 s moved back, no write-awareness and no bank
//! or cache placement.
//!
//! The parts come from each run's `time_breakdown`: computing is the
//! cores' work per access, memory the hierarchy's latency and bandwidth;
//! sampling is the monitoring faults the application takes, the
//! shootdowns monitoring issues and the manager's monitoring CPU time;
//! migration the shootdowns migrations issue and the manager's CPU time
//! copying pages. *Inferred*: the paper stacks the OS's work on the
//! application's runtime, so the manager's CPU time is added to the
//! simulated time (the simulated application does not wait for it).

use crate::memos::setup::{spec, System, CLOUD, DRAM_GB, MEMOS, RANDOM};
use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};
use serde_json::{json, Map, Value};
use std::fmt::Write;
use thermocline_engine::report::Report;
use thermocline_present::plot::Chart as _;
use thermocline_present::plot::HeatTable;

/// Case 2: page-level sampling and migration (see the module docs).
pub const CASE2: System = System {
    label: "case 2 (sampling+migration)",
    manager: "kstaled",
    dram_gb: DRAM_GB,
    nvm_gb: 32.0,
};

/// The three cases, with their labels in the summary.
pub const CASES: [(&str, System); 3] = [("case 1", RANDOM), ("case 2", CASE2), ("case 3", MEMOS)];

/// The parts of Figure 13, in stacking order.
pub const PARTS: [&str; 4] = ["memory", "sampling", "migration", "computing"];

fn runs(_: &Options) -> Vec<RunSpec> {
    CLOUD
        .iter()
        .flat_map(|m| CASES.iter().map(move |(_, s)| spec(m, *s)))
        .collect()
}

/// A run's parts (s), in [`PARTS`] order.
fn parts(r: &Report) -> [f64; 4] {
    let Some(t) = &r.time_breakdown else {
        return [0.0; 4];
    };
    [
        t.memory_s,
        t.sampling_s + t.monitor_shootdown_s + t.monitor_cpu_s,
        t.migration_shootdown_s + t.migration_cpu_s,
        t.compute_s,
    ]
}

fn moved_pages(r: &Report) -> f64 {
    (r.migrations.promoted_pages + r.migrations.demoted_pages) as f64
}

fn summarize(_: &Options, res: &Results) -> Output {
    let mut breakdown = Map::new();
    let mut text = String::from(
        "Memos Figure 13: runtime by part, normalised to case 1's (random mapping); case 2: page sampling + migration (kstaled-like, from NVM); case 3: Memos\n",
    );
    let _ = writeln!(
        text,
        "{:<10} {:<7} {:>8} {:>8} {:>9} {:>9} {:>9} {:>10}",
        "model", "case", "memory", "sampling", "migration", "computing", "total", "ms/moved"
    );
    let mut rows = Vec::new();
    let mut values = Vec::new();
    for m in CLOUD {
        let Some(base) = res.get(&spec(m, RANDOM)) else {
            continue;
        };
        let base_total: f64 = parts(base).iter().sum();
        let mut per_case = Map::new();
        for (case, sys) in CASES {
            let Some(r) = res.get(&spec(m, sys)) else {
                continue;
            };
            let p = parts(r);
            let total: f64 = p.iter().sum();
            let norm = |x: f64| {
                if base_total > 0.0 {
                    x / base_total
                } else {
                    0.0
                }
            };
            let moved = moved_pages(r);
            let per_page_ms = if moved > 0.0 { p[2] / moved * 1e3 } else { 0.0 };
            let mut o = Map::new();
            for (name, v) in PARTS.iter().zip(p) {
                o.insert(format!("{name}_s"), json!(v));
                o.insert(
                    format!("{name}_share"),
                    json!(if total > 0.0 { v / total } else { 0.0 }),
                );
            }
            o.insert("total_norm".into(), json!(norm(total)));
            o.insert("moved_pages".into(), json!(moved));
            o.insert("migration_ms_per_page".into(), json!(per_page_ms));
            per_case.insert(case.into(), Value::Object(o));
            let _ = writeln!(
                text,
                "{m:<10} {case:<7} {:>8.3} {:>8.3} {:>9.3} {:>9.3} {:>9.3} {:>10.4}",
                norm(p[0]),
                norm(p[1]),
                norm(p[2]),
                norm(p[3]),
                norm(total),
                per_page_ms
            );
            rows.push(format!("{m} {case}"));
            values.push(p.iter().map(|&x| norm(x)).collect());
        }
        breakdown.insert(m.into(), Value::Object(per_case));
    }
    let _ = writeln!(
        text,
        "paper (text): case 1's memory share 40.3% (Redis) to 76.9% (Aerospike); case 2 slower than case 1 on Memcached and Redis; Memos' sampling < 1/10 of prior work's, migration overhead less than half (DMA), computing time ~20% better"
    );
    let chart = HeatTable {
        title: "Memos Fig. 13: runtime parts / case 1's runtime".into(),
        row_label: "model, case".into(),
        col_label: "part".into(),
        rows,
        cols: PARTS.iter().map(|p| p.to_string()).collect(),
        values,
    };
    Output {
        json: json!({ "breakdown": breakdown }),
        text,
        charts: vec![("memos-fig13-breakdown.svg".into(), chart.to_svg())],
    }
}

/// Figure 13.
pub fn reproductions() -> Vec<Reproduction> {
    vec![Reproduction {
        name: "memos-breakdown",
        description: "Memos Figure 13: runtime of the cloud-like models by part (memory, sampling, migration, computing) under random mapping, page sampling + migration and Memos",
        runs,
        summarize,
        claims: crate::memos::eval_claims::breakdown,
    }]
}
