//! The claims `heteroos-coordinated` and `heteroos-costs` check
//! (../shared/papers/001_f8c99e4789a9a37b.txt, sections 5.2 and 5.4, the
//! summary of section 5 and the abstract), measured from the summaries
//! `vmm.rs` writes.
//!
//! Figures 8 and 11 are images: the numbers the text gives (Figure 8's
//! +32% and +60%, coordinated's +28% and +16% over HeteroOS-LRU, "up to
//! 2x") and Figure 12's table are checked as numbers, ours over the
//! paper's where a claim covers several; the rest are orderings its text
//! states. Tolerances on the paper's numbers are ours (*inferred*), each
//! said why in its claim's source. Figure 12's page counts are compared as
//! the paper's ratios between the approaches (a ratio of counts needs no
//! common scale), within the spread of the table's three applications and
//! its rounding.
//!
//! The summaries write 0 for a run they lack: a speedup, a gain over
//! Heap-IO-Slab-OD or an overhead of exactly 0 is read as that missing run
//! ([`ran`]), and a count (pages scanned or migrated) is read only when the
//! run's speedup says the run is there.

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use crate::heteroos::vmm_setup::{FIG12_MODELS, FIG8_INTERVALS_MS, MODELS, PAPER_T6, RATIOS};
use serde_json::Value;

const FILE: &str = "001_f8c99e4789a9a37b.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

const VMM: &str = "VMM-exclusive";
const LRU: &str = "HeteroOS-LRU";
const COORD: &str = "HeteroOS-coordinated";
/// Figure 12's ratio as the summary keys it (inferred, see `vmm.rs`).
const FIG12_RATIO: &str = "1:4";

/// The number at `path`, empty where the summary wrote the 0 it writes
/// for a run it lacks ([`read::ran`]).
fn ran(v: &Value, path: &str) -> Result<f64, ClaimError> {
    read::ran(v, path)
}

/// `f(model, ratio key)` for every model of `models` at every ratio of
/// Figure 11, labelled `model 1/4`.
fn each_cell(
    models: &[&str],
    f: impl Fn(&str, &str) -> Result<f64, ClaimError>,
) -> Result<Measured, ClaimError> {
    let mut out = Vec::new();
    for m in models {
        for (ratio, _) in RATIOS {
            out.push((format!("{m} {ratio}"), f(m, &ratio.replace('/', ":"))?));
        }
    }
    Ok(out)
}

fn speedup(v: &Value, m: &str, ratio: &str, label: &str) -> Result<f64, ClaimError> {
    ran(v, &format!("/speedup/{m}/{ratio}/{label}"))
}

/// A count of `label`'s run on `m` at `ratio` (`/KEY/m/ratio/label`, or
/// `/KEY/m/label` for Figure 12's), read once its speedup shows the run
/// is there (a count of 0 is a count).
fn count(v: &Value, path: &str, m: &str, ratio: &str, label: &str) -> Result<f64, ClaimError> {
    speedup(v, m, ratio, label)?;
    read::num(v, path)
}

/// Figure 12's gain over Heap-IO-Slab-OD of `label` on each of its models.
fn fig12_gains(v: &Value, label: &str) -> Result<Measured, ClaimError> {
    FIG12_MODELS
        .iter()
        .map(|m| {
            Ok((
                m.to_string(),
                ran(v, &format!("/migration_gain/{m}/{label}"))?,
            ))
        })
        .collect()
}

/// Figure 12's pages migrated by `label` on each of its models (millions).
fn fig12_pages(v: &Value, label: &str) -> Result<Measured, ClaimError> {
    FIG12_MODELS
        .iter()
        .map(|m| {
            let path = format!("/migrated_mpages/{m}/{label}");
            Ok((m.to_string(), count(v, &path, m, FIG12_RATIO, label)?))
        })
        .collect()
}

/// `ours` over `paper`, value by value.
fn over_paper(ours: Measured, paper: &[f64]) -> Measured {
    ours.into_iter()
        .zip(paper)
        .map(|((l, x), p)| (l, x / p))
        .collect()
}

/// `num / den` for each model, infinite where `den` is 0.
fn ratios(num: Measured, den: Measured) -> Measured {
    num.into_iter()
        .zip(den)
        .map(|((m, n), (_, d))| (m, if d > 0.0 { n / d } else { f64::INFINITY }))
        .collect()
}

/// Figure 12's table: (VMM-exclusive, HeteroOS-LRU, HeteroOS-coordinated)
/// gains over Heap-IO-Slab-OD, in [`FIG12_MODELS`]' order.
const PAPER_FIG12_GAIN: [[f64; 3]; 3] = [
    [-0.30, 0.10, 0.40],
    [-0.20, 0.021, 0.19],
    [-0.10, 0.20, 0.20],
];

