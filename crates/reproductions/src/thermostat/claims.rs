//! The claims Thermostat's reproductions check
//! (../shared/papers/000_5488ae48d80721cc.txt), measured from the summaries
//! `thermostat.rs` writes.
//!
//! Where the paper gives a single approximate number ("about 15%", "40%")
//! the band is that number +- 5 points: the paper does not say how
//! approximate, so the 5 points are ours (inferred). "Higher" across
//! tolerable slowdowns means more than half a point per step (ours: a change
//! below that is within run-to-run noise of a mean over windows).

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use serde_json::Value;
use thermocline_workloads::thermostat::APPLICATION_MODELS as MODELS;

const FILE: &str = "000_5488ae48d80721cc.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

/// `key` of every model's row under `/workloads`.
fn per_model(v: &Value, key: &str) -> Result<Measured, ClaimError> {
    MODELS
        .iter()
        .map(|m| {
            let r = read::row(v, "/workloads", "workload", m)?;
            Ok((m.to_string(), read::num(r, &format!("/{key}"))?))
        })
        .collect()
}

const SAMPLING_LIMITS: &str = "until 0540cfa the models' cold data was nearly idle, so the \
budget went unused and the cold fraction was limited by how much Thermostat had sampled (5% of \
the mapped huge pages per 30 s; see thermostat-sensitivity/cold-grows-*, issue #20 item 2). \
Since 0540cfa every model carries a warm tail of 30 K line reads/s over its footprint \
(Figure 3's rate over Table 2's resident set; thermocline_workloads::thermostat::WARM_TAIL_PER_S), \
and at 0540cfa (`thermocline run --workload MODEL --manager thermostat-badgertrap`, full length) \
six models settle at 16-28 K/s (cassandra-write 18368, cassandra-read 16120, tpcc 17237, \
aerospike-read 26517, aerospike-write 27136, redis-hotspot 27560). Two do not: analytics \
(3183/s) runs 317 s, too short for Thermostat to sample much of a heap that is still filling, \
and websearch (3362/s) has 1209 huge pages, fewer than each core's 1536-entry STLB holds, so \
its slow pages fault (a BadgerTrap fault is a TLB miss) on few of their accesses";

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
            source: src("section 3.4, Figure 3 (\"keeps the slow memory access rate close to the target\")"),
            paper: "~30 K/s".into(),
            expect: Expect::Band { lo: 15_000.0, hi: 30_000.0 },
            unit: Unit::Num(0),
            measure: Box::new(|v| per_model(v, "mean_last_third_per_s")),
            reason: SAMPLING_LIMITS,
        },
    ]
}

/// The paper's cold fraction at 3% per model (section 5, Figures 5-10):
/// (model, band, as the paper says it, why ours differs where it did).
const COLD: [(&str, f64, f64, &str, &str); 8] = [
    (
        "cassandra-write",
        0.40,
        0.50,
        "40-50%",
        COLD_CASSANDRA_WRITE,
    ),
    (
        "cassandra-read",
        0.35,
        0.45,
        "40% (+-5 inferred)",
        COLD_CASSANDRA_READ,
    ),
    ("tpcc", 0.40, 0.50, "40-50%", COLD_TPCC),
    (
        "aerospike-read",
        0.10,
        0.20,
        "about 15% (+-5 inferred)",
        UNKNOWN,
    ),
    (
        "aerospike-write",
        0.10,
        0.20,
        "about 15% (+-5 inferred)",
        UNKNOWN,
    ),
    (
        "redis-hotspot",
        0.05,
        0.15,
        "10% (+-5 inferred)",
        COLD_REDIS_HOTSPOT,
    ),
    ("analytics", 0.15, 0.20, "15-20%", COLD_ANALYTICS),
    (
        "websearch",
        0.35,
        0.45,
        "about 40% (+-5 inferred)",
        COLD_WEBSEARCH,
    ),
];

