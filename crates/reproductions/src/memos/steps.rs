//! Memos' Figure 9 (../shared/papers/003_4ce7a4cbf1361ba3.txt, section
//! 4.4): the three steps of its hierarchy scheduling on multi-programmed
//! SPEC-like mixes, on a machine with "DRAM in both of the DRAM and NVM
//! channels" (`dram+dram-memos`):
//!
//! - **baseline**: the unmodified kernel, pages interleaved over the two
//!   channels (`interleave`);
//! - **step 1**: cache partitioning only (`memos.scope = "cache"`): pages
//!   interleaved; after HyMM's preparation each hot page moves, within its
//!   channel, into a slab of its class (stream-like: slab 0; others: the
//!   least used of 1-14);
//! - **step 2**: cache and bank mapping without the channel
//!   (`"cache+bank"`): as step 1, into the coldest bank too;
//! - **step 3**: Memos (`"full"`): data start in the second channel and
//!   hot pages move to the first by channel, bank and slab.
//!
//! Throughput is the mix's accesses per simulated second (every run does
//! the same work); the figure's y-axis is its improvement over the
//! baseline. Bank imbalance is the busiest bank's accesses over the mean,
//! averaged over the two channels; LLC misses are summed over the slabs.
//!
//! *Inferred*: the mixes are the appendix's workloads 1, 2, 4, 7 and 10
//! restricted to the applications this project models (libquantum, mcf,
//! Xalan, lbm, astar; omnetpp, soplex, h264ref and namd left out), each at
//! its preset's footprint, for [`WORK_S`] s of work at a quarter of the
//! nominal access rate (3-6 programs run at once; the monitor's thresholds
//! are per page and absolute, see `memos.rs`). Step 1's partitioning is
//! Memos' own slab classes ([48] is not described further); a stream
//! reservation that is full stays full in step 1 (step 2 and Memos grow
//! it). The two DRAM channels take half of the mix's footprint each at
//! most (the default fast capacity).

use crate::memos::setup::MIXES;
use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};
use serde_json::{json, Map, Value};
use std::fmt::Write;
use thermocline_engine::report::Report;
use thermocline_present::plot::Chart as _;
use thermocline_present::plot::HeatTable;
use thermocline_workloads::memos as models;

/// Nominal work of each run (s): two of Memos' cycles start in it.
pub const WORK_S: u64 = 90;
const RATE: &str = "workload.access_rate=2500000";
const MACHINE: &str = "run.machine=\"dram+dram-memos\"";

/// The systems: label, manager, `memos.scope`.
pub const STEPS: [(&str, &str, Option<&str>); 4] = [
    ("baseline", "interleave", None),
    ("step 1", "memos", Some("cache")),
    ("step 2", "memos", Some("cache+bank")),
    ("step 3", "memos", Some("full")),
];

fn mix_spec(apps: &[&str]) -> String {
    let parts: Vec<String> = apps
        .iter()
        .map(|a| {
            let m = models::model(a).expect("a listed Memos model");
            let gib = m.small_bytes as f64 / (1u64 << 30) as f64;
            format!("memos:{a}:{gib}:{WORK_S}")
        })
        .collect();
    format!("mix:{}", parts.join("+"))
}

/// The run of `apps` together under one step of the design (its label,
/// its manager, its scope).
pub fn spec(apps: &[&str], step: (&str, &str, Option<&str>)) -> RunSpec {
    let scope = step.2.map(|s| format!("memos.scope=\"{s}\""));
    let mut sets = vec![MACHINE, RATE];
    sets.extend(scope.as_deref());
    RunSpec::new(&mix_spec(apps), step.1, &sets)
}

fn runs(_: &Options) -> Vec<RunSpec> {
    MIXES
        .iter()
        .flat_map(|(_, apps)| STEPS.iter().map(move |s| spec(apps, *s)))
        .collect()
}

fn throughput(r: &Report) -> f64 {
    if r.sim_time_s > 0.0 {
        r.accesses as f64 / r.sim_time_s
    } else {
        0.0
    }
}

/// Mean over the channels of (busiest bank / mean bank), and the LLC's
/// misses.
fn memory(r: &Report) -> (f64, f64) {
    let Some(m) = &r.memory_system else {
        return (0.0, 0.0);
    };
    let n = m.channels.len().max(1) as f64;
    let imb = m.channels.iter().map(|c| c.bank_imbalance).sum::<f64>() / n;
    (imb, m.llc_slab_misses.iter().sum::<u64>() as f64)
}

