//! The claims Memos' evaluation reproductions check
//! (../shared/papers/003_4ce7a4cbf1361ba3.txt, sections 6.1-6.3),
//! measured from the summaries `memos_eval.rs` writes.
//!
//! Figures 10-12 are images: only what the text states is checked, as
//! numbers where it gives them. Tolerances the paper does not state are
//! ours: Figure 12's averages within 5 (DRAM cache, "around 4%") and 10
//! points (Memos, "around 5%"), the 83.2% within 15 points, the energy
//! savings within half of the paper's value either way (NVM's standby power
//! is inferred: Table 1 gives none), DMA aborts below 5% (paper: 1.4%).

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use crate::memos::setup::{CLOUD, ENERGY, FIG12, MIXES, TABLE2};
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

/// Why `memos-performance/dram-cache-near-dram` does not hold.
const CACHE_WRITEBACKS: &str = "the LLC's dirty write-backs of NVM-homed lines used to go around \
the DRAM cache straight to PCM, as latency stalls, which was this gap (77-223 M write-backs per model). \
Memory Mode now sends them through the cache and charges its write-backs as the slow tier's write \
bandwidth (crates/sim/tests/memory_mode.rs); `thermocline run --workload memos:hmmer:0.0625:120 \
--manager memory-mode --set run.machine=dram+pcm-memos --duration 30` against `--manager all-fast` \
fell from 1.17x to 1.01x. Where the claim still fails, the models whose footprint exceeds the \
scaled 4 GB cache (Aerospike- and MySQL-like) miss in it";

/// Why `memos-performance/memos-near-dram` does not hold.
const MEMOS_VS_DRAM: &str = "measured at afcd592 (`thermocline reproduce memos-performance`, the \
runs' time_breakdown): of Memos' mean 30% over 32 GB of DRAM, 9.5 points are HyMM's TLB-miss \
counting (each counted miss a 1 us poisoned-PTE fault: 1.2 M on hmmer-like to 21.7 M on \
MySQL-like, 1-16% of the all-DRAM time) and 20.4 points are memory time of pages still in NVM: \
data start in NVM (6.1), nothing moves before the first preparation ends at 22 s, then at most \
10 000 pages per 41 s cycle, so at the end mcf-like has 32 000 of its 65 536 pages in DRAM and \
MySQL-like 42 000 of 393 216; Memcached-like moves the previous slab class's pages (see \
memos-lifetime/longer-than-random) and 19 952 of the 24 000 come back. Nothing makes DRAM itself \
faster than all-DRAM: on Figure 9's mixes bank and slab placement changes memory time by 0.01 s \
at most (memos-steps), so the paper's 5% gain has no source in our machine model";

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
            source: src("section 6.2, Figure 12 (\"the systems with all NVM perform worse due to NVM's longer latency\")"),
            paper: "> 1".into(),
            expect: Expect::Band { lo: 1.0 + 1e-9, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(move |v| per_model(v, &TABLE2, &format!("/norm_time/{{m}}/{all_nvm}"))),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-performance/random-slower".into(),
            sentence: "Random mapping between DRAM and NVM runs slower than 32 GB of DRAM on every model".into(),
            source: src("section 6.2, Figure 12 (\"if the memory pages are randomly mapped between memories, the NVM latency is also an un-negligible factor\")"),
            paper: "> 1".into(),
            expect: Expect::Band { lo: 1.0 + 1e-9, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(move |v| per_model(v, &TABLE2, &format!("/norm_time/{{m}}/{random}"))),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-performance/dram-cache-near-dram".into(),
            sentence: "4 GB of DRAM as a hardware cache of NVM runs about 4% longer than all DRAM, on average".into(),
            source: src("section 6.2, Figure 12 (\"around 4% higher execution time than all DRAM cases\")"),
            paper: "1.04".into(),
            expect: Expect::Band { lo: 0.99, hi: 1.09 },
            unit: Unit::Times,
            measure: Box::new(move |v| Ok(one("mean", read::num(v, &format!("/mean/{cache}"))?))),
            reason: CACHE_WRITEBACKS,
        },
        Claim {
            id: "memos-performance/memos-near-dram".into(),
            sentence: "Memos on 4 GB DRAM + 32 GB NVM runs near or better than all DRAM, on average (about 5% faster)".into(),
            source: src("section 6.2, Figure 12 (\"Memos provides near or even better performance on MCHA than system with all DRAM (around 5% benefits, on average)\")"),
            paper: "0.95".into(),
            expect: Expect::Band { lo: 0.85, hi: 1.05 },
            unit: Unit::Times,
            measure: Box::new(move |v| Ok(one("mean", read::num(v, &format!("/mean/{memos}"))?))),
            reason: MEMOS_VS_DRAM,
        },
        Claim {
            id: "memos-performance/memos-beats-random".into(),
            sentence: "Memos runs faster than random mapping on the same hybrid machine, on average".into(),
            source: src("section 6.2, Figure 12"),
            paper: "random > Memos".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Times,
            measure: Box::new(move |v| {
                Ok(vec![
                    (random.to_string(), read::num(v, &format!("/mean/{random}"))?),
                    (memos.to_string(), read::num(v, &format!("/mean/{memos}"))?),
                ])
            }),
            reason: UNKNOWN,
        },
    ]
}

