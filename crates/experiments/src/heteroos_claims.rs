//! The claims `heteroos-placement` checks (../shared/papers/
//! 001_f8c99e4789a9a37b.txt, section 5.3 and the summary of section 5),
//! measured from the summary `heteroos.rs` writes.
//!
//! The paper's Figures 9 and 10 are images: only the numbers its text
//! gives are checked as numbers; the rest are orderings its text states.
//! The ordering of every mechanism on the I/O-heavy models is the issue's
//! reading of Figure 9 (#22's goals), checked as such.

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use serde_json::Value;

const FILE: &str = "001_f8c99e4789a9a37b.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

/// The gain of `label` on each model of `models` at `ratio` (`1:2`...).
fn gains(v: &Value, models: &[&str], ratio: &str, label: &str) -> Result<Measured, ClaimError> {
    models
        .iter()
        .map(|m| {
            Ok((
                m.to_string(),
                read::num(v, &format!("/gain/{m}/{ratio}/{label}"))?,
            ))
        })
        .collect()
}

/// `better - worse` gain on each model at `ratio`.
fn margin(
    v: &Value,
    models: &[&str],
    ratio: &str,
    better: &str,
    worse: &str,
) -> Result<Measured, ClaimError> {
    models
        .iter()
        .map(|m| {
            let at = |l: &str| read::num(v, &format!("/gain/{m}/{ratio}/{l}"));
            Ok((m.to_string(), at(better)? - at(worse)?))
        })
        .collect()
}

const IO_HEAVY: [&str; 3] = ["xstream", "leveldb", "redis"];
const HEAP_HEAVY: [&str; 2] = ["graphchi", "metis"];

const SAME_PLACEMENT: &str = "NUMA-preferred (first-touch) and Heap-IO-Slab-OD place every \
page the same way on these models: both give FastMem to every page type in allocation order; \
they differ only on page-table and DMA pages, which the models do not have, and the paper \
names no other difference";

/// Checked by `heteroos-placement`.
pub fn placement() -> Vec<Claim> {
    vec![
        Claim {
            id: "heteroos-placement/heap-od-gains-heap-models".into(),
            sentence: "Heap-OD gains over SlowMem-only on the heap-intensive models at 1/2 and 1/4".into(),
            source: src("section 5.3 (Graphchi and Metis \"show 121% and 84% gains even with 1/2 FastMem capacity ratio\"; at 1/4 Graphchi up to 2x, Metis 45%)"),
            paper: "> 0 (121%, 84% at 1/2)".into(),
            expect: Expect::Band { lo: 0.0, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let mut out = gains(v, &HEAP_HEAVY, "1:2", "Heap-OD")?;
                out.extend(gains(v, &HEAP_HEAVY, "1:4", "Heap-OD")?);
                Ok(out)
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-placement/graphchi-over-metis-at-quarter".into(),
            sentence: "At 1/4, Heap-OD gains more on the GraphChi-like model (frequent allocation and release) than on the Metis-like one (large working set, seldom releases)".into(),
            source: src("section 5.3 (\"Graphchi ... up to 2x gains even with 1/4 ratio. This is in contrast to Metis's 45% gains\")"),
            paper: "2x > 45%".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Percent,
            measure: Box::new(|v| gains(v, &HEAP_HEAVY, "1:4", "Heap-OD")),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-placement/io-pages-help-io-models".into(),
            sentence: "On the I/O-heavy models, giving FastMem to I/O and slab pages too (Heap-IO-Slab-OD) gains more than the heap alone (Heap-OD), at 1/2 and 1/4".into(),
            source: src("section 5.3 (\"X-Stream, LevelDB, and Redis show limited gains with Heap-only prioritization\")"),
            paper: "Heap-IO-Slab-OD > Heap-OD".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let mut out = margin(v, &IO_HEAVY, "1:2", "Heap-IO-Slab-OD", "Heap-OD")?;
                out.extend(margin(v, &IO_HEAVY, "1:4", "Heap-IO-Slab-OD", "Heap-OD")?);
                Ok(out)
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-placement/lru-adds-to-placement".into(),
            sentence: "HeteroOS-LRU gains more than Heap-IO-Slab-OD on the I/O-heavy models at 1/4".into(),
            source: src("section 5 summary (\"HeteroOS-LRU reduces contention and increases FastMem use to improve the gains by 194%\")"),
            paper: "HeteroOS-LRU > Heap-IO-Slab-OD".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| margin(v, &IO_HEAVY, "1:4", "HeteroOS-LRU", "Heap-IO-Slab-OD")),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-placement/order-io-models-quarter".into(),
            sentence: "At 1/4 on each I/O-heavy model: HeteroOS-LRU > Heap-IO-Slab-OD > Heap-OD > NUMA-preferred > SlowMem-only (issue #22's reading of Figure 9), shown here for the X-Stream-like model".into(),
            source: src("section 5.3, Figure 9 (as read in issue #22)"),
            paper: "LRU > HIS-OD > Heap-OD > NUMA-pref. > 0".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let at = |l: &str| read::num(v, &format!("/gain/xstream/1:4/{l}"));
                Ok(vec![
                    ("HeteroOS-LRU".into(), at("HeteroOS-LRU")?),
                    ("Heap-IO-Slab-OD".into(), at("Heap-IO-Slab-OD")?),
                    ("Heap-OD".into(), at("Heap-OD")?),
                    ("NUMA-preferred".into(), at("NUMA-preferred")?),
                    ("SlowMem-only".into(), 0.0),
                ])
            }),
            reason: SAME_PLACEMENT,
        },
        Claim {
            id: "heteroos-placement/fastmem-only-bounds".into(),
            sentence: "No mechanism beats FastMem-only (the dashed line) on any model at 1/4".into(),
            source: src("section 5.3, Figure 9 (\"FastMem-only - shown with the dashed line\")"),
            paper: "<= FastMem-only".into(),
            expect: Expect::Band { lo: 0.0, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let mut out = Vec::new();
                for m in crate::heteroos::MODELS {
                    let at = |l: &str| read::num(v, &format!("/gain/{m}/1:4/{l}"));
                    let best = ["NUMA-preferred", "Heap-OD", "Heap-IO-Slab-OD", "HeteroOS-LRU"]
                        .iter()
                        .map(|l| at(l))
                        .collect::<Result<Vec<_>, _>>()?
                        .into_iter()
                        .fold(f64::MIN, f64::max);
                    out.push((m.to_string(), at("FastMem-only")? - best));
                }
                Ok(out)
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-placement/lru-fewer-misses".into(),
            sentence: "At 1/8, HeteroOS-LRU's FastMem allocation miss ratio is below Heap-IO-Slab-OD's on every model".into(),
            source: src("section 5.3, Figure 10 (HeteroOS-LRU \"reduces contention\"; the figure's values are not in the text)"),
            paper: "LRU < Heap-IO-Slab-OD".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                crate::heteroos::MODELS
                    .iter()
                    .map(|m| {
                        let at = |l: &str| read::num(v, &format!("/miss_ratio/{m}/{l}"));
                        Ok((m.to_string(), at("Heap-IO-Slab-OD")? - at("HeteroOS-LRU")?))
                    })
                    .collect()
            }),
            reason: UNKNOWN,
        },
    ]
}
