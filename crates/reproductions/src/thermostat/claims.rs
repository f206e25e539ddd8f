//! The claims Thermostat's reproductions check
//! (../shared/papers/000_5488ae48d80721cc.txt), measured from the summaries
//! `thermostat.rs` writes.
//!
//! Tolerances the paper does not give are ours (inferred), and each claim
//! says which it uses:
//! - a single approximate cold fraction ("about 15%", "40%") is that number
//!   +- 5 points: the paper does not say how approximate;
//! - a single achieved slowdown (Figures 5-10 and their text) is that
//!   number +- half a point, never above the 3% target the paper says was
//!   met;
//! - "higher" across tolerable slowdowns means more than half a point per
//!   step, and "saturates" a step of at most half a point either way (a
//!   change below that is within run-to-run noise of a mean over windows);
//! - Table 3's traffic is checked against the paper's own spread across its
//!   benchmarks, and Table 4's savings (cold fraction x (1 - cost ratio))
//!   are +- 4 points, the cold fractions' 5 points times 0.8 at the 0.2x
//!   cost ratio.

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use serde_json::Value;
use thermocline_workloads::thermostat::APPLICATION_MODELS as MODELS;

const FILE: &str = "000_5488ae48d80721cc.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

/// The row of model `m` under `/workloads`.
fn row<'a>(v: &'a Value, m: &str) -> Result<&'a Value, ClaimError> {
    read::row(v, "/workloads", "workload", m)
}

/// `key` of every model's row under `/workloads`.
fn per_model(v: &Value, key: &str) -> Result<Measured, ClaimError> {
    MODELS
        .iter()
        .map(|m| Ok((m.to_string(), read::num(row(v, m)?, &format!("/{key}"))?)))
        .collect()
}

/// Why a settled rate falls short of the budget (read from the
/// `thermostat-rate` summary).
const RATE_SHORT: &str = "Thermostat holds a model's slow-access rate near the budget only \
when enough of the model's data has been sampled and is warm enough to reach it. Analytics' run \
is too short for Thermostat to sample much of a heap that is still filling, and websearch's huge \
pages fit in the cores' STLBs, so its slow pages fault (a BadgerTrap fault is a TLB miss) on few \
of their accesses. Settled rates per second: analytics \
{/workloads[workload=analytics]/mean_last_third_per_s:0}, websearch \
{/workloads[workload=websearch]/mean_last_third_per_s:0}, cassandra-read \
{/workloads[workload=cassandra-read]/mean_last_third_per_s:0}, tpcc \
{/workloads[workload=tpcc]/mean_last_third_per_s:0}";

/// Checked by `thermostat-rate`.
pub fn rate() -> Vec<Claim> {
    vec![
        Claim {
            id: "thermostat-rate/within-budget".into(),
            sentence: "Once settled, each model's slow-memory access rate is at or below the 30 K/s budget (3% at 1 us)".into(),
            source: src("section 3.4, Figure 3 (rates above 30 K/s are temporary and brought back below)"),
            paper: "<= 30 K/s".into(),
            expect: Expect::Band { lo: 0.0, hi: 30_000.0 },
            unit: Unit::Num(0),
            measure: Box::new(|v| per_model(v, "mean_last_third_per_s")),
            reason: UNKNOWN,
        },
        Claim {
            id: "thermostat-rate/tracks-budget".into(),
            sentence: "Thermostat tracks the 30 K/s target: each model's settled rate is close to it (inferred: at least half of it)".into(),
            source: src("section 3.4, Figure 3 (\"keeps the slow memory access rate close to the target\"); the lower edge, half the target, is inferred. A calibration: the models' warm tail (thermocline_workloads::thermostat::WARM_TAIL_PER_S) was sized from this same figure"),
            paper: "~30 K/s".into(),
            expect: Expect::Band { lo: 15_000.0, hi: 30_000.0 },
            unit: Unit::Num(0),
            measure: Box::new(|v| per_model(v, "mean_last_third_per_s")),
            reason: RATE_SHORT,
        },
    ]
}

/// The paper's cold fraction at 3% per model (section 5, Figures 5-10):
/// (model, band, as the paper says it, where, why ours differs where it
/// does).
const COLD: [(&str, f64, f64, &str, &str, &str); 8] = [
    (
        "cassandra-write",
        0.40,
        0.50,
        "40-50%",
        "section 5, Figure 5 (\"between 40-50% of Cassandra's footprint\")",
        COLD_CASSANDRA_WRITE,
    ),
    (
        "cassandra-read",
        0.35,
        0.45,
        "40% (+-5 inferred)",
        "section 5 (\"40% of data as cold with 2.5% throughput degradation\"; +-5 points inferred)",
        COLD_CASSANDRA_READ,
    ),
    (
        "tpcc",
        0.40,
        0.50,
        "40-50%",
        "section 5, Figure 6 (\"much of TPCC's footprint (about 40-50%) is cold\")",
        COLD_TPCC,
    ),
    (
        "aerospike-read",
        0.10,
        0.20,
        "about 15% (+-5 inferred)",
        "section 5, Figure 7 (\"a small fraction of the footprint (about 15%)\"; +-5 points inferred)",
        UNKNOWN,
    ),
    (
        "aerospike-write",
        0.10,
        0.20,
        "about 15% (+-5 inferred)",
        "section 5 (\"Thermostat identifies about 15% of data as cold\"; +-5 points inferred)",
        UNKNOWN,
    ),
    (
        "redis-hotspot",
        0.05,
        0.15,
        "10% (+-5 inferred)",
        "section 5, Figure 8 (\"10% of the data is detected as cold\"; +-5 points inferred). The paper disagrees with itself: Table 4's Redis savings (20% at 0.2x) imply 25% cold; the text's 10% is kept, and Redis is left out of the savings claims",
        COLD_REDIS_HOTSPOT,
    ),
    (
        "analytics",
        0.15,
        0.20,
        "15-20%",
        "section 5, Figure 9 (\"Thermostat detects about 15-20% data as cold\")",
        COLD_ANALYTICS,
    ),
    (
        "websearch",
        0.35,
        0.45,
        "about 40% (+-5 inferred)",
        "section 5, Figure 10 (\"about 40% of the footprint identified as cold\"; +-5 points inferred)",
        COLD_WEBSEARCH,
    ),
];

