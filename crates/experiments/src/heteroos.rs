//! HeteroOS's placement figures (../shared/papers/001_f8c99e4789a9a37b.txt,
//! section 5.3) on the HeteroOS-like models of
//! `thermocline_workloads::heteroos` and its emulated machine
//! (`fastmem+slowmem-heteroos`: SlowMem at L:5,B:9):
//!
//! - **Figure 9**: each guest mechanism's performance gain over
//!   SlowMem-only (`t_SlowMem-only / t - 1`, the paper's y-axis) at
//!   FastMem:SlowMem ratios 1/2 and 1/4, on the GraphChi-, X-Stream-,
//!   Metis-, LevelDB- and Redis-like models (the paper leaves Nginx out of
//!   Figure 9), for NUMA-preferred (`first-touch`), Heap-OD,
//!   Heap-IO-Slab-OD and HeteroOS-LRU, with FastMem-only (`all-fast`, the
//!   whole footprint in FastMem) as the dashed line.
//! - **Figure 10**: the FastMem allocation miss ratio at 1/8: misses over
//!   requests, counting the requests of the page types each mechanism gives
//!   FastMem (Heap-OD: the heap's only).
//!
//! *Inferred*: the paper's ratios are FastMem against an 8 GB SlowMem that
//! holds the application; the models are smaller than the applications
//! (0.05-5.3 GiB), so a ratio is applied to the model's footprint: 1/2,
//! 1/4 and 1/8 give FastMem of 50%, 25% and 12.5% of it.

use crate::plot::HeatTable;
use crate::report::Report;
use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// The models of Figure 9 (the paper leaves Nginx out).
pub(crate) const MODELS: [&str; 5] = ["graphchi", "xstream", "metis", "leveldb", "redis"];
/// Figure 9's ratios: (label, FastMem as a share of the footprint); the
/// JSON keys write them `1:2`, `1:4` (a `/` would need escaping in the
/// claims' JSON pointers).
pub(crate) const RATIOS: [(&str, &str); 2] = [("1/2", "50%"), ("1/4", "25%")];
/// Figure 10's ratio.
const MISS_RATIO: (&str, &str) = ("1/8", "12.5%");
/// The mechanisms compared, the baseline first.
pub(crate) const MANAGERS: [(&str, &str); 5] = [
    ("all-slow", "SlowMem-only"),
    ("first-touch", "NUMA-preferred"),
    ("heteroos-heap-od", "Heap-OD"),
    ("heteroos-heap-io-slab-od", "Heap-IO-Slab-OD"),
    ("heteroos-lru", "HeteroOS-LRU"),
];
/// The mechanisms whose miss ratios Figure 10 shows.
const MISS_MANAGERS: [&str; 3] = [
    "heteroos-heap-od",
    "heteroos-heap-io-slab-od",
    "heteroos-lru",
];
const MACHINE: &str = "run.machine=\"fastmem+slowmem-heteroos\"";

fn spec(model: &str, manager: &str, fast: Option<&str>) -> RunSpec {
    let cap = fast.map(|f| format!("run.fast_capacity=\"{f}\""));
    let mut sets = vec![MACHINE];
    sets.extend(cap.as_deref());
    RunSpec::new(&format!("heteroos-{model}"), manager, &sets)
}

fn runs(_: &Options) -> Vec<RunSpec> {
    let mut v = Vec::new();
    for m in MODELS {
        for (_, fast) in RATIOS {
            v.extend(MANAGERS.iter().map(|(mgr, _)| spec(m, mgr, Some(fast))));
        }
        v.push(spec(m, "all-fast", None));
        v.extend(
            MISS_MANAGERS
                .iter()
                .map(|mgr| spec(m, mgr, Some(MISS_RATIO.1))),
        );
    }
    v
}

fn gauge(r: &Report, name: &str) -> f64 {
    r.windows
        .last()
        .and_then(|w| w.manager.get(name))
        .copied()
        .unwrap_or(0.0)
}

/// `t_base / t - 1`, 0 for an empty run.
fn gain(base: &Report, r: &Report) -> f64 {
    if r.sim_time_s > 0.0 {
        base.sim_time_s / r.sim_time_s - 1.0
    } else {
        0.0
    }
}