// How high a mean cold fraction sampling alone allows: if every unit
// Thermostat samples (5% of the mapped units per 30 s, the first classified
// at 90 s) went cold and stayed cold, the mean over a run of T seconds is
// the mean of 1 - 0.95^k over the run, k the batches classified by then:
// 13.8% at 317 s, 29.7% at 600 s, 52.1% at 1200 s, 72.8% at 2381 s (ours
// can exceed it a little, as units in flight are not drawn again).

const COLD_CASSANDRA_WRITE: &str = "the run was 600 s at abdba54, and nearly every unit \
Thermostat samples goes cold (see thermostat-sensitivity/cold-grows-cassandra-write), so the mean follows the \
sampling ramp: a sampling-limited run (every sampled unit cold, 5% of mapped units per 30 s, first \
classification at 90 s) averages 29.7% over 600 s, ours 25.6% (below it, inferred, because the \
memtable is mapped during the run and sampled as it is). Since 625ec78 the model runs the paper's \
50 M operations at 45 K/s (1111 s, section 4.3), where that bound is 49.5%: measured 45.8% at \
625ec78 (`thermocline reproduce thermostat-sensitivity --check`, 3%) and 46.4/46.0/45.5% on 1/4/16 \
threads at afcd592 (thermostat-threads), inside the band, so the claim is expected to hold when \
this section is regenerated (inferred; the default 8-thread run was not repeated here)";

const COLD_REDIS_HOTSPOT: &str = "at abdba54 Thermostat did not count the TLB shootdowns of its \
own splits, poisonings and collapses against the budget (16.0% cold, 3.22% slowdown); since 53ab8c5 \
the stall is taken off the budget and the model gave 14.8% cold and 2.95% slowdown (at afcd592 and \
2c6e416), inside the band. Since 0540cfa the models carry a warm tail (30 K line reads/s over \
the footprint), and the Redis-like model gives 15.4% cold and 3.09% slowdown at 0540cfa \
(`thermocline run --workload redis-hotspot --manager thermostat-badgertrap`), just above the band: \
the tail's reads mark more of a unit's base pages accessed, so the K = 50 pages Thermostat poisons \
miss a unit's hot page more often; the sampling faults fall (7.6 to 5.3 K/s in the last third), \
leaving more of the budget for slow memory, and units that hold a hot key go cold for a period \
before the correction sends them back (crates/managers/src/thermostat, 'Between corrections')";

/// Why a 3% target was missed at abdba54 (only the Redis-like model did).
const SHOOTDOWNS_OVER_BUDGET: &str = "only redis-hotspot misses. At abdba54 Thermostat did not \
count the TLB shootdowns of its own splits, poisonings and collapses against the budget (3.22%); \
since 53ab8c5 the stall is taken off the budget and the model met its target over the run (2.95% \
at afcd592 and 2c6e416), though not over the run's last third: there the slow tier took 24.1 K \
faults/s against the 19.0 K/s Thermostat counted on its units, since each batch's newly cold units \
include units whose hot base page the K = 50 poisoned pages missed, which the correction sends \
back only a period later (crates/managers/src/thermostat, 'Between corrections'). Since 0540cfa the \
models carry a warm tail (30 K line reads/s over the footprint), which makes that more likely and \
binds the budget sooner: 3.09% at 0540cfa (`thermocline run --workload redis-hotspot --manager \
thermostat-badgertrap`: 14.13 s of slow faults, 2.93 s of sampling faults, 1.66 s of shootdowns \
over 606.7 s ideal)";