/// Why `memos-lifetime/longer-than-random` does not hold.
const MEMCACHED_WRITES: &str =
    "only the Memcached-like model falls short (0.94x; the other six gain \
1.10-9.25x), measured at afcd592 (`thermocline reproduce memos-lifetime`, tier counters and \
Memos' gauges): its popular slab class changes every 10 s of work (14-18 s simulated) and each \
cycle's 5 s TLB count and its moves 16 s later fall in different classes: the 10 000 pages moved \
at 22 s are class 0's, idle in class 1, and go back by DMA 6-7 s later (19 952 of the 24 000 moved \
came back; bandwidth scheduling then cut the budget to 2 000 pages and stopped it). DRAM took no \
write at all under Memos (random mapping: 8.7 M, 11%), so NVM took all 80.6 M write-backs plus \
1.3 M lines of DMA copies: 0.440 M lines/s against random mapping's 0.411 M/s, 23.0 against \
24.6 years";

/// Checked by `memos-lifetime`.
pub fn lifetime() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-lifetime/longer-than-random".into(),
            sentence: "Memos' NVM lasts longer than under random mapping on every model".into(),
            source: src("section 6.3, Table 2 (random vs Memos: mcf 0.27 vs 9.3 years, hmmer 3.6 vs 15.8, Memcached 0.50 vs 12.2, Aerospike 0.43 vs 10.1, Redis 0.52 vs 13.4, MySQL-slap 1.44 vs 15.6)"),
            paper: "4.4x-34x".into(),
            expect: Expect::Band { lo: 1.0 + 1e-9, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(|v| per_model(v, &TABLE2, "/lifetime/{m}/gain")),
            reason: MEMCACHED_WRITES,
        },
        Claim {
            id: "memos-lifetime/mcf-gains-most".into(),
            sentence: "The lifetime gain is larger on the mcf-like model than on the hmmer-like one".into(),
            source: src("section 6.3, Table 2 (\"up to 34X (mcf)\"; hmmer 4.4x)"),
            paper: "34x > 4.4x".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Times,
            measure: Box::new(|v| per_model(v, &["mcf", "hmmer"], "/lifetime/{m}/gain")),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-lifetime/wd-pages-leave-nvm".into(),
            sentence: "Memos moves most hot write-dominated pages out of NVM (83.2% on average)".into(),
            source: src("section 6.3 (\"Memos moves 83.2% of Hot and WD pages out of NVM, on average\")"),
            paper: "83.2%".into(),
            expect: Expect::Band { lo: 0.682, hi: 0.982 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("mean", read::num(v, "/mean_wd_moved")?))),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-lifetime/few-dma-aborts".into(),
            sentence: "Few lockless DMA copies back to NVM abort because the page was written during the copy (cloud-like models)".into(),
            source: src("section 6.3 (Aerospike: \"98.6% of them are migrated via DMA ... 1.4% of them are modified\")"),
            paper: "1.4%".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.05 },
            unit: Unit::Percent,
            measure: Box::new(|v| per_model(v, &CLOUD, "/dma/{m}/aborted_share")),
            reason: UNKNOWN,
        },
    ]
}

