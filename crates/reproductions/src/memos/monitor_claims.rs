//! The claims `memos-monitor` checks (../shared/papers/003_4ce7a4cbf1361ba3.txt),
//! measured from the summary `monitor.rs` writes.
//!
//! Each claim's source states its tolerance and why; where the paper gives
//! none it is ours and marked *inferred*: 96% at window 8 within 1 point,
//! never below the paper's own 95% line; STREAM's IQR and the "very hot but
//! cold" share at most twice the paper's value; mcf's IQR within half of
//! 24.4 either way; the cost ratios 1/5 and 1/10 within a factor of 1.5
//! either way; the detection times within a factor of 2 either way.

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use serde_json::Value;

const FILE: &str = "003_4ce7a4cbf1361ba3.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

/// The family's mean accuracy at each window length in `ws`.
fn mean_at(v: &Value, ws: &[u32]) -> Result<Measured, ClaimError> {
    ws.iter()
        .map(|w| {
            let x = read::num(v, &format!("/history/mean/{}", w - 1))?;
            Ok((format!("w={w}"), x))
        })
        .collect()
}

/// The family's mean accuracy at window 8, and the best of windows 9-12.
fn eight_and_longer(v: &Value) -> Result<Measured, ClaimError> {
    let eight = mean_at(v, &[8])?;
    let longer = mean_at(v, &[9, 10, 11, 12])?;
    let best = longer.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
    Ok(vec![eight[0].clone(), ("best of w=9-12".to_string(), best)])
}

/// `key` of the study run of each model in `models`.
fn study(v: &Value, models: &[&str], key: &str) -> Result<Measured, ClaimError> {
    models
        .iter()
        .map(|m| Ok((m.to_string(), read::num(v, &format!("/study/{m}/{key}"))?)))
        .collect()
}

const POISON_COST: &str = "each counted TLB miss is a poison fault (this project's reading of \
HyMM's per-page counter; the paper does not say how a miss reaches its shadow array), \
{/cost_table/poison_fault_ns:0} ns against the {/cost_table/entry_access_ns:0} ns the cost table \
charges for reading an entry, so pages that miss the TLB hundreds of times in one count make \
HyMM's capped counting dearer than a few Accessed-bit scans of every page; the paper's \
Accessed-bit scanners take seconds per scan (section 6.1), far more per page than one entry read \
(HyMM against Accessed-bit-only: Memcached-like {/study/memcached/hymm_s:3} s against \
{/study/memcached/abit_only_s:4} s, Aerospike-like {/study/aerospike/hymm_s:3} s against \
{/study/aerospike/abit_only_s:4} s)";

const CAP_RARELY_BINDS: &str = "HyMM's saving over TLB-miss-only counting is its cap on the \
misses counted per page; under counting every miss is a fault that stalls the application, which \
then runs slower, so few pages reach the cap within one count and both count nearly the same \
misses (HyMM against TLB-miss-only: Memcached-like {/study/memcached/hymm_faults:0} against \
{/study/memcached/tlb_only_faults:0} counted misses, Aerospike-like \
{/study/aerospike/hymm_faults:0} against {/study/aerospike/tlb_only_faults:0}); the paper's \
ratio needs most counted misses past the cap, or a per-miss counter that does not slow the \
application";

/// Models whose hot accesses are streams, by construction (every access
/// of their hot regions is a sequential sweep).
const STREAM_SHAPED: [&str; 4] = ["stream", "lbm", "libquantum", "gemsfdtd"];
/// Models whose hot accesses are mostly random, by construction.
const RANDOM_SHAPED: [&str; 5] = ["mcf", "astar", "memcached", "redis", "aerospike"];

/// The paper's section 6.1 detection times (s).
const DETECTION: [(&str, f64); 4] = [
    ("memcached", 0.15),
    ("mysql", 0.72),
    ("redis", 1.18),
    ("aerospike", 0.79),
];

/// Why `memos-monitor/detection-MODEL` does not hold, with MODEL's figures.
macro_rules! detection_cost {
    ($m:literal) => {
        concat!(
            "every counted TLB miss is a fault (this project's reading of HyMM's per-page \
counter) of {/cost_table/poison_fault_ns:0} ns: an application that misses the TLB on most \
accesses faults nearly continuously through the count, so one preparation costs seconds (",
            $m,
            "-like: {/study/",
            $m,
            "/hymm_faults:0} counted misses); the paper's times imply a much cheaper per-miss counter"
        )
    };
}

/// The reason of `memos-monitor/detection-{model}`.
fn detection_reason(model: &str) -> &'static str {
    match model {
        "memcached" => detection_cost!("memcached"),
        "mysql" => detection_cost!("mysql"),
        "redis" => detection_cost!("redis"),
        "aerospike" => detection_cost!("aerospike"),
        _ => UNKNOWN,
    }
}

