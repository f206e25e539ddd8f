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
//! - **Figures 6 and 7** (`heteroos-micro`): the memlat- and Stream-like
//!   models (heap only) with 0.5 GiB of FastMem, as section 5.2 limits it:
//!   memlat's mean time per access at working sets of 0.25-2 GiB and
//!   Stream's bandwidth at 0.5 and 1 GiB, under Heap-OD, VMM-exclusive,
//!   Random, SlowMem-only and FastMem-only. *Inferred*: Random places each
//!   page in FastMem with probability 1/8, FastMem's share of the VM's
//!   0.5 + 3.5 GB; memlat's time per access is the run's simulated time
//!   over its accesses (one thread, no compute), Stream's bandwidth its
//!   64-byte lines over the simulated time.
//!
//! *Inferred*: the paper's ratios are FastMem against an 8 GB SlowMem that
//! holds the application; the models are smaller than the applications
//! (0.05-5.3 GiB), so a ratio is applied to the model's footprint: 1/2,
//! 1/4 and 1/8 give FastMem of 50%, 25% and 12.5% of it.

use crate::heteroos::placement_claims::MODELS;
use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};
use serde_json::{json, Map, Value};
use std::fmt::Write;
use thermocline_engine::report::Report;
use thermocline_present::plot::Chart as _;
use thermocline_present::plot::HeatTable;