const COLD_CASSANDRA_READ: &str = "at 625ec78 over the paper's run, 50 M operations at 21 K/s \
(2381 s, section 4.3), nearly every unit Thermostat sampled went cold (final 93.0%, mean 70.2%, \
0.16% slowdown): the mean followed the sampling ramp, whose mean is 72.8% at 2381 s (5% of mapped \
units per 30 s, first classification at 90 s). Since 0540cfa the models carry a warm tail (30 K \
line reads/s over the footprint): at 0540cfa (`thermocline run --workload cassandra-read --manager \
thermostat-badgertrap`) a batch may add only part of its units, since their tail alone is about \
the 5% x 30 K/s a batch may add (final 78.0%, mean 61.7%), but the slow tier's total stays under \
the budget (16.1 K slow faults/s in the last third, 0.22% slowdown): the whole footprint, tail \
and the model's own SSTable reads, carries about the budget in all. The paper's 2.5% slowdown \
and 40% suggest its Cassandra's cold data was warmer than the model's: the model is not the \
application";

const COLD_TPCC: &str = "measured at 625ec78 (`thermocline reproduce thermostat-footprint \
--check`): mean 36.4%, final 59.0% over the paper's 600 s warm-up and 600 s run (section 4.3), \
Thermostat running throughout and the mean taken over all 1200 s (our reading: the paper does \
not say whether its mean includes the warm-up); the mean of a sampling-limited run (every \
sampled unit cold) is 52.1% at 1200 s, 74.5% over its last 600 s alone (5% of mapped units per \
30 s, first classification at 90 s); at 600 s (abdba54) ours was 21.1%. With the models' warm \
tail (30 K line reads/s over the footprint, since 0540cfa): mean 34.0%, final 54.6%, 17.2 K slow \
faults/s in the last third at 0540cfa";

const COLD_ANALYTICS: &str = "measured at 625ec78 (`thermocline reproduce thermostat-footprint \
--check`): mean 6.5% over the paper's 317 s run, final 16.7% (within the paper's 15-20%); the \
mean of a sampling-limited run (every sampled unit cold, the footprint mapped from the start) is \
13.8% at 317 s (5% of mapped units per 30 s, first classification at 90 s), so a 15-20% mean over \
a 317 s run is more than the paper's own sampling allows; its figure is more likely Figure 9 \
late in the run (inferred). Ours is lower still because the heap grows from 5% to all of 6.2 GiB \
during the run and is sampled as it is mapped. The models' warm tail (since 0540cfa) leaves this \
as it was: 6.6% mean, 16.5% final at 0540cfa";

const COLD_WEBSEARCH: &str = "measured at 625ec78 (`thermocline reproduce thermostat-footprint \
--check`): every unit sampled went cold (final 61.6%), so the mean (30.6%) followed the sampling \
ramp: the mean of a sampling-limited run is 29.7% at 600 s and reaches 40% at about 830 s (5% of \
mapped units per 30 s, first classification at 90 s). The paper gives web search's steady state \
(300 s) but not its whole runtime; our 600 s is inferred. With the models' warm tail (since \
0540cfa) the mean is 25.7% (final 50.8%) at 0540cfa: a sampled unit is split into 512 base pages \
whose TLB misses the tail's reads raise, so its estimate fills the batch's share of the budget \
sooner, while once collapsed in slow memory its 2 MiB translation stays in the STLB (1209 huge \
pages, 1536 entries a core) and it faults rarely (3.4 K/s)";

/// Checked by `thermostat-footprint`.
pub fn footprint() -> Vec<Claim> {
    let mut v: Vec<Claim> = COLD
        .iter()
        .map(|&(m, lo, hi, paper, reason)| Claim {
            id: format!("thermostat-footprint/cold-{m}"),
            sentence: format!("At 3% tolerable slowdown the mean cold fraction of {m} is the paper's"),
            source: src("section 5, Figures 5-10 (\"average cold memory fraction over the benchmark's runtime\")"),
            paper: paper.into(),
            expect: Expect::Band { lo, hi },
            unit: Unit::Percent,
            measure: Box::new(move |v| {
                let r = read::row(v, "/workloads", "workload", m)?;
                Ok(vec![(String::new(), read::num(r, "/mean_cold_fraction")?)])
            }),
            reason,
        })
        .collect();
    v.push(Claim {
        id: "thermostat-footprint/within-target".into(),
        sentence: "At 3% tolerable slowdown every model's achieved slowdown is within 3%".into(),
        source: src("section 5, Figures 5-10 (slowdowns of 1-3%)"),
        paper: "<= 3%".into(),
        expect: Expect::Band { lo: 0.0, hi: 0.03 },
        unit: Unit::Percent,
        measure: Box::new(|v| per_model(v, "slowdown")),
        reason: SHOOTDOWNS_OVER_BUDGET,
    });
    v
}