/// Why `memos-energy/saves-against-32gb` does not hold.
const STANDBY_RATIO: &str = "measured at afcd592 (`thermocline reproduce memos-energy`, the \
memory_system channel energies): standby is over 99% of every run's memory energy (mcf-like \
Memos 4-32: 180.4 of 181.4 J), so the saving is the ratio of standby powers times that of \
runtimes: Table 1's DRAM 1.032 W/GB against NVM's inferred 0.1 W/GB (Table 1 gives NVM none) \
makes 4 GB of DRAM + 32 GB of NVM draw 22% of 32 GB of DRAM's power, and Memos' longer runs \
(1.06-1.43x) bring its energy to 24-32% of all-DRAM's, a 68-76% saving. No per-GB NVM idle power \
gives both of the paper's figures at equal runtimes: 29% at 32 GB needs 0.60 W/GB, which would \
save 38% at 128 GB, not 82.5%; 0.1 W/GB fits the 82.5% (ours 83.4%, held). The paper's figures \
come from Micron's power calculator, whose activity-dependent power we do not model";

/// Checked by `memos-energy`.
pub fn energy() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-energy/saves-against-32gb".into(),
            sentence: "Memos with 4 GB DRAM and 32 GB NVM uses less memory energy than 32 GB of DRAM (29% less on average)".into(),
            source: src("section 6.3 (\"saved 29% and 82.5% energy on memory systems compared to 32GB and 128GB all DRAM\")"),
            paper: "29%".into(),
            expect: Expect::Band { lo: 0.145, hi: 0.435 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("mean", read::num(v, "/mean_saving/32")?))),
            reason: STANDBY_RATIO,
        },
        Claim {
            id: "memos-energy/saves-against-128gb".into(),
            sentence: "Memos with 4 GB DRAM and 128 GB NVM uses far less memory energy than 128 GB of DRAM (82.5% less on average)".into(),
            source: src("section 6.3"),
            paper: "82.5%".into(),
            expect: Expect::Band { lo: 0.4125, hi: 1.0 },
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
const ALL_PAGES_HOT: &str = "measured at afcd592 (`thermocline reproduce memos-pages`, the census \
and hot_pages_count gauges): HyMM's hot test is per page and absolute (10 TLB misses in the 5 s \
count), and the cloud-like models scale their footprints to 1/13-1/16 of the paper's but not \
their access rate, so each page is accessed 13-16x as often, and they spread a share of their \
requests uniformly over most of the footprint: in the first count each page of Redis-like's 85% \
tail takes about 99 random accesses and each of Aerospike-like's 70% of records about 16 (random \
over 108 and 274 MiB, so mostly TLB misses), and all 32 685 Redis-like pages and 77% of \
Aerospike-like's are hot. \
Memcached-like touches a slab class only when its phase comes: at the first count 72 of its \
264 MiB are mapped, class 0's and the hash table, all hot; pages touched later enter the next \
census. MySQL-like (12.2%) holds";

/// Share of `model`'s pages in DRAM at the end of its run.
fn dram_share(v: &Value, model: &str) -> Result<f64, ClaimError> {
    let at = |c: &str| read::num(v, &format!("/end/{model}/{c}"));
    let dram = at("DRAM WD")? + at("DRAM RD")?;
    let all = dram + at("NVM WD")? + at("NVM RD")? + at("NVM cold")?;
    Ok(if all > 0.0 { dram / all } else { 0.0 })
}

/// Checked by `memos-pages`.
pub fn pages() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-pages/lbm-mostly-in-dram".into(),
            sentence: "On the write-heavy lbm-like model most pages end in the DRAM channel".into(),
            source: src("section 6.1, Figure 10 (\"For these write-heavy workloads, such as lbm ... most of its memory pages are in DRAM channel\")"),
            paper: "> 50%".into(),
            expect: Expect::Band { lo: 0.5, hi: 1.0 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("lbm", dram_share(v, "lbm")?))),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-pages/libquantum-keeps-cold-in-nvm".into(),
            sentence: "The libquantum-like model, with many cold pages, ends with a smaller share of its pages in DRAM than the lbm-like one".into(),
            source: src("section 6.1, Figure 10 (\"libquantum has many cold pages, and therefore Memos keeps them in NVM channel\")"),
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
            source: src("section 6.1, Figure 10 (astar: \"the number of WD and RD pages in the NVM channel shows a decreasing trend\")"),
            paper: "decreasing".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Num(1),
            measure: Box::new(|v| {
                let hot = |when: &str| -> Result<f64, ClaimError> {
                    Ok(read::num(v, &format!("/{when}/astar/NVM WD"))?
                        + read::num(v, &format!("/{when}/astar/NVM RD"))?)
                };
                Ok(vec![("first (MiB)".into(), hot("first")?), ("end (MiB)".into(), hot("end")?)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-pages/cloud-few-hot".into(),
            sentence: "On the cloud-like models only a minority of pages is hot at the first classification".into(),
            source: src("section 6.1, Figure 11 (\"For these applications, only a small number of pages are hot\")"),
            paper: "small".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                CLOUD
                    .iter()
                    .map(|m| {
                        let at = |c: &str| read::num(v, &format!("/first/{m}/{c}"));
                        let hot = at("DRAM WD")? + at("DRAM RD")? + at("NVM WD")? + at("NVM RD")?;
                        let all = hot + at("NVM cold")?;
                        Ok((m.to_string(), if all > 0.0 { hot / all } else { 0.0 }))
                    })
                    .collect()
            }),
            reason: ALL_PAGES_HOT,
        },
    ]
}