const THRASH: &str = "HeteroOS-coordinated's guest promotes the pages the VMM's scans find hot \
(accessed in the latest scan and in at least two of the last eight) and evicts its least \
recently used FastMem pages to make room; the copies cost SlowMem bandwidth that VMM-exclusive, \
which evicts only pages it found idle, does not spend: on the Redis-like model at 1/4 \
coordinated moved {/migrated_mpages/redis/HeteroOS-coordinated:2} M pages against \
VMM-exclusive's {/migrated_mpages/redis/VMM-exclusive:2} M and HeteroOS-LRU's \
{/migrated_mpages/redis/HeteroOS-LRU:2} M, for a speedup of {/speedup/redis/1:4/HeteroOS-coordinated:x} \
against {/speedup/redis/1:4/VMM-exclusive:x} and {/speedup/redis/1:4/HeteroOS-LRU:x} (GraphChi-like: \
{/migrated_mpages/graphchi/HeteroOS-coordinated:2} M against {/migrated_mpages/graphchi/VMM-exclusive:2} \
M, {/speedup/graphchi/1:4/HeteroOS-coordinated:x} against {/speedup/graphchi/1:4/VMM-exclusive:x})";

const SCANS_FOLLOW_LENGTH: &str = "coordinated's VMM scans as many pages per epoch as \
VMM-exclusive's, and Equation 1's interval averages near VMM-exclusive's; the tracked heap \
VMAs are most of the GraphChi- and Redis-like footprints, so the two scan at about the same \
rate and the count follows the run's length, which coordinated's migrations make longer \
(Redis-like at 1/4: {/scanned_pages/redis/1:4/HeteroOS-coordinated:0} pages scanned against \
{/scanned_pages/redis/1:4/VMM-exclusive:0}, speedups {/speedup/redis/1:4/HeteroOS-coordinated:x} \
and {/speedup/redis/1:4/VMM-exclusive:x}); where tracking starts late or never (X-Stream-, \
LevelDB-like) it scans fewer";

const NEVER_STARTS: &str = "on the LevelDB-like model at 1/4 HeteroOS-LRU always finds free \
FastMem (no allocation misses), so coordinated's tracking never starts ({/scanned_pages/leveldb/1:4/HeteroOS-coordinated:0} \
pages scanned) and its run is HeteroOS-LRU's: {/migrated_mpages/leveldb/HeteroOS-coordinated:3} M \
pages moved against {/migrated_mpages/leveldb/HeteroOS-LRU:3} M; on the Redis-like model \
coordinated's guest promotes and evicts far more than HeteroOS-LRU evicts \
({/migrated_mpages/redis/HeteroOS-coordinated:2} M against {/migrated_mpages/redis/HeteroOS-LRU:2} M; \
see the claim fig12-coordinated-migrates-less-than-vmm)";

