//! The claims Memos' evaluation reproductions check
//! (../shared/papers/003_4ce7a4cbf1361ba3.txt, sections 4.4 and 6.1-6.3),
//! measured from the summaries `eval.rs`, `breakdown.rs` and `steps.rs`
//! write.
//!
//! Figures 9-13 are images: only what the text states is checked, as
//! numbers where it gives them. Each claim's source states its tolerance
//! and why; tolerances the paper does not give are ours and marked
//! *inferred*. A run that is missing, or a share of nothing (no pages, no
//! moves, no DMA copies), is "not measured", never a 0 that a band could
//! hold.

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use crate::memos::setup::{CLOUD, ENERGY, FIG12, MIXES, PAPER_TABLE2, TABLE2};
use serde_json::Value;

const FILE: &str = "003_4ce7a4cbf1361ba3.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

/// `pointer` (with `{m}` for the model) on each model of `models`.
fn per_model(v: &Value, models: &[&str], pointer: &str) -> Result<Measured, ClaimError> {
    models
        .iter()
        .map(|m| Ok((m.to_string(), read::num(v, &pointer.replace("{m}", m))?)))
        .collect()
}

fn one(label: &str, v: f64) -> Measured {
    vec![(label.to_string(), v)]
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// A number the summary writes as 0 when there is nothing to measure,
/// read as empty then.
fn positive(v: &Value, pointer: &str, why: &str) -> Result<f64, ClaimError> {
    read::positive(v, pointer, why)
}

/// `sys`'s time over 32 GB of DRAM's on each of Table 2's models. The
/// summary writes 0 for a run that is missing: that is not measured.
fn norm_times(v: &Value, sys: &str) -> Result<Measured, ClaimError> {
    TABLE2
        .iter()
        .map(|m| {
            let at = format!("/norm_time/{m}/{sys}");
            Ok((m.to_string(), positive(v, &at, "run missing")?))
        })
        .collect()
}

/// The mean of `sys`'s normalised times over every Table 2 model.
fn mean_norm_time(v: &Value, sys: &str) -> Result<f64, ClaimError> {
    let xs: Vec<f64> = norm_times(v, sys)?.into_iter().map(|x| x.1).collect();
    Ok(mean(&xs))
}

/// Why `memos-performance/dram-cache-near-dram` does not hold.
const CACHE_MISSES: &str = "the mean mixes the models whose footprint the scaled DRAM cache \
holds, which run at about all-DRAM's time once their lines are in it (mcf-like \
{/norm_time/mcf/DRAM cache 4-32:x}, hmmer-like {/norm_time/hmmer/DRAM cache 4-32:x}), with the \
Aerospike- and MySQL-like models, whose footprints exceed it, so that their misses go to NVM \
(Aerospike-like {/norm_time/aerospike/DRAM cache 4-32:x}, MySQL-like \
{/norm_time/mysql/DRAM cache 4-32:x})";

/// Why `memos-performance/memos-near-dram` does not hold.
const MEMOS_VS_DRAM: &str = "HyMM's TLB-miss counting (each counted miss a poisoned-PTE fault) \
and the pages still in NVM: data start in NVM (section 6.1), nothing moves before the first \
preparation ends, then at most one batch per cycle, so the larger models end with most of their \
pages in NVM (Memos over all-DRAM: mcf-like {/norm_time/mcf/Memos 4-32:x}, MySQL-like \
{/norm_time/mysql/Memos 4-32:x}). Nothing makes DRAM itself faster than all-DRAM in our machine \
model: on Figure 9's mixes bank and slab placement barely change memory time (memos-steps), so \
the paper's gain has no source here";

/// Checked by `memos-performance`.
pub fn performance() -> Vec<Claim> {
    let (all_nvm, random, cache, memos) = (
        FIG12[1].label,
        FIG12[2].label,
        FIG12[3].label,
        FIG12[4].label,
    );
    vec![
        Claim {
            id: "memos-performance/all-nvm-slower".into(),
            sentence: "All-NVM runs slower than 32 GB of DRAM on every model".into(),
            source: src("section 6.2, Figure 12 (\"the systems with all NVM perform worse due to NVM's longer latency\"; no number in the text, so a direction)"),
            paper: "> 1".into(),
            expect: Expect::Band { lo: 1.0 + 1e-9, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(move |v| norm_times(v, all_nvm)),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-performance/random-slower".into(),
            sentence: "Random mapping between DRAM and NVM runs slower than 32 GB of DRAM on every model".into(),
            source: src("section 6.2, Figure 12 (\"if the memory pages are randomly mapped between memories, the NVM latency is also an un-negligible factor and leading to lower overall performance\"; no number, so a direction)"),
            paper: "> 1".into(),
            expect: Expect::Band { lo: 1.0 + 1e-9, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(move |v| norm_times(v, random)),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-performance/dram-cache-near-dram".into(),
            sentence: "4 GB of DRAM as a hardware cache of NVM runs about 4% longer than all DRAM, on average".into(),
            source: src("section 6.2, Figure 12 (\"This approach has around 4% higher execution time than all DRAM cases\"; the excess within half of 4% either way, inferred: \"around\", and the paper gives no spread; it stays a slowdown)"),
            paper: "4% longer".into(),
            expect: Expect::Ratio { paper: 0.04, tolerance: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(move |v| Ok(one("mean excess", mean_norm_time(v, cache)? - 1.0))),
            reason: CACHE_MISSES,
        },
        Claim {
            id: "memos-performance/memos-near-dram".into(),
            sentence: "Memos on 4 GB DRAM + 32 GB NVM runs about 5% faster than all DRAM, on average".into(),
            source: src("section 6.2, Figure 12 (\"Memos provides near or even better performance on MCHA than system with all DRAM (around 5% benefits, on average)\"; the gain within half of 5% either way, inferred: \"around\", and the paper gives no spread; it stays a gain)"),
            paper: "5% faster".into(),
            expect: Expect::Ratio { paper: 0.05, tolerance: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(move |v| Ok(one("mean gain", 1.0 - mean_norm_time(v, memos)?))),
            reason: MEMOS_VS_DRAM,
        },
        Claim {
            id: "memos-performance/memos-beats-random".into(),
            sentence: "Memos runs faster than random mapping on the same hybrid machine, on average".into(),
            source: src("section 6.2, Figure 12 (random mapping: \"leading to lower overall performance\"; Memos: \"near or even better performance on MCHA than system with all DRAM\"; no number for the pair, so a direction)"),
            paper: "random > Memos".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Times,
            measure: Box::new(move |v| {
                Ok(vec![
                    (random.to_string(), mean_norm_time(v, random)?),
                    (memos.to_string(), mean_norm_time(v, memos)?),
                ])
            }),
            reason: UNKNOWN,
        },
    ]
}

/// Why `memos-lifetime/longer-than-random-memcached` does not hold.
const MEMCACHED_WRITES: &str = "the Memcached-like model's popular slab class changes with each \
phase of its work, so each cycle's TLB count and the moves that follow fall in different classes: \
the pages moved are the previous class's, idle in the next, and go back by DMA; NVM then takes \
nearly all of its writes plus the DMA copies (NVM lifetime under Memos \
{/lifetime/memcached/memos_years:2} against random mapping's {/lifetime/memcached/random_years:2}, \
in the scaled NVM's years; {/dma/memcached/moved:0} pages copied back by DMA)";

/// Checked by `memos-lifetime`.
pub fn lifetime() -> Vec<Claim> {
    let mut v: Vec<Claim> = PAPER_TABLE2
        .iter()
        .map(|&(model, rnd, mem)| {
            let gain = mem / rnd;
            Claim {
                id: format!("memos-lifetime/longer-than-random-{model}"),
                sentence: format!(
                    "{model}-like: Memos' NVM lasts about {gain:.1}x as long as under random mapping"
                ),
                source: src("section 6.3, Table 2 (\"128GB NVM's lifetime (yrs) w/ and w/o Memos\", random mapping against Memos; within half either way, inferred: Table 2 gives one run per row and no spread, our NVM is scaled with the footprint, and half either way keeps every row's band above 1x)"),
                paper: format!("{gain:.1}x ({rnd} -> {mem} years)"),
                expect: Expect::Ratio {
                    paper: gain,
                    tolerance: 0.5,
                },
                unit: Unit::Times,
                measure: Box::new(move |v| per_model(v, &[model], "/lifetime/{m}/gain")),
                reason: if model == "memcached" {
                    MEMCACHED_WRITES
                } else {
                    UNKNOWN
                },
            }
        })
        .collect();
    v.extend([
        Claim {
            id: "memos-lifetime/mcf-gains-most".into(),
            sentence: "The lifetime gain is largest on the mcf-like model among Table 2's single models".into(),
            source: src("section 6.3, Table 2 (\"improve the NVM life by up to 34X (mcf)\"; Table 2's multi-programmed row is not run, and xalancbmk has no row of its own)"),
            paper: "mcf 34.4x > 4.4x-25.8x".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let mcf = read::num(v, "/lifetime/mcf/gain")?;
                let others = per_model(v, &["hmmer", "memcached", "aerospike", "redis", "mysql"], "/lifetime/{m}/gain")?;
                let best = others
                    .into_iter()
                    .fold(None::<(String, f64)>, |b, x| match b {
                        Some(b) if b.1 >= x.1 => Some(b),
                        _ => Some(x),
                    })
                    .expect("five models");
                Ok(vec![
                    ("mcf".into(), mcf),
                    (format!("best other ({})", best.0), best.1),
                ])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-lifetime/wd-pages-leave-nvm".into(),
            sentence: "Memos moves most hot write-dominated pages out of NVM (83.2% on average)".into(),
            source: src("section 6.3 (\"Memos moves 83.2% of Hot and WD pages out of NVM, on average\"; within 15 points, inferred: the paper gives one average and no spread)"),
            paper: "83.2%".into(),
            expect: Expect::Band { lo: 0.682, hi: 0.982 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("mean", read::num(v, "/mean_wd_moved")?))),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-lifetime/few-dma-aborts".into(),
            sentence: "Aerospike-like: few lockless DMA copies back to NVM abort because the page was written during the copy (1.4%)".into(),
            source: src("section 6.3 (Aerospike: \"98.6% of them are migrated via DMA ... 1.4% of them are modified (be active again) during the migration\"; at most twice 1.4%, inferred: the paper gives one snapshot of 3376 pages; the other cloud-like models are reported only)"),
            paper: "1.4%".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.028 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let at = |k: &str| read::num(v, &format!("/dma/aerospike/{k}"));
                if at("moved")? + at("aborted")? <= 0.0 {
                    return Err(ClaimError::Empty {
                        path: "/dma/aerospike/aborted_share".into(),
                        why: "no DMA copies".into(),
                    });
                }
                Ok(one("aerospike", read::num(v, "/dma/aerospike/aborted_share")?))
            }),
            reason: UNKNOWN,
        },
    ]);
    v
}

/// Why `memos-energy/saves-against-32gb` does not hold.
const STANDBY_RATIO: &str = "standby is nearly all of every run's memory energy, so the saving \
is the ratio of standby powers times that of runtimes: Table 1's DRAM standby against NVM's \
inferred one (Table 1 gives NVM none) makes the hybrid draw a small share of the all-DRAM system's \
power, and Memos' longer runs give back only part of that, so the saving is well above the \
paper's. No per-GB NVM idle power gives both of the paper's savings at equal runtimes; the \
paper's figures come from Micron's power calculator, whose activity-dependent power we do not \
model (mcf-like: {/energy_j/mcf/Memos 4-32:1} J under Memos against {/energy_j/mcf/32GB DRAM:1} J, \
a saving of {/saving/mcf/32:%}; hmmer-like {/saving/hmmer/32:%})";

/// Checked by `memos-energy`.
pub fn energy() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-energy/saves-against-32gb".into(),
            sentence: "Memos with 4 GB DRAM and 32 GB NVM uses less memory energy than 32 GB of DRAM (29% less on average)".into(),
            source: src("section 6.3 (\"saved 29% and 82.5% energy on memory systems compared to 32GB and 128GB all DRAM\"; within half of 29% either way, inferred: NVM's standby power is ours, Table 1 gives none, and the paper gives no spread)"),
            paper: "29%".into(),
            expect: Expect::Band { lo: 0.145, hi: 0.435 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("mean", read::num(v, "/mean_saving/32")?))),
            reason: STANDBY_RATIO,
        },
        Claim {
            id: "memos-energy/saves-against-128gb".into(),
            sentence: "Memos with 4 GB DRAM and 128 GB NVM uses far less memory energy than 128 GB of DRAM (82.5% less on average)".into(),
            source: src("section 6.3 (\"saved 29% and 82.5% energy on memory systems compared to 32GB and 128GB all DRAM\"; the energy Memos still uses, 17.5% of 128 GB of DRAM's, within half either way, inferred: NVM's standby power is ours and the paper gives no spread; half of the saving itself would reach 100%)"),
            paper: "82.5%".into(),
            expect: Expect::Band { lo: 0.7375, hi: 0.9125 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("mean", read::num(v, "/mean_saving/128")?))),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-energy/saving-grows-with-capacity".into(),
            sentence: "The saving is larger at 128 GB than at 32 GB on every model (it comes mainly from NVM's near-zero refresh)".into(),
            source: src("section 6.3 (\"The saving energy is mainly from the near zero refresh operation on NVM\")"),
            paper: "82.5% > 29%".into(),
            expect: Expect::Band { lo: 1e-9, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                ENERGY
                    .iter()
                    .map(|m| {
                        let at = |c: &str| read::num(v, &format!("/saving/{m}/{c}"));
                        Ok((m.to_string(), at("128")? - at("32")?))
                    })
                    .collect()
            }),
            reason: UNKNOWN,
        },
    ]
}