fn summarize(_: &Options, res: &Results) -> Output {
    let mut gain = Map::new();
    let mut imbalance = Map::new();
    let mut misses = Map::new();
    let mut sums: Vec<Vec<f64>> = vec![Vec::new(); STEPS.len()];
    let mut text = String::from(
        "Memos Figure 9: throughput improvement over the interleaved baseline, bank imbalance (busiest/mean) and LLC misses\n",
    );
    let _ = writeln!(
        text,
        "{:<5} {:>9} {:>9} {:>9}   {:>8} {:>8} {:>8} {:>8}   {:>9}",
        "mix", "step 1", "step 2", "step 3", "imb base", "imb s1", "imb s2", "imb s3", "LLC s3/b"
    );
    let mut rows = Vec::new();
    let mut values = Vec::new();
    for (name, apps) in MIXES {
        let Some(base) = res.get(&spec(apps, STEPS[0])) else {
            continue;
        };
        let (t0, (_, miss0)) = (throughput(base), memory(base));
        let (mut g, mut im, mut ms) = (Map::new(), Map::new(), Map::new());
        let mut row = Vec::new();
        let mut imbs = Vec::new();
        for (i, step) in STEPS.iter().enumerate() {
            let Some(r) = res.get(&spec(apps, *step)) else {
                continue;
            };
            let (imb, miss) = memory(r);
            let v = if t0 > 0.0 {
                throughput(r) / t0 - 1.0
            } else {
                0.0
            };
            g.insert(step.0.into(), json!(v));
            im.insert(step.0.into(), json!(imb));
            ms.insert(
                step.0.into(),
                json!(if miss0 > 0.0 { miss / miss0 } else { 0.0 }),
            );
            sums[i].push(v);
            if i > 0 {
                row.push(v * 100.0);
            }
            imbs.push(imb);
        }
        let at = |k: &str| g.get(k).and_then(Value::as_f64).unwrap_or(0.0) * 100.0;
        let _ = write!(
            text,
            "{name:<5} {:>8.1}% {:>8.1}% {:>8.1}%  ",
            at("step 1"),
            at("step 2"),
            at("step 3")
        );
        for x in &imbs {
            let _ = write!(text, " {x:>8.3}");
        }
        let _ = writeln!(
            text,
            "   {:>9.3}",
            ms.get("step 3").and_then(Value::as_f64).unwrap_or(0.0)
        );
        gain.insert(name.into(), Value::Object(g));
        imbalance.insert(name.into(), Value::Object(im));
        misses.insert(name.into(), Value::Object(ms));
        rows.push(name.to_string());
        values.push(row);
    }
    let mut mean = Map::new();
    for (step, v) in STEPS.iter().zip(&sums) {
        let m = if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        };
        mean.insert(step.0.into(), json!(m));
    }
    let _ = writeln!(
        text,
        "mean gain: step 1 {:.1}%, step 2 {:.1}%, step 3 {:.1}% (paper: step 3 +23% over the baseline, +7.2% over step 2; step 2 > step 1; bank imbalance -60.1 to -69.9%, LLC misses -27.4%)",
        mean["step 1"].as_f64().unwrap_or(0.0) * 100.0,
        mean["step 2"].as_f64().unwrap_or(0.0) * 100.0,
        mean["step 3"].as_f64().unwrap_or(0.0) * 100.0
    );
    let chart = HeatTable {
        title: "Memos Fig. 9: throughput gain over the baseline (%)".into(),
        row_label: "mix".into(),
        col_label: "step".into(),
        rows,
        cols: STEPS[1..].iter().map(|s| s.0.to_string()).collect(),
        values,
    };
    Output {
        json: json!({ "gain": gain, "mean_gain": mean, "bank_imbalance": imbalance, "llc_misses_vs_baseline": misses }),
        text,
        charts: vec![("memos-fig9-steps.svg".into(), chart.to_svg())],
    }
}

/// Figure 9.
pub fn reproductions() -> Vec<Reproduction> {
    vec![Reproduction {
        name: "memos-steps",
        description: "Memos Figure 9: throughput of cache partitioning, + bank mapping and full Memos over interleaved pages, on multi-programmed SPEC-like mixes with DRAM in both channels",
        runs,
        summarize,
        claims: crate::memos::eval_claims::steps,
    }]
}