// How high a mean cold fraction sampling alone allows: if every unit
// Thermostat samples (5% of the mapped units per 30 s, the first classified
// at 90 s) went cold and stayed cold, the mean over a run of T seconds is
// the mean of 1 - 0.95^k over the run, k the batches classified by then:
// 13.8% at 317 s, 29.7% at 600 s, 52.1% at 1200 s, 72.8% at 2381 s (ours
// can exceed it a little, as units in flight are not drawn again).

const COLD_CASSANDRA_WRITE: &str = "nearly every unit Thermostat samples goes cold, so the mean \
follows how many units have been sampled (a fixed share of the mapped units per period), and \
the memtable, mapped during the run, is sampled only as it is mapped: mean \
{/workloads[workload=cassandra-write]/mean_cold_fraction:%}, final \
{/workloads[workload=cassandra-write]/final_cold_fraction:%}";

const COLD_CASSANDRA_READ: &str = "the model's data is colder than the paper's Cassandra's: a \
sampled batch's summed rate is about what a batch may add, so most sampled units go cold and \
the mean follows the sampling over the paper's long run, while the slowdown stays far under the \
target (the whole footprint, tail and the model's own SSTable reads, carries about the budget); \
the paper's slowdown with its cold fraction suggests its cold data was warmer: the model is not \
the application. Mean {/workloads[workload=cassandra-read]/mean_cold_fraction:%}, final \
{/workloads[workload=cassandra-read]/final_cold_fraction:%}, slowdown \
{/workloads[workload=cassandra-read]/slowdown:%}";

const COLD_TPCC: &str = "the mean is taken over the paper's warm-up and run, Thermostat \
running throughout (our reading: the paper does not say whether its mean includes the warm-up), \
so the early, little-sampled part of the run weighs on it, and the budget keeps part of each \
sampled batch hot: mean {/workloads[workload=tpcc]/mean_cold_fraction:%}, final \
{/workloads[workload=tpcc]/final_cold_fraction:%}";

const COLD_REDIS_HOTSPOT: &str = "the warm tail's reads mark more of a unit's base pages \
accessed, so the pages Thermostat poisons miss a unit's hot page more often, and units that hold \
a hot key go cold for a period before the correction sends them back \
(crates/managers/src/thermostat, 'Between corrections'): mean \
{/workloads[workload=redis-hotspot]/mean_cold_fraction:%} at a slowdown of \
{/workloads[workload=redis-hotspot]/slowdown:%}";

const COLD_ANALYTICS: &str = "the paper's analytics run is short, and the model's heap grows \
during it and is sampled only as it is mapped, so little of it has been sampled for long; a mean \
over the whole run as high as the paper's is more than the paper's own sampling rate allows over \
so short a run, so its figure is more likely Figure 9 late in the run (inferred): mean \
{/workloads[workload=analytics]/mean_cold_fraction:%}, final \
{/workloads[workload=analytics]/final_cold_fraction:%}";

const COLD_WEBSEARCH: &str = "the paper gives web search's steady state but not its whole \
runtime (ours is inferred), and over our run the mean cannot reach the paper's by sampling; a \
sampled unit is split into base pages whose TLB misses the tail's reads raise, so its estimate \
fills the batch's share of the budget sooner, while a collapsed cold unit's huge-page \
translation stays in the STLB and faults rarely: mean \
{/workloads[workload=websearch]/mean_cold_fraction:%}, final \
{/workloads[workload=websearch]/final_cold_fraction:%}";

/// Why a model of several threads loses less than the paper's application.
const SPREAD_OVER_THREADS: &str = "in the model a slow access stalls only the thread that takes \
it (thermocline_model::perf), so the slow accesses Thermostat's budget allows, a single thread's \
worth (section 6), cost a model of several threads a fraction of the target, where the paper's \
applications lost most of it; the settled slow-access rate is thermostat-rate's";

/// Why the single-threaded Redis-like model goes over the target.
const SHOOTDOWNS_OVER_BUDGET: &str = "the Redis-like model is single-threaded, so every slow \
access, sampling fault and TLB shootdown of Thermostat's splits, poisonings and collapses stalls \
the whole application; units whose hot base page the poisoned pages missed go cold for a period \
before the correction sends them back (crates/managers/src/thermostat, 'Between corrections'), \
and the warm tail makes that more likely: redis-hotspot's slowdown \
{/workloads[workload=redis-hotspot]/slowdown:%}";

/// Why the 3% target is missed in `thermostat-threads`: the Redis-like
/// model on one thread is `thermostat-footprint`'s run, over for the same
/// reasons; more threads share the same stalls.
const REDIS_ONE_THREAD_OVER: &str = "on one thread the Redis-like model is thermostat-footprint's \
run, over the target for the same reasons (every slow access, sampling fault and shootdown \
stalls its one thread; units that hold a hot key go cold between corrections): at this target redis-hotspot \
reaches {/workloads[workload=redis-hotspot]/threads[threads=1]/targets/0/slowdown:%} on one \
thread, {/workloads[workload=redis-hotspot]/threads[threads=4]/targets/0/slowdown:%} on four and \
{/workloads[workload=redis-hotspot]/threads[threads=16]/targets/0/slowdown:%} on sixteen, where \
the same stalls are shared";

const ANALYTICS_SHORT: &str = "analytics' run is too short for Thermostat to sample much of a \
heap that is still filling, so little of it is cold and few accesses are slow, and those are \
shared over the model's threads: mean cold {/workloads[workload=analytics]/mean_cold_fraction:%}";

/// The paper's achieved slowdown at 3% per model (section 5, Figures
/// 5-10): (model, band, as the paper says it, where, why ours differs).
/// Aerospike's write-heavy mix has no number ("while satisfying tolerable
/// slowdown") and no claim.
const SLOWDOWN: [(&str, f64, f64, &str, &str, &str); 7] = [
    (
        "cassandra-write",
        0.015,
        0.025,
        "2% (+-0.5 inferred)",
        "section 5, Figure 5 (\"the resulting throughput degradation of 2%\"; +-0.5 points inferred)",
        SPREAD_OVER_THREADS,
    ),
    (
        "cassandra-read",
        0.020,
        0.030,
        "2.5% (+-0.5 inferred)",
        "section 5 (\"40% of data as cold with 2.5% throughput degradation\"; +-0.5 points inferred)",
        SPREAD_OVER_THREADS,
    ),
    (
        "tpcc",
        0.008,
        0.018,
        "1.3% (+-0.5 inferred)",
        "section 5, Figure 6 (\"limiting performance degradation to 1.3%\"; +-0.5 points inferred)",
        SPREAD_OVER_THREADS,
    ),
    (
        "aerospike-read",
        0.005,
        0.015,
        "1% (+-0.5 inferred)",
        "section 5, Figure 7's caption (\"with 1% throughput degradation\"; +-0.5 points inferred)",
        SPREAD_OVER_THREADS,
    ),
    (
        "redis-hotspot",
        0.02,
        0.03,
        "2-3%",
        "section 5, Figure 8 (text: \"at a 3% throughput degradation\"; caption: 2%; the band spans the two)",
        SHOOTDOWNS_OVER_BUDGET,
    ),
    (
        "analytics",
        0.025,
        0.03,
        "3% (-0.5 inferred)",
        "section 5, Figure 9's caption (\"with 3% runtime overhead\"; -0.5 points inferred, and no more than the 3% target the text says was met)",
        ANALYTICS_SHORT,
    ),
    (
        "websearch",
        0.0,
        0.01,
        "< 1%",
        "section 5, Figure 10 (\"< 1% degradation in throughput\")",
        UNKNOWN,
    ),
];