/// Checked by `heteroos-coordinated`.
pub fn coordinated() -> Vec<Claim> {
    vec![
        Claim {
            id: "heteroos-coordinated/ahead-of-vmm-exclusive".into(),
            sentence: "HeteroOS-coordinated's speedup over SlowMem-only exceeds VMM-exclusive's on every model at 1/4 and 1/8 (shown: coordinated minus VMM-exclusive)".into(),
            source: src("section 5.4, Figure 11; summary of section 5 (\"provides up to 2x gains over the VMM-exclusive approach\"; the number is the claim up-to-2x-over-vmm-exclusive)"),
            paper: "coordinated > VMM-exclusive".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(|v| {
                each_cell(&MODELS, |m, r| Ok(speedup(v, m, r, COORD)? - speedup(v, m, r, VMM)?))
            }),
            reason: THRASH,
        },
        Claim {
            id: "heteroos-coordinated/up-to-2x-over-vmm-exclusive".into(),
            sentence: "At best (over models and ratios) HeteroOS-coordinated is about 2x faster than VMM-exclusive (t_VMM-exclusive / t_coordinated; within 25%, inferred)".into(),
            source: src("abstract and summary of section 5 (\"up to 2x performance improvement compared to the state-of-the-art VMM-exclusive approach\"); within 25%, inferred: \"up to 2x\" is a rounded maximum over cells the paper does not name, read off Figure 11, an image; the band, 1.5x to 2.5x, stays above 1x"),
            paper: "up to ~2x".into(),
            expect: Expect::Ratio { paper: 2.0, tolerance: 0.25 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let cells = each_cell(&MODELS, |m, r| {
                    Ok(speedup(v, m, r, COORD)? / speedup(v, m, r, VMM)?)
                })?;
                let best = cells
                    .into_iter()
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .ok_or(ClaimError::Count { need: "at least 1", got: 0 })?;
                Ok(vec![best])
            }),
            reason: THRASH,
        },
        Claim {
            id: "heteroos-coordinated/fewer-pages-scanned".into(),
            sentence: "The VMM scans fewer pages under HeteroOS-coordinated (the guest's heap VMAs, from the first FastMem miss on) than under VMM-exclusive (all guest memory) on every model at 1/4 and 1/8 (shown: coordinated's scans over VMM-exclusive's)".into(),
            source: src("section 4.1 (\"Tracking the entire guest-VM's memory for hotness is expensive\"); section 5.4 (the guest \"guides the VMM to scan only relevant application pages instead of the entire guest-VM\"; coordinated \"reduces hotness-tracking overheads with guest-OS hints\")"),
            paper: "fewer pages scanned".into(),
            expect: Expect::Band { lo: 0.0, hi: 1.0 - 1e-9 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                each_cell(&MODELS, |m, r| {
                    let at = |l: &str| count(v, &format!("/scanned_pages/{m}/{r}/{l}"), m, r, l);
                    let vmm = at(VMM)?;
                    Ok(if vmm > 0.0 { at(COORD)? / vmm } else { f64::INFINITY })
                })
            }),
            reason: SCANS_FOLLOW_LENGTH,
        },
        Claim {
            id: "heteroos-coordinated/lru-ahead-of-vmm-exclusive".into(),
            sentence: "HeteroOS-LRU's speedup exceeds VMM-exclusive's (lazy FastMem allocation, no knowledge of released pages) on every model at 1/4 and 1/8 (shown: LRU minus VMM-exclusive)".into(),
            source: src("section 5.4 (\"The VMM-exclusive migration-only approach performs poorly due to lazy FastMem page allocation ...\"; Metis, where the two are comparable, is not run here)"),
            paper: "HeteroOS-LRU > VMM-exclusive".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(|v| {
                each_cell(&MODELS, |m, r| Ok(speedup(v, m, r, LRU)? - speedup(v, m, r, VMM)?))
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-coordinated/leveldb-vmm-exclusive-small".into(),
            sentence: "On the LevelDB-like model (small working set) VMM-exclusive gains less than 10% over SlowMem-only at 1/4 and 1/8, a gain and not a loss (shown: speedup - 1)".into(),
            source: src("section 5.4 (\"applications such as LevelDB with a small working set size that fits in FastMem show less than 10% gains with the VMM-exclusive approach\": a gain, from none to the paper's bound)"),
            paper: "< 10% gains".into(),
            expect: Expect::Band { lo: 0.0, hi: 0.10 },
            unit: Unit::Percent,
            measure: Box::new(|v| each_cell(&["leveldb"], |m, r| Ok(speedup(v, m, r, VMM)? - 1.0))),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-coordinated/coordinated-over-lru-quarter".into(),
            sentence: "At 1/4, HeteroOS-coordinated improves on HeteroOS-LRU by the paper's 28% on the GraphChi-like model and 16% on the X-Stream-like one (t_LRU / t_coordinated - 1; shown: ours over the paper's, within 25%, inferred)".into(),
            source: src("section 5.4 (\"For Graphchi and X-Stream, HeteroOS-coordinated approach improves the gains by 28%, and 16% compared to HeteroOS-LRU for 1/4 capacity ratio\"; read as t_LRU / t_coordinated - 1, as Figure 12's Graphchi row gives it: 1.40 / 1.10 - 1 = 27%); within 25%, inferred: Figure 11 is an image and the text gives no spread"),
            paper: "+28%, +16%".into(),
            expect: Expect::Band { lo: 0.75, hi: 1.25 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let ours = ["graphchi", "xstream"]
                    .iter()
                    .map(|m| {
                        let l = speedup(v, m, "1:4", LRU)?;
                        let c = speedup(v, m, "1:4", COORD)?;
                        Ok((m.to_string(), c / l - 1.0))
                    })
                    .collect::<Result<Measured, ClaimError>>()?;
                Ok(over_paper(ours, &[0.28, 0.16]))
            }),
            reason: THRASH,
        },
        Claim {
            id: "heteroos-coordinated/leveldb-coordinated-like-lru".into(),
            sentence: "On the LevelDB-like model at 1/4, VMM-level tracking adds little to HeteroOS-LRU and takes nothing away: coordinated's speedup over LRU's from 1x (Figure 12's equal gains, to their rounding) to 1.10x (\"not much\", inferred)".into(),
            source: src("section 5.4 (\"For LevelDB, with a small working set size, VMM-level hotness-tracking with HeteroOS-coordinated does not add much to the HeteroOS-LRU's gains\"); Figure 12 (LevelDB: 20.0 and 20.0, so the lower edge is 1.1995 / 1.2005, the table's rounding)"),
            paper: "about the same (20.0% and 20.0%)".into(),
            expect: Expect::Band { lo: 1.1995 / 1.2005, hi: 1.10 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let l = speedup(v, "leveldb", "1:4", LRU)?;
                let c = speedup(v, "leveldb", "1:4", COORD)?;
                Ok(vec![("coordinated / LRU".into(), c / l)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-coordinated/fastmem-only-bounds".into(),
            sentence: "No approach beats FastMem-only (the dotted line) on any model at 1/4 or 1/8 (shown: FastMem-only minus the best approach)".into(),
            source: src("section 5.4, Figure 11 (\"the dotted lines represents the best case FastMem-only approach\")"),
            paper: "<= FastMem-only".into(),
            expect: Expect::Band { lo: 0.0, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(|v| {
                each_cell(&MODELS, |m, r| {
                    let best = [VMM, LRU, COORD]
                        .iter()
                        .map(|l| speedup(v, m, r, l))
                        .collect::<Result<Vec<_>, _>>()?
                        .into_iter()
                        .fold(f64::MIN, f64::max);
                    Ok(speedup(v, m, r, "FastMem-only")? - best)
                })
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-coordinated/fig12-vmm-exclusive-loses".into(),
            sentence: "Figure 12 (1/4, inferred): VMM-exclusive's gain over Heap-IO-Slab-OD (placement without migration) is the paper's loss on the GraphChi-, Redis- and LevelDB-like models (shown: ours over the paper's; within 25%, inferred)".into(),
            source: src("section 5.4, Figure 12 (VMM-exclusive: Graphchi -30.0, Redis -20.0, LevelDB -10.0); within 25%, inferred: the table gives the values, so no chart reading, and 25% allows for the models' scale-down; the band stays a loss"),
            paper: "-30%, -20%, -10%".into(),
            expect: Expect::Band { lo: 0.75, hi: 1.25 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let paper: Vec<f64> = PAPER_FIG12_GAIN.iter().map(|r| r[0]).collect();
                Ok(over_paper(fig12_gains(v, VMM)?, &paper))
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-coordinated/fig12-coordinated-gains".into(),
            sentence: "Figure 12 (1/4, inferred): HeteroOS-coordinated's gain over Heap-IO-Slab-OD is the paper's on the GraphChi-, Redis- and LevelDB-like models (shown: ours over the paper's; within 25%, inferred)".into(),
            source: src("section 5.4, Figure 12 (HeteroOS-Coordinated: Graphchi 40.0, Redis 19.0, LevelDB 20.0); within 25%, inferred: the table gives the values, so no chart reading, and 25% allows for the models' scale-down"),
            paper: "+40%, +19%, +20%".into(),
            expect: Expect::Band { lo: 0.75, hi: 1.25 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let paper: Vec<f64> = PAPER_FIG12_GAIN.iter().map(|r| r[2]).collect();
                Ok(over_paper(fig12_gains(v, COORD)?, &paper))
            }),
            reason: THRASH,
        },
        Claim {
            id: "heteroos-coordinated/fig12-coordinated-over-lru".into(),
            sentence: "Figure 12 (1/4, inferred): HeteroOS-coordinated's gain over Heap-IO-Slab-OD exceeds HeteroOS-LRU's by the paper's points on the GraphChi- and Redis-like models (coordinated's gain minus LRU's; shown: ours over the paper's, within 25%, inferred)".into(),
            source: src("section 5.4, Figure 12 (Graphchi 40.0 vs 10.0, Redis 19.0 vs 2.1; LevelDB 20.0 vs 20.0 is the claim leveldb-coordinated-like-lru); within 25%, inferred, as in fig12-coordinated-gains"),
            paper: "+30, +16.9 points".into(),
            expect: Expect::Band { lo: 0.75, hi: 1.25 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let ours = ["graphchi", "redis"]
                    .iter()
                    .map(|m| {
                        let at = |l: &str| ran(v, &format!("/migration_gain/{m}/{l}"));
                        Ok((m.to_string(), at(COORD)? - at(LRU)?))
                    })
                    .collect::<Result<Measured, ClaimError>>()?;
                let paper: Vec<f64> = PAPER_FIG12_GAIN[..2].iter().map(|r| r[2] - r[1]).collect();
                Ok(over_paper(ours, &paper))
            }),
            reason: THRASH,
        },
        Claim {
            id: "heteroos-coordinated/fig12-coordinated-migrates-less-than-vmm".into(),
            sentence: "Figure 12 (1/4, inferred): HeteroOS-coordinated migrates about half the pages VMM-exclusive does on the GraphChi-, Redis- and LevelDB-like models (coordinated's pages over VMM-exclusive's, within the paper's range)".into(),
            source: src("section 5.4, Figure 12 (millions of pages: Graphchi 0.33 vs 0.69, Redis 0.26 vs 0.51, LevelDB 0.08 vs 0.14: 0.48x, 0.51x, 0.57x); the band is the paper's spread over its three applications, widened only by the rounding of the table's counts to a hundredth (0.325 / 0.695 to 0.085 / 0.135)"),
            paper: "0.48x, 0.51x, 0.57x".into(),
            expect: Expect::Band { lo: 0.325 / 0.695, hi: 0.085 / 0.135 },
            unit: Unit::Times,
            measure: Box::new(|v| Ok(ratios(fig12_pages(v, COORD)?, fig12_pages(v, VMM)?))),
            reason: THRASH,
        },
        Claim {
            id: "heteroos-coordinated/fig12-lru-migrates-least".into(),
            sentence: "Figure 12 (1/4, inferred): HeteroOS-LRU's evictions move a fraction of the pages HeteroOS-coordinated's migrations move on the GraphChi-, Redis- and LevelDB-like models (LRU's pages over coordinated's, within the paper's range)".into(),
            source: src("section 5.4 (\"the page migrations with HeteroOS-coordinated increase relative to the eviction and migrations by HeteroOS-LRU\"); Figure 12 (0.10 vs 0.33, 0.11 vs 0.26, 0.01 vs 0.08: 0.30x, 0.42x, 0.13x); the band is the paper's spread over its three applications, widened only by the rounding of the table's counts to a hundredth (0.005 / 0.085 to 0.115 / 0.255)"),
            paper: "0.30x, 0.42x, 0.13x".into(),
            expect: Expect::Band { lo: 0.005 / 0.085, hi: 0.115 / 0.255 },
            unit: Unit::Times,
            measure: Box::new(|v| Ok(ratios(fig12_pages(v, LRU)?, fig12_pages(v, COORD)?))),
            reason: NEVER_STARTS,
        },
    ]
}

/// `/overhead/MS/part` at each of Figure 8's intervals, read once the
/// interval's total overhead shows its run is there.
fn overheads(v: &Value, part: &str) -> Result<Measured, ClaimError> {
    FIG8_INTERVALS_MS
        .iter()
        .map(|ms| {
            ran(v, &format!("/overhead/{ms}/overhead"))?;
            Ok((
                format!("{ms} ms"),
                read::num(v, &format!("/overhead/{ms}/{part}"))?,
            ))
        })
        .collect()
}

/// Why the overhead at interval `$ms` is far above the paper's, with the
/// run's tracking and migration shares.
macro_rules! per_page_in_line {
    ($ms:literal) => {
        concat!(
            "the runs charge Table 6's per-page walk and copy costs, as the table is titled, to one \
core in line with the application, so a scan of the batch takes about as long as an interval or \
longer: tracking is {/overhead/",
            $ms,
            "/tracking:%} of the run and migration {/overhead/",
            $ms,
            "/migration:%}; the paper does not say how the VMM's work overlaps the guest's"
        )
    };
}

const FIXED_PER_INTERVAL: &str = "the runs charge every interval the same scan of the batch \
at Table 6's walk cost, so the overhead falls about as fast as the interval grows \
({/overhead/100/overhead:%} at the shortest, {/overhead/500/overhead:%} at the longest); the \
paper's overhead falls less, and it does not say which of its costs do not follow the scans";

const PROMOTES_NEW_PAGES: &str = "VMM-exclusive allocates every page in SlowMem (lazy \
allocation) and the GraphChi-like model allocates a new shard each round and frees the oldest, so \
nearly every page a scan finds accessed is new and is promoted once, each charged Table 6's move \
plus walk against the walk alone per scanned page (at the shortest interval \
{/overhead/100/migrated_mpages:2} M pages moved of {/overhead/100/scanned_mpages:2} M scanned; \
migration {/overhead/100/migration:%} of the run against tracking {/overhead/100/tracking:%}); the \
TLB flushes after the scans cost the simulated application little, where the paper finds them the \
dearest part";

/// Checked by `heteroos-costs`.
pub fn costs() -> Vec<Claim> {
    let one = |ms: &'static str| {
        move |v: &Value| -> Result<Measured, ClaimError> {
            Ok(vec![(
                format!("{ms} ms"),
                ran(v, &format!("/overhead/{ms}/overhead"))?,
            )])
        }
    };
    vec![
        Claim {
            id: "heteroos-costs/overhead-at-500ms".into(),
            sentence: "Scanning 32 K pages every 500 ms, VMM-exclusive's tracking and migration add about 32% to the GraphChi-like model's runtime (within half of it, inferred)".into(),
            source: src("section 5.2, Figure 8 (\"even with a 500ms interval, the migration, and hotness-tracking adds up to 32% overhead\"); within half of it, inferred: \"up to\" gives the top of a bar of Figure 8, an image, and the text gives neither the bars' spread nor the ratio; the band, 16% to 48%, stays an overhead"),
            paper: "+32%".into(),
            expect: Expect::Ratio { paper: 0.32, tolerance: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(one("500")),
            reason: per_page_in_line!("500"),
        },
        Claim {
            id: "heteroos-costs/overhead-at-100ms".into(),
            sentence: "Scanning 32 K pages every 100 ms, the overhead is about 60% (within half of it, inferred)".into(),
            source: src("section 5.2, Figure 8 (\"for 100ms, the overheads increase by up to 60%\"); within half of it, inferred, as at 500 ms: the band is 30% to 90%"),
            paper: "+60%".into(),
            expect: Expect::Ratio { paper: 0.60, tolerance: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(one("100")),
            reason: per_page_in_line!("100"),
        },
        Claim {
            id: "heteroos-costs/overhead-falls-with-interval".into(),
            sentence: "From a 100 ms to a 500 ms interval the overhead falls by the paper's factor, 60% / 32% = 1.88x (the overhead at 100 ms over that at 500 ms; within 25%, inferred)".into(),
            source: src("section 5.2, Figure 8 (\"even with a 500ms interval, the migration, and hotness-tracking adds up to 32% overhead on the application, and for 100ms, the overheads increase by up to 60%\"); within 25%, inferred: the two values are the tops of Figure 8's bars, an image; the band, 1.41x to 2.34x, stays a fall"),
            paper: "60% / 32% = 1.88x".into(),
            expect: Expect::Ratio { paper: 0.60 / 0.32, tolerance: 0.25 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let at = |ms: &str| ran(v, &format!("/overhead/{ms}/overhead"));
                Ok(vec![("100 ms / 500 ms".into(), at("100")? / at("500")?)])
            }),
            reason: FIXED_PER_INTERVAL,
        },
        Claim {
            id: "heteroos-costs/tracking-costs-more-than-migration".into(),
            sentence: "At every interval, hotness tracking (walks and TLB invalidations) costs more than the migrations (shown: tracking minus migration overhead)".into(),
            source: src("section 5.2 (\"Hot page scan requires frequent TLB invalidation ... Hence, hotness-tracking is even more expensive compared to the migrations\")"),
            paper: "tracking > migration".into(),
            expect: Expect::Band { lo: f64::MIN_POSITIVE, hi: f64::INFINITY },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let t = overheads(v, "tracking")?;
                let m = overheads(v, "migration")?;
                Ok(t.into_iter().zip(m).map(|((l, t), (_, m))| (l, t - m)).collect())
            }),
            reason: PROMOTES_NEW_PAGES,
        },
        Claim {
            id: "heteroos-costs/walk-cost-falls-with-batch".into(),
            sentence: "The page-walk cost per scanned page falls as the batch grows (8 K, 64 K, 128 K pages)".into(),
            source: src("section 5.2, Table 6 (T_page_walk 43.21, 26.32, 10.25 us; \"Batching the page walks and copy operations reduces the average cost\")"),
            paper: "43.21, 26.32, 10.25 us".into(),
            expect: Expect::Trend { rising: false, min_step: 0.0 },
            unit: Unit::Num(2),
            measure: Box::new(|v| per_page(v, "walk_us")),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-costs/walk-cost-is-table-6".into(),
            sentence: "The walk cost charged per scanned page is Table 6's T_page_walk at that batch (ours over the paper's, within 10%, inferred: ours adds the Accessed-bit read and the flushes)".into(),
            source: src("section 5.2, Table 6 (T_page_walk)"),
            paper: "1.00x".into(),
            expect: Expect::Band { lo: 0.9, hi: 1.1 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                PAPER_T6
                    .iter()
                    .map(|&(pages, _, walk)| {
                        let key = format!("{}K", pages / 1024);
                        let ours = ran(v, &format!("/per_page/{key}/walk_us"))?;
                        Ok((key, ours / walk))
                    })
                    .collect()
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-costs/migration-cost-falls-with-batch".into(),
            sentence: "The migration cost per moved page falls as the scan batch grows (more pages found accessed per round, so larger migration batches)".into(),
            source: src("section 5.2, Table 6 (T_page_move 25.5, 15.7, 11.12 us; \"Batching the page walks and copy operations reduces the average cost\")"),
            paper: "25.5, 15.7, 11.12 us (+ walk)".into(),
            expect: Expect::Trend { rising: false, min_step: 0.0 },
            unit: Unit::Num(2),
            measure: Box::new(|v| per_page(v, "migration_us")),
            reason: UNKNOWN,
        },
    ]
}

/// `/per_page/NK/field` for each of Table 6's batches.
fn per_page(v: &Value, field: &str) -> Result<Measured, ClaimError> {
    PAPER_T6
        .iter()
        .map(|&(pages, _, _)| {
            let key = format!("{}K", pages / 1024);
            let x = ran(v, &format!("/per_page/{key}/{field}"))?;
            Ok((key, x))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heteroos::placement_claims::fixture;
    use serde_json::{json, Map};

    fn find(claims: Vec<Claim>, id: &str) -> Claim {
        claims.into_iter().find(|c| c.id == id).unwrap()
    }

    /// A `heteroos-coordinated` summary: speedups `speedup(model, ratio
    /// key, label)`, every approach scanning 1 M pages; Figure 12's gains
    /// and pages the paper's table times `fig12`.
    fn coordinated_summary(speedup: impl Fn(&str, &str, &str) -> f64, fig12: f64) -> Value {
        let (mut sp, mut sc) = (Map::new(), Map::new());
        for m in MODELS {
            let (mut per, mut scans) = (Map::new(), Map::new());
            for (ratio, _) in RATIOS {
                let key = ratio.replace('/', ":");
                let mut s = Map::new();
                for l in [VMM, LRU, COORD, "FastMem-only"] {
                    s.insert(l.into(), json!(speedup(m, &key, l)));
                }
                per.insert(key.clone(), Value::Object(s));
                scans.insert(key, json!({ VMM: 1.0e6, COORD: 0.5e6 }));
            }
            sp.insert(m.into(), Value::Object(per));
            sc.insert(m.into(), Value::Object(scans));
        }
        const PAPER_MPAGES: [[f64; 3]; 3] =
            [[0.69, 0.10, 0.33], [0.51, 0.11, 0.26], [0.14, 0.01, 0.08]];
        let (mut gains, mut pages) = (Map::new(), Map::new());
        for (k, m) in FIG12_MODELS.iter().enumerate() {
            let (mut g, mut p) = (Map::new(), Map::new());
            for (j, l) in [VMM, LRU, COORD].iter().enumerate() {
                g.insert(l.to_string(), json!(PAPER_FIG12_GAIN[k][j] * fig12));
                p.insert(
                    l.to_string(),
                    json!(PAPER_MPAGES[k][j] * fig12.powi(j as i32)),
                );
            }
            gains.insert(m.to_string(), Value::Object(g));
            pages.insert(m.to_string(), Value::Object(p));
        }
        json!({
            "speedup": sp, "scanned_pages": sc, "migration_gain": gains, "migrated_mpages": pages,
        })
    }

    /// The paper's ordering: coordinated 1.4x, LRU 1.1x (coordinated +27%
    /// over it, or +16% on the X-Stream-like model), VMM-exclusive 0.8x.
    fn papers(m: &str, _: &str, l: &str) -> f64 {
        match (m, l) {
            ("leveldb", COORD) => 1.2,
            ("leveldb", LRU) => 1.2,
            ("leveldb", VMM) => 1.05,
            ("xstream", COORD) => 1.1 * 1.16,
            (_, COORD) => 1.4,
            (_, LRU) => 1.1,
            (_, VMM) => 0.8,
            _ => 2.0,
        }
    }

    #[test]
    fn fig12s_numbers_are_checked_against_the_table() {
        let claims = coordinated();
        let ids = [
            "heteroos-coordinated/fig12-vmm-exclusive-loses",
            "heteroos-coordinated/fig12-coordinated-gains",
            "heteroos-coordinated/fig12-coordinated-over-lru",
            "heteroos-coordinated/fig12-coordinated-migrates-less-than-vmm",
            "heteroos-coordinated/fig12-lru-migrates-least",
        ];
        let paper = coordinated_summary(papers, 1.0);
        for id in ids {
            let v = find(coordinated(), id).check(&paper);
            assert!(v.held, "{id}: {:?}", v.ours);
        }
        // A third of the paper's gains and losses, and the pages' ratios
        // off by 3x, hold none of them.
        let off = coordinated_summary(papers, 3.0);
        for id in ids {
            assert!(!find(coordinated(), id).check(&off).held, "{id}");
        }
        // VMM-exclusive gaining where the paper has it lose is not held.
        let gaining = coordinated_summary(papers, -1.0);
        assert!(!find(claims, ids[0]).check(&gaining).held);
    }

    #[test]
    fn coordinated_over_lru_is_the_papers_28_and_16_percent() {
        let c = find(
            coordinated(),
            "heteroos-coordinated/coordinated-over-lru-quarter",
        );
        let v = c.check(&coordinated_summary(papers, 1.0));
        assert!(v.held, "{:?}", v.ours);
        // Ahead, but by 5%: a direction, not the paper's number.
        let small = coordinated_summary(
            |m, r, l| {
                if l == COORD {
                    1.1 * 1.05
                } else {
                    papers(m, r, l)
                }
            },
            1.0,
        );
        assert!(!c.check(&small).held);
    }

    #[test]
    fn leveldb_vmm_exclusive_gains_a_little_and_loses_nothing() {
        let c = find(
            coordinated(),
            "heteroos-coordinated/leveldb-vmm-exclusive-small",
        );
        let with = |x: f64| {
            coordinated_summary(
                move |m, r, l| {
                    if (m, l) == ("leveldb", VMM) {
                        x
                    } else {
                        papers(m, r, l)
                    }
                },
                1.0,
            )
        };
        assert!(c.check(&with(1.05)).held);
        assert!(!c.check(&with(1.15)).held);
        // A loss is not "less than 10% gains".
        assert!(!c.check(&with(0.95)).held);
        // A missing run (written 0) is not measured, not a -100% "gain".
        let missing = c.check(&with(0.0));
        assert!(missing.reason.unwrap().starts_with("not measured"));
    }

    #[test]
    fn leveldb_coordinated_neither_loses_nor_adds_much() {
        let c = find(
            coordinated(),
            "heteroos-coordinated/leveldb-coordinated-like-lru",
        );
        let with = |x: f64| {
            coordinated_summary(
                move |m, r, l| {
                    if (m, l) == ("leveldb", COORD) {
                        x
                    } else {
                        papers(m, r, l)
                    }
                },
                1.0,
            )
        };
        assert!(c.check(&with(1.2)).held);
        assert!(c.check(&with(1.3)).held);
        assert!(!c.check(&with(1.15)).held);
        assert!(!c.check(&with(1.4)).held);
    }

    /// A `heteroos-costs` summary with these overheads at 100 and 500 ms
    /// (the others between), tracking two thirds of each.
    fn costs_summary(at100: f64, at500: f64) -> Value {
        let mut o = Map::new();
        for ms in FIG8_INTERVALS_MS {
            let x = at100 + (at500 - at100) * (ms - 100) as f64 / 400.0;
            o.insert(
                ms.to_string(),
                json!({"overhead": x, "tracking": x * 2.0 / 3.0, "migration": x / 3.0,
                       "scanned_mpages": 1.0, "migrated_mpages": 0.5}),
            );
        }
        json!({ "overhead": o, "per_page": {
            "8K": {"walk_us": 43.2, "migration_us": 68.7},
            "64K": {"walk_us": 26.3, "migration_us": 43.7},
            "128K": {"walk_us": 10.3, "migration_us": 34.2},
        }})
    }

    #[test]
    fn the_overhead_falls_by_the_papers_factor() {
        let claims = costs();
        let c = claims
            .iter()
            .find(|c| c.id == "heteroos-costs/overhead-falls-with-interval")
            .unwrap();
        assert!(c.check(&costs_summary(0.60, 0.32)).held);
        // A fixed cost per interval: 5x from 100 to 500 ms.
        let v = c.check(&costs_summary(26.9, 5.26));
        assert!(!v.held);
        assert!(v
            .reason
            .unwrap()
            .contains("(2690.0% at the shortest, 526.0% at the longest)"));
        // Flat is no fall.
        assert!(!c.check(&costs_summary(0.4, 0.4)).held);
        for id in [
            "heteroos-costs/overhead-at-500ms",
            "heteroos-costs/overhead-at-100ms",
        ] {
            let c = claims.iter().find(|c| c.id == id).unwrap();
            assert!(c.check(&costs_summary(0.60, 0.32)).held, "{id}");
            assert!(!c.check(&costs_summary(26.9, 5.26)).held, "{id}");
            let missing = c.check(&costs_summary(0.0, 0.0));
            assert!(missing.reason.unwrap().starts_with("not measured"), "{id}");
        }
        assert!(
            claims
                .iter()
                .find(|c| c.id == "heteroos-costs/tracking-costs-more-than-migration")
                .unwrap()
                .check(&costs_summary(0.60, 0.32))
                .held
        );
    }

    #[test]
    fn reasons_read_fields_the_summaries_have() {
        fixture::reasons_resolve("heteroos-coordinated");
        fixture::reasons_resolve("heteroos-costs");
    }
}
