//! Telescope's evaluation (../shared/papers/002_98026fdc393d1867.txt,
//! section 6) on the rate-driven machine:
//!
//! - `telescope-multiphase`: the 5 TiB three-phase MASIM benchmark, 4 KiB
//!   pages and THP (Figures 7, 8, 10; Table 2's Multi columns);
//! - `telescope-subtb`: 1, 10 and 100 GiB heaps with a 10% hot region
//!   (Figure 9; Table 2's SubTB columns);
//! - `telescope-needle`: a 50 MiB hot region in a 5 TiB heap (section 6.2.3);
//! - `telescope-scattered`: beyond the paper (issue #20 item 3), a family of
//!   phases with 1-16 hot regions of 10 MiB-100 GiB at densities 1x-10x
//!   scattered over 5 TiB; per phase precision / recall, their mean and the
//!   worst phase;
//! - `telescope-kv`: Memcached- and Redis-like models under memtier- and
//!   YCSB-like loads, data starting in the slow tier, each technique
//!   migrating with section 6.3.2's rules after a 150 s warm-up (Table 4,
//!   Figures 12-13).
//!
//! The machine is the paper's: DRAM sized 768 GiB beside DCPMM (the
//! `dram+dcpmm` preset), first touch in address order. Every run uses the
//! rate backend (the 1-100 GiB heaps too, for one backend across sizes; the
//! differential tests in crates/rate/tests check it against the exact one).
//! Precision and recall follow section 6.2 at 2 MiB granularity; a window in
//! which something was hot but nothing was reported counts as precision 0,
//! as the paper's plots show DAMON.

pub mod claims;

use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};
use serde_json::json;
use std::fmt::Write;
use thermocline_engine::report::Report;
use thermocline_present::plot::Chart as _;
use thermocline_present::plot::{HotMapChart, LineChart, Series};

/// Every technique, in the paper's order.
const TECHNIQUES: [&str; 9] = [
    "damon-moderate",
    "damon-aggressive",
    "pebs-5khz",
    "pebs-10khz",
    "telescope-bounded",
    "telescope-flex",
    "linear-scan-aggressive",
    "linear-scan-moderate",
    "linear-scan-conservative",
];
/// Those Table 4 compares.
const KV_TECHNIQUES: [&str; 4] = [
    "damon-moderate",
    "pebs-10khz",
    "telescope-bounded",
    "telescope-flex",
];
const KV_WORKLOADS: [&str; 4] = [
    "memcached-ycsb",
    "memcached-memtier",
    "redis-ycsb",
    "redis-memtier",
];
const SUBTB: [u64; 3] = [1, 10, 100];
const COMMON: [&str; 3] = [
    "run.backend=\"rate\"",
    "run.fast_capacity=\"768GiB\"",
    "metrics.hot_map_bins=128",
];
const WARMUP_S: f64 = 150.0;

fn spec(workload: &str, manager: &str, extra: &[&str]) -> RunSpec {
    let mut sets: Vec<&str> = COMMON.to_vec();
    sets.extend_from_slice(extra);
    RunSpec::new(workload, manager, &sets)
}

fn thp(variant: &str) -> &'static str {
    if variant == "thp" {
        "workload.thp=true"
    } else {
        "workload.thp=false"
    }
}

/// Mean precision and recall of the windows ending in each phase.
fn per_phase(r: &Report) -> Vec<(String, Option<f64>, Option<f64>)> {
    let n = r.phase_starts_s.len();
    (0..n)
        .map(|i| {
            let lo = r.phase_starts_s[i];
            let hi = r
                .phase_starts_s
                .get(i + 1)
                .copied()
                .unwrap_or(f64::INFINITY);
            let ws: Vec<_> = r
                .windows
                .iter()
                .filter(|w| w.t_s > lo && w.t_s <= hi && w.recall.is_some())
                .collect();
            let mean = |f: &dyn Fn(&thermocline_engine::report::Window) -> f64| {
                (!ws.is_empty()).then(|| ws.iter().map(|w| f(w)).sum::<f64>() / ws.len() as f64)
            };
            (
                r.phases[i].name.clone(),
                mean(&|w| w.precision.unwrap_or(0.0)),
                mean(&|w| w.recall.unwrap_or(0.0)),
            )
        })
        .collect()
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.2}"))
}

/// Per window: precision, recall, and the technique's bits flipped, CPU
/// cycles and CPU utilisation (of one core) within the window.
fn windows_json(r: &Report) -> serde_json::Value {
    let mut prev = (0.0, 0.0, 0.0);
    json!(r
        .windows
        .iter()
        .map(|w| {
            let bits = w.manager.get("bits_flipped_count").copied().unwrap_or(0.0);
            let cycles = w.manager.get("cpu_cycles_count").copied().unwrap_or(0.0);
            let dt = w.t_s - prev.0;
            let util = if dt > 0.0 {
                (cycles - prev.2) / (thermocline_managers::telescope::CPU_GHZ * 1e9 * dt)
            } else {
                0.0
            };
            let out = json!({
                "t_s": w.t_s,
                "precision": w.precision,
                "recall": w.recall,
                "bits_flipped": bits - prev.1,
                "cpu_cycles": cycles - prev.2,
                "cpu_util": util,
            });
            prev = (w.t_s, bits, cycles);
            out
        })
        .collect::<Vec<_>>())
}