/// Why `memos-breakdown/memos-faster-than-random` does not hold.
const SLOWER_THAN_RANDOM: &str =
    "Memcached- (1.13x) and MySQL-like (1.09x) fall short, measured at \
afcd592 (`thermocline reproduce memos-breakdown`, the runs' time_breakdown): Memos' sampling \
part is 0.099 and 0.112 of random mapping's runtime (16.4 M and 21.7 M counted TLB misses, each a \
1 us fault) and its memory part gains little or nothing: on Memcached-like the pages it moves are \
the previous slab class's (see memos-lifetime/longer-than-random), DRAM serves 11.8% of memory \
accesses against random mapping's 11.2%, memory 0.442 against 0.423; on MySQL-like it moved \
42 000 of 393 216 pages (10 000 per 41 s cycle, the first after 22 s), memory 0.481 against 0.520";

/// Why `memos-breakdown/memos-faster-than-prior` does not hold.
const PRIOR_FASTER: &str =
    "measured at afcd592 (`thermocline reproduce memos-breakdown`, the runs' \
time_breakdown and window gauges): case 2 (inferred: kstaled from NVM) reads every page's \
Accessed bit each second and moves every page found accessed, so DRAM fills with touched pages \
after its first scan (Redis-like: all 32 685 pages by 2 s; Aerospike- and MySQL-like: DRAM's \
65 536) and its memory part is 0.20-0.38 of case 1's runtime against Memos' 0.29-0.48, whose \
moves wait 21 s for HyMM's preparation and are capped at 10 000 pages per 41 s cycle. Case 2's \
monitoring costs 0.001-0.007 (manager CPU for the PTE reads, no faults) against HyMM's \
0.053-0.112 (each counted TLB miss a 1 us fault). Case 2 pays more for copies only on \
Memcached-like (0.156 against 0.013: 378 880 pages moved as the popular slab class changes every \
10 s)";

