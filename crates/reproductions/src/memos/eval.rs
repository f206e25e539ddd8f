//! Memos' evaluation (../shared/papers/003_4ce7a4cbf1361ba3.txt, sections
//! 6.1-6.3) on the Memos-like models of `thermocline_workloads::memos` and
//! Memos' machine (`dram+pcm-memos`: DRAM and PCM channels with banks, row
//! buffers, FR-FCFS controllers and a sliced LLC, Table 1):
//!
//! - **`memos-performance`** (Figure 12): execution time normalised to
//!   32 GB of DRAM, for all-NVM (`all-slow`), random mapping (`random`),
//!   4 GB of DRAM as a hardware cache of NVM (`memory-mode`: a
//!   direct-mapped write-back line cache, "similar to [71]") and Memos,
//!   each on a 4 GB DRAM + 32 GB NVM machine ("4-32").
//! - **`memos-lifetime`** (Table 2, 6.3): NVM lifetime in years under
//!   random mapping and under Memos, and their ratio; the share of hot
//!   write-dominated pages Memos moved out of NVM (paper: 83.2% on
//!   average); the lockless DMA engine's moved and aborted pages (paper:
//!   98.6% / 1.4% in one Aerospike snapshot).
//! - **`memos-energy`** (6.3): memory energy of Memos on 4-32 and 4-128
//!   against 32 GB and 128 GB of DRAM alone (paper: 29% and 82.5% saved).
//! - **`memos-pages`** (Figures 10-11): the pages in each channel over time
//!   by class (DRAM: write- or read-dominated; NVM: WD, RD, cold), as the
//!   last preparation classified them (`memos`' census gauges).
//!
//! Each run does [`WORK_S`] s of the model's nominal work (three of Memos'
//! 41 s cycles start in it; more simulated time under slower placements),
//! at the presets' small footprints.
//!
//! *Inferred* (the paper does not say): capacities scale with the
//! footprint: a model at `small_bytes` of its application's `paper_bytes`
//! gets that share of the paper's 4 GB of DRAM and 32 or 128 GB of NVM (in
//! GiB, whole MiB), so that DRAM holds the SPEC-like models whole, as 4 GB
//! holds SPEC, and a share of the larger cloud ones. Random mapping puts a
//! page in DRAM with probability 4/36, DRAM's share of the 4-32 machine's
//! frames (a random frame). The all-DRAM systems' energy is their DRAM
//! tier's (the run's idle NVM tier is not part of such a system). Table 2's
//! lifetimes are for 128 GB of NVM; ours are for the run's scaled NVM,
//! whose years are not the paper's, but their ratio between two policies
//! on the same NVM is what Table 2 compares. The paper's multi-programmed
//! case (hmmer, xalancbmk and mcf together) is not run: the models run one
//! program at a time.

use crate::memos::setup::{
    spec, System, ALL_DRAM_128, ALL_DRAM_32, CLOUD, ENERGY, FIG10, FIG12, MEMOS, MEMOS_128,
    PAPER_TABLE2, RANDOM, TABLE2,
};
use crate::reproduction::{Options, Output, Reproduction, Results, RunSpec};
use serde_json::{json, Map, Value};
use std::fmt::Write;
use thermocline_engine::report::Report;
use thermocline_present::plot::Chart as _;
use thermocline_present::plot::{HeatTable, LineChart, Series};

fn performance_runs(_: &Options) -> Vec<RunSpec> {
    TABLE2
        .iter()
        .flat_map(|m| FIG12.iter().map(move |s| spec(m, *s)))
        .collect()
}

fn lifetime_runs(_: &Options) -> Vec<RunSpec> {
    TABLE2
        .iter()
        .flat_map(|m| [spec(m, RANDOM), spec(m, MEMOS)])
        .collect()
}

fn energy_runs(_: &Options) -> Vec<RunSpec> {
    ENERGY
        .iter()
        .flat_map(|m| {
            [ALL_DRAM_32, MEMOS, ALL_DRAM_128, MEMOS_128]
                .into_iter()
                .map(move |s| spec(m, s))
        })
        .collect()
}

