//! Memos' monitor, HyMM (../shared/papers/003_4ce7a4cbf1361ba3.txt,
//! section 3 and 6.1), on the Memos-like models of
//! `thermocline_workloads::memos` and the exact machine:
//!
//! - **Figure 3** (history window): the `memos` manager's history study
//!   (`memos.history_study=true`: no migration; every 2 s every page's
//!   Accessed and Dirty bits are read and cleared) scores how well the
//!   dominance of the last `w` Dirty records (write-dominated when at least
//!   half are dirty) predicts the dominance of the next 10, for `w` = 1 to
//!   12, on the SPEC- and cloud-like models. 64 s at 2 M accesses/s (a
//!   fifth of the nominal rate, so the 11 runs stay short; per-page
//!   stores per 2 s interval are then a fifth as many).
//! - **Figure 4** (stream detection): the interquartile range of per-page
//!   TLB-miss counts over HyMM's 5 s of counting, averaged over aligned
//!   2 MiB ranges (their hot pages; ranges of at least 4 of them), on
//!   every model (counted without the cap, as Figure 4
//!   shows raw counts); and the share of hot pages HyMM's own test
//!   (`stream_iqr` = 2.6 over each hot region, on the capped counts) calls
//!   stream-like. The claims split the models by construction, before
//!   measuring: stream-shaped (STREAM, lbm, libquantum, GemsFDTD: their
//!   hot pages are only swept) and random-shaped (mcf, astar, Memcached,
//!   Redis, Aerospike: their hot pages are mostly chased at random);
//!   hmmer, xalancbmk and MySQL-slap mix both and are reported only.
//! - **Figure 6** (sampling cost): the work of one preparation under HyMM
//!   (the counted misses up to the cap of 200, each a fault; the Dirty bits
//!   of hot pages and representatives; flushes), under TLB-miss-only
//!   counting (every miss of every page over the same 5 s, no cap:
//!   measured by `memos.study=true`, which keeps counting) and under
//!   Accessed-bit-only scanning (every NVM page's entry read once per 2 s
//!   interval over the preparation's 8 intervals, one flush each: counted
//!   from the pages, not run). Costs from the default cost table: 1 us per
//!   counted miss (BadgerTrap, as Thermostat measured), 20 ns per entry
//!   read, 500 ns per flush.
//! - **Section 6.1**: HyMM's cost of one preparation (the paper's
//!   "overheads" of 0.15-1.18 s) and the share of pages it samples.
//! - **Section 3.2 / 7(8)**: pages TLB counting calls cold that were
//!   Accessed in each of 3 consecutive 2 s scans (`very_hot_check`).
//!
//! Each study run does 23 s of the model's nominal work (longer in
//! simulated time, as counting slows the application), one preparation
//! (the first cycle starts at 1 s, its preparation ends at 22 s), on the
//! presets' small footprints (see the models' docs). `--duration` below 64
//! leaves the history study fewer than 22 records: its accuracies read 0.
//!
//! **Where ours differ, and why** (as measured when this was written;
//! `reproduce memos-monitor --check` prints the current verdicts). Figure 3: the models' pages keep
//! one behaviour for many 2 s intervals, so the family's accuracy climbs
//! with the window and stays there (90% at 1, 97.7% at 4, 99.9% from 8 on)
//! instead of peaking at 8; only the Memcached-like model, whose popular
//! slab class moves every 10 s, shows the paper's short-window loss
//! (64-88% below 7). Figure 4: streams give an IQR of 0-0.1 and random
//! chasing 5.8-16.6, on either side of 2.6 for the whole family, but the
//! mcf-like model's 8.0 is a third of mcf's 24.4 (uniform chasing within
//! each region is Poisson-like; mcf's pages differ more). Counting each
//! TLB miss as a fault is
//! this project's reading of HyMM's "shadow array" (see
//! `crates/managers/src/memos/`): a counted miss costs 1 us, fifty entry
//! reads. On workloads whose pages miss the TLB hundreds of times in 5 s,
//! HyMM's capped counting then costs far more than reading every page's
//! Accessed bit a few times, the opposite of Figure 6; the cap (200)
//! is what keeps it below TLB-miss-only counting. The paper's
//! Accessed-bit scanners (3-6 s for several to 24 GB) spend far more per
//! page than our 20 ns entry read (their walks, flushes and reverse maps).