/// Checked by `thermostat-footprint`.
pub fn footprint() -> Vec<Claim> {
    let mut v: Vec<Claim> = COLD
        .iter()
        .map(|&(m, lo, hi, paper, at, reason)| Claim {
            id: format!("thermostat-footprint/cold-{m}"),
            sentence: format!("At 3% tolerable slowdown the mean cold fraction of {m} is the paper's (\"the average cold memory fraction over the benchmark's runtime\")"),
            source: src(at),
            paper: paper.into(),
            expect: Expect::Band { lo, hi },
            unit: Unit::Percent,
            measure: Box::new(move |v| {
                Ok(vec![(String::new(), read::num(row(v, m)?, "/mean_cold_fraction")?)])
            }),
            reason,
        })
        .collect();
    v.extend(
        SLOWDOWN
            .iter()
            .map(|&(m, lo, hi, paper, at, reason)| Claim {
                id: format!("thermostat-footprint/slowdown-{m}"),
                sentence: format!(
                    "At 3% tolerable slowdown the achieved slowdown of {m} is the paper's"
                ),
                source: src(at),
                paper: paper.into(),
                expect: Expect::Band { lo, hi },
                unit: Unit::Percent,
                measure: Box::new(move |v| {
                    Ok(vec![(String::new(), read::num(row(v, m)?, "/slowdown")?)])
                }),
                reason,
            }),
    );
    v.push(Claim {
        id: "thermostat-footprint/within-target".into(),
        sentence: "At 3% tolerable slowdown every model's achieved slowdown is within 3%".into(),
        source: src("abstract (\"limiting performance degradation to 3%\"), section 5.1 (\"the performance targets of all applications are met\"); the same runs as thermostat-sensitivity's 3% target, checked here only"),
        paper: "<= 3%".into(),
        expect: Expect::Band { lo: 0.0, hi: 0.03 },
        unit: Unit::Percent,
        measure: Box::new(|v| per_model(v, "slowdown")),
        reason: SHOOTDOWNS_OVER_BUDGET,
    });
    v
}

fn target_cells<'a>(v: &'a Value, m: &str) -> Result<Vec<&'a Value>, ClaimError> {
    let t = read::at(row(v, m)?, "/targets")?
        .as_array()
        .ok_or_else(|| ClaimError::Missing {
            path: format!("/workloads[workload={m}]/targets"),
        })?;
    Ok(t.iter().collect())
}

/// Model `m`'s mean cold fraction at each target, labelled by the target.
fn cold_by_target(v: &Value, m: &str) -> Result<Vec<(String, f64)>, ClaimError> {
    target_cells(v, m)?
        .into_iter()
        .map(|c| {
            Ok((
                format!("{}%", read::num(c, "/target")? * 100.0),
                read::num(c, "/mean_cold_fraction")?,
            ))
        })
        .collect()
}

/// Why a model's cold fraction stops growing with the target (from the
/// `thermostat-sensitivity` summary): from the middle target on, nearly
/// every sampled unit goes cold and sampling, not the budget, sets it.
macro_rules! sampling_sets_it {
    ($m:literal) => {
        concat!(
            "from the middle target on, nearly every unit Thermostat samples goes cold (a \
batch's summed rate is under what the budget lets it add), so the cold fraction follows how \
many units have been sampled, a fixed share of the mapped units per period, which the target \
does not change, and the budget goes unused: ",
            $m,
            "'s slowdown is {/workloads[workload=",
            $m,
            "]/targets/1/slowdown:%} at the middle target and {/workloads[workload=",
            $m,
            "]/targets/2/slowdown:%} at the highest"
        )
    };
}

const ANALYTICS_UNSAMPLED: &str = "analytics' run is too short for Thermostat to sample much of \
its heap, which is still filling, so sampling sets the cold fraction at every target and the \
budget goes unused: its slowdown is {/workloads[workload=analytics]/targets/2/slowdown:%} at the \
highest target";

fn cold_grows_reason(m: &str) -> &'static str {
    match m {
        "cassandra-write" => sampling_sets_it!("cassandra-write"),
        "cassandra-read" => sampling_sets_it!("cassandra-read"),
        "websearch" => sampling_sets_it!("websearch"),
        "analytics" => ANALYTICS_UNSAMPLED,
        _ => UNKNOWN,
    }
}

const TPCC_KEEPS_GROWING: &str = "ours keeps growing with the target where the paper's stops: \
the budget still binds at the lower targets (which units it keeps hot was not measured), where \
the paper found only highly accessed pages left, and at the highest target the mean nears what \
sampling alone allows over the run (see thermostat-footprint/cold-tpcc). Means \
{/workloads[workload=tpcc]/targets/0/mean_cold_fraction:%}, \
{/workloads[workload=tpcc]/targets/1/mean_cold_fraction:%} and \
{/workloads[workload=tpcc]/targets/2/mean_cold_fraction:%}";

