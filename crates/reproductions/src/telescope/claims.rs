//! The claims Telescope's reproductions check
//! (../shared/papers/002_98026fdc393d1867.txt), measured from the summaries
//! `telescope.rs` writes.
//!
//! The paper's precision and recall come from plots and averages; where it
//! says "mostly 0", "close to 1" or gives an average, the band is ours
//! (inferred) and stated: at most 0.1 for "mostly 0" and "less than 0.1",
//! at least 0.9 for "close to 1" and for "high", 0.05 either side of an
//! average it prints with two decimals, 0.1 either side of the needle's.

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use serde_json::Value;

const FILE: &str = "002_98026fdc393d1867.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

/// Per phase, precision and recall of `tech` under `base` (a pointer to the
/// object keyed by technique).
fn phases(v: &Value, base: &str, tech: &str, which: &[&str]) -> Result<Measured, ClaimError> {
    let p = format!("{base}/{tech}/phases");
    let ps = read::at(v, &p)?
        .as_array()
        .ok_or_else(|| ClaimError::Missing { path: p.clone() })?;
    let mut out = Vec::new();
    for (i, ph) in ps.iter().enumerate() {
        for k in which {
            let x = read::num(ph, &format!("/{k}")).map_err(|_| ClaimError::Missing {
                path: format!("{p}/{i}/{k}"),
            })?;
            out.push((format!("{tech} p{} {k}", i + 1), x));
        }
    }
    Ok(out)
}

fn both(v: &Value, base: &str, techs: &[&str], which: &[&str]) -> Result<Measured, ClaimError> {
    let mut out = Vec::new();
    for t in techs {
        out.extend(phases(v, base, t, which)?);
    }
    Ok(out)
}

