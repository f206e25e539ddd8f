//! The claims `heteroos-sensitivity` and `heteroos-pages` check
//! (../shared/papers/001_f8c99e4789a9a37b.txt, section 2.2 and section 3.2),
//! measured from the summaries `heteroos_sensitivity.rs` writes.
//!
//! Figures 1, 3 and 4 are images: only the numbers the text gives (Nginx
//! under 10% in a 9x SlowMem, Remote NUMA under 30%, GraphChi and X-Stream
//! under 2x at 1/2) are checked as numbers, each a slowdown between none
//! (1x) and the paper's bound; the rest are the orderings the text states.
//! Where the text's words need a threshold ("small fraction", "~90%") the
//! threshold is ours and the claim says so.
//!
//! The summary writes a slowdown factor of 0 for a run it lacks; a factor
//! is read as missing unless positive, so the claim says "not measured".

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use crate::heteroos::sensitivity_setup::{slow_labels, PAGE_TABLES, RATIOS, REMOTE};
use serde_json::Value;

const FILE: &str = "001_f8c99e4789a9a37b.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

const MEMORY_INTENSIVE: [&str; 3] = ["graphchi", "xstream", "metis"];
const LOWER_IMPACT: [&str; 2] = ["leveldb", "redis"];
const GRAPH: [&str; 2] = ["graphchi", "xstream"];
const NOT_GRAPH: [&str; 3] = ["metis", "redis", "leveldb"];
/// The models the text names for Remote NUMA.
const REMOTE_NAMED: [&str; 3] = ["graphchi", "xstream", "redis"];
/// Observation 3's I/O-intensive models, and the heap-intensive rest.
const IO_MODELS: [&str; 3] = ["leveldb", "xstream", "redis"];
const HEAP_MODELS: [&str; 2] = ["graphchi", "metis"];
const ALL: [&str; 6] = ["graphchi", "xstream", "metis", "leveldb", "redis", "nginx"];

/// The slowdown factor at `path`, empty unless positive (the summary
/// writes 0 for a run it lacks, and JSON has no infinity).
fn factor(v: &Value, path: &str) -> Result<f64, ClaimError> {
    read::positive(v, path, "0 or not finite: no run")
}

fn slowdown(v: &Value, model: &str, config: &str) -> Result<f64, ClaimError> {
    factor(v, &format!("/slowdown/{model}/{config}"))
}

fn capacity(v: &Value, model: &str, key: &str) -> Result<f64, ClaimError> {
    factor(v, &format!("/capacity/{model}/{key}"))
}

/// The least of `f` over `models` minus the greatest over `others`.
fn gap(
    models: &[&str],
    others: &[&str],
    f: impl Fn(&str) -> Result<f64, ClaimError>,
) -> Result<f64, ClaimError> {
    let lo = models
        .iter()
        .map(|m| f(m))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    let hi = others
        .iter()
        .map(|m| f(m))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .fold(f64::NEG_INFINITY, f64::max);
    Ok(lo - hi)
}

const NGINX_ALL_MISSES: &str = "every access of the Nginx-like model is a last-level-cache \
miss at Table 4's MPKI with its compute between misses, and nothing else: it has no network or \
disk waits, which in the real server would dilute the memory time (the paper calls Nginx \
storage- and network-intensive), so all in SlowMem at L:5,B:9 it slows by \
{/slowdown/nginx/L:5,B:9:x} and at L:5,B:12 by {/slowdown/nginx/L:5,B:12:x}";

const LATENCY_BOUND: &str = "the models are latency-bound at every configuration: they issue \
one line per access and no batched traffic, so they ask SlowMem for less bandwidth than even \
L:5,B:12 gives, and L:5,B:5 and L:5,B:9, which share a latency, give the same slowdown \
(GraphChi-like {/slowdown/graphchi/L:5,B:5:x} and {/slowdown/graphchi/L:5,B:9:x}, X-Stream-like \
{/slowdown/xstream/L:5,B:5:x} and {/slowdown/xstream/L:5,B:9:x}); batched traffic is what the paper \
credits for the graph applications' bandwidth sensitivity";

const XSTREAM_LONG_LIVED: &str = "the X-Stream-like model's page cache is a ring that holds most \
of its footprint and takes most of its accesses, and its pages are dropped only when the ring \
wraps, not after each I/O; under NUMA-preferred nothing else leaves FastMem, so the share of its \
page-cache accesses FastMem serves shrinks with FastMem as the heap models' heaps do (from 1/2 to \
1/16 its slowdown goes from {/capacity/xstream/1:2:x} to {/capacity/xstream/1:16:x}, the \
GraphChi-like model's from {/capacity/graphchi/1:2:x} to {/capacity/graphchi/1:16:x}). The \
paper's argument rests on OS pages being \"released once an I/O is complete\"";