/// Checked by `thermostat-sensitivity`. The 3% target's slowdowns are
/// checked once, by `thermostat-footprint/within-target` (the same runs).
pub fn sensitivity() -> Vec<Claim> {
    let mut v: Vec<Claim> = MODELS
        .iter()
        .filter(|&&m| m != "tpcc")
        .map(|&m| Claim {
            id: format!("thermostat-sensitivity/cold-grows-{m}"),
            sentence: format!("{m}: the mean cold fraction grows with the tolerable slowdown (3, 6, 10%)"),
            source: src("section 5.1, Figure 11 (\"with increase in tolerable slowdown Thermostat can place a higher fraction\"; no number: more than half a point per step, inferred)"),
            paper: "rises".into(),
            expect: Expect::Trend { rising: true, min_step: 0.005 },
            unit: Unit::Percent,
            measure: Box::new(move |v| cold_by_target(v, m)),
            reason: cold_grows_reason(m),
        })
        .collect();
    v.push(Claim {
        id: "thermostat-sensitivity/tpcc-saturates".into(),
        sentence: "tpcc: the cold fraction is about 45% at every target".into(),
        source: src(
            "section 5.1 (\"cold data fraction saturates at approx 45%\"; +-5 points inferred)",
        ),
        paper: "~45% (+-5 inferred)".into(),
        expect: Expect::Band { lo: 0.40, hi: 0.50 },
        unit: Unit::Percent,
        measure: Box::new(|v| cold_by_target(v, "tpcc")),
        reason: TPCC_KEEPS_GROWING,
    });
    v.push(Claim {
        id: "thermostat-sensitivity/tpcc-flat".into(),
        sentence: "tpcc: a higher target finds no more cold data (each step from 3 to 6 to 10% changes the cold fraction by at most half a point)".into(),
        source: src("section 5.1 (\"Thermostat is not able to identify additional cold data even with an increase in tolerable slowdown\"; half a point, the noise cold-grows-* allows, inferred)"),
        paper: "no additional cold data".into(),
        expect: Expect::Band { lo: -0.005, hi: 0.005 },
        unit: Unit::Percent,
        measure: Box::new(|v| {
            let c = cold_by_target(v, "tpcc")?;
            if c.len() < 2 {
                return Err(ClaimError::Count { need: "at least 2", got: c.len() });
            }
            Ok(c.windows(2)
                .map(|w| (format!("{} - {}", w[1].0, w[0].0), w[1].1 - w[0].1))
                .collect())
        }),
        reason: TPCC_KEEPS_GROWING,
    });
    for (i, target) in [(1, 0.06), (2, 0.10)] {
        v.push(Claim {
            id: format!("thermostat-sensitivity/met-{:.0}pct", target * 100.0),
            sentence: format!(
                "At {:.0}% tolerable slowdown every model's achieved slowdown is within the target",
                target * 100.0
            ),
            source: src("section 5.1 (\"the performance targets of all applications are met\")"),
            paper: format!("<= {:.0}%", target * 100.0),
            expect: Expect::Band {
                lo: 0.0,
                hi: target,
            },
            unit: Unit::Percent,
            measure: Box::new(move |v| {
                MODELS
                    .iter()
                    .map(|m| {
                        let c = target_cells(v, m)?;
                        let c = c.get(i).ok_or_else(|| ClaimError::Missing {
                            path: format!("/workloads[workload={m}]/targets/{i}"),
                        })?;
                        Ok((m.to_string(), read::num(c, "/slowdown")?))
                    })
                    .collect()
            }),
            reason: UNKNOWN,
        });
    }
    v
}

/// The thread counts and the number of targets of `thermostat-threads`'
/// summary.
fn thread_axes(v: &Value) -> Result<(Vec<u64>, usize), ClaimError> {
    let list = |p: &str| {
        read::at(v, p)?
            .as_array()
            .cloned()
            .ok_or_else(|| ClaimError::Missing { path: p.into() })
    };
    let threads = list("/threads")?.iter().filter_map(Value::as_u64).collect();
    Ok((threads, list("/targets")?.len()))
}

/// The cell of model `m` at `threads` threads and target index `i`.
fn thread_cell<'a>(v: &'a Value, m: &str, threads: u64, i: usize) -> Result<&'a Value, ClaimError> {
    let r = read::row(v, "/workloads", "workload", m)?;
    let missing = || ClaimError::Missing {
        path: format!("/workloads[workload={m}]/threads[threads={threads}]/targets/{i}"),
    };
    read::at(r, "/threads")?
        .as_array()
        .and_then(|a| a.iter().find(|c| c["threads"] == threads))
        .and_then(|c| c.pointer(&format!("/targets/{i}")))
        .ok_or_else(missing)
}

/// `key` of every (model, thread count) at target index `i` (the last
/// target when `None`), labelled `model@Nt`.
fn per_model_and_threads(v: &Value, i: Option<usize>, key: &str) -> Result<Measured, ClaimError> {
    let (threads, targets) = thread_axes(v)?;
    let i = i.unwrap_or(targets.saturating_sub(1));
    let mut out = Vec::new();
    for m in MODELS {
        for &t in &threads {
            let c = thread_cell(v, m, t, i)?;
            out.push((format!("{m}@{t}t"), read::num(c, &format!("/{key}"))?));
        }
    }
    Ok(out)
}

/// Why a model's cold fraction does not grow with the target on 1, 4 and
/// 16 threads (from the `thermostat-threads` summary, the 10% target).
macro_rules! sampling_sets_it_threads {
    ($m:literal) => {
        concat!(
            "at the higher target nearly every unit Thermostat samples goes cold, so the cold \
fraction follows how many units have been sampled, which neither the target nor the thread \
count changes, and the budget goes unused: ",
            $m,
            "'s slowdown at the highest target is {/workloads[workload=",
            $m,
            "]/threads[threads=1]/targets/1/slowdown:%} on one thread, {/workloads[workload=",
            $m,
            "]/threads[threads=4]/targets/1/slowdown:%} on four and {/workloads[workload=",
            $m,
            "]/threads[threads=16]/targets/1/slowdown:%} on sixteen"
        )
    };
}

fn threads_cold_grows_reason(m: &str) -> &'static str {
    match m {
        "cassandra-write" => sampling_sets_it_threads!("cassandra-write"),
        "cassandra-read" => sampling_sets_it_threads!("cassandra-read"),
        "websearch" => sampling_sets_it_threads!("websearch"),
        "analytics" => sampling_sets_it_threads!("analytics"),
        _ => UNKNOWN,
    }
}