const MCF_POISSON: &str = "the mcf-like model chases pages uniformly within each of its three \
regions, so a range's per-page counts are Poisson-like, their IQR growing only as the square root \
of the mean count (ours {/study/mcf/mean_iqr:1} over {/study/mcf/iqr_regions:0} ranges); mcf's \
own pages differ more in popularity within a range";

const REGULAR_MODELS: &str = "the models' pages keep one behaviour for many sampling intervals \
(a stream writes every page of its array each interval, a random pattern spreads its stores \
evenly), so the Dirty history is steady and short windows already predict it: the family's mean \
accuracy is {/history/mean/0:%} at window 1, {/history/mean/3:%} at 4, {/history/mean/7:%} at 8 \
and {/history/mean/11:%} at 12; only the Memcached-like model, whose popular slab class moves, \
loses at short windows ({/history/models/memcached/accuracy/3:%} at 4); the paper's traces came \
from the programs, whose pages change more often";

/// Checked by `memos-monitor`.
pub fn monitor() -> Vec<Claim> {
    let mut v = vec![
        Claim {
            id: "memos-monitor/fig3-w8-accuracy".into(),
            sentence: "A history window of 8 Dirty records predicts a page's write/read dominance about 96% of the time (mean over the SPEC- and cloud-like models)".into(),
            source: src("section 3.3, Figure 3 (\"window_len is 8 ... we can predict the memory access pattern with 96% accuracy on average\"; within 1 point, inferred: 96% is given to the integer, and the lower bound is the paper's own 95% line, below which it calls windows of 4, 6 and 7 inaccurate)"),
            paper: "96%".into(),
            expect: Expect::Band { lo: 0.95, hi: 0.97 },
            unit: Unit::Percent,
            measure: Box::new(|v| mean_at(v, &[8])),
            reason: REGULAR_MODELS,
        },
        Claim {
            id: "memos-monitor/fig3-short-windows-below-95".into(),
            sentence: "Windows of 4, 6 and 7 records predict below 95%".into(),
            source: src("section 3.3, Figure 3 (\"A short history (e.g., window_len is 4/6/7) ... (with an accuracy below than 95%)\": the paper's own bound)"),
            paper: "< 95%".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.95 },
            unit: Unit::Percent,
            measure: Box::new(|v| mean_at(v, &[4, 6, 7])),
            reason: REGULAR_MODELS,
        },
        Claim {
            id: "memos-monitor/fig3-longer-than-8-worse".into(),
            sentence: "Every window longer than 8 (9 to 12) predicts worse than 8".into(),
            source: src("section 3.3, Figure 3 (\"an over-length history larger than 8 brings more noise data, thus hurting the prediction accuracy\"; no number given, so a direction)"),
            paper: "w=8 > w=9..12".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Percent,
            measure: Box::new(eight_and_longer),
            reason: REGULAR_MODELS,
        },
        Claim {
            id: "memos-monitor/fig4-stream-shaped-below-threshold".into(),
            sentence: "Models whose hot pages are streamed have a TLB-miss IQR under HyMM's stream threshold (2.6)".into(),
            source: src("section 3.4, Figure 4 (the paper gives STREAM's IQR 0.28 and no threshold; the threshold is ours, crates/managers/src/memos, and the models are streams by construction)"),
            paper: "threshold 2.6 (ours)".into(),
            expect: Expect::Band { lo: 0.0, hi: 2.6 },
            unit: Unit::Num(2),
            measure: Box::new(|v| study(v, &STREAM_SHAPED, "mean_iqr")),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-monitor/fig4-random-shaped-above-threshold".into(),
            sentence: "Models whose hot pages are chased at random have a TLB-miss IQR above HyMM's stream threshold (2.6)".into(),
            source: src("section 3.4, Figure 4 (the paper gives mcf's IQR 24.4 and no threshold; the threshold is ours, and the models are random by construction)"),
            paper: "threshold 2.6 (ours)".into(),
            expect: Expect::Band { lo: 2.6, hi: f64::INFINITY },
            unit: Unit::Num(2),
            measure: Box::new(|v| study(v, &RANDOM_SHAPED, "mean_iqr")),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-monitor/fig4-hymm-calls-streams-stream-like".into(),
            sentence: "HyMM's stream test (IQR under 2.6 in a hot region) calls most hot pages of the stream-shaped models stream-like".into(),
            source: src("section 3.4 (\"HyMM can easily measure and identify stream-like access pattern\"; no number given: a majority, inferred)"),
            paper: "stream-like".into(),
            expect: Expect::Band { lo: 0.5, hi: 1.0 },
            unit: Unit::Percent,
            measure: Box::new(|v| study(v, &STREAM_SHAPED, "stream_share")),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-monitor/fig4-hymm-calls-random-not-stream".into(),
            sentence: "HyMM's stream test calls most hot pages of the randomly accessed models not stream-like".into(),
            source: src("section 3.4 (mcf: \"does not have streaming access\"; no number given: a majority, inferred)"),
            paper: "not stream-like".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(|v| study(v, &RANDOM_SHAPED, "stream_share")),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-monitor/fig4-stream-iqr".into(),
            sentence: "STREAM-like: the IQR of per-page TLB-miss counts is minimal (0.28 on average)".into(),
            source: src("section 3.4, Figure 4 (\"The variation is minimal for STREAM (i.e., IQR is 0.28 on average)\"; at most twice 0.28, inferred: the paper gives one average and no spread; down to 0, as the paper says STREAM incurs \"an identical number of TLB miss per page\")"),
            paper: "0.28".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.56 },
            unit: Unit::Num(2),
            measure: Box::new(|v| study(v, &["stream"], "mean_iqr")),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-monitor/fig4-mcf-iqr".into(),
            sentence: "mcf-like: the IQR of per-page TLB-miss counts is large (24.4 on average)".into(),
            source: src("section 3.4, Figure 4 (\"IQR is 24.4 on average\"; within half either way, inferred: the mcf-like model's per-range popularity is not fitted to mcf, and half either way keeps it an order of magnitude above STREAM's 0.28)"),
            paper: "24.4".into(),
            expect: Expect::Ratio { paper: 24.4, tolerance: 0.5 },
            unit: Unit::Num(2),
            measure: Box::new(|v| study(v, &["mcf"], "mean_iqr")),
            reason: MCF_POISSON,
        },
        Claim {
            id: "memos-monitor/fig6-hymm-vs-tlb-only".into(),
            sentence: "HyMM's sampling cost is about 1/5 of TLB-miss-only counting (Memcached-, Aerospike-like)".into(),
            source: src("section 3.5, Figure 6 (\"the average sampling overhead of HyMM is around 1/5th that of the approaches that only use TLB misses counting\"; within a factor of 1.5 either way, inferred: \"around\", and the paper gives no spread)"),
            paper: "0.2".into(),
            expect: Expect::Band { lo: 0.2 / 1.5, hi: 0.2 * 1.5 },
            unit: Unit::Num(3),
            measure: Box::new(|v| study(v, &["memcached", "aerospike"], "hymm_over_tlb")),
            reason: CAP_RARELY_BINDS,
        },
        Claim {
            id: "memos-monitor/fig6-hymm-vs-abit-only".into(),
            sentence: "HyMM's sampling cost is about 1/10 of Accessed-bit-only scanning (Memcached-, Aerospike-like)".into(),
            source: src("section 3.5, Figure 6 (\"... and 1/10th that of approaches that only use access_bit sampling\"; within a factor of 1.5 either way, inferred: the paper gives no spread; the Accessed-bit-only cost is counted from the pages and the cost table, not run)"),
            paper: "0.1".into(),
            expect: Expect::Band { lo: 0.1 / 1.5, hi: 0.1 * 1.5 },
            unit: Unit::Num(3),
            measure: Box::new(|v| study(v, &["memcached", "aerospike"], "hymm_over_abit")),
            reason: POISON_COST,
        },
        Claim {
            id: "memos-monitor/very-hot-called-cold-small".into(),
            sentence: "Memcached-like: pages TLB counting calls cold but that are Accessed in 3 consecutive 2 s scans are a small share (0.18%)".into(),
            source: src("section 3.2 and 7(8) (\"Taking Memcached as an example, only 0.18% of the pages on average is actually hot, but is misclassified as cold\"; at most twice 0.18%, inferred: the paper gives one average and no spread)"),
            paper: "0.18%".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.0036 },
            unit: Unit::Percent,
            measure: Box::new(|v| study(v, &["memcached"], "very_hot_share")),
            reason: UNKNOWN,
        },
    ];
    for (model, paper) in DETECTION {
        v.push(Claim {
            id: format!("memos-monitor/detection-{model}"),
            sentence: format!(
                "{model}-like: HyMM's monitoring in one preparation costs about {paper} s"
            ),
            source: src("section 6.1 (\"HyMM can detect these hot pages with overheads of 0.15s, 0.72s, 1.18s and 0.79s for Memcached, MySQLslap, Redis, and Aerospike\"; within a factor of 2 either way, inferred: the paper gives one time per application and no spread; its times are for the applications' full footprints, ours for models at a fraction of them, with no correction)"),
            paper: format!("{paper} s"),
            expect: Expect::Band {
                lo: paper / 2.0,
                hi: paper * 2.0,
            },
            unit: Unit::Num(3),
            measure: Box::new(move |v| study(v, &[model], "hymm_s")),
            reason: detection_reason(model),
        });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// A summary whose family accuracy is `acc` at windows 1-12, and every
    /// model's study the same.
    fn summary(acc: [f64; 12], study_row: Value) -> Value {
        let models = [
            "stream",
            "lbm",
            "libquantum",
            "gemsfdtd",
            "mcf",
            "astar",
            "memcached",
            "redis",
            "aerospike",
            "mysql",
        ];
        let study: Map<String, Value> = models
            .iter()
            .map(|m| (m.to_string(), study_row.clone()))
            .collect();
        json!({
            "history": { "mean": acc, "models": { "memcached": { "accuracy": acc } } },
            "study": study,
            "cost_table": { "poison_fault_ns": 1000.0, "entry_access_ns": 20.0, "full_flush_ns": 500.0 },
        })
    }

    /// The paper's Figure 3: below 95% at 4, 6 and 7, a peak of 96% at 8.
    const PAPER_FIG3: [f64; 12] = [
        0.80, 0.85, 0.90, 0.93, 0.935, 0.94, 0.945, 0.96, 0.955, 0.95, 0.945, 0.94,
    ];

    fn row(iqr: f64, very_hot: f64) -> Value {
        json!({
            "mean_iqr": iqr, "iqr_regions": 12.0, "stream_share": 0.0, "hymm_s": 0.2,
            "abit_only_s": 2.0, "tlb_only_s": 1.0, "hymm_over_tlb": 0.2, "hymm_over_abit": 0.1,
            "hymm_faults": 1000.0, "tlb_only_faults": 5000.0, "very_hot_share": very_hot,
        })
    }

    fn check(id: &str, v: &Value) -> bool {
        monitor()
            .into_iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no claim {id}"))
            .check(v)
            .held
    }

    #[test]
    fn figure_3_holds_on_the_papers_curve_only() {
        let paper = summary(PAPER_FIG3, row(24.4, 0.0018));
        for id in [
            "fig3-w8-accuracy",
            "fig3-short-windows-below-95",
            "fig3-longer-than-8-worse",
        ] {
            assert!(check(&format!("memos-monitor/{id}"), &paper), "{id}");
        }
        // A window of 8 at 93%, which the paper calls inaccurate, or a
        // curve that stays flat from 8 on, does not hold.
        let mut low = PAPER_FIG3;
        low[7] = 0.93;
        assert!(!check(
            "memos-monitor/fig3-w8-accuracy",
            &summary(low, row(24.4, 0.0))
        ));
        let mut flat = PAPER_FIG3;
        flat[7..].fill(0.999);
        let flat = summary(flat, row(24.4, 0.0));
        assert!(!check("memos-monitor/fig3-w8-accuracy", &flat));
        assert!(!check("memos-monitor/fig3-longer-than-8-worse", &flat));
        // Worse at 12 but better at 9 is not "larger than 8 ... hurting".
        let mut nine = PAPER_FIG3;
        nine[8] = 0.965;
        assert!(!check(
            "memos-monitor/fig3-longer-than-8-worse",
            &summary(nine, row(24.4, 0.0))
        ));
    }

    #[test]
    fn figure_4_and_section_3_2_check_twice_the_papers_value() {
        let mut v = summary(PAPER_FIG3, row(24.4, 0.0018));
        v["study"]["stream"]["mean_iqr"] = json!(0.28);
        assert!(check("memos-monitor/fig4-stream-iqr", &v));
        assert!(check("memos-monitor/fig4-mcf-iqr", &v));
        assert!(check("memos-monitor/very-hot-called-cold-small", &v));
        v["study"]["stream"]["mean_iqr"] = json!(0.9);
        v["study"]["mcf"]["mean_iqr"] = json!(8.0);
        v["study"]["memcached"]["very_hot_share"] = json!(0.009);
        assert!(!check("memos-monitor/fig4-stream-iqr", &v));
        assert!(!check("memos-monitor/fig4-mcf-iqr", &v));
        assert!(!check("memos-monitor/very-hot-called-cold-small", &v));
    }

    #[test]
    fn every_reason_reads_numbers_the_summary_has() {
        let v = summary(PAPER_FIG3, row(24.4, 0.0018));
        crate::claims::testing::reasons_resolve(&monitor(), &v);
    }
}