fn pages_runs(_: &Options) -> Vec<RunSpec> {
    FIG10.iter().chain(&CLOUD).map(|m| spec(m, MEMOS)).collect()
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn performance(_: &Options, res: &Results) -> Output {
    let mut norm = Map::new();
    let mut text = String::from(
        "Memos Figure 12: execution time normalised to 32 GB of DRAM (lower is better)\n",
    );
    let _ = write!(text, "{:<10}", "model");
    for s in &FIG12[1..] {
        let _ = write!(text, " {:>15}", s.label);
    }
    let _ = writeln!(text);
    let mut rows = Vec::new();
    let mut values = Vec::new();
    let mut per_system: Vec<Vec<f64>> = vec![Vec::new(); FIG12.len() - 1];
    for m in TABLE2 {
        let Some(base) = res.get(&spec(m, ALL_DRAM_32)) else {
            continue;
        };
        let mut row = Map::new();
        let mut cells = Vec::new();
        let _ = write!(text, "{m:<10}");
        for (i, s) in FIG12[1..].iter().enumerate() {
            let v = res
                .get(&spec(m, *s))
                .filter(|_| base.sim_time_s > 0.0)
                .map_or(0.0, |r| r.sim_time_s / base.sim_time_s);
            row.insert(s.label.into(), json!(v));
            per_system[i].push(v);
            cells.push(v);
            let _ = write!(text, " {v:>15.3}");
        }
        let _ = writeln!(text);
        norm.insert(m.into(), Value::Object(row));
        rows.push(m.to_string());
        values.push(cells);
    }
    let mut means = Map::new();
    let _ = write!(text, "{:<10}", "mean");
    for (s, v) in FIG12[1..].iter().zip(&per_system) {
        let x = mean(v);
        means.insert(s.label.into(), json!(x));
        let _ = write!(text, " {x:>15.3}");
    }
    let _ = writeln!(
        text,
        "\npaper (text): all NVM and random mapping slower than all DRAM; DRAM cache ~4% above it; Memos ~5% below it on average"
    );
    let chart = HeatTable {
        title: "Memos Fig. 12: time / time with 32 GB DRAM".into(),
        row_label: "model".into(),
        col_label: "system".into(),
        rows,
        cols: FIG12[1..].iter().map(|s| s.label.to_string()).collect(),
        values,
    };
    Output {
        json: json!({ "norm_time": norm, "mean": means }),
        text,
        charts: vec![("memos-fig12-time.svg".into(), chart.to_svg())],
    }
}

/// The NVM tier's lifetime in years (none without NVM writes).
fn nvm_years(r: &Report) -> Option<f64> {
    r.tiers.iter().find_map(|t| t.lifetime_years)
}

/// Share of hot write-dominated pages in DRAM at the end of a Memos run.
pub fn wd_moved(r: &Report) -> f64 {
    let (dram, nvm) = (r.last_gauge("dram_wd_pages"), r.last_gauge("nvm_wd_pages"));
    if dram + nvm > 0.0 {
        dram / (dram + nvm)
    } else {
        0.0
    }
}

fn lifetime(_: &Options, res: &Results) -> Output {
    let mut life = Map::new();
    let mut moved = Map::new();
    let mut dma = Map::new();
    let mut shares = Vec::new();
    let mut text = String::from(
        "Memos Table 2: NVM lifetime (years, the run's scaled NVM) under random mapping and Memos\n",
    );
    let _ = writeln!(
        text,
        "{:<10} {:>10} {:>10} {:>8} {:>14} {:>10} {:>9}",
        "model", "random", "Memos", "gain", "paper gain", "WD moved", "DMA abort"
    );
    for m in TABLE2 {
        let (Some(rnd), Some(mem)) = (res.get(&spec(m, RANDOM)), res.get(&spec(m, MEMOS))) else {
            continue;
        };
        let (a, b) = (nvm_years(rnd), nvm_years(mem));
        let gain = match (a, b) {
            (Some(a), Some(b)) if a > 0.0 => Some(b / a),
            _ => None,
        };
        life.insert(
            m.into(),
            json!({ "random_years": a, "memos_years": b, "gain": gain }),
        );
        let share = wd_moved(mem);
        shares.push(share);
        moved.insert(m.into(), json!(share));
        let (ok, aborted) = (
            mem.last_gauge("dma_moved_pages_count"),
            mem.last_gauge("dma_aborted_pages_count"),
        );
        // null, not 0, when no copy was made: no share was measured
        let abort_share = (ok + aborted > 0.0).then(|| aborted / (ok + aborted));
        dma.insert(
            m.into(),
            json!({ "moved": ok, "aborted": aborted, "aborted_share": abort_share }),
        );
        let paper = PAPER_TABLE2
            .iter()
            .find(|p| p.0 == m)
            .map_or("-".to_string(), |p| format!("{:.1}x", p.2 / p.1));
        let show = |y: Option<f64>| y.map_or("no writes".into(), |y| format!("{y:.2}"));
        let _ = writeln!(
            text,
            "{m:<10} {:>10} {:>10} {:>8} {paper:>14} {:>9.1}% {:>9}",
            show(a),
            show(b),
            gain.map_or("-".into(), |g| format!("{g:.1}x")),
            share * 100.0,
            abort_share.map_or("-".into(), |x| format!("{:.1}%", x * 100.0))
        );
    }
    let mean_moved = mean(&shares);
    let _ = writeln!(
        text,
        "hot WD pages moved out of NVM: {:.1}% on average (paper: 83.2%)",
        mean_moved * 100.0
    );
    Output {
        json: json!({ "lifetime": life, "wd_moved": moved, "mean_wd_moved": mean_moved, "dma": dma }),
        text,
        charts: Vec::new(),
    }
}

/// Memory energy of a run of `sys` (J): every tier's, or the DRAM tier's
/// alone for an all-DRAM system.
fn energy_of(r: &Report, sys: System) -> f64 {
    if sys.manager == "all-fast" {
        r.tiers.first().map_or(0.0, |t| t.energy_j)
    } else {
        r.tiers.iter().map(|t| t.energy_j).sum()
    }
}

fn energy(_: &Options, res: &Results) -> Output {
    let mut per_model = Map::new();
    let mut savings = Map::new();
    let (mut s32, mut s128) = (Vec::new(), Vec::new());
    let mut text =
        String::from("Memos 6.3: memory energy (J) and Memos' saving against DRAM alone\n");
    let _ = writeln!(
        text,
        "{:<10} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9}",
        "model", "32GB DRAM", "Memos 4-32", "128GB DRAM", "Memos 4-128", "save 32", "save 128"
    );
    for m in ENERGY {
        let get = |s: System| res.get(&spec(m, s)).map(|r| energy_of(r, s));
        let (Some(d32), Some(m32), Some(d128), Some(m128)) = (
            get(ALL_DRAM_32),
            get(MEMOS),
            get(ALL_DRAM_128),
            get(MEMOS_128),
        ) else {
            continue;
        };
        let save = |memos: f64, dram: f64| if dram > 0.0 { 1.0 - memos / dram } else { 0.0 };
        let (a, b) = (save(m32, d32), save(m128, d128));
        s32.push(a);
        s128.push(b);
        per_model.insert(
            m.into(),
            json!({ ALL_DRAM_32.label: d32, MEMOS.label: m32, ALL_DRAM_128.label: d128, MEMOS_128.label: m128 }),
        );
        savings.insert(m.into(), json!({ "32": a, "128": b }));
        let _ = writeln!(
            text,
            "{m:<10} {d32:>11.2} {m32:>11.2} {d128:>11.2} {m128:>11.2} {:>8.1}% {:>8.1}%",
            a * 100.0,
            b * 100.0
        );
    }
    let (a, b) = (mean(&s32), mean(&s128));
    let _ = writeln!(
        text,
        "mean saving: {:.1}% against 32 GB, {:.1}% against 128 GB (paper: 29% and 82.5%)",
        a * 100.0,
        b * 100.0
    );
    Output {
        json: json!({ "energy_j": per_model, "saving": savings, "mean_saving": { "32": a, "128": b } }),
        text,
        charts: Vec::new(),
    }
}

/// Census gauges, in the order of the summary's rows.
const CLASSES: [(&str, &str); 5] = [
    ("dram_wd_pages", "DRAM WD"),
    ("dram_rd_pages", "DRAM RD"),
    ("nvm_wd_pages", "NVM WD"),
    ("nvm_rd_pages", "NVM RD"),
    ("nvm_cold_pages", "NVM cold"),
];

/// The census of window `w` (MiB per class), if it has one.
fn census(w: &thermocline_engine::report::Window) -> Option<[f64; 5]> {
    let mut out = [0.0; 5];
    for (o, (g, _)) in out.iter_mut().zip(CLASSES) {
        *o = w.manager.get(g)? * 4096.0 / (1u64 << 20) as f64;
    }
    Some(out)
}

fn pages(_: &Options, res: &Results) -> Output {
    let mut series = Map::new();
    let mut first = Map::new();
    let mut last = Map::new();
    let mut charts = Vec::new();
    let mut text = String::from(
        "Memos Figures 10-11: pages by channel and class (MiB), at the first classification and at the end\n",
    );
    let _ = write!(text, "{:<10} {:>5}", "model", "when");
    for (_, l) in CLASSES {
        let _ = write!(text, " {l:>9}");
    }
    let _ = writeln!(text, " {:>9}", "WD moved");
    for m in FIG10.iter().chain(&CLOUD) {
        let Some(r) = res.get(&spec(m, MEMOS)) else {
            continue;
        };
        let points: Vec<(f64, [f64; 5])> = r
            .windows
            .iter()
            .filter_map(|w| Some((w.t_s, census(w)?)))
            .collect();
        let (Some(a), Some(z)) = (points.first(), points.last()) else {
            continue;
        };
        let obj = |c: &[f64; 5]| {
            let mut o = Map::new();
            for (v, (_, l)) in c.iter().zip(CLASSES) {
                o.insert(l.into(), json!(v));
            }
            Value::Object(o)
        };
        first.insert(m.to_string(), obj(&a.1));
        last.insert(m.to_string(), obj(&z.1));
        series.insert(
            m.to_string(),
            json!(points
                .iter()
                .map(|(t, c)| {
                    let mut row = vec![*t];
                    row.extend(c);
                    row
                })
                .collect::<Vec<_>>()),
        );
        for (when, c) in [("first", &a.1), ("end", &z.1)] {
            let _ = write!(text, "{m:<10} {when:>5}");
            for v in c {
                let _ = write!(text, " {v:>9.1}");
            }
            if when == "end" {
                let _ = write!(text, " {:>8.1}%", wd_moved(r) * 100.0);
            }
            let _ = writeln!(text);
        }
        let chart = LineChart {
            title: format!("Memos Fig. 10/11: {m}-like model's pages by channel and class"),
            x_label: "time (s)".into(),
            y_label: "MiB".into(),
            series: CLASSES
                .iter()
                .enumerate()
                .map(|(i, (_, l))| Series {
                    name: l.to_string(),
                    points: points.iter().map(|(t, c)| (*t, c[i])).collect(),
                })
                .collect(),
            target: None,
        };
        charts.push((format!("memos-fig10-{m}.svg"), chart.to_svg()));
    }
    Output {
        json: json!({ "columns": ["t_s", "DRAM WD", "DRAM RD", "NVM WD", "NVM RD", "NVM cold"], "series": series, "first": first, "end": last }),
        text,
        charts,
    }
}

/// Memos' evaluation reproductions.
pub fn reproductions() -> Vec<Reproduction> {
    vec![
        Reproduction {
            name: "memos-performance",
            description: "Memos Figure 12: execution time of all-NVM, random mapping, a DRAM cache of NVM and Memos against 32 GB of DRAM, on Memos-like SPEC and cloud models",
            runs: performance_runs,
            summarize: performance,
            claims: crate::memos::eval_claims::performance,
        },
        Reproduction {
            name: "memos-lifetime",
            description: "Memos Table 2 and 6.3: NVM lifetime under random mapping and Memos, hot write-dominated pages moved out of NVM, DMA copies aborted",
            runs: lifetime_runs,
            summarize: lifetime,
            claims: crate::memos::eval_claims::lifetime,
        },
        Reproduction {
            name: "memos-energy",
            description: "Memos 6.3: memory energy of Memos with 4 GB DRAM and 32 or 128 GB NVM against 32 or 128 GB of DRAM alone",
            runs: energy_runs,
            summarize: energy,
            claims: crate::memos::eval_claims::energy,
        },
        Reproduction {
            name: "memos-pages",
            description: "Memos Figures 10-11: hot write- and read-dominated and cold pages in the DRAM and NVM channels over time under Memos",
            runs: pages_runs,
            summarize: pages,
            claims: crate::memos::eval_claims::pages,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memos::setup::{ALL_DRAM_CHANNEL, WORK_S};

    #[test]
    fn capacities_scale_with_the_footprint() {
        // mcf-like: 256 MiB of mcf's 1700 MiB.
        let s = spec("mcf", MEMOS);
        assert!(
            s.sets.contains(&"run.fast_capacity=\"616MiB\"".to_string()),
            "{s:?}"
        );
        assert!(
            s.sets
                .contains(&"machine.slow_capacity=\"4934MiB\"".to_string()),
            "{s:?}"
        );
        assert_eq!(s.workload, format!("memos:mcf:0.25:{WORK_S}"));
        let r = spec("memcached", RANDOM);
        assert!(r
            .sets
            .contains(&"random.fast_probability=0.1111111111111111".to_string()));
        assert!(r.sets.contains(&"run.fast_capacity=\"256MiB\"".to_string()));
        assert!(!r.sets.iter().any(|s| s.contains("channel_bit")));
        let d = spec("hmmer", ALL_DRAM_128);
        assert!(d.sets.contains(&ALL_DRAM_CHANNEL.to_string()), "{d:?}");
        assert!(
            d.sets
                .contains(&"run.fast_capacity=\"131072MiB\"".to_string()),
            "{d:?}"
        );
    }

    #[test]
    fn the_reproductions_share_their_runs() {
        let o = Options {
            duration_s: None,
            seed: 1,
        };
        let perf = performance_runs(&o);
        for r in lifetime_runs(&o) {
            assert!(perf.contains(&r), "{r:?}");
        }
        assert!(pages_runs(&o).iter().filter(|r| perf.contains(r)).count() == CLOUD.len());
    }
}