/// Why `memos-pages/cloud-few-hot` does not hold.
const ALL_PAGES_HOT: &str = "HyMM's hot test is per page and absolute (a count of TLB misses in \
one count), and the cloud-like models scale their footprints down but not their access rate, so \
each page is accessed more often, and they spread a share of their requests uniformly over most \
of the footprint, mostly TLB misses: at the first classification Redis-like has \
{/first/redis/NVM WD:1} MiB hot WD and {/first/redis/NVM RD:1} MiB hot RD in NVM against \
{/first/redis/NVM cold:1} MiB cold, Aerospike-like {/first/aerospike/NVM WD:1}, \
{/first/aerospike/NVM RD:1} and {/first/aerospike/NVM cold:1} MiB. The Memcached-like model \
touches a slab class only when its phase comes: at the first count only the first class's pages \
and the hash table are mapped, all hot ({/first/memcached/NVM cold:1} MiB cold); pages touched \
later enter the next census";

/// `model`'s census at `when` ("first" or "end"): (DRAM, hot in NVM, all)
/// in MiB; an empty census is not measured.
fn census(v: &Value, when: &str, model: &str) -> Result<(f64, f64, f64), ClaimError> {
    let at = |c: &str| read::num(v, &format!("/{when}/{model}/{c}"));
    let dram = at("DRAM WD")? + at("DRAM RD")?;
    let nvm_hot = at("NVM WD")? + at("NVM RD")?;
    let all = dram + nvm_hot + at("NVM cold")?;
    if all > 0.0 {
        Ok((dram, nvm_hot, all))
    } else {
        Err(ClaimError::Missing {
            path: format!("/{when}/{model} (no pages in the census)"),
        })
    }
}