fn summarize(_: &Options, res: &Results) -> Output {
    let get = |m: &str, mgr: &str, fast: Option<&str>| res.get(&spec(m, mgr, fast));
    let mut gains = Map::new();
    let mut misses = Map::new();
    let mut text = String::from(
        "HeteroOS Figure 9: gain over SlowMem-only (t_slow / t - 1); FastMem-only is the whole footprint in FastMem\n",
    );
    let _ = write!(text, "{:<10} {:>5}", "model", "ratio");
    for (_, label) in &MANAGERS[1..] {
        let _ = write!(text, " {label:>16}");
    }
    let _ = writeln!(text, " {:>14}", "FastMem-only");
    let mut rows = Vec::new();
    let mut values = Vec::new();
    for m in MODELS {
        let mut per_ratio = Map::new();
        for (ratio, fast) in RATIOS {
            let Some(base) = get(m, "all-slow", Some(fast)) else {
                continue;
            };
            let mut g = Map::new();
            let mut row = Vec::new();
            let _ = write!(text, "{m:<10} {ratio:>5}");
            for (mgr, label) in &MANAGERS[1..] {
                let v = get(m, mgr, Some(fast)).map_or(0.0, |r| gain(base, r));
                g.insert(label.to_string(), json!(v));
                row.push(v * 100.0);
                let _ = write!(text, " {:>15.1}%", v * 100.0);
            }
            let ideal = get(m, "all-fast", None).map_or(0.0, |r| gain(base, r));
            g.insert("FastMem-only".into(), json!(ideal));
            row.push(ideal * 100.0);
            let _ = writeln!(text, " {:>13.1}%", ideal * 100.0);
            per_ratio.insert(ratio.replace('/', ":"), Value::Object(g));
            rows.push(format!("{m} {ratio}"));
            values.push(row);
        }
        gains.insert(m.into(), Value::Object(per_ratio));
    }
    let _ = writeln!(
        text,
        "\nHeteroOS Figure 10: FastMem allocation miss ratio at {}",
        MISS_RATIO.0
    );
    let _ = writeln!(
        text,
        "{:<10} {:>16} {:>16} {:>16}",
        "model", "Heap-OD", "Heap-IO-Slab-OD", "HeteroOS-LRU"
    );
    for m in MODELS {
        let mut row = Map::new();
        let _ = write!(text, "{m:<10}");
        for (mgr, label) in MISS_MANAGERS
            .iter()
            .zip(["Heap-OD", "Heap-IO-Slab-OD", "HeteroOS-LRU"])
        {
            let v = get(m, mgr, Some(MISS_RATIO.1)).map_or(0.0, |r| {
                let req = gauge(r, "fastmem_alloc_requests_count");
                if req > 0.0 {
                    gauge(r, "fastmem_alloc_misses_count") / req
                } else {
                    0.0
                }
            });
            row.insert(label.into(), json!(v));
            let _ = write!(text, " {:>15.1}%", v * 100.0);
        }
        let _ = writeln!(text);
        misses.insert(m.into(), Value::Object(row));
    }
    let mut cols: Vec<String> = MANAGERS[1..].iter().map(|(_, l)| l.to_string()).collect();
    cols.push("FastMem-only".into());
    let chart = HeatTable {
        title: "HeteroOS Fig. 9: gain over SlowMem-only (%)".into(),
        row_label: "model, FastMem:SlowMem".into(),
        col_label: "mechanism".into(),
        rows,
        cols,
        values,
    };
    Output {
        json: json!({ "gain": gains, "miss_ratio": misses }),
        text,
        charts: vec![("heteroos-fig9-gains.svg".into(), chart.to_svg())],
    }
}

/// HeteroOS's reproductions.
pub fn reproductions() -> Vec<Reproduction> {
    vec![Reproduction {
        name: "heteroos-placement",
        description: "HeteroOS Figures 9-10: gains of NUMA-preferred, Heap-OD, Heap-IO-Slab-OD and HeteroOS-LRU over SlowMem-only at FastMem 1/2 and 1/4, and FastMem allocation miss ratios at 1/8, on the HeteroOS-like models",
        runs,
        summarize,
        claims: crate::heteroos_claims::placement,
    }]
}