/// Checked by `heteroos-sensitivity`.
pub fn sensitivity() -> Vec<Claim> {
    vec![
        Claim {
            id: "heteroos-sensitivity/memory-intensive-slow-most".into(),
            sentence: "At every SlowMem configuration, the memory-intensive GraphChi-, X-Stream- and Metis-like models slow down more than the LevelDB- and Redis-like ones (the least of the three minus the greatest of the two)".into(),
            source: src("section 2.2, Figure 1 (\"Memory-intensive applications such as Graphchi, X-Stream, and Metis ... show higher sensitivity ... In contrast, the storage-intensive LevelDB and network-intensive Redis ... show lower impact\"; Table 4 MPKI 27.4, 24.8, 14.9 against 4.7, 11.1)"),
            paper: "higher sensitivity".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Num(2),
            measure: Box::new(|v| {
                slow_labels()
                    .into_iter()
                    .map(|c| {
                        let g = gap(&MEMORY_INTENSIVE, &LOWER_IMPACT, |m| slowdown(v, m, &c))?;
                        Ok((c, g))
                    })
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-sensitivity/nginx-under-10pct-at-b9".into(),
            sentence: "The Nginx-like model, all in SlowMem at L:5,B:9, slows down by less than 10%".into(),
            source: src("section 2.2, Figure 1 (\"even exclusively placing it in a 9x SlowMem has less than 10% impact\"; the impact is a slowdown, so from none, 1x, to the paper's bound)"),
            paper: "< 10% (< 1.10x)".into(),
            expect: Expect::Band { lo: 1.0, hi: 1.10 },
            unit: Unit::Times,
            measure: Box::new(|v| Ok(vec![("nginx".into(), slowdown(v, "nginx", "L:5,B:9")?)])),
            reason: NGINX_ALL_MISSES,
        },
        Claim {
            id: "heteroos-sensitivity/bandwidth-hurts-graph-models-most".into(),
            sentence: "From L:5,B:5 to L:5,B:12, the GraphChi- and X-Stream-like models' slowdown grows by a larger factor than the Metis-, Redis- and LevelDB-like models' (the least growth of the two minus the greatest of the three)".into(),
            source: src("section 2.2, Figure 1 (\"except Graphchi and X-Stream, other applications have a lower impact from bandwidth reduction ... when the bandwidth is reduced from (L:5, B:5) to (L:5, B:12) with latency as a constant, Metis, Redis and LevelDB show a relatively lower slowdown\"); Table 3 measures 354 and 960 ns at those columns"),
            paper: "GraphChi, X-Stream grow more".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Num(3),
            measure: Box::new(|v| {
                let growth = |m: &str| {
                    Ok(slowdown(v, m, "L:5,B:12")? / slowdown(v, m, "L:5,B:5")?)
                };
                Ok(vec![("margin".into(), gap(&GRAPH, &NOT_GRAPH, growth)?)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-sensitivity/graph-models-bandwidth-sensitive".into(),
            sentence: "Bandwidth alone hurts the GraphChi- and X-Stream-like models: from L:5,B:5 to L:5,B:9 (5.1 to 2.67 GB/s at 354 ns in both presets; L:5,B:9's latency is inferred) their slowdown factor rises".into(),
            source: src("section 2.2, Observation 1, Figure 1 (\"except Graphchi and X-Stream, other applications have a lower impact from bandwidth reduction ... multi-threaded graph-compute applications process and move data in batches, thereby increasing memory traffic\")"),
            paper: "bandwidth-sensitive".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Num(3),
            measure: Box::new(|v| {
                GRAPH
                    .iter()
                    .map(|m| {
                        let rise = slowdown(v, m, "L:5,B:9")? - slowdown(v, m, "L:5,B:5")?;
                        Ok((m.to_string(), rise))
                    })
                    .collect()
            }),
            reason: LATENCY_BOUND,
        },
        Claim {
            id: "heteroos-sensitivity/remote-numa-under-30pct".into(),
            sentence: "With the whole footprint in FastMem on the remote socket, every model slows down by less than 30%".into(),
            source: src("section 2.2, Observation 2, Figure 1 (\"even for the most memory-intensive (Graphchi, X-stream) or in-memory applications (Redis), the slowdown is less than 30%\": from none, 1x, to the paper's bound); remote latency and bandwidth inferred (see the presets)"),
            paper: "< 30% (< 1.30x)".into(),
            expect: Expect::Band { lo: 1.0, hi: 1.30 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                ALL.iter()
                    .map(|m| Ok((m.to_string(), slowdown(v, m, REMOTE)?)))
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-sensitivity/remote-below-slowmem".into(),
            sentence: "On the GraphChi-, X-Stream- and Redis-like models, Remote NUMA slows down less than every SlowMem configuration (the least SlowMem slowdown minus Remote NUMA's)".into(),
            source: src("section 2.2, Observation 2 (\"less than 30% compared to significantly higher slowdowns in heterogeneous memory\")"),
            paper: "significantly higher in SlowMem".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Num(2),
            measure: Box::new(|v| {
                REMOTE_NAMED
                    .iter()
                    .map(|m| {
                        let least = slow_labels()
                            .iter()
                            .map(|c| slowdown(v, m, c))
                            .collect::<Result<Vec<_>, _>>()?
                            .into_iter()
                            .fold(f64::INFINITY, f64::min);
                        Ok((m.to_string(), least - slowdown(v, m, REMOTE)?))
                    })
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-sensitivity/graph-models-under-2x-at-half".into(),
            sentence: "At L:5,B:9 with FastMem:SlowMem 1/2, the capacity-intensive GraphChi- and X-Stream-like models slow down by less than 2x".into(),
            source: src("section 2.2, Observation 3, Figure 3 (\"the capacity-intensive Graphchi and X-Stream suffer less than 2x slowdown even with a 1/2 FastMem-SlowMem ratio\": from none, 1x, to the paper's bound)"),
            paper: "< 2x".into(),
            expect: Expect::Band { lo: 1.0, hi: 2.0 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                GRAPH
                    .iter()
                    .map(|m| Ok((m.to_string(), capacity(v, m, RATIOS[0].1)?)))
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-sensitivity/io-models-flatter-with-capacity".into(),
            sentence: "From FastMem:SlowMem 1/2 to 1/16, the I/O-intensive LevelDB-, X-Stream- and Redis-like models' slowdown grows by a smaller factor than the heap-intensive GraphChi- and Metis-like models' (the least growth of the heap models minus each I/O model's; our reading of \"significantly lower impact\")".into(),
            source: src("section 2.2, Observation 3, Figure 3 (LevelDB, X-Stream, Redis: \"These applications show significantly lower impact even as the FastMem capacity ratio is reduced from 1/2 to 1/16\")"),
            paper: "lower impact".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Num(3),
            measure: Box::new(|v| {
                let (first, last) = (RATIOS[0].1, RATIOS[RATIOS.len() - 1].1);
                let growth =
                    |m: &str| Ok(capacity(v, m, last)? / capacity(v, m, first)?);
                IO_MODELS
                    .iter()
                    .map(|m| Ok((m.to_string(), gap(&HEAP_MODELS, &[*m], growth)?)))
                    .collect()
            }),
            reason: XSTREAM_LONG_LIVED,
        },
    ]
}

fn page_share(v: &Value, model: &str, label: &str) -> Result<f64, ClaimError> {
    read::num(v, &format!("/share/{model}/{label}"))
}

/// The share of OS pages (page cache, buffer cache, slab) in `model`'s
/// allocations.
fn os_share(v: &Value, model: &str) -> Result<f64, ClaimError> {
    Ok(page_share(v, model, "page cache")?
        + page_share(v, model, "buffer cache")?
        + page_share(v, model, "slab")?)
}

/// `label`'s share on `model` minus the greatest on the other models.
fn leads(v: &Value, model: &str, label: &str) -> Result<Measured, ClaimError> {
    let others: Vec<&str> = ALL.iter().copied().filter(|m| *m != model).collect();
    Ok(vec![(
        format!("{model} over the next"),
        gap(&[model], &others, |m| page_share(v, m, label))?,
    )])
}

/// Checked by `heteroos-pages`.
pub fn pages() -> Vec<Claim> {
    vec![
        Claim {
            id: "heteroos-pages/io-models-allocate-os-pages".into(),
            sentence: "OS pages (page cache, buffer cache, slab) are a larger share of the LevelDB-, X-Stream- and Redis-like models' allocations than of the GraphChi- and Metis-like models' (each I/O model's share minus the greater heap model's)".into(),
            source: src("section 2.2, Observation 3, Figure 4 (\"a significant number of OS pages are allocated for the filesystem-intensive LevelDB, the page-cache intensive X-Stream ... and the network kernel buffer-intensive Redis\")"),
            paper: "significant (no numbers)".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                IO_MODELS
                    .iter()
                    .map(|m| Ok((m.to_string(), gap(&[*m], &HEAP_MODELS, |x| os_share(v, x))?)))
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-pages/xstream-page-cache-most".into(),
            sentence: "The X-Stream-like model has the largest page-cache share of the six (its share minus the next model's)".into(),
            source: src("section 2.2, Figure 4 (\"the page-cache intensive X-Stream (as it maps input graph to page cache)\")"),
            paper: "page-cache intensive".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| leads(v, "xstream", "page cache")),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-pages/redis-slab-most".into(),
            sentence: "The Redis-like model has the largest slab (network buffer) share of the six (its share minus the next model's)".into(),
            source: src("section 2.2 and 3.2, Figure 4 (\"the network kernel buffer-intensive Redis\"; \"Network-intensive applications extensively use slab pages for OS-level network buffers 'skbuff' (see Redis in Figure 4)\")"),
            paper: "slab-intensive".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| leads(v, "redis", "slab")),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-pages/heap-dominates-in-memory-models".into(),
            sentence: "The heap is about 90% or more of the in-memory GraphChi- and Metis-like models' allocations (85% and up, our tolerance for \"~90%\")".into(),
            source: src("section 3.2 (\"For in-memory applications, most memory allocations and references (~90%) are from the heap\"), Figure 4"),
            paper: "~90%".into(),
            expect: Expect::Band { lo: 0.85, hi: 1.0 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                HEAP_MODELS
                    .iter()
                    .map(|m| Ok((m.to_string(), page_share(v, m, "heap")?)))
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-pages/page-tables-small".into(),
            sentence: "Page-table pages are a small fraction of every model's pages (under 1%, our threshold for \"just a small fraction\")".into(),
            source: src("section 3.2, Figure 4 (\"the number of page table pages and the time spent on accessing these pages is just a small fraction of the overall application and other OS-level pages\")"),
            paper: "small fraction".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.01 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                ALL.iter()
                    .map(|m| Ok((m.to_string(), page_share(v, m, PAGE_TABLES)?)))
                    .collect()
            }),
            reason: UNKNOWN,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heteroos::placement_claims::fixture;
    use serde_json::{json, Map};

    fn find(claims: Vec<Claim>, id: &str) -> Claim {
        claims.into_iter().find(|c| c.id == id).unwrap()
    }

    /// A `heteroos-sensitivity` summary: `f(model, column)` for every
    /// column of Figures 1 and 3.
    fn summary(f: impl Fn(&str, &str) -> f64) -> Value {
        let mut fig1 = Map::new();
        let mut fig3 = Map::new();
        for m in ALL {
            let mut per = Map::new();
            for c in slow_labels().iter().map(String::as_str).chain([REMOTE]) {
                per.insert(c.into(), json!(f(m, c)));
            }
            fig1.insert(m.into(), Value::Object(per));
            let mut cap = Map::new();
            for (_, key, _) in RATIOS {
                cap.insert(key.into(), json!(f(m, key)));
            }
            fig3.insert(m.into(), Value::Object(cap));
        }
        json!({ "slowdown": fig1, "capacity": fig3 })
    }

    /// Each bound is a slowdown from none (1x) to the paper's: a speedup,
    /// a factor over the bound and a missing run (written 0) do not hold.
    #[test]
    fn the_papers_bounds_are_slowdowns_below_them() {
        for (id, column, bound) in [
            (
                "heteroos-sensitivity/nginx-under-10pct-at-b9",
                "L:5,B:9",
                1.10,
            ),
            ("heteroos-sensitivity/remote-numa-under-30pct", REMOTE, 1.30),
            (
                "heteroos-sensitivity/graph-models-under-2x-at-half",
                "1:2",
                2.0,
            ),
        ] {
            let c = find(sensitivity(), id);
            let at = |x: f64| summary(move |_, col| if col == column { x } else { 3.0 });
            assert!(c.check(&at(1.0)).held, "{id}");
            assert!(c.check(&at(bound - 0.01)).held, "{id}");
            assert!(!c.check(&at(bound + 0.01)).held, "{id}");
            assert!(!c.check(&at(0.95)).held, "{id}");
            let missing = c.check(&at(0.0));
            assert!(!missing.held, "{id}");
            assert!(missing.reason.unwrap().starts_with("not measured"), "{id}");
        }
    }

    #[test]
    fn the_nginx_reason_shows_the_runs_slowdown() {
        let c = find(
            sensitivity(),
            "heteroos-sensitivity/nginx-under-10pct-at-b9",
        );
        let v = c.check(&summary(|_, col| if col == "L:5,B:9" { 1.14 } else { 1.2 }));
        assert!(!v.held);
        let why = v.reason.unwrap();
        assert!(why.contains("at L:5,B:9 it slows by 1.14x"), "{why}");
    }

    #[test]
    fn reasons_read_fields_the_summaries_have() {
        fixture::reasons_resolve("heteroos-sensitivity");
        fixture::reasons_resolve("heteroos-pages");
    }
}