/// Share of `model`'s pages in DRAM at the end of its run.
fn dram_share(v: &Value, model: &str) -> Result<f64, ClaimError> {
    let (dram, _, all) = census(v, "end", model)?;
    Ok(dram / all)
}

/// Checked by `memos-pages`.
pub fn pages() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-pages/lbm-mostly-in-dram".into(),
            sentence: "On the write-heavy lbm-like model most pages end in the DRAM channel".into(),
            source: src("section 6.1, Figure 10 (\"For these write-heavy workloads, such as lbm ... most of its memory pages are in DRAM channel\"; \"most\" read as a majority)"),
            paper: "> 50%".into(),
            expect: Expect::Band { lo: 0.5, hi: 1.0 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("lbm", dram_share(v, "lbm")?))),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-pages/libquantum-keeps-cold-in-nvm".into(),
            sentence: "The libquantum-like model, with many cold pages, ends with a smaller share of its pages in DRAM than the lbm-like one".into(),
            source: src("section 6.1, Figure 10 (\"libquantum has many cold pages, and therefore Memos keeps them in NVM channel\"; no number, so a direction)"),
            paper: "lbm > libquantum".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                Ok(vec![
                    ("lbm".into(), dram_share(v, "lbm")?),
                    ("libquantum".into(), dram_share(v, "libquantum")?),
                ])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-pages/hot-nvm-pages-decrease".into(),
            sentence: "Hot (WD and RD) pages in the NVM channel decrease between the first classification and the end (astar-like model)".into(),
            source: src("section 6.1, Figure 10 (astar: \"the number of WD and RD pages in the NVM channel shows a decreasing trend\"; no number, so a direction)"),
            paper: "decreasing".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Num(1),
            measure: Box::new(|v| {
                let hot = |when: &str| Ok::<_, ClaimError>(census(v, when, "astar")?.1);
                Ok(vec![("first (MiB)".into(), hot("first")?), ("end (MiB)".into(), hot("end")?)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-pages/cloud-few-hot".into(),
            sentence: "On the cloud-like models only a minority of pages is hot at the first classification".into(),
            source: src("section 6.1, Figure 11 (\"For these applications, only a small number of pages are hot\"; \"small\" read as under half, inferred)"),
            paper: "small".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                CLOUD
                    .iter()
                    .map(|m| {
                        let (dram, nvm_hot, all) = census(v, "first", m)?;
                        Ok((m.to_string(), (dram + nvm_hot) / all))
                    })
                    .collect()
            }),
            reason: ALL_PAGES_HOT,
        },
    ]
}