fn technique_json(r: &Report) -> serde_json::Value {
    json!({
        "phases": per_phase(r)
            .into_iter()
            .map(|(name, p, rc)| json!({"phase": name, "precision": p, "recall": rc}))
            .collect::<Vec<_>>(),
        "mean_precision": r.mean_precision,
        "mean_recall": r.mean_recall,
        "bits_flipped": r.last_gauge("bits_flipped_count"),
        "cpu_cycles": r.last_gauge("cpu_cycles_count"),
        "cpu_util": r.manager_cpu_util,
        "sim_time_s": r.sim_time_s,
        "phase_starts_s": r.phase_starts_s,
        "windows": windows_json(r),
    })
}

/// How a run's per-window recall is spread: the scored windows, the share
/// of them with recall 1 (every hot unit in every report of the window),
/// and the windows with recall below one half, the spells of consecutive
/// such windows and the longest spell (s). For the needle, where a region
/// sampler that loses the needle reports little or none of it.
fn recall_spells(r: &Report) -> serde_json::Value {
    let (mut scored, mut whole, mut below, mut spells) = (0u32, 0u32, 0u32, 0u32);
    let (mut prev_t, mut spell_s, mut longest_s, mut in_spell) = (0.0, 0.0, 0.0f64, false);
    for w in &r.windows {
        let dt = w.t_s - prev_t;
        prev_t = w.t_s;
        let Some(x) = w.recall else {
            continue;
        };
        scored += 1;
        if x >= 1.0 - 1e-9 {
            whole += 1;
        }
        if x < 0.5 {
            below += 1;
            if !in_spell {
                spells += 1;
                spell_s = 0.0;
                in_spell = true;
            }
            spell_s += dt;
            longest_s = longest_s.max(spell_s);
        } else {
            in_spell = false;
        }
    }
    json!({
        "scored": scored,
        "whole_share": (scored > 0).then(|| f64::from(whole) / f64::from(scored)),
        "below_half": below,
        "spells": spells,
        "longest_s": longest_s,
    })
}