/// Why `memos-breakdown/prior-loses-on-memcached-redis` does not hold.
const PRIOR_CHEAP: &str =
    "measured at afcd592 (`thermocline reproduce memos-breakdown`, the runs' \
time_breakdown): the inferred case 2 (kstaled) monitors by reading Accessed bits, which costs \
manager CPU only (0.16 and 0.08 s: 0.001 of case 1's runtime), no faults; its copies cost 0.156 \
(Memcached-like: 378 880 pages moved as the popular slab class changes every 10 s) and 0.011 \
(Redis-like: 32 685 pages once) of case 1's runtime, less than it saves in memory time (0.423 to \
0.219 and 0.407 to 0.200): the scaled DRAM (256 and 320 MiB) holds every page either model uses \
at a time, and case 2 has them there a second after they are first accessed. The paper does not \
describe its baseline's sampling or migration costs";

/// Why `memos-breakdown/sampling-tenth-of-prior` does not hold.
const SAMPLING_REVERSED: &str =
    "measured at afcd592 (`thermocline reproduce memos-breakdown`, the \
runs' time_breakdown): the two sample differently in our models: HyMM counts TLB misses on \
poisoned PTEs, each counted miss a 1 us fault the application takes (8.4-21.7 M per run: \
0.053-0.112 of case 1's runtime), while the inferred case 2 (kstaled) reads and clears Accessed \
bits once a second, charged as manager CPU only (0.08-1.4 s: 0.001-0.007). The paper describes \
neither its prior efforts' sampler nor how HyMM's counts reach its shadow array (see the Memos \
manager's docs, 'TLB-miss counting by poisoning'); its ratio fits a baseline that faults per \
sample, or a HyMM that counts without a fault per miss";

/// Why `memos-breakdown/migration-cost-halved` does not hold.
const NO_DMA_MOVES: &str =
    "measured at afcd592 (`thermocline reproduce memos-breakdown`, the runs' \
time_breakdown and migration counts): DMA only serves moves back to NVM, and only the \
Memcached-like model has any (19 952 of its 43 952 moves; there Memos' cost per moved page is \
0.72x case 2's). On the Redis-, Aerospike- and MySQL-like models the pages Memos moves stay hot, \
so all its moves are CPU copies to DRAM, one page per migration (each to a frame of its own bank \
and slab), at HeteroOS Table 6's one-page cost (68.7 us) plus the shootdown: 72.9 us a page; \
case 2 moves each scan's pages in one batch, cheaper per page (32.5-54.6 us)";

/// `key` of `case` on each cloud-like model.
fn case_values(v: &Value, case: &str, key: &str) -> Result<Measured, ClaimError> {
    per_model(v, &CLOUD, &format!("/breakdown/{{m}}/{case}/{key}"))
}

/// `num / den` of `key` between two cases, on each cloud-like model.
fn case_ratio(v: &Value, num: &str, den: &str, key: &str) -> Result<Measured, ClaimError> {
    CLOUD
        .iter()
        .map(|m| {
            let at = |c: &str| read::num(v, &format!("/breakdown/{m}/{c}/{key}"));
            let (a, b) = (at(num)?, at(den)?);
            Ok((m.to_string(), if b > 0.0 { a / b } else { f64::INFINITY }))
        })
        .collect()
}