/// Why `memos-breakdown/memos-faster-than-random` does not hold.
const SLOWER_THAN_RANDOM: &str = "Memos' sampling part (each counted TLB miss a fault the \
application takes) is a large share of its runtime and its memory part gains little or nothing \
over random mapping: on the Memcached-like model the pages it moves are the previous slab class's \
(see memos-lifetime/longer-than-random-memcached), on the MySQL-like one it moves a small share \
of its pages, one batch per cycle after the first preparation (sampling share of Memos' runtime: \
Memcached-like {/breakdown/memcached/case 3/sampling_share:%}, MySQL-like \
{/breakdown/mysql/case 3/sampling_share:%}; memory part against random mapping's: Memcached-like \
{/breakdown/memcached/case 3/memory_s:1} s against {/breakdown/memcached/case 1/memory_s:1} s, \
MySQL-like {/breakdown/mysql/case 3/memory_s:1} s against {/breakdown/mysql/case 1/memory_s:1} s)";

/// Why `memos-breakdown/memos-faster-than-prior` does not hold.
const PRIOR_FASTER: &str = "case 2 (inferred: kstaled from NVM) reads every page's Accessed bit \
each second and moves every page found accessed, so DRAM fills with touched pages after its \
first scan, while Memos' moves wait for HyMM's preparation and are capped per cycle; case 2's \
monitoring is manager CPU for the PTE reads, no faults, against HyMM's fault per counted TLB miss \
(Redis-like: memory {/breakdown/redis/case 2/memory_s:1} s under case 2 against \
{/breakdown/redis/case 3/memory_s:1} s under Memos, sampling {/breakdown/redis/case 2/sampling_s:2} \
s against {/breakdown/redis/case 3/sampling_s:2} s)";

/// Why `memos-breakdown/prior-loses-on-memcached-redis` does not hold.
const PRIOR_CHEAP: &str = "the inferred case 2 (kstaled) monitors by reading Accessed bits, \
manager CPU only, no faults, and its copies cost less than it saves in memory time: the scaled \
DRAM holds every page either model uses at a time, and case 2 has them there a second after they \
are first accessed. The paper does not describe its baseline's sampling or migration costs \
(Memcached-like: case 2's sampling {/breakdown/memcached/case 2/sampling_s:2} s and migration \
{/breakdown/memcached/case 2/migration_s:2} s, its memory {/breakdown/memcached/case 2/memory_s:1} \
s against random mapping's {/breakdown/memcached/case 1/memory_s:1} s; Redis-like: \
{/breakdown/redis/case 2/sampling_s:2}, {/breakdown/redis/case 2/migration_s:2}, \
{/breakdown/redis/case 2/memory_s:1} against {/breakdown/redis/case 1/memory_s:1} s)";

/// Why `memos-breakdown/sampling-tenth-of-prior` does not hold.
const SAMPLING_REVERSED: &str = "the two sample differently in our models: HyMM counts TLB misses \
on poisoned PTEs, each counted miss a fault the application takes, while the inferred case 2 \
(kstaled) reads and clears Accessed bits once a second, charged as manager CPU only. The paper \
describes neither its prior efforts' sampler nor how HyMM's counts reach its shadow array (see \
the Memos manager's docs, 'TLB-miss counting by poisoning'); its ratio fits a baseline that \
faults per sample, or a HyMM that counts without a fault per miss (Aerospike-like: Memos' \
sampling {/breakdown/aerospike/case 3/sampling_s:2} s against case 2's \
{/breakdown/aerospike/case 2/sampling_s:2} s)";

/// Why `memos-breakdown/migration-cost-halved` does not hold.
const NO_DMA_MOVES: &str = "DMA only serves moves back to NVM, and only the Memcached-like model \
makes any; on the others the pages Memos moves stay hot, so all its moves are CPU copies to DRAM, \
one page per migration (each to a frame of its own bank and slab), charged at HeteroOS Table 6's \
one-page cost plus the shootdown, not at Memos' own (section 5), while case 2 moves each scan's \
pages in one batch (milliseconds a moved page, Memos against case 2: Redis-like \
{/breakdown/redis/case 3/migration_ms_per_page:3} over {/breakdown/redis/case 3/moved_pages:0} \
pages against {/breakdown/redis/case 2/migration_ms_per_page:3} over \
{/breakdown/redis/case 2/moved_pages:0}, Aerospike-like \
{/breakdown/aerospike/case 3/migration_ms_per_page:3} over \
{/breakdown/aerospike/case 3/moved_pages:0} against \
{/breakdown/aerospike/case 2/migration_ms_per_page:3} over \
{/breakdown/aerospike/case 2/moved_pages:0})";

/// `key` of `case` on each cloud-like model.
fn case_values(v: &Value, case: &str, key: &str) -> Result<Measured, ClaimError> {
    per_model(v, &CLOUD, &format!("/breakdown/{{m}}/{case}/{key}"))
}

/// `num / den` of `key` between two cases, on each cloud-like model; a
/// ratio to nothing is not measured.
fn case_ratio(v: &Value, num: &str, den: &str, key: &str) -> Result<Measured, ClaimError> {
    CLOUD
        .iter()
        .map(|m| {
            let a = read::num(v, &format!("/breakdown/{m}/{num}/{key}"))?;
            let b = positive(
                v,
                &format!("/breakdown/{m}/{den}/{key}"),
                "nothing to compare with",
            )?;
            Ok((m.to_string(), a / b))
        })
        .collect()
}