/// Checked by `thermostat-threads` (targets 3% and 10%, in that order).
pub fn threads() -> Vec<Claim> {
    let mut v: Vec<Claim> = [(Some(0), 0.03), (None, 0.10)]
        .into_iter()
        .map(|(i, target)| Claim {
            id: format!("thermostat-threads/met-{:.0}pct", target * 100.0),
            sentence: format!(
                "At {:.0}% tolerable slowdown every model's achieved slowdown is within the target, on 1, 4 and 16 threads",
                target * 100.0
            ),
            source: src("section 5.1 (\"the performance targets of all applications are met\"); the budget is the application's (section 3.4)"),
            paper: format!("<= {:.0}%", target * 100.0),
            expect: Expect::Band { lo: 0.0, hi: target },
            unit: Unit::Percent,
            measure: Box::new(move |v| per_model_and_threads(v, i, "slowdown")),
            reason: if i == Some(0) {
                REDIS_ONE_THREAD_OVER
            } else {
                UNKNOWN
            },
        })
        .collect();
    v.push(Claim {
        id: "thermostat-threads/within-budget".into(),
        sentence: "On every thread count each model's settled slow-memory access rate is within the application's 30 K/s budget at 3%".into(),
        source: src("section 3.4, Figure 3 (30 K/s for the application, as its cgroup sets it: section 3)"),
        paper: "<= 30 K/s".into(),
        expect: Expect::Band { lo: 0.0, hi: 30_000.0 },
        unit: Unit::Num(0),
        measure: Box::new(|v| per_model_and_threads(v, Some(0), "slow_faults_per_s_last_third")),
        reason: UNKNOWN,
    });
    v.push(Claim {
        id: "thermostat-threads/spread-faults-cost-less".into(),
        sentence: "The budget is a single thread's: spread over 16 threads the same application's slow accesses slow it less than on one thread (10% target)".into(),
        source: src("section 6 (\"30,000 slow memory accesses that can be done by a single thread for a 3% performance slowdown\"), section 5.1 (\"the achieved slowdown is less than the specified slowdown\"); the ordering is inferred"),
        paper: "16 threads / 1 thread < 1".into(),
        expect: Expect::Band { lo: 0.0, hi: 1.0 },
        unit: Unit::Times,
        measure: Box::new(|v| {
            let (_, targets) = thread_axes(v)?;
            let last = targets.saturating_sub(1);
            MODELS
                .iter()
                .map(|m| {
                    let one = read::num(thread_cell(v, m, 1, last)?, "/slowdown")?;
                    let many = read::num(thread_cell(v, m, 16, last)?, "/slowdown")?;
                    let ratio = if one > 0.0 { many / one } else { f64::INFINITY };
                    Ok((format!("{m} 16t/1t"), ratio))
                })
                .collect()
        }),
        reason: UNKNOWN,
    });
    for &m in MODELS.iter().filter(|&&m| m != "tpcc") {
        v.push(Claim {
            id: format!("thermostat-threads/cold-grows-{m}"),
            sentence: format!("{m}: on 1, 4 and 16 threads the mean cold fraction is higher at 10% than at 3% (Figure 11's shape)"),
            source: src("section 5.1, Figure 11 (\"with increase in tolerable slowdown Thermostat can place a higher fraction\"; more than half a point, inferred)"),
            paper: "rises at every thread count".into(),
            expect: Expect::Band { lo: 0.005, hi: 1.0 },
            unit: Unit::Percent,
            measure: Box::new(move |v| {
                let (threads, targets) = thread_axes(v)?;
                threads
                    .iter()
                    .map(|&t| {
                        let c = |i| read::num(thread_cell(v, m, t, i)?, "/mean_cold_fraction");
                        let grew = c(targets.saturating_sub(1))? - c(0)?;
                        Ok((format!("{t}t: 10% - 3%"), grew))
                    })
                    .collect()
            }),
            reason: threads_cold_grows_reason(m),
        });
    }
    v
}

/// Table 3's migration MB/s across its benchmarks: (lowest, highest).
const TABLE_3_MIGRATION: (f64, f64) = (1.6, 16.0);
/// Table 3's total (migration + false classification) MB/s across its
/// benchmarks: web search 1.6 + 0.3, Aerospike 13.3 + 9.2.
const TABLE_3_TOTAL: (f64, f64) = (1.9, 22.5);

/// Table 4's saving at 0.2x per model, in percent (Redis left out: see
/// `thermostat-footprint/cold-redis-hotspot`'s source). Cassandra's and
/// Aerospike's rows stand for both of their mixes.
const TABLE_4_AT_0_2: [(&str, f64); 7] = [
    ("cassandra-write", 32.0),
    ("cassandra-read", 32.0),
    ("tpcc", 32.0),
    ("aerospike-read", 12.0),
    ("aerospike-write", 12.0),
    ("analytics", 13.0),
    ("websearch", 32.0),
];

/// Model `m`'s saving at the 0.2x cost ratio (the third), in percent.
fn saving_at_0_2(v: &Value, m: &str) -> Result<f64, ClaimError> {
    read::num(row(v, m)?, "/savings_pct/2")
}

const SAVINGS_FOLLOW_COLD: &str = "a saving is the mean cold fraction times one minus the cost \
ratio, so it follows the model's thermostat-footprint/cold-* claim";

/// Why a model's migration is over Table 3's.
const MIGRATION_OVER_TABLE_3: &str = "units holding a hot key go cold for a period before the \
correction returns them (crates/managers/src/thermostat, 'Between corrections'), and each is sent \
to slow memory again when next sampled: redis-hotspot, the model that moves most, sends \
{/workloads[workload=redis-hotspot]/demotion_mb_per_s:1} MB/s to slow memory and brings \
{/workloads[workload=redis-hotspot]/false_classification_mb_per_s:1} back";

/// Why a model's total is over Table 3's.
const TOTAL_OVER_TABLE_3: &str = "the corrections' churn counts twice in the total, once sent and \
once brought back: redis-hotspot, the model that moves most, sends \
{/workloads[workload=redis-hotspot]/demotion_mb_per_s:1} MB/s to slow memory and brings \
{/workloads[workload=redis-hotspot]/false_classification_mb_per_s:1} back \
(crates/managers/src/thermostat, 'Between corrections')";