/// Figure 9's ratios: (label, FastMem as a share of the footprint); the
/// JSON keys write them `1:2`, `1:4` (a `/` would need escaping in the
/// claims' JSON pointers).
pub const RATIOS: [(&str, &str); 2] = [("1/2", "50%"), ("1/4", "25%")];
/// Figure 10's ratio.
const MISS_RATIO: (&str, &str) = ("1/8", "12.5%");
/// The mechanisms compared, the baseline first.
pub const MANAGERS: [(&str, &str); 5] = [
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

/// A run of `manager` on the `heteroos-MODEL` preset, FastMem `fast` (a
/// share of the footprint) if given; `heteroos_vmm.rs` shares these runs.
pub fn spec(model: &str, manager: &str, fast: Option<&str>) -> RunSpec {
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

/// `t_base / t - 1`, 0 for an empty run.
pub fn gain(base: &Report, r: &Report) -> f64 {
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
                let req = r.last_gauge("fastmem_alloc_requests_count");
                if req > 0.0 {
                    r.last_gauge("fastmem_alloc_misses_count") / req
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

/// Section 5.2's microbenchmark setup: FastMem limited to 0.5 GiB.
const MICRO_FAST: &str = "run.fast_capacity=\"512MiB\"";
/// Figure 6's working sets (GiB).
pub const MEMLAT_WS: [&str; 4] = ["0.25", "0.5", "1", "2"];
/// Figure 7's working sets (GiB).
pub const STREAM_WS: [&str; 2] = ["0.5", "1"];
/// Figures 6-7's approaches: (manager, label, extra sets).
const MICRO_MANAGERS: [(&str, &str, &str); 5] = [
    ("heteroos-heap-od", "Heap-OD", MICRO_FAST),
    ("heteroos-vmm-exclusive", "VMM-exclusive", MICRO_FAST),
    ("random", "Random", MICRO_FAST),
    ("all-slow", "SlowMem-only", MICRO_FAST),
    ("all-fast", "FastMem-only", ""),
];

fn micro_spec(bench: &str, ws: &str, manager: &str, set: &str) -> RunSpec {
    let mut sets = vec![MACHINE];
    if !set.is_empty() {
        sets.push(set);
    }
    if manager == "random" {
        sets.push("random.fast_probability=0.125");
    }
    RunSpec::new(&format!("heteroos-{bench}:{ws}"), manager, &sets)
}

fn micro_runs(_: &Options) -> Vec<RunSpec> {
    let mut v = Vec::new();
    for (mgr, _, set) in MICRO_MANAGERS {
        v.extend(
            MEMLAT_WS
                .iter()
                .map(|ws| micro_spec("memlat", ws, mgr, set)),
        );
        v.extend(
            STREAM_WS
                .iter()
                .map(|ws| micro_spec("stream", ws, mgr, set)),
        );
    }
    v
}

fn micro_summarize(_: &Options, res: &Results) -> Output {
    let mut latency = Map::new();
    let mut bandwidth = Map::new();
    let mut text =
        String::from("HeteroOS Figure 6: memlat-like mean time per access (ns), 0.5 GiB FastMem\n");
    let _ = write!(text, "{:<8}", "WS GiB");
    for (_, label, _) in MICRO_MANAGERS {
        let _ = write!(text, " {label:>14}");
    }
    let _ = writeln!(text);
    let mut series: Vec<thermocline_present::plot::Series> = MICRO_MANAGERS
        .iter()
        .map(|(_, l, _)| thermocline_present::plot::Series {
            name: l.to_string(),
            points: Vec::new(),
        })
        .collect();
    for ws in MEMLAT_WS {
        let mut row = Map::new();
        let _ = write!(text, "{ws:<8}");
        for (k, (mgr, label, set)) in MICRO_MANAGERS.iter().enumerate() {
            let ns = res
                .get(&micro_spec("memlat", ws, mgr, set))
                .map_or(0.0, |r| {
                    if r.accesses > 0 {
                        r.sim_time_s * 1e9 / r.accesses as f64
                    } else {
                        0.0
                    }
                });
            row.insert(label.to_string(), json!(ns));
            series[k].points.push((ws.parse().unwrap_or(0.0), ns));
            let _ = write!(text, " {ns:>14.1}");
        }
        let _ = writeln!(text);
        latency.insert(ws.replace('.', "_"), Value::Object(row));
    }
    let _ = writeln!(
        text,
        "\nHeteroOS Figure 7: Stream-like bandwidth (GB/s), 0.5 GiB FastMem"
    );
    let _ = write!(text, "{:<8}", "WS GiB");
    for (_, label, _) in MICRO_MANAGERS {
        let _ = write!(text, " {label:>14}");
    }
    let _ = writeln!(text);
    for ws in STREAM_WS {
        let mut row = Map::new();
        let _ = write!(text, "{ws:<8}");
        for (mgr, label, set) in MICRO_MANAGERS {
            let gbps = res
                .get(&micro_spec("stream", ws, mgr, set))
                .map_or(0.0, |r| {
                    if r.sim_time_s > 0.0 {
                        r.accesses as f64 * 64.0 / r.sim_time_s / 1e9
                    } else {
                        0.0
                    }
                });
            row.insert(label.to_string(), json!(gbps));
            let _ = write!(text, " {gbps:>14.2}");
        }
        let _ = writeln!(text);
        bandwidth.insert(ws.replace('.', "_"), Value::Object(row));
    }
    let chart = thermocline_present::plot::LineChart {
        title: "HeteroOS Fig. 6: memlat-like latency, 0.5 GiB FastMem".into(),
        x_label: "working set (GiB)".into(),
        y_label: "mean time per access (ns)".into(),
        series,
        target: None,
    };
    Output {
        json: json!({ "latency_ns": latency, "bandwidth_gbps": bandwidth }),
        text,
        charts: vec![("heteroos-fig6-memlat.svg".into(), chart.to_svg())],
    }
}

/// HeteroOS's reproductions.
pub fn reproductions() -> Vec<Reproduction> {
    vec![
        Reproduction {
            name: "heteroos-micro",
            description: "HeteroOS Figures 6-7: memlat- and Stream-like latency and bandwidth at 0.25-2 GiB working sets with 0.5 GiB FastMem under Heap-OD, VMM-exclusive, Random, SlowMem-only and FastMem-only",
            runs: micro_runs,
            summarize: micro_summarize,
            claims: crate::heteroos::placement_claims::micro,
        },
        Reproduction {
        name: "heteroos-placement",
        description: "HeteroOS Figures 9-10: gains of NUMA-preferred, Heap-OD, Heap-IO-Slab-OD and HeteroOS-LRU over SlowMem-only at FastMem 1/2 and 1/4, and FastMem allocation miss ratios at 1/8, on the HeteroOS-like models",
        runs,
        summarize,
        claims: crate::heteroos::placement_claims::placement,
        },
    ]
}