fn target_cells<'a>(v: &'a Value, m: &str) -> Result<Vec<&'a Value>, ClaimError> {
    let r = read::row(v, "/workloads", "workload", m)?;
    let t = read::at(r, "/targets")?
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

/// Checked by `thermostat-sensitivity`.
pub fn sensitivity() -> Vec<Claim> {
    let mut v: Vec<Claim> = MODELS
        .iter()
        .filter(|&&m| m != "tpcc")
        .map(|&m| Claim {
            id: format!("thermostat-sensitivity/cold-grows-{m}"),
            sentence: format!("{m}: the mean cold fraction grows with the tolerable slowdown (3, 6, 10%)"),
            source: src("section 5.1, Figure 11 (\"with increase in tolerable slowdown Thermostat can place a higher fraction\")"),
            paper: "rises".into(),
            expect: Expect::Trend { rising: true, min_step: 0.005 },
            unit: Unit::Percent,
            measure: Box::new(move |v| cold_by_target(v, m)),
            reason: BUDGET_UNUSED,
        })
        .collect();
    v.push(Claim {
        id: "thermostat-sensitivity/tpcc-saturates".into(),
        sentence: "tpcc: the cold fraction saturates at about 45% whatever the target".into(),
        source: src("section 5.1 (\"cold data fraction saturates at approx 45%\")"),
        paper: "~45% (+-5 inferred)".into(),
        expect: Expect::Band { lo: 0.40, hi: 0.50 },
        unit: Unit::Percent,
        measure: Box::new(|v| cold_by_target(v, "tpcc")),
        reason: "measured at 625ec78 (`thermocline reproduce thermostat-footprint \
thermostat-sensitivity --check`, the paper's 1200 s run): 36.4%, 41.0% and 47.1% at 3, 6 and 10%, \
so 6% and 10% are in the band and 3% is not, and ours keeps growing with the target: the budget \
still binds at 3% and 6% (which units it keeps hot was not measured), where the paper found only highly \
accessed pages left; at 10% the mean nears the 52.1% a sampling-limited 1200 s run allows (see \
thermostat-footprint/cold-tpcc)",
    });
    for (i, target) in [0.03, 0.06, 0.10].into_iter().enumerate() {
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
            reason: if i == 0 {
                SHOOTDOWNS_OVER_BUDGET
            } else {
                UNKNOWN
            },
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

/// Where a model's cold fraction does not grow with the target: its budget
/// is never what stops it (measured at b8d7b15 on every batch).
const BUDGET_UNUSED: &str = "until 0540cfa, on cassandra-read, cassandra-write, analytics and \
websearch nearly every unit Thermostat sampled was classified cold already at 3% (a batch's \
summed rate was below the 5% x 30 K/s it may add), so the cold fraction was set by how many units \
had been sampled by then (5% of the mapped units per 30 s), not by the budget, whatever the thread \
count (issue #20 item 2; at 625ec78, 3/6/10%: cassandra-write 45.8/46.5/46.5%, cassandra-read \
70.2/72.2/72.2%, analytics 6.5% at all three, websearch 30.6/31.1/31.1%). Since 0540cfa the models \
carry a warm tail of 30 K line reads/s over the footprint, about what a batch may add at 3%: at 3% \
part of each batch stays hot, so the cold fraction rises from 3% to 6%, but at 6% and 10% nearly \
every sampled unit goes cold again and the sampling ramp sets it (at 0540cfa, `thermocline run \
--workload MODEL --manager thermostat-badgertrap --set thermostat-badgertrap.slowdown=X`: \
cassandra-write 44.9/46.2/46.5%, cassandra-read 61.7/71.9/72.0%, websearch 25.7/30.7/31.2%); \
analytics' 317 s run samples too little of its filling heap for either (6.6% at all three)";

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
            reason: UNKNOWN,
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
    for m in MODELS.iter().filter(|&&m| m != "tpcc") {
        v.push(Claim {
            id: format!("thermostat-threads/cold-grows-{m}"),
            sentence: format!("{m}: on 1, 4 and 16 threads the mean cold fraction is higher at 10% than at 3% (Figure 11's shape)"),
            source: src("section 5.1, Figure 11 (\"with increase in tolerable slowdown Thermostat can place a higher fraction\")"),
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
            reason: BUDGET_UNUSED,
        });
    }
    v
}

/// Checked by `thermostat-traffic`.
pub fn traffic() -> Vec<Claim> {
    vec![
        Claim {
            id: "thermostat-traffic/migration-under-30".into(),
            sentence: "Migration bandwidth is under 30 MB/s on average across the models".into(),
            source: src("section 5.2, Table 3 (\"< 30 MB/s on average across all benchmarks\")"),
            paper: "< 30 MB/s (Table 3: 1.6-16)".into(),
            expect: Expect::Band { lo: 0.0, hi: 30.0 },
            unit: Unit::Num(1),
            measure: Box::new(|v| {
                let m = per_model(v, "migration_mb_per_s")?;
                let mean = m.iter().map(|x| x.1).sum::<f64>() / m.len().max(1) as f64;
                Ok(vec![("mean MB/s".into(), mean)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "thermostat-traffic/total-under-60".into(),
            sentence: "No model moves more than 60 MB/s to and from slow memory (migration plus false classification)".into(),
            source: src("section 5.2, Table 3 (\"the highest total traffic ... is 60 MB/s\")"),
            paper: "<= 60 MB/s".into(),
            expect: Expect::Band { lo: 0.0, hi: 60.0 },
            unit: Unit::Num(1),
            measure: Box::new(|v| {
                let a = per_model(v, "migration_mb_per_s")?;
                let b = per_model(v, "false_classification_mb_per_s")?;
                Ok(a.into_iter().zip(b).map(|(x, y)| (x.0, x.1 + y.1)).collect())
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "thermostat-traffic/savings-range".into(),
            sentence: "At slow memory 1/5 of DRAM's cost every model saves between about 10% (Aerospike) and 32% (Cassandra) of DRAM spending".into(),
            source: src("section 5.3, Table 4 (0.2x column: 10-32%)"),
            paper: "10-32%".into(),
            expect: Expect::Band { lo: 10.0, hi: 32.0 },
            unit: Unit::Num(1),
            measure: Box::new(|v| {
                MODELS
                    .iter()
                    .map(|m| {
                        let r = read::row(v, "/workloads", "workload", m)?;
                        Ok((m.to_string(), read::num(r, "/savings_pct/2")?))
                    })
                    .collect()
            }),
            reason: "savings are mean cold fraction x (1 - cost ratio), so they follow \
thermostat-footprint/cold-*",
        },
        Claim {
            id: "thermostat-traffic/savings-order".into(),
            sentence: "Cassandra saves more of DRAM spending than Aerospike".into(),
            source: src("section 5.3, Table 4 (0.2x: Cassandra 32%, Aerospike 12%)"),
            paper: "32% > 12%".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Num(1),
            measure: Box::new(|v| {
                ["cassandra-write", "aerospike-read"]
                    .iter()
                    .map(|m| {
                        let r = read::row(v, "/workloads", "workload", m)?;
                        Ok((m.to_string(), read::num(r, "/savings_pct/2")?))
                    })
                    .collect()
            }),
            reason: UNKNOWN,
        },
    ]
}

/// Checked by `thermostat-kstaled`.
pub fn kstaled() -> Vec<Claim> {
    vec![Claim {
        id: "thermostat-kstaled/misses-target".into(),
        sentence: "Accessed-bit scanning (kstaled) that finds cold pages causes unacceptable slowdowns: it exceeds the 3% target on at least one model".into(),
        source: src("section 2.1 (qualitative; the 3% threshold is section 5's target, inferred)"),
        paper: "> 3% somewhere".into(),
        expect: Expect::Band { lo: 0.03, hi: f64::INFINITY },
        unit: Unit::Percent,
        measure: Box::new(|v| {
            let worst = MODELS
                .iter()
                .map(|m| {
                    let r = read::row(v, "/workloads", "workload", m)?;
                    Ok((m.to_string(), read::num(r, "/kstaled/slowdown")?))
                })
                .collect::<Result<Vec<_>, ClaimError>>()?
                .into_iter()
                .max_by(|a, b| a.1.total_cmp(&b.1));
            Ok(worst.into_iter().collect())
        }),
        reason: UNKNOWN,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
                {
                    let targets: Vec<Value> = [0.03, 0.06, 0.10]
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            json!({"target": t, "mean_cold_fraction": c[i], "slowdown": slow[i]})
                        })
                        .collect();
                    json!({"workload": m, "targets": targets})
                }
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
                "tpcc" => [0.44, 0.45, 0.46],
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
        assert!(
            find(&claims, "thermostat-sensitivity/tpcc-saturates")
                .check(&v)
                .held
        );
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
        let over = sensitivity_summary(|_| [0.1, 0.2, 0.3], [0.031, 0.05, 0.1]);
        assert!(
            !find(&claims, "thermostat-sensitivity/met-3pct")
                .check(&over)
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

    #[test]
    fn traffic_averages_migration_and_adds_false_classification() {
        let rows: Vec<Value> = MODELS
            .iter()
            .enumerate()
            .map(|(i, m)| {
                json!({"workload": m, "migration_mb_per_s": 10.0 * i as f64,
                "false_classification_mb_per_s": 1.0, "savings_pct": [20.0, 22.0, 25.0 - i as f64]})
            })
            .collect();
        let v = json!({ "workloads": rows });
        let claims = traffic();
        // Mean of 0, 10, ..., 70 is 35: over 30 MB/s.
        let mean = find(&claims, "thermostat-traffic/migration-under-30").check(&v);
        assert_eq!(mean.values, vec![35.0]);
        assert!(!mean.held);
        // The largest total is 70 + 1.
        let total = find(&claims, "thermostat-traffic/total-under-60").check(&v);
        assert_eq!(total.values.last(), Some(&71.0));
        assert!(!total.held);
        // Savings at 0.2x: cassandra-write (row 0) 25 > aerospike-read (row 3) 22.
        let order = find(&claims, "thermostat-traffic/savings-order").check(&v);
        assert_eq!(order.values, vec![25.0, 22.0]);
        assert!(order.held);
    }

    #[test]
    fn kstaled_claim_reads_the_worst_model() {
        let rows: Vec<Value> = MODELS
            .iter()
            .enumerate()
            .map(|(i, m)| json!({"workload": m, "kstaled": {"slowdown": 0.01 * i as f64}}))
            .collect();
        let v = kstaled()[0].check(&json!({ "workloads": rows }));
        assert_eq!(v.ours, vec![("websearch".to_string(), "7.0%".to_string())]);
        assert!(v.held);
        let flat = kstaled()[0].check(&json!({"workloads": MODELS.iter()
            .map(|m| json!({"workload": m, "kstaled": {"slowdown": 0.029}})).collect::<Vec<_>>()}));
        assert!(!flat.held);
    }
}