/// Checked by `memos-breakdown`.
pub fn breakdown() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-breakdown/memory-dominates-random".into(),
            sentence: "Under random mapping, memory accesses take 40-77% of the cloud-like models' runtime".into(),
            source: src("section 6.2, Figure 13 (\"the overall time costs of memory accesses vary between 40.3% (Redis with fewer memory accesses) and 76.9% (Aerospike)\")"),
            paper: "40.3%-76.9%".into(),
            expect: Expect::Band { lo: 0.303, hi: 0.869 },
            unit: Unit::Percent,
            measure: Box::new(|v| case_values(v, "case 1", "memory_share")),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-breakdown/memos-faster-than-random".into(),
            sentence: "Memos' runtime is below random mapping's on every cloud-like model".into(),
            source: src("section 6.2, Figure 13 (case 3 against case 1)"),
            paper: "< 1".into(),
            expect: Expect::Band { lo: 0.0, hi: 1.0 - 1e-9 },
            unit: Unit::Times,
            measure: Box::new(|v| case_values(v, "case 3", "total_norm")),
            reason: SLOWER_THAN_RANDOM,
        },
        Claim {
            id: "memos-breakdown/memos-faster-than-prior".into(),
            sentence: "Memos' runtime is below the page sampling + migration baseline's on every cloud-like model".into(),
            source: src("section 6.2, Figure 13 (\"the overall computing time is significantly improved by around 20%\"; issue #21's goal: Memos ahead of prior sampling+migration)"),
            paper: "case 3 < case 2".into(),
            expect: Expect::Band { lo: 0.0, hi: 1.0 - 1e-9 },
            unit: Unit::Times,
            measure: Box::new(|v| case_ratio(v, "case 3", "case 2", "total_norm")),
            reason: PRIOR_FASTER,
        },
        Claim {
            id: "memos-breakdown/prior-loses-on-memcached-redis".into(),
            sentence: "On the Memcached- and Redis-like models the sampling + migration baseline runs longer than random mapping (its overheads offset its benefit)".into(),
            source: src("section 6.2 (\"In the case of Memcached and Redis, the overall performance degrades because the sampling and page migration overheads offset the benefits\")"),
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
            source: src("section 6.2 (\"Memos' sampling overhead is less than 1/10 of that of prior efforts\")"),
            paper: "< 0.1".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.1 },
            unit: Unit::Times,
            measure: Box::new(|v| case_ratio(v, "case 3", "case 2", "sampling_s")),
            reason: SAMPLING_REVERSED,
        },
        Claim {
            id: "memos-breakdown/migration-cost-halved".into(),
            sentence: "Memos' migration overhead per moved page is less than half the baseline's (DMA evicts cold pages)".into(),
            source: src("section 6.2 (\"the migration overhead is roughly reduced by more than half due to using DMA evicting cold pages\")"),
            paper: "< 0.5".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.5 },
            unit: Unit::Times,
            measure: Box::new(|v| case_ratio(v, "case 3", "case 2", "migration_ms_per_page")),
            reason: NO_DMA_MOVES,
        },
    ]
}

/// Why `memos-steps/memos-gains-over-baseline` and
/// `memos-steps/memos-gains-on-every-mix` do not hold.
const COMPUTE_BOUND: &str = "measured at afcd592 (`thermocline reproduce memos-steps`, the runs' \
time_breakdown): at the mixes' inferred rate (2.5 M accesses/s per program) the runs are \
compute-bound: the baseline's 92.4-92.6 s are 85.6 s of compute and 6.8-7.1 s of memory, so even \
removing every memory stall would gain under 8%. Placement changes memory time by 0.01 s at \
most: both channels are DRAM, Table 1's DRAM row timings make a row hit and a row conflict differ \
by 15 ns (t_RCD + t_RP at 1.5 ns a cycle) before MLP 4, and the LLC misses do not change \
(memos-steps/llc-misses-fall). What step 3 adds is HyMM's counting, 0.55-9.41 s of 1 us \
poisoned-PTE faults, which is its whole loss (W1: 92.5 s + 9.4 s = 102.0 s, -9.3%; W7, streams \
with few TLB misses per page: 0.55 s, -0.6%)";

/// Why `memos-steps/bank-imbalance-falls` does not hold.
const BALANCED_BASELINE: &str = "only W7 fails (the other four mixes fall): its baseline is \
already balanced (two libquantum-like streams and an lbm-like one, spread over every bank by the \
mapping's bank bits), the busiest bank within a tenth of a percent of the mean, so a change of a \
few hundredths of a point reads as a large relative rise. Memos' bank moves within a channel \
(section 4.3, `bank_moves`) take W7's step-3 excess from 0.36% to 0.07%, against the baseline's \
0.068% (`thermocline reproduce memos-steps`, the runs' per-bank accesses)";