use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};
use serde_json::json;
use std::fmt::Write;
use thermocline_engine::report::Report;
use thermocline_model::costs::CostTable;
use thermocline_present::plot::Chart as _;
use thermocline_present::plot::{LineChart, Series};
use thermocline_workloads::memos::{self as models, MemosModel};

/// Window lengths Figure 3's study scores.
pub const WINDOWS: u32 = 12;
/// Future records a prediction is scored against.
const FUTURE: u32 = 10;
/// Length of a history-study run (s): 32 records, 10 judged moments.
const HISTORY_S: u64 = 64;
/// Access rate of the history study (per second).
const HISTORY_RATE: &str = "workload.access_rate=2000000";
/// Length of a study run: one preparation.
const STUDY_S: &str = "run.duration_s=23";
/// HyMM's stream threshold (the manager's default).
const STREAM_IQR: f64 = 2.6;
/// Accessed-bit-only scans over one preparation (its 8 intervals).
const ABIT_SCANS: u64 = 8;

fn history_models() -> impl Iterator<Item = &'static MemosModel> {
    models::MODELS.iter().filter(|m| m.name != "stream")
}

fn history_spec(m: &MemosModel) -> RunSpec {
    let gib = m.small_bytes as f64 / (1u64 << 30) as f64;
    RunSpec::new(
        &format!("memos:{}:{gib}:{HISTORY_S}", m.name),
        "memos",
        &[
            "memos.history_study=true",
            &format!("memos.history_max_window={WINDOWS}"),
            &format!("memos.history_future={FUTURE}"),
            HISTORY_RATE,
        ],
    )
}

fn study_spec(m: &MemosModel) -> RunSpec {
    RunSpec::new(
        &format!("memos-{}", m.name),
        "memos",
        &["memos.study=true", "memos.very_hot_check=true", STUDY_S],
    )
}

fn runs(_: &Options) -> Vec<RunSpec> {
    history_models()
        .map(history_spec)
        .chain(models::MODELS.iter().map(study_spec))
        .collect()
}