/// Checked by `thermostat-traffic`.
pub fn traffic() -> Vec<Claim> {
    let mut v = vec![
        Claim {
            id: "thermostat-traffic/migration-under-30".into(),
            sentence: "Each model's migration bandwidth is within the range of Table 3's benchmarks (the paper: under 30 MB/s on average)".into(),
            source: src("section 5.2, Table 3 (\"< 30 MB/s on average across all benchmarks\"; the band is Table 3's spread across its benchmarks, web search 1.6 to analytics 16 MB/s; Table 3 gives one value for both Cassandra and both Aerospike mixes; migration read as traffic into slow memory, inferred: Table 3 sets it beside false classification, the traffic back, and counted both ways its Redis and Aerospike rows would bring back more than they ever sent)"),
            paper: "1.6-16 MB/s (Table 3)".into(),
            expect: Expect::Band { lo: TABLE_3_MIGRATION.0, hi: TABLE_3_MIGRATION.1 },
            unit: Unit::Num(1),
            measure: Box::new(|v| per_model(v, "demotion_mb_per_s")),
            reason: MIGRATION_OVER_TABLE_3,
        },
        Claim {
            id: "thermostat-traffic/total-under-60".into(),
            sentence: "Each model's run-average traffic to and from slow memory (migration plus false classification) is within the range of Table 3's totals".into(),
            source: src("section 5.2, Table 3 (\"The highest total traffic to cold memory we observe is 60 MB/s\"; Table 3's totals, run averages, span web search 1.9 to Aerospike 22.5 MB/s, so the 60 MB/s is not a run average, likely a peak, which this reproduction does not measure; the band is Table 3's spread)"),
            paper: "1.9-22.5 MB/s (Table 3 totals; text: highest 60 MB/s)".into(),
            expect: Expect::Band { lo: TABLE_3_TOTAL.0, hi: TABLE_3_TOTAL.1 },
            unit: Unit::Num(1),
            measure: Box::new(|v| {
                let a = per_model(v, "demotion_mb_per_s")?;
                let b = per_model(v, "false_classification_mb_per_s")?;
                Ok(a.into_iter().zip(b).map(|(x, y)| (x.0, x.1 + y.1)).collect())
            }),
            reason: TOTAL_OVER_TABLE_3,
        },
    ];
    v.extend(TABLE_4_AT_0_2.iter().map(|&(m, paper)| Claim {
        id: format!("thermostat-traffic/savings-{m}"),
        sentence: format!("At slow memory 1/5 of DRAM's cost {m} saves Table 4's share of DRAM spending"),
        source: src("section 5.3, Table 4 (0.2x column; +-4 points inferred: the cold fractions' 5 points times 0.8; a saving is cold x 0.8, so this repeats thermostat-footprint/cold-* on Table 4's figure)"),
        paper: format!("{paper:.0}% (+-4 inferred)"),
        expect: Expect::Band { lo: paper - 4.0, hi: paper + 4.0 },
        unit: Unit::Num(1),
        measure: Box::new(move |v| Ok(vec![(String::new(), saving_at_0_2(v, m)?)])),
        reason: SAVINGS_FOLLOW_COLD,
    }));
    v.push(Claim {
        id: "thermostat-traffic/savings-order".into(),
        sentence: "At slow memory 1/5 of DRAM's cost Cassandra saves about 20 points more of DRAM spending than Aerospike".into(),
        source: src("section 5.3, Table 4 (0.2x: Cassandra 32%, Aerospike 12%; \"anywhere from 10% (for Aerospike) to 32% (for Cassandra)\"; +-8 points inferred, 4 on each side)"),
        paper: "32 - 12 = 20 points (+-8 inferred)".into(),
        expect: Expect::Band { lo: 12.0, hi: 28.0 },
        unit: Unit::Num(1),
        measure: Box::new(|v| {
            let c = saving_at_0_2(v, "cassandra-write")?;
            let a = saving_at_0_2(v, "aerospike-read")?;
            Ok(vec![("cassandra-write - aerospike-read".into(), c - a)])
        }),
        reason: SAVINGS_FOLLOW_COLD,
    });
    v
}

/// Checked by `thermostat-kstaled`.
pub fn kstaled() -> Vec<Claim> {
    vec![Claim {
        id: "thermostat-kstaled/misses-target".into(),
        sentence: "Placing the pages that Accessed-bit scanning (kstaled) finds idle for 10 s in slow memory slows the Redis-like model by more than 10%".into(),
        source: src("Figure 1's caption (\"the performance degradation caused by placing these pages in slow memory (which exceeds 10% for Redis)\"); section 2.1 (\"unacceptable slowdowns\"). Our baseline scans 4 KiB pages, the figure 2 MiB pages"),
        paper: "> 10% (Redis)".into(),
        expect: Expect::Band { lo: 0.10, hi: f64::INFINITY },
        unit: Unit::Percent,
        measure: Box::new(|v| {
            let r = row(v, "redis-hotspot")?;
            Ok(vec![("redis-hotspot".into(), read::num(r, "/kstaled/slowdown")?)])
        }),
        reason: KSTALED_UNDER_TEN,
    }]
}