/// Checked by `memos-breakdown`.
pub fn breakdown() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-breakdown/memory-dominates-random".into(),
            sentence: "Under random mapping, memory accesses take 40.3-76.9% of the cloud-like models' runtime".into(),
            source: src("section 6.2, Figure 13 (\"the overall time costs of memory accesses vary between 40.3% (Redis with fewer memory accesses) and 76.9% (Aerospike)\": the paper's own least and greatest over its workloads)"),
            paper: "40.3%-76.9%".into(),
            expect: Expect::Band { lo: 0.403, hi: 0.769 },
            unit: Unit::Percent,
            measure: Box::new(|v| case_values(v, "case 1", "memory_share")),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-breakdown/memos-faster-than-random".into(),
            sentence: "Memos' runtime is below random mapping's on every cloud-like model".into(),
            source: src("section 6.2, Figure 13 (case 3 against case 1; no number in the text for the pair, so a direction)"),
            paper: "< 1".into(),
            expect: Expect::Band { lo: 0.0, hi: 1.0 - 1e-9 },
            unit: Unit::Times,
            measure: Box::new(|v| case_values(v, "case 3", "total_norm")),
            reason: SLOWER_THAN_RANDOM,
        },
        Claim {
            id: "memos-breakdown/memos-faster-than-prior".into(),
            sentence: "Memos' runtime is about 20% below the page sampling + migration baseline's, on average over the cloud-like models".into(),
            source: src("section 6.2, Figure 13 (\"Memos' sampling overhead is less than 1/10 of that of prior efforts ... thus the overall computing time is significantly improved by around 20%\"; within 10 points, inferred: \"around\", and the paper gives no spread; it stays a gain)"),
            paper: "0.8x".into(),
            expect: Expect::Band { lo: 0.70, hi: 0.90 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let r = case_ratio(v, "case 3", "case 2", "total_norm")?;
                let xs: Vec<f64> = r.iter().map(|x| x.1).collect();
                Ok(one("mean", mean(&xs)))
            }),
            reason: PRIOR_FASTER,
        },
        Claim {
            id: "memos-breakdown/prior-loses-on-memcached-redis".into(),
            sentence: "On the Memcached- and Redis-like models the sampling + migration baseline runs longer than random mapping (its overheads offset its benefit)".into(),
            source: src("section 6.2 (\"In the case of Memcached and Redis, the overall performance degrades because the sampling and page migration overheads offset the benefits\"; no number, so a direction; case 2 is inferred, see breakdown.rs)"),
            paper: "> 1".into(),
            expect: Expect::Band { lo: 1.0 + 1e-9, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(|v| {
                per_model(v, &["memcached", "redis"], "/breakdown/{m}/case 2/total_norm")
            }),
            reason: PRIOR_CHEAP,
        },
        Claim {
            id: "memos-breakdown/sampling-tenth-of-prior".into(),
            sentence: "Memos' sampling overhead is under a tenth of the sampling + migration baseline's".into(),
            source: src("section 6.2 (\"Memos' sampling overhead is less than 1/10 of that of prior efforts\": the paper's own bound)"),
            paper: "< 0.1".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.1 },
            unit: Unit::Times,
            measure: Box::new(|v| case_ratio(v, "case 3", "case 2", "sampling_s")),
            reason: SAMPLING_REVERSED,
        },
        Claim {
            id: "memos-breakdown/migration-cost-halved".into(),
            sentence: "Memos' migration overhead (Figure 13's migration part) is less than half the baseline's (DMA evicts cold pages)".into(),
            source: src("section 6.2 (\"the migration overhead is roughly reduced by more than half due to using DMA evicting cold pages\": the paper's own bound, on Figure 13's migration part, the time; a case that moved no page is not measured)"),
            paper: "< 0.5".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.5 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                for m in CLOUD {
                    for case in ["case 2", "case 3"] {
                        positive(v, &format!("/breakdown/{m}/{case}/moved_pages"), "no page moved")?;
                    }
                }
                case_ratio(v, "case 3", "case 2", "migration_s")
            }),
            reason: NO_DMA_MOVES,
        },
    ]
}

/// Why `memos-steps/memos-gains-over-baseline` and
/// `memos-steps/memos-gains-on-every-mix` do not hold.
const COMPUTE_BOUND: &str = "at the mixes' inferred access rate the runs are compute-bound, so \
even removing every memory stall would gain little, and placement barely changes memory time: \
both channels are DRAM, Table 1's DRAM timings make a row hit and a row conflict differ by a few \
cycles before memory-level parallelism, and the LLC misses do not change \
(memos-steps/llc-misses-fall). What step 3 adds is HyMM's counting, poisoned-PTE faults, which is \
its whole loss; it is least on the streams of W7, which miss the TLB few times a page (step 3 \
over the baseline: W1 {/gain/W1/step 3:%}, W7 {/gain/W7/step 3:%})";

/// Why `memos-steps/bank-imbalance-falls` does not hold.
const BALANCED_BASELINE: &str = "W7's baseline is already balanced (two libquantum-like streams \
and an lbm-like one, spread over every bank by the mapping's bank bits), so a change of a few \
hundredths of a point reads as a large relative change (W7's busiest bank over the mean: baseline \
{/bank_imbalance/W7/baseline:4}, step 3 {/bank_imbalance/W7/step 3:4}); why the other mixes fall \
by more or less than the paper's range is not known";

/// Why `memos-steps/llc-misses-fall` does not hold.
const NO_LLC_REUSE: &str = "the baseline's LLC already misses on nearly every access: each \
program streams or chases pointers over a footprint many times the LLC's, so there is no reuse \
for slab partitioning to protect from streams, and step 3's misses are the baseline's (step 3's \
over the baseline's: W1 {/llc_misses_vs_baseline/W1/step 3:3}, W2 \
{/llc_misses_vs_baseline/W2/step 3:3}, W7 {/llc_misses_vs_baseline/W7/step 3:3})";

/// The mixes' names, as the summary keys them.
fn mixes() -> Vec<&'static str> {
    MIXES.iter().map(|m| m.0).collect()
}

/// `step`'s throughput gain over the baseline on each mix.
fn gains(v: &Value, step: &str) -> Result<Measured, ClaimError> {
    per_model(v, &mixes(), &format!("/gain/{{m}}/{step}"))
}

/// The mean over the mixes of `step`'s gain over the baseline.
fn mean_gain(v: &Value, step: &str) -> Result<f64, ClaimError> {
    let xs: Vec<f64> = gains(v, step)?.into_iter().map(|x| x.1).collect();
    Ok(mean(&xs))
}