/// `a / b`, 0 when `b` is 0 (a summary holds numbers, never NaN).
fn div(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// Accuracy per window length (1..=WINDOWS) of one history run.
fn accuracies(r: &Report) -> Vec<f64> {
    (1..=WINDOWS)
        .map(|w| {
            div(
                r.last_gauge(&format!("history_correct_w{w}")),
                r.last_gauge(&format!("history_judged_w{w}")),
            )
        })
        .collect()
}

/// One study run's Figure 4, Figure 6, 6.1 and 3.2 figures.
fn study_json(r: &Report, c: &CostTable) -> serde_json::Value {
    let g = |k| r.last_gauge(k);
    let pages = g("nvm_pages_count");
    let hymm = thermocline_managers::memos::hymm::MonitorWork {
        faults: g("hymm_faults_count") as u64,
        pte_reads: g("hymm_pte_reads_count") as u64,
        flushes: g("hymm_flushes_count") as u64,
    };
    let tlb = thermocline_managers::memos::hymm::MonitorWork {
        faults: g("uncapped_faults_count") as u64,
        ..Default::default()
    };
    let abit =
        thermocline_managers::memos::hymm::MonitorWork::accessed_bit_only(pages as u64, ABIT_SCANS);
    let cost = |w: &thermocline_managers::memos::hymm::MonitorWork| {
        w.cost_ns(c.poison_fault_ns, c.entry_access_ns, c.full_flush_ns) / 1e9
    };
    let (h, t, a) = (cost(&hymm), cost(&tlb), cost(&abit));
    let hot = g("hot_pages_count");
    json!({
        "mean_iqr": div(g("iqr_sum"), g("iqr_regions_count")),
        "iqr_regions": g("iqr_regions_count"),
        "hot_pages": hot,
        "nvm_pages": pages,
        "stream_share": div(g("stream_pages_count"), hot),
        "hymm_s": h,
        "tlb_only_s": t,
        "abit_only_s": a,
        "hymm_over_tlb": div(h, t),
        "hymm_over_abit": div(h, a),
        "hymm_faults": hymm.faults,
        "hymm_pte_reads": hymm.pte_reads,
        "tlb_only_faults": tlb.faults,
        "representatives": g("representatives_count"),
        "sampled_share": div(g("representatives_count"), pages),
        "very_hot_share": div(g("very_hot_cold_pages_count"), pages),
        "sim_time_s": r.sim_time_s,
    })
}

fn summarize(_: &Options, res: &Results) -> Output {
    let costs = CostTable::default();
    let mut history = serde_json::Map::new();
    let mut family: Vec<Vec<f64>> = Vec::new();
    for m in history_models() {
        if let Some(r) = res.get(&history_spec(m)) {
            let acc = accuracies(r);
            family.push(acc.clone());
            history.insert(m.name.into(), json!({ "accuracy": acc }));
        }
    }
    let mean: Vec<f64> = (0..WINDOWS as usize)
        .map(|i| div(family.iter().map(|a| a[i]).sum(), family.len() as f64))
        .collect();
    let mut study = serde_json::Map::new();
    for m in models::MODELS {
        if let Some(r) = res.get(&study_spec(m)) {
            study.insert(m.name.into(), study_json(r, &costs));
        }
    }
    let num = |m: &str, k: &str| study.get(m).and_then(|v| v[k].as_f64()).unwrap_or(0.0);

    let mut text = String::new();
    let _ = writeln!(
        text,
        "Memos' HyMM (003, section 3): Figure 3, history window vs prediction accuracy \
         (WD when >= half of the last w Dirty records are set; scored against the next {FUTURE})"
    );
    let _ = write!(text, "{:<12}", "model");
    for w in 1..=WINDOWS {
        let _ = write!(text, "{:>7}", format!("w={w}"));
    }
    text.push('\n');
    for (name, v) in &history {
        let _ = write!(text, "{name:<12}");
        for a in v["accuracy"].as_array().into_iter().flatten() {
            let _ = write!(text, "{:>6.1}%", a.as_f64().unwrap_or(0.0) * 100.0);
        }
        text.push('\n');
    }
    let _ = write!(text, "{:<12}", "mean");
    for a in &mean {
        let _ = write!(text, "{:>6.1}%", a * 100.0);
    }
    let _ = writeln!(
        text,
        "\npaper: 96% at w=8; below 95% at w=4/6/7; longer windows worse (Fig. 3)\n"
    );
    let _ = writeln!(
        text,
        "Figure 4 (IQR of per-page TLB misses in 5 s, mean over 2 MiB ranges; stream%: hot pages HyMM's test (IQR < {STREAM_IQR}) calls stream-like), \
         Figure 6 and 6.1 (one preparation's monitoring cost, s), 3.2 (very hot pages called cold)"
    );
    let _ = writeln!(
        text,
        "{:<12}{:>8}{:>8}{:>8}{:>9}{:>10}{:>10}{:>10}{:>9}{:>9}{:>9}{:>9}",
        "model",
        "IQR",
        "ranges",
        "stream%",
        "hot pg",
        "HyMM s",
        "TLB-only",
        "A-bit",
        "H/TLB",
        "H/A-bit",
        "sampled%",
        "veryhot%"
    );
    for m in models::MODELS {
        if !study.contains_key(m.name) {
            continue;
        }
        let n = |k| num(m.name, k);
        let _ = writeln!(
            text,
            "{:<12}{:>8.2}{:>8}{:>7.1}%{:>9}{:>10.3}{:>10.3}{:>10.4}{:>9.2}{:>9.1}{:>8.3}%{:>8.3}%",
            m.name,
            n("mean_iqr"),
            n("iqr_regions"),
            n("stream_share") * 100.0,
            n("hot_pages"),
            n("hymm_s"),
            n("tlb_only_s"),
            n("abit_only_s"),
            n("hymm_over_tlb"),
            n("hymm_over_abit"),
            n("sampled_share") * 100.0,
            n("very_hot_share") * 100.0,
        );
    }
    let _ = writeln!(
        text,
        "paper: IQR 0.28 (STREAM) vs 24.4 (mcf); HyMM ~1/5 of TLB-only and ~1/10 of A-bit-only (Memcached 4 GB, Aerospike 6 GB);\n\
         detection 0.15 s Memcached, 0.72 s MySQL-slap, 1.18 s Redis, 0.79 s Aerospike (A-bit tracking 3-6 s);\n\
         0.02% of Aerospike's pages sampled; 0.18% of Memcached's pages very hot but called cold"
    );

    let chart = LineChart {
        title: "Memos Fig. 3: history window vs prediction accuracy (Memos-like models)".into(),
        x_label: "window length (2 s records)".into(),
        y_label: "accuracy".into(),
        series: history
            .iter()
            .map(|(name, v)| Series {
                name: name.clone(),
                points: v["accuracy"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .map(|(i, a)| ((i + 1) as f64, a.as_f64().unwrap_or(0.0)))
                    .collect(),
            })
            .chain(std::iter::once(Series {
                name: "mean".into(),
                points: mean
                    .iter()
                    .enumerate()
                    .map(|(i, a)| ((i + 1) as f64, *a))
                    .collect(),
            }))
            .collect(),
        target: Some((0.96, "paper: 96% at w=8".into())),
    };
    Output {
        json: json!({
            "history": {
                "windows": (1..=WINDOWS).collect::<Vec<_>>(),
                "future": FUTURE,
                "models": history,
                "mean": mean,
            },
            "stream_iqr": STREAM_IQR,
            "study": study,
            "cost_table": {
                "poison_fault_ns": costs.poison_fault_ns,
                "entry_access_ns": costs.entry_access_ns,
                "full_flush_ns": costs.full_flush_ns,
            },
        }),
        text,
        charts: vec![("memos-monitor-fig3.svg".into(), chart.to_svg())],
    }
}

/// Memos' reproductions.
pub fn reproductions() -> Vec<Reproduction> {
    vec![Reproduction {
        name: "memos-monitor",
        description: "Memos Figures 3, 4, 6, sections 6.1 and 3.2: HyMM's history window, stream test and monitoring cost on Memos-like SPEC, cloud and STREAM models",
        runs,
        summarize,
        claims: crate::memos::monitor_claims::monitor,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_engine::report::Window;

    fn report(gauges: &[(&str, f64)]) -> Report {
        Report {
            windows: vec![Window {
                t_s: 23.0,
                manager: gauges.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn the_cost_arithmetic_follows_the_cost_table() {
        let c = CostTable::default();
        let r = report(&[
            ("hymm_faults_count", 1000.0),
            ("hymm_pte_reads_count", 500.0),
            ("hymm_flushes_count", 0.0),
            ("uncapped_faults_count", 5000.0),
            ("nvm_pages_count", 10_000.0),
            ("hot_pages_count", 100.0),
            ("stream_pages_count", 25.0),
            ("iqr_sum", 9.0),
            ("iqr_regions_count", 3.0),
            ("representatives_count", 10.0),
            ("very_hot_cold_pages_count", 18.0),
        ]);
        let v = study_json(&r, &c);
        // 1000 x 1 us + 500 x 20 ns; 5000 x 1 us; 10 000 x 8 x 20 ns + 8 x 500 ns.
        assert!((v["hymm_s"].as_f64().unwrap() - 0.00101).abs() < 1e-12);
        assert!((v["tlb_only_s"].as_f64().unwrap() - 0.005).abs() < 1e-12);
        assert!((v["abit_only_s"].as_f64().unwrap() - 0.001604).abs() < 1e-12);
        assert!((v["hymm_over_tlb"].as_f64().unwrap() - 0.202).abs() < 1e-9);
        assert_eq!(v["mean_iqr"], 3.0);
        assert_eq!(v["stream_share"], 0.25);
        assert_eq!(v["sampled_share"], 0.001);
        assert_eq!(v["very_hot_share"], 0.0018);
        // Nothing counted: zeros, not NaN.
        let v = study_json(&report(&[]), &c);
        assert_eq!(v["hymm_over_abit"], 0.0);
        assert_eq!(v["mean_iqr"], 0.0);
    }

    #[test]
    fn accuracy_is_correct_over_judged_per_window() {
        let r = report(&[
            ("history_judged_w1", 10.0),
            ("history_correct_w1", 9.0),
            ("history_judged_w2", 4.0),
            ("history_correct_w2", 1.0),
        ]);
        let a = accuracies(&r);
        assert_eq!(a.len(), WINDOWS as usize);
        assert_eq!((a[0], a[1], a[2]), (0.9, 0.25, 0.0));
    }
}