/// A parameter of registry manager `name` as the reproduction runs it (no
/// overrides: every default filled in), as a number.
fn default_param(name: &str, key: &str) -> Option<f64> {
    let built = thermocline_managers::registry::build_shown(name, toml::Table::new(), 1).ok()?;
    let v = built.params.get(key)?;
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

/// Bytes of the hot region of the sub-terabyte benchmark's `g` GiB heap,
/// from its MASIM config.
fn subtb_hot_bytes(g: u64) -> Option<u64> {
    let cfg = thermocline_workloads::telescope::subtb(g);
    thermocline_workloads::masim::parse(&cfg, "telescope-subtb")
        .ok()?
        .regions
        .into_iter()
        .find(|(name, _)| name == "hot")
        .map(|(_, bytes)| bytes)
}

/// What a PEBS run's samples can cover of `hot_bytes` in 2 MiB units: its
/// samples per profiling window (the run's mean rate), the hot units,
/// samples per unit, and the share of the units a window's samples cover
/// when each lands on a hot unit drawn uniformly and one sample marks a
/// unit, `1 - (1 - 1/units)^samples`; `expected_half` is the same with half
/// the samples.
fn pebs_coverage(r: &Report, name: &str, hot_bytes: u64) -> Option<serde_json::Value> {
    let window_s = default_param(name, "report_ms")? / 1e3;
    if r.sim_time_s <= 0.0 || hot_bytes == 0 {
        return None;
    }
    let samples = r.last_gauge("samples_count") / r.sim_time_s * window_s;
    let units = hot_bytes.div_ceil(1 << 21) as f64;
    let cover = |s: f64| 1.0 - (1.0 - 1.0 / units).powf(s);
    Some(json!({
        "samples_per_window": samples,
        "hot_units": units,
        "per_unit": samples / units,
        "expected": cover(samples),
        "expected_half": cover(samples / 2.0),
    }))
}

/// P(X < k) for X binomial with `n` trials of probability `p`.
fn binomial_below(n: u32, p: f64, k: u32) -> f64 {
    if p >= 1.0 {
        return if k > n { 1.0 } else { 0.0 };
    }
    let (mut term, mut sum) = ((1.0 - p).powi(n as i32), 0.0);
    for i in 0..k.min(n + 1) {
        sum += term;
        term *= f64::from(n - i) / f64::from(i + 1) * p / (1.0 - p);
    }
    sum.min(1.0)
}

/// What a region sampler's probe of one PTE in the hot region reads: the
/// hot pages; the share of sample intervals in which such a page is
/// accessed (the run's mean access rate spread evenly over the hot pages,
/// Poisson); the expected count of a window's samples; and the chance that
/// a window's count fails the hot test (`hot_min_accesses`), binomially.
fn pte_probe(r: &Report, name: &str, hot_bytes: u64) -> Option<serde_json::Value> {
    let sample_ms = default_param(name, "sample_ms")?;
    let samples = (default_param(name, "aggregate_ms")? / sample_ms).round();
    let hot_min = default_param(name, "hot_min_accesses")?;
    let pages = hot_bytes as f64 / 4096.0;
    if r.sim_time_s <= 0.0 || pages <= 0.0 {
        return None;
    }
    let per_page = r.accesses as f64 / r.sim_time_s / pages;
    let p = 1.0 - (-per_page * sample_ms / 1e3).exp();
    Some(json!({
        "hot_pages": pages,
        "set_share": p,
        "samples": samples,
        "expected_count": samples * p,
        "cold_share": binomial_below(samples as u32, p, hot_min.ceil() as u32),
    }))
}

/// Windows ending by this time are a run's start (s).
const EARLY_S: f64 = 10.0;

/// Mean recall and mean region count (the `regions` gauge; null for a
/// technique without regions) of the windows ending by [`EARLY_S`], and of
/// those ending in the run's second half.
fn early_late(r: &Report) -> serde_json::Value {
    let part = |keep: &dyn Fn(f64) -> bool| {
        let ws: Vec<_> = r
            .windows
            .iter()
            .filter(|w| keep(w.t_s) && w.recall.is_some())
            .collect();
        let mean =
            |xs: Vec<f64>| (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64);
        json!({
            "recall": mean(ws.iter().filter_map(|w| w.recall).collect()),
            "regions": mean(ws.iter().filter_map(|w| w.manager.get("regions").copied()).collect()),
        })
    };
    let half = r.sim_time_s / 2.0;
    json!({
        "early": part(&|t| t <= EARLY_S),
        "late": part(&|t| t > half),
    })
}

fn hot_map_chart(title: String, r: &Report) -> Option<String> {
    let m = r.hot_map.as_ref()?;
    let column_s = r.windows.first().map_or(1.0, |w| w.t_s);
    Some(
        HotMapChart {
            scale_label: "share of bin reported hot".into(),
            title,
            column_s,
            span_bytes: m.hi - m.lo,
            columns: m.rows.clone(),
            marks_s: r.phase_starts_s.iter().skip(1).copied().collect(),
        }
        .to_svg(),
    )
}

fn metric_chart(title: String, y: &str, runs: &[(&str, &Report)], recall: bool) -> String {
    LineChart {
        title,
        x_label: "time (s)".into(),
        y_label: y.into(),
        series: runs
            .iter()
            .map(|(name, r)| Series {
                name: name.to_string(),
                points: r
                    .windows
                    .iter()
                    .filter(|w| w.recall.is_some())
                    .map(|w| {
                        let v = if recall { w.recall } else { w.precision };
                        (w.t_s, v.unwrap_or(0.0))
                    })
                    .collect(),
            })
            .collect(),
        target: Some((0.9, "0.9".into())),
    }
    .to_svg()
}

fn multiphase_runs(_: &Options) -> Vec<RunSpec> {
    let mut v = Vec::new();
    for variant in ["4k", "thp"] {
        for t in TECHNIQUES {
            v.push(spec("telescope-multiphase", t, &[thp(variant)]));
        }
    }
    v
}

fn multiphase(_: &Options, res: &Results) -> Output {
    let mut text = String::new();
    let mut charts = Vec::new();
    let mut variants = serde_json::Map::new();
    for variant in ["4k", "thp"] {
        let mut techs = serde_json::Map::new();
        let _ = writeln!(
            text,
            "Multi-phase, 5 TiB, {}",
            if variant == "thp" {
                "2 MiB pages: mean precision / recall per phase (paper's averages over the run: DAMON-MOD 0.94/0.92, DAMON-AGG 0.96/0.90, Telescope 0.96/0.97)"
            } else {
                "4 KiB pages: mean precision / recall per phase (paper: Telescope above 0.9 in all three phases, DAMON mostly 0, PMU precision close to 1 with recall below 0.1)"
            }
        );
        let _ = writeln!(
            text,
            "{:<26}{:>12}{:>12}{:>12}{:>14}{:>12}{:>9}",
            "technique", "phase 1", "phase 2", "phase 3", "bits flipped", "Gcycles", "CPU %"
        );
        let mut runs: Vec<(&str, &Report)> = Vec::new();
        for t in TECHNIQUES {
            let Some(r) = res.get(&spec("telescope-multiphase", t, &[thp(variant)])) else {
                continue;
            };
            runs.push((t, r));
            let phases = per_phase(r);
            let cell = |i: usize| {
                phases
                    .get(i)
                    .map_or("-".into(), |p| format!("{}/{}", fmt(p.1), fmt(p.2)))
            };
            let _ = writeln!(
                text,
                "{:<26}{:>12}{:>12}{:>12}{:>14.0}{:>12.2}{:>9.3}",
                t,
                cell(0),
                cell(1),
                cell(2),
                r.last_gauge("bits_flipped_count"),
                r.last_gauge("cpu_cycles_count") / 1e9,
                r.manager_cpu_util * 100.0
            );
            techs.insert(t.into(), technique_json(r));
            if let Some(svg) = hot_map_chart(format!("{t}, multi-phase ({variant})"), r) {
                charts.push((format!("telescope-multiphase-{variant}-{t}.svg"), svg));
            }
        }
        text.push('\n');
        let tele: Vec<(&str, &Report)> = runs
            .iter()
            .filter(|(t, _)| !t.starts_with("linear"))
            .copied()
            .collect();
        charts.push((
            format!("telescope-multiphase-{variant}-precision.svg"),
            metric_chart(
                format!("Multi-phase ({variant}): precision"),
                "precision",
                &tele,
                false,
            ),
        ));
        charts.push((
            format!("telescope-multiphase-{variant}-recall.svg"),
            metric_chart(
                format!("Multi-phase ({variant}): recall"),
                "recall",
                &tele,
                true,
            ),
        ));
        variants.insert(variant.into(), serde_json::Value::Object(techs));
    }
    let hot_rule = res.values().next().map(|r| r.hot_rule.clone());
    Output {
        json: json!({"hot_rule": hot_rule, "variants": variants}),
        text,
        charts,
    }
}

fn subtb_runs(_: &Options) -> Vec<RunSpec> {
    SUBTB
        .iter()
        .flat_map(|g| {
            TECHNIQUES
                .iter()
                .map(move |t| spec(&format!("telescope-subtb-{g}g"), t, &[]))
        })
        .collect()
}

fn subtb(_: &Options, res: &Results) -> Output {
    let mut text = String::from(
        "Sub-terabyte heaps, 10% hot: mean precision / recall, Gcycles (paper: DAMON and PMU 0.9 and above at 1 GB; DAMON's recall drops significantly at 10 GB and is zero at 100 GB; PMU's precision stays high while its coverage drops; both Telescope variants outperform DAMON and PMU in all the scenarios)\n",
    );
    let _ = writeln!(
        text,
        "{:<26}{:>18}{:>18}{:>18}",
        "technique", "1 GiB", "10 GiB", "100 GiB"
    );
    let mut sizes = serde_json::Map::new();
    let mut charts = Vec::new();
    for t in TECHNIQUES {
        let mut row = format!("{t:<26}");
        for g in SUBTB {
            if let Some(r) = res.get(&spec(&format!("telescope-subtb-{g}g"), t, &[])) {
                let (p, rc) = per_phase(r).first().map_or((None, None), |x| (x.1, x.2));
                let _ = write!(
                    row,
                    "{:>18}",
                    format!(
                        "{}/{} {:.2}",
                        fmt(p),
                        fmt(rc),
                        r.last_gauge("cpu_cycles_count") / 1e9
                    )
                );
            }
        }
        let _ = writeln!(text, "{row}");
    }
    for g in SUBTB {
        let mut techs = serde_json::Map::new();
        let mut runs = Vec::new();
        let hot_bytes = subtb_hot_bytes(g);
        for t in TECHNIQUES {
            if let Some(r) = res.get(&spec(&format!("telescope-subtb-{g}g"), t, &[])) {
                let mut j = technique_json(r);
                let parts = early_late(r);
                j["early"] = parts["early"].clone();
                j["late"] = parts["late"].clone();
                if let Some(hot) = hot_bytes {
                    if t.starts_with("pebs") {
                        j["coverage"] = json!(pebs_coverage(r, t, hot));
                    } else if t.starts_with("telescope") || t.starts_with("damon") {
                        j["pte"] = json!(pte_probe(r, t, hot));
                    }
                }
                techs.insert(t.into(), j);
                if !t.starts_with("linear") {
                    runs.push((t, r));
                }
            }
        }
        charts.push((
            format!("telescope-subtb-{g}g-precision.svg"),
            metric_chart(
                format!("SubTB {g} GiB: precision"),
                "precision",
                &runs,
                false,
            ),
        ));
        charts.push((
            format!("telescope-subtb-{g}g-recall.svg"),
            metric_chart(format!("SubTB {g} GiB: recall"), "recall", &runs, true),
        ));
        sizes.insert(format!("{g}GiB"), serde_json::Value::Object(techs));
    }
    Output {
        json: json!({"sizes": sizes}),
        text,
        charts,
    }
}

fn needle_runs(_: &Options) -> Vec<RunSpec> {
    TECHNIQUES
        .iter()
        .map(|t| spec("telescope-needle", t, &[]))
        .collect()
}

fn needle(_: &Options, res: &Results) -> Output {
    let mut text = String::from(
        "Needle: 50 MiB hot in 5 TiB: mean precision / recall (paper: DAMON 0/0, PEBS 0.81/0.99, Telescope-BND 0.88/0.88, -FLX 0.92/0.92)\n",
    );
    let mut techs = serde_json::Map::new();
    let mut charts = Vec::new();
    for t in TECHNIQUES {
        if let Some(r) = res.get(&spec("telescope-needle", t, &[])) {
            let (p, rc) = per_phase(r).first().map_or((None, None), |x| (x.1, x.2));
            let _ = writeln!(
                text,
                "{t:<26}{:>6} /{:>6}   bits flipped {:>12.0}   {:.2} Gcycles",
                fmt(p),
                fmt(rc),
                r.last_gauge("bits_flipped_count"),
                r.last_gauge("cpu_cycles_count") / 1e9
            );
            let mut j = technique_json(r);
            j["recall_spells"] = recall_spells(r);
            techs.insert(t.into(), j);
            if let Some(svg) = hot_map_chart(format!("{t}, needle"), r) {
                charts.push((format!("telescope-needle-{t}.svg"), svg));
            }
        }
    }
    Output {
        json: json!({"techniques": techs}),
        text,
        charts,
    }
}

/// Those run on the scattered family (the region samplers and PEBS).
const SCATTERED_TECHNIQUES: [&str; 4] = [
    "telescope-bounded",
    "telescope-flex",
    "damon-moderate",
    "pebs-10khz",
];

fn scattered_runs(_: &Options) -> Vec<RunSpec> {
    SCATTERED_TECHNIQUES
        .iter()
        .map(|t| spec("telescope-scattered", t, &[]))
        .collect()
}

/// The mean and the worst (lowest) of the phases' figures.
fn mean_and_worst(xs: &[f64]) -> (Option<f64>, Option<f64>) {
    if xs.is_empty() {
        return (None, None);
    }
    (
        Some(xs.iter().sum::<f64>() / xs.len() as f64),
        xs.iter().copied().reduce(f64::min),
    )
}

fn scattered(_: &Options, res: &Results) -> Output {
    let family = thermocline_workloads::telescope::Scattered::family();
    let mut text = format!(
        "Scattered hot regions (beyond the paper): 5 TiB, {} phases of {:?} hot regions, 10 MiB-100 GiB, densities 1x-10x: precision / recall per phase, mean and worst phase\n",
        family.counts.len(),
        family.counts
    );
    let _ = write!(text, "{:<20}", "technique");
    for k in &family.counts {
        let _ = write!(text, "{:>11}", format!("{k} hot"));
    }
    let _ = writeln!(text, "{:>12}{:>12}{:>9}", "mean", "worst", "Gcycles");
    let mut techs = serde_json::Map::new();
    for t in SCATTERED_TECHNIQUES {
        let Some(r) = res.get(&spec("telescope-scattered", t, &[])) else {
            continue;
        };
        let phases = per_phase(r);
        let _ = write!(text, "{t:<20}");
        for (_, p, rc) in &phases {
            let _ = write!(text, "{:>11}", format!("{}/{}", fmt(*p), fmt(*rc)));
        }
        let ps: Vec<f64> = phases.iter().filter_map(|x| x.1).collect();
        let rs: Vec<f64> = phases.iter().filter_map(|x| x.2).collect();
        let (pm, pw) = mean_and_worst(&ps);
        let (rm, rw) = mean_and_worst(&rs);
        let _ = writeln!(
            text,
            "{:>12}{:>12}{:>9.2}",
            format!("{}/{}", fmt(pm), fmt(rm)),
            format!("{}/{}", fmt(pw), fmt(rw)),
            r.last_gauge("cpu_cycles_count") / 1e9
        );
        let mut j = technique_json(r);
        j["phase_mean"] = json!({"precision": pm, "recall": rm});
        j["phase_worst"] = json!({"precision": pw, "recall": rw});
        techs.insert(t.into(), j);
    }
    let draw: Vec<_> = family
        .draw()
        .iter()
        .map(|p| {
            p.iter()
                .map(|&(start, bytes, intensity)| json!({"start": start, "bytes": bytes, "intensity": intensity}))
                .collect::<Vec<_>>()
        })
        .collect();
    Output {
        json: json!({"phases_hot": draw, "techniques": techs}),
        text,
        charts: Vec::new(),
    }
}

fn migrate_set(t: &str) -> String {
    format!("{t}.migration.enabled=true")
}

fn kv_runs(_: &Options) -> Vec<RunSpec> {
    let mut v = Vec::new();
    for w in KV_WORKLOADS {
        v.push(spec(w, "all-slow", &[]));
        for t in KV_TECHNIQUES {
            v.push(spec(w, t, &[migrate_set(t).as_str()]));
        }
    }
    v
}

/// Accesses per second over the windows after the warm-up.
fn post_warmup_throughput(r: &Report) -> f64 {
    let ws: Vec<_> = r.windows.iter().filter(|w| w.t_s > WARMUP_S).collect();
    if ws.is_empty() {
        return 0.0;
    }
    ws.iter().map(|w| w.accesses_per_s).sum::<f64>() / ws.len() as f64
}

fn kv(_: &Options, res: &Results) -> Output {
    let mut text = String::from(
        "Key-value models, data in the slow tier, migration after 150 s: throughput change over no telemetry, GB migrated (paper Table 4: DAMON 0 GB; PMU ~0-0.15 GB; Telescope 28-108 GB, up to +34.4% throughput)\n",
    );
    let _ = writeln!(
        text,
        "{:<20}{:<20}{:>14}{:>14}{:>10}",
        "workload", "technique", "throughput", "GB migrated", "recall"
    );
    let mut out = serde_json::Map::new();
    let mut charts = Vec::new();
    for w in KV_WORKLOADS {
        let Some(base) = res.get(&spec(w, "all-slow", &[])) else {
            continue;
        };
        let base_tput = post_warmup_throughput(base);
        let mut techs = serde_json::Map::new();
        let mut series = Vec::new();
        for t in KV_TECHNIQUES {
            let Some(r) = res.get(&spec(w, t, &[migrate_set(t).as_str()])) else {
                continue;
            };
            let tput = post_warmup_throughput(r);
            let change = if base_tput > 0.0 {
                tput / base_tput - 1.0
            } else {
                0.0
            };
            let gb = r.migrations.bytes as f64 / 1e9;
            let _ = writeln!(
                text,
                "{w:<20}{t:<20}{:>13.1}%{gb:>14.2}{:>10}",
                change * 100.0,
                fmt(r.mean_recall)
            );
            techs.insert(
                t.into(),
                json!({
                    "throughput_change": change,
                    "migrated_gb": gb,
                    "mean_precision": r.mean_precision,
                    "mean_recall": r.mean_recall,
                    "cpu_cycles": r.last_gauge("cpu_cycles_count"),
                    "fast_tier_gib": r.windows.iter().map(|x| json!([x.t_s, x.resident_bytes[0] as f64 / (1u64 << 30) as f64])).collect::<Vec<_>>(),
                }),
            );
            series.push(Series {
                name: t.into(),
                points: r
                    .windows
                    .iter()
                    .map(|x| (x.t_s, x.resident_bytes[0] as f64 / (1u64 << 30) as f64))
                    .collect(),
            });
        }
        out.insert(
            w.into(),
            json!({"baseline_accesses_per_s": base_tput, "techniques": techs}),
        );
        charts.push((
            format!("telescope-kv-{w}-dram.svg"),
            LineChart {
                title: format!("{w}: DRAM in use as hot data is migrated"),
                x_label: "time (s)".into(),
                y_label: "fast tier (GiB)".into(),
                series,
                target: None,
            }
            .to_svg(),
        ));
    }
    Output {
        json: json!({"warmup_s": WARMUP_S, "workloads": out}),
        text,
        charts,
    }
}

/// Telescope's reproductions.
pub fn reproductions() -> Vec<Reproduction> {
    vec![
        Reproduction {
            name: "telescope-multiphase",
            description: "Telescope Figures 7-8, 10, Table 2: nine techniques on the 5 TiB three-phase benchmark, 4 KiB and THP",
            runs: multiphase_runs,
            summarize: multiphase,
            claims: crate::telescope::claims::multiphase,
        },
        Reproduction {
            name: "telescope-subtb",
            description: "Telescope Figure 9, Table 2: 1, 10, 100 GiB heaps with a 10% hot region",
            runs: subtb_runs,
            summarize: subtb,
            claims: crate::telescope::claims::subtb,
        },
        Reproduction {
            name: "telescope-needle",
            description: "Telescope 6.2.3: a 50 MiB hot region in a 5 TiB heap",
            runs: needle_runs,
            summarize: needle,
            claims: crate::telescope::claims::needle,
        },
        Reproduction {
            name: "telescope-scattered",
            description: "Beyond Telescope 6.2: 1-16 hot regions of 10 MiB-100 GiB at densities 1x-10x per phase in 5 TiB; mean and worst phase",
            runs: scattered_runs,
            summarize: scattered,
            claims: crate::telescope::claims::scattered,
        },
        Reproduction {
            name: "telescope-kv",
            description: "Telescope Table 4, Figures 12-13: KV models from the slow tier, migration by each technique",
            runs: kv_runs,
            summarize: kv,
            claims: crate::telescope::claims::kv,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use thermocline_engine::report::Window;
    use thermocline_managers::telescope::CPU_GHZ;
    use thermocline_workloads::PhaseMark;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn window(t_s: f64, precision: Option<f64>, recall: Option<f64>) -> Window {
        Window {
            t_s,
            resident_bytes: vec![0, 0],
            accesses_per_s: 0.0,
            slow_tier_accesses_per_s: 0.0,
            slow_tier_faults_per_s: 0.0,
            precision,
            recall,
            manager: BTreeMap::new(),
        }
    }

    fn report(windows: Vec<Window>) -> Report {
        Report {
            workload: "w".into(),
            manager: "m".into(),
            machine: "dram+dcpmm".into(),
            seed: 1,
            backend: "rate".into(),
            sim_time_s: windows.last().map_or(0.0, |w| w.t_s),
            windows,
            ..Default::default()
        }
    }

    fn phase(name: &str) -> PhaseMark {
        PhaseMark {
            name: name.into(),
            first_access: 0,
        }
    }

    /// Windows belong to the phase they end in; unscored windows (no
    /// recall) are left out, and a scored window with no precision (nothing
    /// reported) counts as precision 0.
    #[test]
    fn per_phase_means_by_hand() {
        let mut r = report(vec![
            window(5.0, Some(0.5), Some(0.6)),
            window(10.0, Some(0.7), Some(0.8)),
            window(15.0, None, Some(0.2)),
            window(20.0, Some(0.9), Some(0.4)),
            window(25.0, Some(1.0), None),
        ]);
        r.phases = vec![phase("one"), phase("two"), phase("three")];
        r.phase_starts_s = vec![0.0, 10.0, 30.0];
        let p = per_phase(&r);
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].0, "one");
        assert!(close(p[0].1.unwrap(), 0.6) && close(p[0].2.unwrap(), 0.7));
        assert!(close(p[1].1.unwrap(), 0.45) && close(p[1].2.unwrap(), 0.3));
        assert_eq!((p[2].1, p[2].2), (None, None), "no window ends in phase 3");
    }

    /// Recall spells: windows with recall 1, and runs of windows below one
    /// half with their length in seconds; unscored windows do not count.
    #[test]
    fn recall_spells_by_hand() {
        let r = report(vec![
            window(1.0, Some(1.0), Some(1.0)),
            window(2.0, Some(1.0), Some(0.04)),
            window(3.0, Some(1.0), Some(0.2)),
            window(4.0, Some(1.0), Some(0.6)),
            window(5.0, None, None),
            window(7.0, None, Some(0.0)),
            window(8.0, Some(1.0), Some(1.0)),
        ]);
        let s = recall_spells(&r);
        assert_eq!(s["scored"], 6);
        assert!(close(s["whole_share"].as_f64().unwrap(), 2.0 / 6.0));
        assert_eq!(s["below_half"], 3);
        assert_eq!(s["spells"], 2);
        // the second spell's window ends 2 s after the previous one
        assert_eq!(s["longest_s"], 2.0);
    }

    /// The binomial tail the PTE probe's cold share uses, by hand.
    #[test]
    fn binomial_below_by_hand() {
        assert!(close(binomial_below(2, 0.5, 1), 0.25));
        assert!(close(binomial_below(2, 0.5, 2), 0.75));
        assert!(close(binomial_below(2, 0.5, 3), 1.0));
        assert!(close(binomial_below(40, 0.0, 6), 1.0));
        assert_eq!(binomial_below(40, 1.0, 6), 0.0);
        // 40 samples at 0.15: a count under 6 about 43% of the time
        let p = binomial_below(40, 0.15, 6);
        assert!((0.42..0.45).contains(&p), "{p}");
    }

    /// PEBS's coverage and the PTE probe from a run's gauges and rate, with
    /// the registry's parameters (200 ms windows; 5 ms samples, 40 per
    /// window, more than 5 to be hot).
    #[test]
    fn coverage_and_pte_probe_by_hand() {
        let mut w = window(10.0, None, None);
        w.manager.insert("samples_count".into(), 100_000.0);
        let mut r = report(vec![w]);
        r.accesses = 10_000_000;
        let hot = 1u64 << 30;
        let c = pebs_coverage(&r, "pebs-10khz", hot).unwrap();
        assert!(close(c["samples_per_window"].as_f64().unwrap(), 2000.0));
        assert_eq!(c["hot_units"], 512.0);
        let e = c["expected"].as_f64().unwrap();
        assert!(close(e, 1.0 - (1.0 - 1.0 / 512.0f64).powf(2000.0)), "{e}");
        assert!(c["expected_half"].as_f64().unwrap() < e);
        let t = pte_probe(&r, "telescope-bounded", hot).unwrap();
        assert_eq!(t["samples"], 40.0);
        // 1e6 accesses/s over 262144 pages, 5 ms: 1 - exp(-0.019)
        let p = 1.0 - (-1e6 / 262_144.0 * 0.005f64).exp();
        assert!(close(t["set_share"].as_f64().unwrap(), p));
        assert!(close(t["expected_count"].as_f64().unwrap(), 40.0 * p));
        assert!(close(
            t["cold_share"].as_f64().unwrap(),
            binomial_below(40, p, 6)
        ));
        assert!(pebs_coverage(&r, "telescope-bounded", hot).is_none());
        assert_eq!(subtb_hot_bytes(10), Some(hot));
    }

    /// The start and the second half of a run: mean recall and regions.
    #[test]
    fn early_late_by_hand() {
        let mut ws: Vec<Window> = [
            (5.0, 1.0, 30.0),
            (10.0, 0.9, 40.0),
            (20.0, 0.5, 100.0),
            (40.0, 0.7, 200.0),
        ]
        .iter()
        .map(|&(t, rc, n)| {
            let mut w = window(t, Some(1.0), Some(rc));
            w.manager.insert("regions".into(), n);
            w
        })
        .collect();
        ws.push(window(30.0, None, None));
        let mut r = report(ws);
        r.sim_time_s = 30.0;
        let j = early_late(&r);
        assert!(close(j["early"]["recall"].as_f64().unwrap(), 0.95));
        assert!(close(j["early"]["regions"].as_f64().unwrap(), 35.0));
        assert!(close(j["late"]["recall"].as_f64().unwrap(), 0.6));
        assert!(close(j["late"]["regions"].as_f64().unwrap(), 150.0));
    }

    /// The family's summary: the mean of the phases and the worst phase.
    #[test]
    fn mean_and_worst_phase_by_hand() {
        assert_eq!(mean_and_worst(&[]), (None, None));
        let (m, w) = mean_and_worst(&[0.9, 0.6, 1.0, 0.7]);
        assert!(close(m.unwrap(), 0.8));
        assert_eq!(w, Some(0.6));
    }

    /// Per-window figures are differences of the cumulative gauges, and CPU
    /// utilisation is the window's cycles over the cycles of one core at
    /// CPU_GHZ in the window.
    #[test]
    fn windows_json_differences_cumulative_gauges() {
        let mut ws = vec![
            window(1.0, None, None),
            window(2.0, None, None),
            window(4.0, None, None),
        ];
        for (w, (bits, cycles)) in ws.iter_mut().zip([(10.0, 1e9), (25.0, 1e9), (25.0, 5e9)]) {
            w.manager.insert("bits_flipped_count".into(), bits);
            w.manager.insert("cpu_cycles_count".into(), cycles);
        }
        let j = windows_json(&report(ws));
        let f = |i: usize, k: &str| j[i][k].as_f64().unwrap();
        assert_eq!(
            (
                f(0, "bits_flipped"),
                f(1, "bits_flipped"),
                f(2, "bits_flipped")
            ),
            (10.0, 15.0, 0.0)
        );
        assert_eq!(
            (f(0, "cpu_cycles"), f(1, "cpu_cycles"), f(2, "cpu_cycles")),
            (1e9, 0.0, 4e9)
        );
        assert!(close(f(0, "cpu_util"), 1e9 / (CPU_GHZ * 1e9)));
        assert_eq!(f(1, "cpu_util"), 0.0);
        assert!(close(f(2, "cpu_util"), 4e9 / (CPU_GHZ * 1e9 * 2.0)));
        // The per-window figures add up to the run's totals.
        let total: f64 = (0..3).map(|i| f(i, "cpu_cycles")).sum();
        assert_eq!(total, 5e9);
    }

    /// Throughput change = mean accesses/s of the post-warm-up windows over
    /// the all-slow baseline's, minus one; GB migrated in 10^9 bytes.
    #[test]
    fn kv_throughput_change_and_migrated_gb_by_hand() {
        let run = |rates: [f64; 3], bytes: u64| {
            let mut r = report(
                [100.0, 200.0, 300.0]
                    .iter()
                    .zip(rates)
                    .map(|(&t, a)| {
                        let mut w = window(t, None, None);
                        w.accesses_per_s = a;
                        w
                    })
                    .collect(),
            );
            r.migrations.bytes = bytes;
            r
        };
        // Windows at 100 s fall in the 150 s warm-up and do not count.
        let base = run([1e9, 200.0, 400.0], 0);
        assert_eq!(post_warmup_throughput(&base), 300.0);
        let opts = Options {
            duration_s: None,
            seed: 1,
        };
        let res: Results = kv_runs(&opts)
            .into_iter()
            .map(|s| {
                let r = if s.manager == "all-slow" {
                    base.clone()
                } else if s.manager == "telescope-flex" {
                    run([0.0, 330.0, 330.0], 28_000_000_000)
                } else {
                    run([0.0, 240.0, 240.0], 0)
                };
                (s, r)
            })
            .collect();
        let out = kv(&opts, &res);
        let w = &out.json["workloads"][KV_WORKLOADS[0]];
        assert_eq!(w["baseline_accesses_per_s"], 300.0);
        let t = &w["techniques"];
        assert!(close(
            t["telescope-flex"]["throughput_change"].as_f64().unwrap(),
            0.1
        ));
        assert!(close(
            t["damon-moderate"]["throughput_change"].as_f64().unwrap(),
            -0.2
        ));
        assert_eq!(t["telescope-flex"]["migrated_gb"], 28.0);
        assert_eq!(t["pebs-10khz"]["migrated_gb"], 0.0);
    }
}