/// Why `memos-steps/llc-misses-fall` does not hold.
const NO_LLC_REUSE: &str =
    "measured at afcd592 (`thermocline reproduce memos-steps`, the runs' LLC \
slab misses): the baseline's LLC already misses on 97.8-99.9% of accesses (W1: 661 M of 676 M; \
W7: 675.5 M of 676 M): each program streams or chases pointers over 96-256 MiB against an 8 MB \
LLC, so there is no reuse for slab partitioning to protect from streams, and step 3's misses are \
within 0.15% of the baseline's (W2: 891.7 M against 890.4 M)";

/// The mixes' names, as the summary keys them.
fn mixes() -> Vec<&'static str> {
    MIXES.iter().map(|m| m.0).collect()
}

/// Checked by `memos-steps`.
pub fn steps() -> Vec<Claim> {
    vec![
        Claim {
            id: "memos-steps/memos-gains-over-baseline".into(),
            sentence: "Memos (step 3) raises throughput over the interleaved baseline by about 23% on average".into(),
            source: src("section 4.4, Figure 9 (\"Step-3 achieves an average 23% performance gain over the baseline\"; 17.0% to 28.1%)"),
            paper: "23%".into(),
            expect: Expect::Band { lo: 0.115, hi: 0.345 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(one("mean", read::num(v, "/mean_gain/step 3")?))),
            reason: COMPUTE_BOUND,
        },
        Claim {
            id: "memos-steps/order-of-steps".into(),
            sentence: "On average step 3 gains more than step 2, and step 2 more than step 1".into(),
            source: src("section 4.4, Figure 9 (\"Step-3 outperforms Step-2 by 7.2%\"; \"Step-2 outperforms the Step-1\")"),
            paper: "step 3 > step 2 > step 1".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                ["step 3", "step 2", "step 1"]
                    .iter()
                    .map(|s| Ok((s.to_string(), read::num(v, &format!("/mean_gain/{s}"))?)))
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "memos-steps/memos-gains-on-every-mix".into(),
            sentence: "Memos gains over the baseline on every mix".into(),
            source: src("section 4.4 (\"the improvement also varies, from the lowest 17.0% to the highest 28.1%\")"),
            paper: "17.0%-28.1%".into(),
            expect: Expect::Band { lo: 1e-9, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| per_model(v, &mixes(), "/gain/{m}/step 3")),
            reason: COMPUTE_BOUND,
        },
        Claim {
            id: "memos-steps/bank-imbalance-falls".into(),
            sentence: "Memos reduces bank imbalance against the baseline on every mix (busiest bank's excess over the mean)".into(),
            source: src("section 4.4 (\"bank imbalance is reduced by 60.1~69.9%\"; read here as the busiest bank's excess over the mean, inferred)"),
            paper: "-60.1% to -69.9%".into(),
            expect: Expect::Band { lo: f64::NEG_INFINITY, hi: -1e-9 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                mixes()
                    .iter()
                    .map(|m| {
                        let at = |s: &str| read::num(v, &format!("/bank_imbalance/{m}/{s}"));
                        let (b, s3) = (at("baseline")? - 1.0, at("step 3")? - 1.0);
                        Ok((m.to_string(), if b > 0.0 { s3 / b - 1.0 } else { 0.0 }))
                    })
                    .collect()
            }),
            reason: BALANCED_BASELINE,
        },
        Claim {
            id: "memos-steps/llc-misses-fall".into(),
            sentence: "Memos has fewer LLC misses than the baseline, about 27% fewer on average".into(),
            source: src("section 4.4 (\"the cache misses are reduced by 27.4% on average across both channels\")"),
            paper: "0.726x".into(),
            expect: Expect::Band { lo: 0.0, hi: 1.0 - 1e-9 },
            unit: Unit::Times,
            measure: Box::new(|v| per_model(v, &mixes(), "/llc_misses_vs_baseline/{m}/step 3")),
            reason: NO_LLC_REUSE,
        },
    ]
}