fn cycles(v: &Value, base: &str, techs: &[&'static str]) -> Result<Measured, ClaimError> {
    techs
        .iter()
        .map(|t| {
            Ok((
                t.to_string(),
                read::num(v, &format!("{base}/{t}/cpu_cycles"))? / 1e9,
            ))
        })
        .collect()
}

const FLEX_OVERSHOOT: &str = "flex entries overshoot a region by up to 15-25%, so regions at the \
hot edges are reported hot (RESULTS.md analysis at 57e0371)";

const CYCLES: &str = "the cost table charges a probe of an entry 20 ns (5-15 ns above the leaf; \
crates/model costs.rs, inferred), while Table 2 implies ~0.5 us per region per sample \
(DAMON-MOD, 2 MiB: 2.42 Gcycles in a few minutes over tens of regions); with probes that cheap, \
the INVLPG and IPI (2.1 us) Telescope issues every 5 ms interval to empty the paging-structure \
caches, which DAMON does not need, are most of its cycles (200/s x 2.1 us x 356 s = 0.32 of its \
0.43 Gcycles on multi-phase THP), and DAMON with few regions (converged at THP, or a 1 GiB heap) \
spends less (issue #20 item 3 analysis)";

/// Checked by `telescope-multiphase`.
pub fn multiphase() -> Vec<Claim> {
    let mut v = Vec::new();
    for (tech, reason) in [
        ("telescope-bounded", UNKNOWN),
        ("telescope-flex", FLEX_OVERSHOOT),
    ] {
        v.push(Claim {
            id: format!("telescope-multiphase/{tech}-4k-above-0.9"),
            sentence: format!("5 TiB, 4 KiB pages: {tech}'s precision and recall stay above 0.9 in all three phases"),
            source: src("section 6.2.1, Figure 8 (\"remain above 0.9 for all three phases\")"),
            paper: "> 0.9".into(),
            expect: Expect::Band { lo: 0.9, hi: 1.0 },
            unit: Unit::Num(2),
            measure: Box::new(move |v| phases(v, "/variants/4k", tech, &["precision", "recall"])),
            reason,
        });
    }
    v.push(Claim {
        id: "telescope-multiphase/damon-4k-fails".into(),
        sentence: "5 TiB, 4 KiB pages: DAMON's precision and recall are mostly 0 in every phase"
            .into(),
        source: src("section 6.2.1, Figure 8 (\"mostly 0\"; <= 0.1 inferred)"),
        paper: "~0".into(),
        expect: Expect::Band { lo: 0.0, hi: 0.1 },
        unit: Unit::Num(2),
        measure: Box::new(|v| {
            both(
                v,
                "/variants/4k",
                &["damon-moderate", "damon-aggressive"],
                &["precision", "recall"],
            )
        }),
        reason: DAMON_4K,
    });
    v.push(Claim {
        id: "telescope-multiphase/pebs-precise".into(),
        sentence: "5 TiB, 4 KiB pages: PEBS's precision is close to 1 in every phase".into(),
        source: src("section 6.2.1, Figure 8 (\"always close to 1\"; >= 0.9 inferred)"),
        paper: "~1".into(),
        expect: Expect::Band { lo: 0.9, hi: 1.0 },
        unit: Unit::Num(2),
        measure: Box::new(|v| {
            both(
                v,
                "/variants/4k",
                &["pebs-5khz", "pebs-10khz"],
                &["precision"],
            )
        }),
        reason: UNKNOWN,
    });
    v.push(Claim {
        id: "telescope-multiphase/pebs-recall-low".into(),
        sentence: "5 TiB, 4 KiB pages: PEBS's recall is below 0.1 in every phase".into(),
        source: src("section 6.2.1, Figure 8 (\"less than 0.1\")"),
        paper: "< 0.1".into(),
        expect: Expect::Band { lo: 0.0, hi: 0.1 },
        unit: Unit::Num(2),
        measure: Box::new(|v| both(v, "/variants/4k", &["pebs-5khz", "pebs-10khz"], &["recall"])),
        reason: "1 000-2 000 samples per 200 ms window over 5 120 hot 2 MiB units, a unit counted \
hot from its first sample (the paper does not state its rule) (RESULTS.md analysis at 57e0371)",
    });
    // Huge pages: averages over the run.
    for (tech, what, paper, reason) in [
        ("damon-moderate", "precision", 0.94, THP_DAMON),
        ("damon-moderate", "recall", 0.92, THP_DAMON),
        ("damon-aggressive", "precision", 0.96, THP_DAMON),
        ("damon-aggressive", "recall", 0.90, THP_DAMON),
        ("telescope-bounded", "precision", 0.96, UNKNOWN),
        ("telescope-bounded", "recall", 0.97, UNKNOWN),
        ("telescope-flex", "precision", 0.96, FLEX_OVERSHOOT),
        ("telescope-flex", "recall", 0.97, UNKNOWN),
    ] {
        v.push(Claim {
            id: format!("telescope-multiphase/thp-{tech}-{what}"),
            sentence: format!("5 TiB, 2 MiB pages: {tech}'s average {what} is {paper:.2}"),
            source: src("section 6.2.1, Huge pages (averages; +-0.05 inferred)"),
            paper: format!("{paper:.2}"),
            expect: Expect::Band {
                lo: paper - 0.05,
                hi: (paper + 0.05).min(1.0),
            },
            unit: Unit::Num(2),
            measure: Box::new(move |v| {
                let x = read::num(v, &format!("/variants/thp/{tech}/mean_{what}"))?;
                Ok(vec![(String::new(), x)])
            }),
            reason,
        });
    }
    for (variant, paper, reason) in [
        ("4k", "24.27 > 9.55 > 2.25", CYCLES),
        ("thp", "11.94 > 2.42 > 2.09", CYCLES),
    ] {
        v.push(Claim {
            id: format!("telescope-multiphase/cycles-{variant}"),
            sentence: format!("5 TiB, {variant}: CPU cycles, DAMON-aggressive > DAMON-moderate > Telescope-bounded"),
            source: src("section 6.2.4, Table 2 (Multi-4K, Multi-2M; Gcycles)"),
            paper: paper.into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Num(2),
            measure: Box::new(move |v| {
                cycles(
                    v,
                    &format!("/variants/{variant}"),
                    &["damon-aggressive", "damon-moderate", "telescope-bounded"],
                )
            }),
            reason,
        });
    }
    v
}

/// Per size, `what` of phase 1 of `tech`.
fn by_size(v: &Value, tech: &str, what: &str) -> Result<Measured, ClaimError> {
    [1, 10, 100]
        .iter()
        .map(|g| {
            let p = format!("/sizes/{g}GiB/{tech}/phases/0/{what}");
            Ok((format!("{g} GiB"), read::num(v, &p)?))
        })
        .collect()
}

/// Checked by `telescope-subtb`.
pub fn subtb() -> Vec<Claim> {
    let mut v = vec![Claim {
        id: "telescope-subtb/1g-damon-pebs-fine".into(),
        sentence: "1 GiB heap: DAMON and PEBS reach 0.9 and above in precision and recall".into(),
        source: src("section 6.2.2, Figure 9 (\"a steady state of 0.9 and above\"; ours is the mean over the run, start included)"),
        paper: ">= 0.9".into(),
        expect: Expect::Band { lo: 0.9, hi: 1.0 },
        unit: Unit::Num(2),
        measure: Box::new(|v| {
            both(
                v,
                "/sizes/1GiB",
                &["damon-moderate", "damon-aggressive", "pebs-5khz", "pebs-10khz"],
                &["precision", "recall"],
            )
        }),
        reason: UNKNOWN,
    }];
    for tech in ["damon-moderate", "damon-aggressive"] {
        v.push(Claim {
            id: format!("telescope-subtb/{tech}-recall-falls"),
            sentence: format!("{tech}'s recall falls from 1 to 10 to 100 GiB"),
            source: src("section 6.2.2, Figure 9 (\"at 10 GB, the recall drops significantly\"; at 100 GB it drops to zero)"),
            paper: "falls".into(),
            expect: Expect::Trend { rising: false, min_step: 0.0 },
            unit: Unit::Num(2),
            measure: Box::new(move |v| by_size(v, tech, "recall")),
            reason: UNKNOWN,
        });
    }
    v.push(Claim {
        id: "telescope-subtb/100g-damon-zero".into(),
        sentence: "100 GiB heap: DAMON's precision and recall drop to zero".into(),
        source: src("section 6.2.2, Figure 9 (\"drop to zero\"; <= 0.1 inferred)"),
        paper: "0".into(),
        expect: Expect::Band { lo: 0.0, hi: 0.1 },
        unit: Unit::Num(2),
        measure: Box::new(|v| {
            both(
                v,
                "/sizes/100GiB",
                &["damon-moderate", "damon-aggressive"],
                &["precision", "recall"],
            )
        }),
        reason: DAMON_100G,
    });
    v.push(Claim {
        id: "telescope-subtb/pebs-recall-falls".into(),
        sentence:
            "PEBS keeps its precision but its recall falls as the hot region grows (1, 10, 100 GiB)"
                .into(),
        source: src("section 6.2.2, Figure 9 (\"the hot data coverage drops significantly\")"),
        paper: "falls".into(),
        expect: Expect::Trend {
            rising: false,
            min_step: 0.0,
        },
        unit: Unit::Num(2),
        measure: Box::new(|v| by_size(v, "pebs-10khz", "recall")),
        reason: UNKNOWN,
    });
    for tech in ["telescope-bounded", "telescope-flex"] {
        v.push(Claim {
            id: format!("telescope-subtb/{tech}-high"),
            sentence: format!(
                "{tech} keeps precision and recall high (>= 0.9, inferred) at 1, 10 and 100 GiB"
            ),
            source: src(
                "section 6.2.2, Figure 9 (\"outperform both DAMON and PMU in all the scenarios\")",
            ),
            paper: ">= 0.9".into(),
            expect: Expect::Band { lo: 0.9, hi: 1.0 },
            unit: Unit::Num(2),
            measure: Box::new(move |v| {
                let mut m = Vec::new();
                for what in ["precision", "recall"] {
                    m.extend(
                        by_size(v, tech, what)?
                            .into_iter()
                            .map(|(size, x)| (format!("{size} {what}"), x)),
                    );
                }
                Ok(m)
            }),
            reason: SUBTB_PUD_EDGE,
        });
    }
    for (g, paper) in [
        (1, "1.15 > 0.83"),
        (10, "19.53 > 3.20"),
        (100, "3.52 > 1.27"),
    ] {
        v.push(Claim {
            id: format!("telescope-subtb/cycles-{g}g"),
            sentence: format!(
                "{g} GiB heap: DAMON-moderate spends more CPU cycles than Telescope-bounded"
            ),
            source: src("section 6.2.4, Table 2 (SubTB; Gcycles)"),
            paper: paper.into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Num(2),
            measure: Box::new(move |v| {
                cycles(
                    v,
                    &format!("/sizes/{g}GiB"),
                    &["damon-moderate", "telescope-bounded"],
                )
            }),
            reason: CYCLES,
        });
    }
    v
}

/// Checked by `telescope-needle`.
pub fn needle() -> Vec<Claim> {
    let mut v = vec![Claim {
        id: "telescope-needle/damon-zero".into(),
        sentence: "50 MiB hot in 5 TiB: DAMON finds nothing (precision and recall 0)".into(),
        source: src("section 6.2.3 (\"zero precision and recall\"; <= 0.05 inferred)"),
        paper: "0 / 0".into(),
        expect: Expect::Band { lo: 0.0, hi: 0.05 },
        unit: Unit::Num(2),
        measure: Box::new(|v| {
            both(
                v,
                "/techniques",
                &["damon-moderate", "damon-aggressive"],
                &["precision", "recall"],
            )
        }),
        reason: DAMON_NEEDLE,
    }];
    for (tech, what, paper, reason) in [
        ("pebs-5khz", "precision", 0.81, PEBS_NEEDLE),
        ("pebs-5khz", "recall", 0.99, PEBS_NEEDLE),
        ("pebs-10khz", "precision", 0.81, PEBS_NEEDLE),
        ("pebs-10khz", "recall", 0.99, PEBS_NEEDLE),
        ("telescope-bounded", "precision", 0.88, NEEDLE),
        ("telescope-bounded", "recall", 0.88, NEEDLE),
        ("telescope-flex", "precision", 0.92, NEEDLE),
        ("telescope-flex", "recall", 0.92, NEEDLE),
    ] {
        v.push(Claim {
            id: format!("telescope-needle/{tech}-{what}"),
            sentence: format!("50 MiB hot in 5 TiB: {tech}'s average {what} is {paper:.2}"),
            source: src("section 6.2.3 (averages; +-0.1 inferred)"),
            paper: format!("{paper:.2}"),
            expect: Expect::Band {
                lo: paper - 0.1,
                hi: (paper + 0.1).min(1.0),
            },
            unit: Unit::Num(2),
            measure: Box::new(move |v| {
                let x = read::num(v, &format!("/techniques/{tech}/phases/0/{what}"))?;
                Ok(vec![(String::new(), x)])
            }),
            reason,
        });
    }
    v
}

const NEEDLE: &str = "bounded merges with the kernel's threshold now (0.00/0.00 before, under \
samples / 10): its regions of ~512 GiB start 1 GiB past a PGD boundary, so it probes one of ~512 \
PUDs per interval and finds the needle only after ~50 s of the ~197 s run, then holds it at \
1.00/0.84; the paper does not say where its heap lies. Flex probes PGD entries and finds it in the \
first second, but reports a fringe around it (a cold region holding 85% of the needle's PUD reads \
hot): 0.78/0.82 (issue #20 item 3 analysis)";

/// Why bounded's recall falls short in phases with 1x regions.
const LOW_DENSITY: &str = "a 1x region beside 10x ones gets a few expected accesses per 2 MiB \
unit per window: hot for the ground truth (>= 1), but a PMD probed every 5 ms then reads set in \
fewer than 6 of 40 samples, so the pieces of it smaller than a PUD fail the paper's > 5 test \
(issue #20 item 3 analysis, docs of crates/managers/src/telescope)";

/// Why flex's precision falls short around small regions.
const FLEX_FRINGE: &str = "a cold region holding at least 85% of a PUD (75% of a PMD) next to a \
hot region may probe that entry and read hot: a fringe of up to ~1 GiB around each hot region, \
large beside the family's 10-500 MiB regions; why flex's recall is also lower than bounded's \
in the one-region phase (a 200 MiB region) is not analysed (issue #20 item 3 analysis)";

/// Checked by `telescope-scattered` (beyond the paper: its claims for the
/// multi-phase benchmark, precision and recall above 0.9 in every phase,
/// carried over to the family).
pub fn scattered() -> Vec<Claim> {
    let mut v = Vec::new();
    for (tech, reason) in [
        ("telescope-bounded", LOW_DENSITY),
        ("telescope-flex", FLEX_FRINGE),
    ] {
        v.push(Claim {
            id: format!("telescope-scattered/{tech}-every-phase-above-0.9"),
            sentence: format!(
                "1-16 scattered hot regions of 1x-10x density in 5 TiB: {tech}'s precision and recall stay above 0.9 in every phase (the worst phase included)"
            ),
            source: src("section 6.2.1, Figure 8 (\"remain above 0.9 for all three phases\"), carried over to the family (inferred)"),
            paper: "> 0.9".into(),
            expect: Expect::Band { lo: 0.9, hi: 1.0 },
            unit: Unit::Num(2),
            measure: Box::new(move |v| phases(v, "/techniques", tech, &["precision", "recall"])),
            reason,
        });
        v.push(Claim {
            id: format!("telescope-scattered/{tech}-mean-above-0.9"),
            sentence: format!(
                "1-16 scattered hot regions of 1x-10x density in 5 TiB: {tech}'s precision and recall, averaged over the phases, are above 0.9"
            ),
            source: src("section 6.2.1, Figure 8, carried over to the family (inferred)"),
            paper: "> 0.9".into(),
            expect: Expect::Band { lo: 0.9, hi: 1.0 },
            unit: Unit::Num(2),
            measure: Box::new(move |v| {
                ["precision", "recall"]
                    .iter()
                    .map(|k| Ok((k.to_string(), read::num(v, &format!("/techniques/{tech}/phase_mean/{k}"))?)))
                    .collect()
            }),
            reason,
        });
    }
    v.push(Claim {
        id: "telescope-scattered/damon-below-telescope".into(),
        sentence: "1-16 scattered hot regions in 5 TiB: DAMON's mean recall is below Telescope-bounded's".into(),
        source: src("section 6.2.1 (DAMON \"fails to converge\" at terabyte scale), carried over to the family (inferred)"),
        paper: "Telescope > DAMON".into(),
        expect: Expect::Order { margin: 0.0 },
        unit: Unit::Num(2),
        measure: Box::new(|v| {
            ["telescope-bounded", "damon-moderate"]
                .iter()
                .map(|t| Ok((t.to_string(), read::num(v, &format!("/techniques/{t}/phase_mean/recall"))?)))
                .collect()
        }),
        reason: UNKNOWN,
    });
    v
}

/// Why DAMON's 4 KiB phase-1 precision is just above the band.
const DAMON_4K: &str = "recall is 0.00 in every phase and precision 0.00 in phases 2 and 3; the \
phase-1 0.10-0.11 is 10-11 one-second windows out of ~88 in which one small region lying in the \
hot 10 GiB read 6 or more of its samples (recall <= 0.001: the tail of a binomial of 40 samples \
(200 for aggressive) at ~1.7% each, a 4 KiB page's chance to be set in 5 ms, over a few hundred \
regions), scored \
precision 1 against 0 in the windows that report nothing; the paper's DAMON too \"briefly \
detects few accesses\" in phase 1. Measured at 18791cf (`thermocline reproduce \
telescope-multiphase --check`); the <= 0.1 band is inferred";

/// Why DAMON's huge-page averages are above the paper's.
const THP_DAMON: &str =
    "with 2 MiB pages each PMD of the hot 10 GiB is set in every 5 ms sample, so \
DAMON converges in 2-3 s at the start and within one 1 s window after each phase change and then \
holds 0.98-1.00 (damon-moderate per phase 0.98/0.98, 1.00/0.99, 0.99/0.98; `thermocline run \
--workload telescope-multiphase --manager damon-moderate --set workload.thp=true` with the \
reproduction's sets, at 18791cf); the paper's 0.90-0.94 needs ~6 s of misses per 80 s phase, which \
it does not explain; not found";

/// Why DAMON found the 100 GiB heap's hot region at abdba54.
const DAMON_100G: &str = "at abdba54 DAMON reported a region hot at any nr_accesses; a \
4 KiB page of the hot 10 GiB is set in 1.6% of 5 ms samples (8.28 M loads/s over 2.6 M pages), \
so a region there reads at least one of 40 samples (moderate; 200 at 1 ms, aggressive) in 47% of \
windows, which is the 0.41/0.40 recall measured. Since 18791cf DAMON applies the paper's hot \
test (more than 5 samples, 6.3.2), which such a region passes with probability 4e-5: at 836bed4 \
`thermocline run --workload telescope-subtb-100g` with the reproduction's sets (rate backend, \
768GiB fast, 128 bins) gives precision 0.08 / recall 0.00 (damon-moderate, 6 of 73 windows \
reporting anything) and 0.07 / 0.00 (damon-aggressive), inside the band; the claim is expected \
to hold when this section is regenerated";

/// Why Telescope's precision at 100 GiB is below 0.9.
const SUBTB_PUD_EDGE: &str = "at 100 GiB the hot region ends 2 MiB into a 1 GiB PUD (the layout starts \
at 1 GiB and leaves 2 MiB after each region); a region holding that PUD probes it and reads it \
set, so up to ~1 GiB of cold beside the 10 GiB is reported: precision per 1 s window 0.76-0.97 \
(flex) and 0.81-1.00 (bounded), every window, not a transient. The same run with cold0 2 MiB \
shorter, so both ends of the hot region lie on PUD boundaries, gives flex 0.99 and bounded 1.00 \
(recall 1.00; `thermocline run` of that MASIM config with the reproduction's sets, at 18791cf); the \
paper does not say where its heap lies";

/// Why PEBS is precise on the needle where the paper's is not.
const PEBS_NEEDLE: &str = "every sample of ours is a heap load: the 25 needle units are reported \
every window and nothing else (1.00/1.00). masim's random loop also loads a pre-drawn random int \
per access (masim.c: `int rndints[1000][1000]`, 4 MB of static data read by rndint() in \
do_rnd_ro), so about half the retired loads PEBS samples fall in 2-3 units outside the heap, \
always reported, beside libc's rand() state and the stack: 25 hot units and 4-6 such units give \
0.81-0.86, the paper's 0.81 (and would halve the multi-phase recall). Not modelled: the MASIM \
model issues heap accesses only, and its ground truth would count those units hot (an inference \
from masim's source, not measured)";

/// Why Telescope migrates more than the paper on Memcached-YCSB.
const KV_YCSB: &str = "the pieces of a region that straddles the hot keys' end inherit its count \
(Telescope splits before it reports; an inference, crates/managers/src/telescope/regions.rs), \
so cold pieces under 4 GiB are migrated: memcached-ycsb bounded moved [26.3, 32.9) GiB at 154-155 \
s with counts 8-17 while the hot keys end at 19.65 GiB, and ~23 GiB beyond them by the end \
(flex ~28); redis-ycsb, one server thread, whose hot PUDs read set less often, ~10 GiB (in the \
band). Measured by logging each migration at 18791cf (not committed). Linux 5.18's \
damon_split_region_at did not copy nr_accesses to the new piece (copied since late 2023): how \
the paper's pieces were counted is not known; not tried";

const DAMON_NEEDLE: &str = "DAMON starts from vaddr's three regions and merges with the kernel's \
max_nr_accesses / 10, which is 0 while nothing else reads hot, so the one sample in thousands that \
hits the needle keeps its region apart and the splits narrow it down; the paper's hot test (> 5 \
samples, applied to DAMON since 18791cf) does not change it: a 4 KiB page of the 50 MiB needle is \
set in ~98% of 5 ms samples, so a region on it reads ~40 of 40 (0.44/0.44 and 0.75/0.54 with the \
test, 0.44/0.46 and 0.75/0.56 without). Why the paper's DAMON did not find it is not known";

const KV: [&str; 4] = [
    "memcached-ycsb",
    "memcached-memtier",
    "redis-ycsb",
    "redis-memtier",
];

fn kv_num(v: &Value, w: &str, t: &str, key: &str) -> Result<f64, ClaimError> {
    read::num(v, &format!("/workloads/{w}/techniques/{t}/{key}"))
}

/// Checked by `telescope-kv`.
pub fn kv() -> Vec<Claim> {
    let mut v = vec![Claim {
        id: "telescope-kv/damon-migrates-nothing".into(),
        sentence: "DAMON identifies no hot page, so migrates 0 GB, on every key-value workload"
            .into(),
        source: src("section 6.3.3, Table 4 (DAMON-MOD: 0 / 0 GB)"),
        paper: "0 GB".into(),
        expect: Expect::Band { lo: 0.0, hi: 0.0 },
        unit: Unit::Num(2),
        measure: Box::new(|v| {
            KV.iter()
                .map(|w| {
                    Ok((
                        w.to_string(),
                        kv_num(v, w, "damon-moderate", "migrated_gb")?,
                    ))
                })
                .collect()
        }),
        reason: UNKNOWN,
    }];
    for w in KV {
        v.push(Claim {
            id: format!("telescope-kv/{w}-telescope-over-pmu"),
            sentence: format!("{w}: Telescope-bounded migrates more than PEBS"),
            source: src("section 6.3.3, Table 4 (Telescope tens of GB, PMU ~0-0.15 GB)"),
            paper: "Telescope > PMU".into(),
            expect: Expect::Order { margin: 0.0 },
            unit: Unit::Num(2),
            measure: Box::new(move |v| {
                ["telescope-bounded", "pebs-10khz"]
                    .iter()
                    .map(|t| Ok((t.to_string(), kv_num(v, w, t, "migrated_gb")?)))
                    .collect()
            }),
            reason: UNKNOWN,
        });
    }
    // Table 4's GB migrated (YCSB / memtier columns).
    for (w, t, paper) in [
        ("memcached-ycsb", "telescope-bounded", 31.0),
        ("memcached-memtier", "telescope-bounded", 94.0),
        ("redis-ycsb", "telescope-bounded", 34.0),
        ("redis-memtier", "telescope-bounded", 38.0),
        ("memcached-ycsb", "telescope-flex", 34.0),
        ("memcached-memtier", "telescope-flex", 108.0),
        ("redis-ycsb", "telescope-flex", 28.0),
        ("redis-memtier", "telescope-flex", 50.0),
    ] {
        v.push(Claim {
            id: format!("telescope-kv/{w}-{t}-gb"),
            sentence: format!("{w}: {t} migrates about {paper:.0} GB"),
            source: src("section 6.3.3, Table 4 (\"≈\" values; tolerance 25% inferred)"),
            paper: format!("~{paper:.0} GB"),
            expect: Expect::Ratio {
                paper,
                tolerance: 0.25,
            },
            unit: Unit::Num(1),
            measure: Box::new(move |v| Ok(vec![(String::new(), kv_num(v, w, t, "migrated_gb")?)])),
            reason: if w.ends_with("memtier") {
                "memtier's Gaussian core is ~3 GB of 5 MB values in key order; once a region \
holding it exceeds 4 GiB it is skipped while merges keep it whole; the paper's store \
likely scatters values (RESULTS.md analysis at 57e0371)"
            } else {
                KV_YCSB
            },
        });
    }
    v.push(Claim {
        id: "telescope-kv/best-gain".into(),
        sentence: "Telescope's migrations improve throughput by up to 34.4% over no telemetry"
            .into(),
        source: src("section 6.3.3, Figure 13 (\"up to 34.4%\"; tolerance 25% inferred)"),
        paper: "+34.4%".into(),
        expect: Expect::Ratio {
            paper: 0.344,
            tolerance: 0.25,
        },
        unit: Unit::Percent,
        measure: Box::new(|v| {
            let mut best: Option<(String, f64)> = None;
            for w in KV {
                for t in ["telescope-bounded", "telescope-flex"] {
                    let x = kv_num(v, w, t, "throughput_change")?;
                    if best.as_ref().is_none_or(|b| x > b.1) {
                        best = Some((format!("{w} {t}"), x));
                    }
                }
            }
            Ok(best.into_iter().collect())
        }),
        reason: "the models are memory-bound value copies at 40 M line accesses/s per thread with \
no network stack, so moving hot values to DRAM pays more (RESULTS.md analysis at 57e0371)",
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn find(claims: Vec<Claim>, id: &str) -> Claim {
        claims.into_iter().find(|c| c.id == id).unwrap()
    }

    #[test]
    fn every_phase_counts_and_an_unscored_phase_is_not_measured() {
        let tech = |p: [Option<f64>; 3]| json!({"phases": p.iter().map(|x| json!({"precision": x, "recall": 0.95})).collect::<Vec<_>>()});
        let v = json!({"variants": {"4k": {
            "telescope-bounded": tech([Some(0.95), Some(0.91), Some(0.99)]),
            "telescope-flex": tech([Some(0.95), Some(0.89), Some(0.99)]),
            "pebs-5khz": tech([Some(1.0), Some(1.0), None]),
        }}});
        let c = multiphase();
        let b = find(
            multiphase(),
            "telescope-multiphase/telescope-bounded-4k-above-0.9",
        )
        .check(&v);
        assert!(b.held);
        assert_eq!(b.values.len(), 6);
        assert!(
            !find(c, "telescope-multiphase/telescope-flex-4k-above-0.9")
                .check(&v)
                .held
        );
        let p = find(multiphase(), "telescope-multiphase/pebs-precise").check(&v);
        assert!(!p.held);
        assert_eq!(
            p.reason.as_deref(),
            Some("not measured: the summary has no number at /variants/4k/pebs-5khz/phases/2/precision")
        );
    }

    /// Every phase counts: one phase under 0.9 fails the claim though the
    /// mean holds.
    #[test]
    fn scattered_every_phase_fails_on_the_worst_phase() {
        let tech = json!({
            "phases": [{"precision": 0.99, "recall": 0.95}, {"precision": 0.85, "recall": 0.97}],
            "phase_mean": {"precision": 0.92, "recall": 0.96},
        });
        let v = json!({"techniques": {"telescope-bounded": tech}});
        let every = find(
            scattered(),
            "telescope-scattered/telescope-bounded-every-phase-above-0.9",
        )
        .check(&v);
        assert!(!every.held);
        assert_eq!(every.values.len(), 4);
        assert!(
            find(
                scattered(),
                "telescope-scattered/telescope-bounded-mean-above-0.9"
            )
            .check(&v)
            .held
        );
    }

    #[test]
    fn subtb_trends_read_phase_one_by_size() {
        let size =
            |r: f64| json!({"damon-moderate": {"phases": [{"precision": 1.0, "recall": r}]}});
        let v = json!({"sizes": {"1GiB": size(1.0), "10GiB": size(0.5), "100GiB": size(0.5)}});
        let c = find(subtb(), "telescope-subtb/damon-moderate-recall-falls").check(&v);
        assert_eq!(c.values, vec![1.0, 0.5, 0.5]);
        assert!(!c.held, "0.5 to 0.5 does not fall");
    }

    #[test]
    fn kv_gain_is_the_best_telescope_run() {
        let mut w = serde_json::Map::new();
        for (i, name) in KV.iter().enumerate() {
            w.insert(
                name.to_string(),
                json!({"techniques": {
                "telescope-bounded": {"throughput_change": 0.12 * i as f64, "migrated_gb": 30.0},
                "telescope-flex": {"throughput_change": 0.05, "migrated_gb": 30.0},
                "pebs-10khz": {"throughput_change": 0.0, "migrated_gb": 0.01},
                "damon-moderate": {"throughput_change": 0.0, "migrated_gb": 0.0}}}),
            );
        }
        let v = json!({ "workloads": w });
        let g = find(kv(), "telescope-kv/best-gain").check(&v);
        assert_eq!(g.ours[0].0, "redis-memtier telescope-bounded");
        assert!(g.held);
        assert!(
            find(kv(), "telescope-kv/damon-migrates-nothing")
                .check(&v)
                .held
        );
        assert!(
            find(kv(), "telescope-kv/redis-memtier-telescope-over-pmu")
                .check(&v)
                .held
        );
        // 30 against ~31: within 25%; against ~94: not.
        assert!(
            find(kv(), "telescope-kv/memcached-ycsb-telescope-bounded-gb")
                .check(&v)
                .held
        );
        assert!(
            !find(kv(), "telescope-kv/memcached-memtier-telescope-bounded-gb")
                .check(&v)
                .held
        );
    }
}