/// Checked by `memos-steps`.
pub fn steps() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-steps/memos-gains-over-baseline".into(),
            sentence: "Memos (step 3) raises throughput over the interleaved baseline by about 23% on average".into(),
            source: src("section 4.4, Figure 9 (\"Step-3 achieves an average 23% performance gain over the baseline\"; within the paper's own lowest and highest gains over its workloads, \"from the lowest 17.0% to the highest 28.1%\")"),
            paper: "23% (17.0%-28.1%)".into(),
            expect: Expect::Band { lo: 0.170, hi: 0.281 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("mean", mean_gain(v, "step 3")?))),
            reason: COMPUTE_BOUND,
        },
        Claim {
            id: "memos-steps/step3-over-step2".into(),
            sentence: "Step 3 outperforms step 2 by about 7.2% on average over the mixes".into(),
            source: src("section 4.4, Figure 9 (\"Step-3 outperforms Step-2 by 7.2% (up to 11.0%) on average\"; within half either way, inferred: the paper gives no spread of the mean; the band stays a gain and under the paper's greatest per-workload 11.0%)"),
            paper: "7.2%".into(),
            expect: Expect::Ratio { paper: 0.072, tolerance: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let (s3, s2) = (gains(v, "step 3")?, gains(v, "step 2")?);
                let xs: Vec<f64> = s3
                    .iter()
                    .zip(&s2)
                    .map(|(a, b)| (1.0 + a.1) / (1.0 + b.1) - 1.0)
                    .collect();
                Ok(one("mean", mean(&xs)))
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-steps/step2-over-step1".into(),
            sentence: "On average step 2 gains more than step 1 (gains in percent)".into(),
            source: src("section 4.4, Figure 9 (\"Step-2 outperforms the Step-1\"; no number, so a direction)"),
            paper: "step 2 > step 1".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Num(3),
            measure: Box::new(|v| {
                ["step 2", "step 1"]
                    .iter()
                    .map(|s| Ok((format!("{s} (%)"), mean_gain(v, s)? * 100.0)))
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-steps/memos-gains-on-every-mix".into(),
            sentence: "Memos gains 17.0-28.1% over the baseline on every mix".into(),
            source: src("section 4.4 (\"the magnitude of the improvement also varies, from the lowest 17.0% to the highest 28.1%\": the paper's own range over its workloads, of which ours are five, restricted to the modelled applications)"),
            paper: "17.0%-28.1%".into(),
            expect: Expect::Band { lo: 0.170, hi: 0.281 },
            unit: Unit::Percent,
            measure: Box::new(|v| gains(v, "step 3")),
            reason: COMPUTE_BOUND,
        },
        Claim {
            id: "memos-steps/bank-imbalance-falls".into(),
            sentence: "Memos reduces bank imbalance against the baseline by 60.1-69.9% on every mix (busiest bank's excess over the mean)".into(),
            source: src("section 4.4 (\"bank imbalance is reduced by 60.1~69.9%\": the paper's own range over its workloads; read here as the busiest bank's excess over the mean, inferred)"),
            paper: "-60.1% to -69.9%".into(),
            expect: Expect::Band { lo: -0.699, hi: -0.601 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                mixes()
                    .iter()
                    .map(|m| {
                        let at = |s: &str| read::num(v, &format!("/bank_imbalance/{m}/{s}"));
                        let b = at("baseline")? - 1.0;
                        if b <= 0.0 {
                            return Err(ClaimError::Empty {
                                path: format!("/bank_imbalance/{m}/baseline"),
                                why: "no imbalance to reduce".into(),
                            });
                        }
                        Ok((m.to_string(), (at("step 3")? - 1.0) / b - 1.0))
                    })
                    .collect()
            }),
            reason: BALANCED_BASELINE,
        },
        Claim {
            id: "memos-steps/llc-misses-fall".into(),
            sentence: "Memos has about 27.4% fewer LLC misses than the baseline, on average over the mixes".into(),
            source: src("section 4.4 (\"the cache misses are reduced by 27.4% on average across both channels, with a 42.1~50.0% reduction on the NVM channel\"; within 4 points, inferred: half the width of the paper's only spread, the NVM channel's)"),
            paper: "0.726x".into(),
            expect: Expect::Band { lo: 0.686, hi: 0.766 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let xs = mixes()
                    .iter()
                    .map(|m| {
                        positive(
                            v,
                            &format!("/llc_misses_vs_baseline/{m}/step 3"),
                            "no LLC misses counted",
                        )
                    })
                    .collect::<Result<Vec<f64>, _>>()?;
                Ok(one("mean", mean(&xs)))
            }),
            reason: NO_LLC_REUSE,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// The verdict on claim `id` of `claims` against `v`: held, or not
    /// held with the reason it printed.
    fn verdict(claims: &[Claim], id: &str, v: &Value) -> (bool, String) {
        let c = claims
            .iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no claim {id}"));
        let out = c.check(v);
        (out.held, out.reason.unwrap_or_default())
    }

    fn held(claims: &[Claim], id: &str, v: &Value) -> bool {
        verdict(claims, id, v).0
    }

    fn not_measured(claims: &[Claim], id: &str, v: &Value) -> bool {
        let (held, why) = verdict(claims, id, v);
        !held && why.starts_with("not measured")
    }

    /// Every placeholder of every reason names a number of `full`.
    fn reasons_read_the_summary(claims: &[Claim], full: &Value) {
        crate::claims::testing::reasons_resolve(claims, full);
    }

    /// Figure 12's summary: every Table 2 model at the same times.
    fn perf(all_nvm: f64, random: f64, cache: f64, memos: f64) -> Value {
        let labels = [
            FIG12[1].label,
            FIG12[2].label,
            FIG12[3].label,
            FIG12[4].label,
        ];
        let row: Map<String, Value> = labels
            .iter()
            .zip([all_nvm, random, cache, memos])
            .map(|(l, x)| (l.to_string(), json!(x)))
            .collect();
        let norm: Map<String, Value> = TABLE2
            .iter()
            .map(|m| (m.to_string(), Value::Object(row.clone())))
            .collect();
        json!({ "norm_time": norm, "mean": row })
    }

    #[test]
    fn figure_12_checks_the_papers_excess_and_gain() {
        let c = performance();
        let good = perf(1.8, 1.3, 1.04, 0.95);
        for claim in &c {
            assert!(claim.check(&good).held, "{}", claim.id);
        }
        reasons_read_the_summary(&c, &good);
        // A DRAM cache faster than DRAM, or 18% slower, is not "4% higher".
        assert!(!held(
            &c,
            "memos-performance/dram-cache-near-dram",
            &perf(1.8, 1.3, 0.99, 0.95)
        ));
        assert!(!held(
            &c,
            "memos-performance/dram-cache-near-dram",
            &perf(1.8, 1.3, 1.18, 0.95)
        ));
        // Memos 5% slower than DRAM is not a 5% gain.
        assert!(!held(
            &c,
            "memos-performance/memos-near-dram",
            &perf(1.8, 1.3, 1.04, 1.05)
        ));
        // A missing run (written as 0) is not measured, not a fast run.
        let mut gap = good.clone();
        gap["norm_time"]["mysql"][FIG12[4].label] = json!(0.0);
        assert!(not_measured(&c, "memos-performance/memos-near-dram", &gap));
        assert!(not_measured(
            &c,
            "memos-performance/memos-beats-random",
            &gap
        ));
    }

    /// Table 2's summary with each model's gain, and Aerospike's DMA.
    fn life(gain: impl Fn(&str) -> f64, moved: f64, aborted: f64) -> Value {
        let mut lifetime = Map::new();
        let mut dma = Map::new();
        let mut wd = Map::new();
        for m in TABLE2 {
            lifetime.insert(
                m.into(),
                json!({ "random_years": 1.0, "memos_years": gain(m), "gain": gain(m) }),
            );
            wd.insert(m.into(), json!(0.8));
            let (a, b) = if m == "aerospike" {
                (moved, aborted)
            } else {
                (0.0, 0.0)
            };
            let share = if a + b > 0.0 { b / (a + b) } else { 0.0 };
            dma.insert(
                m.into(),
                json!({ "moved": a, "aborted": b, "aborted_share": share }),
            );
        }
        json!({ "lifetime": lifetime, "wd_moved": wd, "mean_wd_moved": 0.8, "dma": dma })
    }

    fn paper_gain(m: &str) -> f64 {
        PAPER_TABLE2
            .iter()
            .find(|p| p.0 == m)
            .map_or(2.0, |p| p.2 / p.1)
    }

    #[test]
    fn table_2_checks_each_rows_gain() {
        let c = lifetime();
        assert!(c.iter().all(|c| !c.id.contains("xalancbmk")));
        let good = life(paper_gain, 3329.0, 47.0);
        for claim in &c {
            assert!(claim.check(&good).held, "{}", claim.id);
        }
        reasons_read_the_summary(&c, &good);
        // A longer life than random mapping's is not enough: hmmer's 4.4x
        // is not mcf's 34.4x.
        let short = life(
            |m| if m == "mcf" { 4.4 } else { paper_gain(m) },
            3329.0,
            47.0,
        );
        assert!(!held(&c, "memos-lifetime/longer-than-random-mcf", &short));
        assert!(!held(&c, "memos-lifetime/mcf-gains-most", &short));
        assert!(held(&c, "memos-lifetime/longer-than-random-hmmer", &short));
        // No DMA copy on Aerospike-like: not measured, not 0% aborted.
        assert!(not_measured(
            &c,
            "memos-lifetime/few-dma-aborts",
            &life(paper_gain, 0.0, 0.0)
        ));
        assert!(!held(
            &c,
            "memos-lifetime/few-dma-aborts",
            &life(paper_gain, 90.0, 10.0)
        ));
    }

    fn energy_summary(s32: f64, s128: f64) -> Value {
        let mut e = Map::new();
        let mut s = Map::new();
        for m in ENERGY {
            e.insert(
                m.into(),
                json!({ "32GB DRAM": 100.0, "Memos 4-32": 100.0 * (1.0 - s32), "128GB DRAM": 400.0, "Memos 4-128": 400.0 * (1.0 - s128) }),
            );
            s.insert(m.into(), json!({ "32": s32, "128": s128 }));
        }
        json!({ "energy_j": e, "saving": s, "mean_saving": { "32": s32, "128": s128 } })
    }

    #[test]
    fn the_128gb_saving_is_checked_on_the_energy_left() {
        let c = energy();
        let good = energy_summary(0.29, 0.825);
        for claim in &c {
            assert!(claim.check(&good).held, "{}", claim.id);
        }
        reasons_read_the_summary(&c, &good);
        assert!(!held(
            &c,
            "memos-energy/saves-against-128gb",
            &energy_summary(0.29, 1.0)
        ));
        assert!(!held(
            &c,
            "memos-energy/saves-against-128gb",
            &energy_summary(0.29, 0.5)
        ));
        assert!(!held(
            &c,
            "memos-energy/saves-against-32gb",
            &energy_summary(0.7, 0.825)
        ));
    }

    /// A census row: DRAM WD, DRAM RD, NVM WD, NVM RD, NVM cold (MiB).
    fn row(c: [f64; 5]) -> Value {
        json!({ "DRAM WD": c[0], "DRAM RD": c[1], "NVM WD": c[2], "NVM RD": c[3], "NVM cold": c[4] })
    }

    fn pages_summary(cloud_first: [f64; 5]) -> Value {
        let mut first = Map::new();
        let mut end = Map::new();
        for m in CLOUD {
            first.insert(m.into(), row(cloud_first));
            end.insert(m.into(), row(cloud_first));
        }
        first.insert("astar".into(), row([0.0, 0.0, 20.0, 20.0, 60.0]));
        end.insert("astar".into(), row([20.0, 10.0, 5.0, 5.0, 60.0]));
        end.insert("lbm".into(), row([60.0, 10.0, 5.0, 5.0, 20.0]));
        end.insert("libquantum".into(), row([10.0, 5.0, 0.0, 5.0, 80.0]));
        json!({ "first": first, "end": end })
    }

    #[test]
    fn an_empty_census_is_not_measured() {
        let c = pages();
        let good = pages_summary([0.0, 0.0, 5.0, 5.0, 90.0]);
        for claim in &c {
            assert!(claim.check(&good).held, "{}", claim.id);
        }
        reasons_read_the_summary(&c, &good);
        assert!(!held(
            &c,
            "memos-pages/cloud-few-hot",
            &pages_summary([0.0, 0.0, 50.0, 20.0, 30.0])
        ));
        let empty = pages_summary([0.0; 5]);
        assert!(not_measured(&c, "memos-pages/cloud-few-hot", &empty));
        let mut no_lbm = good.clone();
        no_lbm["end"]["lbm"] = row([0.0; 5]);
        assert!(not_measured(&c, "memos-pages/lbm-mostly-in-dram", &no_lbm));
    }

    /// Figure 13's summary: each case's parts (s) and moved pages, the
    /// same on every cloud-like model; totals normalised to case 1's.
    fn breakdown_summary(cases: [(f64, f64, f64, f64, f64); 3]) -> Value {
        let total = |c: &(f64, f64, f64, f64, f64)| c.0 + c.1 + c.2 + c.3;
        let base = total(&cases[0]);
        let mut per_case = Map::new();
        for (name, c) in ["case 1", "case 2", "case 3"].iter().zip(&cases) {
            let t = total(c);
            per_case.insert(
                name.to_string(),
                json!({
                    "memory_s": c.0, "sampling_s": c.1, "migration_s": c.2, "computing_s": c.3,
                    "memory_share": c.0 / t, "sampling_share": c.1 / t,
                    "migration_share": c.2 / t, "computing_share": c.3 / t,
                    "total_norm": t / base, "moved_pages": c.4,
                    "migration_ms_per_page": if c.4 > 0.0 { c.2 / c.4 * 1e3 } else { 0.0 },
                }),
            );
        }
        let all: Map<String, Value> = CLOUD
            .iter()
            .map(|m| (m.to_string(), Value::Object(per_case.clone())))
            .collect();
        json!({ "breakdown": all })
    }

    #[test]
    fn figure_13_checks_the_papers_band_and_20_percent() {
        let c = breakdown();
        // Case 1: memory 60% of 100 s; case 2 slower (sampling and copies);
        // Memos 20% faster than case 2, a twentieth of its sampling and
        // under half its copy time.
        let paper = [
            (60.0, 0.0, 0.0, 40.0, 0.0),
            (30.0, 40.0, 10.0, 40.0, 1000.0),
            (50.0, 2.0, 4.0, 40.0, 500.0),
        ];
        let good = breakdown_summary(paper);
        for claim in &c {
            assert!(claim.check(&good).held, "{}", claim.id);
        }
        reasons_read_the_summary(&c, &good);
        // 30% or 85% memory under random mapping is outside the paper's
        // 40.3-76.9%.
        let mut low = paper;
        low[0] = (30.0, 0.0, 0.0, 70.0, 0.0);
        assert!(!held(
            &c,
            "memos-breakdown/memory-dominates-random",
            &breakdown_summary(low)
        ));
        // Ahead of case 2 by 1% is not "around 20%".
        let mut close = paper;
        close[2] = (70.0, 2.0, 4.0, 42.0, 500.0);
        assert!(!held(
            &c,
            "memos-breakdown/memos-faster-than-prior",
            &breakdown_summary(close)
        ));
        // A Memos that moved nothing is not measured for its migration cost.
        let mut still = paper;
        still[2] = (50.0, 2.0, 0.0, 40.0, 0.0);
        assert!(not_measured(
            &c,
            "memos-breakdown/migration-cost-halved",
            &breakdown_summary(still)
        ));
    }

    /// Figure 9's summary: each step's gain, bank imbalance and LLC
    /// misses, the same on every mix.
    fn steps_summary(g: [f64; 3], imb: [f64; 2], llc: f64) -> Value {
        let (mut gain, mut bank, mut miss) = (Map::new(), Map::new(), Map::new());
        for m in mixes() {
            gain.insert(
                m.into(),
                json!({ "baseline": 0.0, "step 1": g[0], "step 2": g[1], "step 3": g[2] }),
            );
            bank.insert(m.into(), json!({ "baseline": imb[0], "step 3": imb[1] }));
            miss.insert(m.into(), json!({ "baseline": 1.0, "step 3": llc }));
        }
        json!({ "gain": gain, "bank_imbalance": bank, "llc_misses_vs_baseline": miss })
    }

    #[test]
    fn figure_9_checks_the_papers_numbers() {
        let c = steps();
        // Step 3 +23%, step 2 +15% (7% below), step 1 +10%; imbalance
        // excess 10% -> 3.5%; LLC misses 27.4% fewer.
        let good = steps_summary([0.10, 0.15, 0.23], [1.10, 1.035], 0.726);
        for claim in &c {
            assert!(claim.check(&good).held, "{}", claim.id);
        }
        reasons_read_the_summary(&c, &good);
        // Every step losing to the baseline, step 3 least, holds no gain.
        let lose = steps_summary([-0.079, -0.0789, -0.067], [1.10, 1.035], 0.726);
        assert!(!held(&c, "memos-steps/memos-gains-over-baseline", &lose));
        assert!(!held(&c, "memos-steps/memos-gains-on-every-mix", &lose));
        assert!(!held(&c, "memos-steps/step3-over-step2", &lose));
        assert!(held(&c, "memos-steps/step2-over-step1", &lose));
        // Any fall is not the paper's 60.1-69.9%; a rise is not a fall.
        let small = steps_summary([0.10, 0.15, 0.23], [1.10, 1.09], 0.726);
        assert!(!held(&c, "memos-steps/bank-imbalance-falls", &small));
        let flat = steps_summary([0.10, 0.15, 0.23], [1.0, 1.001], 0.726);
        assert!(not_measured(&c, "memos-steps/bank-imbalance-falls", &flat));
        // Misses as many as the baseline's are not 27.4% fewer.
        let same = steps_summary([0.10, 0.15, 0.23], [1.10, 1.035], 1.0);
        assert!(!held(&c, "memos-steps/llc-misses-fall", &same));
    }
}