/// Why kstaled's slowdown on the Redis-like model stays under the
/// figure's tenth.
const KSTALED_UNDER_TEN: &str = "on dram+badgertrap a slow page costs one emulated fault per TLB \
miss (section 4.2, one microsecond each), and late in the run the one-thread Redis-like model \
misses the TLB on pages kstaled found idle for ten seconds \
{/workloads[workload=redis-hotspot]/kstaled/slow_faults_per_s_last_third:0} times a second, which \
is its {/workloads[workload=redis-hotspot]/kstaled/slowdown:%}; more than a tenth needs nearly a \
hundred thousand such misses a second: the model's keys read again after ten idle seconds (its \
warm tail) draw less traffic than the paper's Redis did, a rate the paper does not give";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduction::{Options, Output, Results, RunSpec};
    use serde_json::json;
    use std::collections::BTreeMap;
    use thermocline_engine::report::{Report, Window};

    fn find<'a>(claims: &'a [Claim], id: &str) -> &'a Claim {
        claims.iter().find(|c| c.id == id).unwrap()
    }

    /// Sensitivity rows: each model's cold fractions at 3, 6 and 10% from
    /// `cold`, slowdowns from `slow`.
    fn sensitivity_summary(cold: impl Fn(&str) -> [f64; 3], slow: [f64; 3]) -> Value {
        let rows: Vec<Value> = MODELS
            .iter()
            .map(|m| {
                let c = cold(m);
                let targets: Vec<Value> = [0.03, 0.06, 0.10]
                    .iter()
                    .enumerate()
                    .map(|(i, t)| json!({"target": t, "mean_cold_fraction": c[i], "slowdown": slow[i]}))
                    .collect();
                json!({"workload": m, "targets": targets})
            })
            .collect();
        json!({ "workloads": rows })
    }

    #[test]
    fn cold_must_grow_by_more_than_half_a_point_per_target() {
        let claims = sensitivity();
        let v = sensitivity_summary(
            |m| match m {
                "redis-hotspot" => [0.10, 0.104, 0.20],
                "tpcc" => [0.44, 0.443, 0.446],
                _ => [0.10, 0.20, 0.30],
            },
            [0.02, 0.05, 0.10],
        );
        assert!(
            find(&claims, "thermostat-sensitivity/cold-grows-aerospike-read")
                .check(&v)
                .held
        );
        let redis = find(&claims, "thermostat-sensitivity/cold-grows-redis-hotspot").check(&v);
        assert!(!redis.held);
        assert_eq!(redis.ours[1], ("6%".to_string(), "10.4%".to_string()));
        // 10% exactly is within a 10% target; 5% is within 6%.
        assert!(
            find(&claims, "thermostat-sensitivity/met-10pct")
                .check(&v)
                .held
        );
        assert!(
            find(&claims, "thermostat-sensitivity/met-6pct")
                .check(&v)
                .held
        );
        let over = sensitivity_summary(|_| [0.1, 0.2, 0.3], [0.01, 0.061, 0.1]);
        assert!(
            !find(&claims, "thermostat-sensitivity/met-6pct")
                .check(&over)
                .held
        );
        // The 3% target is footprint/within-target's, not counted again.
        assert!(!claims
            .iter()
            .any(|c| c.id == "thermostat-sensitivity/met-3pct"));
    }

    /// TPC-C saturates: about 45% at every target, and no step of more than
    /// half a point; a fraction that keeps rising inside the band is not
    /// saturated.
    #[test]
    fn tpcc_saturates_only_when_flat_and_near_45() {
        let claims = sensitivity();
        let at = |c: [f64; 3]| sensitivity_summary(move |_| c, [0.01; 3]);
        let flat = at([0.44, 0.443, 0.446]);
        assert!(
            find(&claims, "thermostat-sensitivity/tpcc-saturates")
                .check(&flat)
                .held
        );
        let steps = find(&claims, "thermostat-sensitivity/tpcc-flat").check(&flat);
        assert!(steps.held);
        assert_eq!(steps.ours[0].0, "6% - 3%");
        let rising = at([0.40, 0.45, 0.50]);
        assert!(
            find(&claims, "thermostat-sensitivity/tpcc-saturates")
                .check(&rising)
                .held
        );
        assert!(
            !find(&claims, "thermostat-sensitivity/tpcc-flat")
                .check(&rising)
                .held
        );
        // Falling is not saturating either.
        assert!(
            !find(&claims, "thermostat-sensitivity/tpcc-flat")
                .check(&at([0.45, 0.44, 0.44]))
                .held
        );
    }

    /// Footprint rows: each model's mean cold fraction and slowdown.
    fn footprint_summary(cold: impl Fn(&str) -> f64, slow: impl Fn(&str) -> f64) -> Value {
        let rows: Vec<Value> = MODELS
            .iter()
            .map(|m| json!({"workload": m, "mean_cold_fraction": cold(m), "slowdown": slow(m)}))
            .collect();
        json!({ "workloads": rows })
    }

    #[test]
    fn each_model_is_checked_against_its_own_slowdown() {
        let claims = footprint();
        let paper = |m: &str| match m {
            "cassandra-write" => 0.02,
            "cassandra-read" => 0.025,
            "tpcc" => 0.013,
            "aerospike-read" | "aerospike-write" => 0.01,
            "redis-hotspot" | "analytics" => 0.028,
            _ => 0.005,
        };
        let v = footprint_summary(|_| 0.15, paper);
        for (m, ..) in SLOWDOWN {
            let c = find(&claims, &format!("thermostat-footprint/slowdown-{m}")).check(&v);
            assert!(c.held, "{m}");
        }
        assert!(
            find(&claims, "thermostat-footprint/within-target")
                .check(&v)
                .held
        );
        // A tenth of the paper's slowdown is not the paper's, though within 3%.
        let low = footprint_summary(|_| 0.15, |m| paper(m) / 10.0);
        let c = find(&claims, "thermostat-footprint/slowdown-cassandra-write").check(&low);
        assert!(!c.held);
        assert!(
            find(&claims, "thermostat-footprint/slowdown-websearch")
                .check(&low)
                .held
        );
        assert!(
            find(&claims, "thermostat-footprint/within-target")
                .check(&low)
                .held
        );
        // Aerospike's write-heavy mix has no number in the paper.
        assert!(!claims
            .iter()
            .any(|c| c.id == "thermostat-footprint/slowdown-aerospike-write"));
        assert!(
            find(&claims, "thermostat-footprint/cold-aerospike-write")
                .check(&v)
                .held
        );
        assert!(
            !find(&claims, "thermostat-footprint/cold-tpcc")
                .check(&v)
                .held
        );
    }

    /// A `thermostat-threads` summary: cold fractions and slowdowns at 3%
    /// and 10% from `cell(model, threads)`.
    fn threads_summary(cell: impl Fn(&str, u64) -> ([f64; 2], [f64; 2])) -> Value {
        const TARGETS: [f64; 2] = [0.03, 0.10];
        let rows: Vec<Value> = MODELS
            .iter()
            .map(|m| {
                let by: Vec<Value> = [1u64, 4, 16]
                    .iter()
                    .map(|&t| {
                        let (cold, slow) = cell(m, t);
                        let targets: Vec<Value> = (0..2)
                            .map(|i| {
                                json!({"target": TARGETS[i], "mean_cold_fraction": cold[i],
                                "slowdown": slow[i], "slow_faults_per_s_last_third": 20_000.0})
                            })
                            .collect();
                        json!({"threads": t, "targets": targets})
                    })
                    .collect();
                json!({"workload": m, "threads": by})
            })
            .collect();
        json!({"threads": [1, 4, 16], "targets": [0.03, 0.10], "workloads": rows})
    }

    #[test]
    fn threads_claims_read_every_thread_count() {
        let claims = threads();
        let v = threads_summary(|m, t| {
            let flat = m == "websearch" && t == 4;
            (
                [0.2, if flat { 0.2 } else { 0.3 }],
                [0.03 / t as f64, 0.1 / t as f64],
            )
        });
        let met = find(&claims, "thermostat-threads/met-10pct").check(&v);
        assert!(met.held);
        assert_eq!(met.values.len(), MODELS.len() * 3);
        assert_eq!(
            met.ours[2],
            ("cassandra-write@16t".to_string(), "0.6%".to_string())
        );
        assert!(
            find(&claims, "thermostat-threads/within-budget")
                .check(&v)
                .held
        );
        let spread = find(&claims, "thermostat-threads/spread-faults-cost-less").check(&v);
        assert!(spread.held);
        assert!((spread.values[0] - 1.0 / 16.0).abs() < 1e-12);
        assert!(
            find(&claims, "thermostat-threads/cold-grows-redis-hotspot")
                .check(&v)
                .held
        );
        let web = find(&claims, "thermostat-threads/cold-grows-websearch").check(&v);
        assert!(!web.held, "flat on 4 threads");
        assert_eq!(web.values.len(), 3);
        let why = web.reason.unwrap();
        assert!(why.contains("10.0% on one thread, 2.5% on four"), "{why}");
        // A 16-thread run slower than the 1-thread run breaks the ordering.
        let worse = threads_summary(|_, t| ([0.2, 0.3], [0.01, 0.02 * t as f64]));
        assert!(
            !find(&claims, "thermostat-threads/spread-faults-cost-less")
                .check(&worse)
                .held
        );
        assert!(
            !find(&claims, "thermostat-threads/met-10pct")
                .check(&worse)
                .held
        );
    }

    /// Traffic rows: migration and false-classification MB/s and savings at
    /// 0.33, 0.25 and 0.2x from `f(model)`.
    fn traffic_summary(f: impl Fn(&str) -> (f64, f64, f64)) -> Value {
        let rows: Vec<Value> = MODELS
            .iter()
            .map(|m| {
                let (migr, back, saving) = f(m);
                json!({"workload": m, "demotion_mb_per_s": migr,
                "migration_mb_per_s": migr + back,
                "false_classification_mb_per_s": back, "savings_pct": [20.0, 22.0, saving]})
            })
            .collect();
        json!({ "workloads": rows })
    }

    #[test]
    fn traffic_checks_every_model_against_tables_3_and_4() {
        let claims = traffic();
        let table_4 = |m: &str| {
            TABLE_4_AT_0_2
                .iter()
                .find(|r| r.0 == m)
                .map_or(20.0, |r| r.1)
        };
        let v = traffic_summary(|m| (10.0, 5.0, table_4(m) + 3.5));
        for id in ["migration-under-30", "total-under-60", "savings-order"] {
            let c = find(&claims, &format!("thermostat-traffic/{id}")).check(&v);
            assert!(c.held, "{id}: {:?}", c.ours);
        }
        for (m, _) in TABLE_4_AT_0_2 {
            assert!(
                find(&claims, &format!("thermostat-traffic/savings-{m}"))
                    .check(&v)
                    .held
            );
        }
        // Redis is left out of the savings claims (the paper's Table 4 and
        // its text disagree).
        assert!(!claims
            .iter()
            .any(|c| c.id == "thermostat-traffic/savings-redis-hotspot"));
        // One model migrating 17 MB/s, over Table 3's highest, fails both.
        let busy = traffic_summary(|m| {
            let migr = if m == "tpcc" { 17.0 } else { 10.0 };
            (migr, 6.0, table_4(m))
        });
        let migr = find(&claims, "thermostat-traffic/migration-under-30").check(&busy);
        assert!(!migr.held);
        assert_eq!(migr.values.len(), MODELS.len());
        let total = find(&claims, "thermostat-traffic/total-under-60").check(&busy);
        assert_eq!(total.values[2], 23.0);
        assert!(!total.held);
        // No traffic at all is not the paper's either.
        let idle = traffic_summary(|m| (0.0, 0.0, table_4(m)));
        assert!(
            !find(&claims, "thermostat-traffic/migration-under-30")
                .check(&idle)
                .held
        );
        // Savings 4.5 points over Table 4; Cassandra only 5 points over
        // Aerospike.
        let off = traffic_summary(|m| (10.0, 5.0, table_4(m) + 4.5));
        assert!(
            !find(&claims, "thermostat-traffic/savings-tpcc")
                .check(&off)
                .held
        );
        let close = traffic_summary(|m| {
            let s = if m == "cassandra-write" { 20.0 } else { 15.0 };
            (10.0, 5.0, s)
        });
        let order = find(&claims, "thermostat-traffic/savings-order").check(&close);
        assert_eq!(order.values, vec![5.0]);
        assert!(!order.held);
    }

    #[test]
    fn kstaled_claim_reads_redis() {
        let at = |slow: f64| {
            json!({"workloads": MODELS.iter().map(|m| json!({"workload": m,
                "kstaled": {"slowdown": if *m == "redis-hotspot" { slow } else { 0.5 }}}))
                .collect::<Vec<_>>()})
        };
        let v = kstaled()[0].check(&at(0.12));
        assert_eq!(
            v.ours,
            vec![("redis-hotspot".to_string(), "12.0%".to_string())]
        );
        assert!(v.held);
        // Over 3% but not over the paper's 10%; other models' slowdowns
        // do not count.
        assert!(!kstaled()[0].check(&at(0.05)).held);
        let none = kstaled()[0].check(&json!({"workloads": []}));
        assert!(none.reason.unwrap().starts_with("not measured"));
    }

    fn window(t_s: f64, faults: f64) -> Window {
        Window {
            t_s,
            resident_bytes: vec![3, 1],
            accesses_per_s: 0.0,
            slow_tier_accesses_per_s: 0.0,
            slow_tier_faults_per_s: faults,
            precision: None,
            recall: None,
            manager: BTreeMap::new(),
        }
    }

    /// The summary `summarize` makes of `runs`, each run a small report.
    fn summary_of(
        runs: fn(&Options) -> Vec<RunSpec>,
        summarize: fn(&Options, &Results) -> Output,
    ) -> Value {
        crate::claims::testing::summary_of(runs, summarize, |_| Report {
            sim_time_s: 60.0,
            slowdown: 0.01,
            windows: vec![window(30.0, 1000.0), window(60.0, 2000.0)],
            ..Default::default()
        })
    }

    /// A reproduction's claims and a summary of its own.
    type Case = (fn() -> Vec<Claim>, Value);

    /// Every reason's figures are read from paths its own reproduction's
    /// summary has.
    #[test]
    fn every_reason_reads_its_own_summary() {
        use crate::thermostat as t;
        let cases: [Case; 6] = [
            (rate, summary_of(t::default_runs, t::rate)),
            (footprint, summary_of(t::default_runs, t::footprint)),
            (sensitivity, summary_of(t::sensitivity_runs, t::sensitivity)),
            (threads, summary_of(t::threads_runs, t::threads)),
            (traffic, summary_of(t::default_runs, t::traffic)),
            (kstaled, summary_of(t::kstaled_runs, t::kstaled)),
        ];
        for (claims, summary) in cases {
            crate::claims::testing::measured_and_explained(&claims(), &summary);
        }
    }
}
