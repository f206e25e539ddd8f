//! The claims Ambix's reproductions check
//! (../shared/papers/004_5016d0e3a63ff357.txt), measured from the summaries
//! `ambix.rs` writes.
//!
//! The paper gives ratios ("around 5x", "2.7x on average"); where it does not
//! say how close a number is, the tolerance is ours (inferred) and stated in
//! the claim: 15% for ratios of measured throughputs or energies, and an
//! ordering's margin of half the paper's smallest gap. The IWB claims read
//! the paper's Figures 2-3 as the tables its text gives (the best share is
//! the table's, exactly); they are calibrations, since the DCPMM model was
//! fitted to those tables (`crate::kinds`).

use crate::claims::{read, Claim, ClaimError, Expect, Measured, Source, Unit, UNKNOWN};
use serde_json::Value;

const FILE: &str = "004_5016d0e3a63ff357.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

/// An IWB cell's throughput.
fn iwb_cell(v: &Value, mode: &str, threads: u64, pct: u64) -> Result<f64, ClaimError> {
    read::at(v, "/cells")?
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|c| c["mode"] == mode && c["threads"] == threads && c["dram_pct"] == pct)
        })
        .ok_or_else(|| ClaimError::Missing {
            path: format!("/cells[mode={mode},threads={threads},dram_pct={pct}]"),
        })
        .and_then(|c| read::num(c, "/maccesses_per_s"))
}

/// Our best DRAM share at each of `threads` for `mode`.
fn best(v: &Value, mode: &str, threads: &[u64]) -> Result<Measured, ClaimError> {
    let b = read::at(v, &format!("/best_dram_pct/{mode}"))?;
    let ts = read::at(b, "/threads")?;
    threads
        .iter()
        .map(|&t| {
            let i = ts
                .as_array()
                .and_then(|a| a.iter().position(|x| *x == t))
                .ok_or_else(|| ClaimError::Missing {
                    path: format!("/best_dram_pct/{mode}/threads[{t}]"),
                })?;
            Ok((format!("{t} threads"), read::num(b, &format!("/ours/{i}"))?))
        })
        .collect()
}

/// Why our best DRAM share at 32 threads sits closer to DRAM than the
/// paper's (32 threads is the tenth column of `THREADS`).
const KNEE_RO: &str = "the rounded saturation knee fitted to the low-thread cells also rounds \
the split of bandwidth between the tiers, so our best share at 32 threads sits closer to DRAM: \
ours {/best_dram_pct/ro/ours/9:0}, the table's {/best_dram_pct/ro/paper/9:0}";

const KNEE_WO: &str = "the rounded saturation knee fitted to the low-thread cells also rounds \
the split of bandwidth between the tiers, so our best share at 32 threads sits closer to DRAM: \
ours {/best_dram_pct/wo/ours/9:0}, the table's {/best_dram_pct/wo/paper/9:0}";

/// Checked by `ambix-iwb`.
pub fn iwb() -> Vec<Claim> {
    let mode_name = |mode: &str| {
        if mode == "ro" {
            "Read-only"
        } else {
            "Write-only"
        }
    };
    let share = |id: &str, mode: &'static str, pct: f64, paper: &str, at, reason| Claim {
        id: id.into(),
        sentence: format!(
            "{}, 32 threads (DRAM saturated): the best share of pages in DRAM is the paper's",
            mode_name(mode)
        ),
        source: src(at),
        paper: paper.into(),
        expect: Expect::Band { lo: pct, hi: pct },
        unit: Unit::Num(0),
        measure: Box::new(move |v| best(v, mode, &[32])),
        reason,
    };
    vec![
        Claim {
            id: "ambix-iwb/all-dram-best-before-saturation".into(),
            sentence: "Before DRAM saturates (1-4 threads) all pages in DRAM give the best throughput, read- and write-only".into(),
            source: src("section 3.2, Figures 2-3 (\"Before this point, allocating all pages in DRAM grants the best possible throughput\")"),
            paper: "100%".into(),
            expect: Expect::Band { lo: 100.0, hi: 100.0 },
            unit: Unit::Num(0),
            measure: Box::new(|v| {
                let mut m = best(v, "ro", &[1, 2, 4])?;
                m.extend(best(v, "wo", &[1, 2, 4])?);
                Ok(m)
            }),
            reason: UNKNOWN,
        },
        share(
            "ambix-iwb/ro-best-share-32",
            "ro",
            80.0,
            "80% (Figure 2's table)",
            "section 3.2, Figure 2 (\"stabilizes around the 80% range\"; the table's best row at 32 threads)",
            KNEE_RO,
        ),
        share(
            "ambix-iwb/wo-best-share-32",
            "wo",
            90.0,
            "90% (Figure 3's table)",
            "section 3.2, Figure 3 (\"stabilize at 90% after DRAM is saturated\"; the table's best row at 32 threads)",
            KNEE_WO,
        ),
        Claim {
            id: "ambix-iwb/ro-gain-32".into(),
            sentence: "Read-only, 32 threads: 80% of pages in DRAM gives 27% more throughput than 100%".into(),
            source: src("section 3.2, Figure 2 (\"a 27% increase in throughput when 20% of pages are allocated in DCPMM (80%), compared to all pages in DRAM\"; the table's 276.67 / 217.64; tolerance 15% inferred)"),
            paper: "1.271x".into(),
            expect: Expect::Ratio { paper: 1.271, tolerance: 0.15 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let a = iwb_cell(v, "ro", 32, 80)?;
                let b = iwb_cell(v, "ro", 32, 100)?;
                Ok(vec![("80%/100%".into(), a / b)])
            }),
            reason: KNEE_RO,
        },
        Claim {
            id: "ambix-iwb/wo-gain-32".into(),
            sentence: "Write-only, 32 threads: 90% of pages in DRAM gives about 5% more throughput than 100% (the gain itself, 90%/100% - 1)".into(),
            source: src("section 3.2, Figure 3 (\"only a 5% increase in the 90% vs. 100% distributions\"; the table's 206.29 / 196.84 - 1 = 4.8%; tolerance 50% of the gain inferred, which keeps a loss out: docs/claims.md rule 3)"),
            paper: "+4.8%".into(),
            expect: Expect::Ratio { paper: 0.048, tolerance: 0.5 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let a = iwb_cell(v, "wo", 32, 90)?;
                let b = iwb_cell(v, "wo", 32, 100)?;
                Ok(vec![("90%/100% - 1".into(), a / b - 1.0)])
            }),
            reason: KNEE_WO,
        },
    ]
}

/// A PB cell: (throughput, energy per access) of `policy` at `size` x DRAM.
fn pb_cell(v: &Value, size: f64, policy: &str) -> Result<(f64, f64), ClaimError> {
    let missing = || ClaimError::Missing {
        path: format!("/sizes[size_x_dram={size}]/policies[policy={policy}]"),
    };
    let row = read::at(v, "/sizes")?
        .as_array()
        .and_then(|a| a.iter().find(|r| r["size_x_dram"].as_f64() == Some(size)))
        .ok_or_else(missing)?;
    let c = read::row(row, "/policies", "policy", policy).map_err(|_| missing())?;
    Ok((
        read::num(c, "/maccesses_per_s")?,
        read::num(c, "/joules_per_maccess")?,
    ))
}

/// Why read-first-touch's 1x step is smaller than the paper's.
const PB_SPILL: &str = "DCPMM's write bandwidth caps it: with an array of DRAM's size and the DRAM \
section 3.1 leaves free, only part of the write half spills, and IWB's own write-only cells show the two \
tiers serving accesses side by side, which limits the drop. The paper's drop is what a DRAM \
with less free space gives, which is also what its remark that at one and a half times DRAM each \
portion is fully in opposite tiers needs (inferred). Ours: a drop of \
{/rdft_throughput_drop_0_75x_to_1x:%}, and write-first-touch over read-first-touch at one and a \
half times DRAM {/wrft_over_rdft_at_1_5x:x}";

/// Why read-first-touch's energy rises less than the paper's.
const PB_SPILL_ENERGY: &str = "our energy per access is mostly DRAM standby power times time \
(Memos Table 1's power per GB), so it follows the throughput drop above, and DCPMM's writes \
(at the PCM stand-in's energy per bit) add to it, where the paper's rise over its drop means \
less memory power once the array outgrows DRAM: ours {/rdft_energy_rise_0_75x_to_1x:%} more energy per access for \
{/rdft_throughput_drop_0_75x_to_1x:%} less throughput";

/// Why write-first-touch at 2x spends more energy per access than
/// read-first-touch at 1x.
const PB_DCPMM_STANDBY: &str = "our energy per access is mostly standby power over the run's \
time, both tiers' capacities fixed as the paper's socket's (DCPMM {/wrft_2x_dcpmm_gib:2} GiB in \
both runs), so it follows the throughput ratio ({/wrft_2x_over_rdft_1x_throughput:x}): DRAM's \
energy per access is {/wrft_2x_over_rdft_1x_dram_energy:x} read-first-touch's and DCPMM's \
{/wrft_2x_over_rdft_1x_dcpmm_energy:x}";

const INTERLEAVE_BOUND: &str = "with half the pages already in DCPMM our interleave is bound by \
DCPMM's write bandwidth, which more DCPMM pages do not make worse: million accesses per second \
{/sizes[size_x_dram=1.5]/policies[policy=interleave]/maccesses_per_s:1}, \
{/sizes[size_x_dram=2.0]/policies[policy=interleave]/maccesses_per_s:1} and \
{/sizes[size_x_dram=2.5]/policies[policy=interleave]/maccesses_per_s:1} at the three sizes";

/// Checked by `ambix-pb`.
pub fn pb() -> Vec<Claim> {
    vec![
        Claim {
            id: "ambix-pb/wrft-over-rdft-1.5x".into(),
            sentence: "At 1.5x DRAM, write-first-touch is about 5x faster than read-first-touch".into(),
            source: src("section 3.3, Figure 4 (\"around 5x higher\"; tolerance 15% inferred)"),
            paper: "~5x".into(),
            expect: Expect::Ratio { paper: 5.0, tolerance: 0.15 },
            unit: Unit::Times,
            measure: Box::new(|v| Ok(vec![(String::new(), read::num(v, "/wrft_over_rdft_at_1_5x")?)])),
            reason: UNKNOWN,
        },
        Claim {
            id: "ambix-pb/rdft-throughput-drop-1x".into(),
            sentence: "At 1x DRAM read-first-touch loses 68% of the throughput it has when the array fits (0.75x)".into(),
            source: src("section 3.3, Figure 4 (\"a 68% throughput drop\"; the 0.75x reference and the 15% tolerance are inferred)"),
            paper: "0.32x".into(),
            expect: Expect::Ratio { paper: 0.32, tolerance: 0.15 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let a = pb_cell(v, 1.0, "read-first-touch")?.0;
                let b = pb_cell(v, 0.75, "read-first-touch")?.0;
                Ok(vec![("1x/0.75x".into(), a / b)])
            }),
            reason: PB_SPILL,
        },
        Claim {
            id: "ambix-pb/rdft-energy-rise-1x".into(),
            sentence: "At 1x DRAM read-first-touch spends 177% more energy per access than when the array fits (0.75x)".into(),
            source: src("section 3.3, Figure 4 (\"177% increased energy consumption per access\"; the 0.75x reference and the 15% tolerance are inferred)"),
            paper: "2.77x".into(),
            expect: Expect::Ratio { paper: 2.77, tolerance: 0.15 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let a = pb_cell(v, 1.0, "read-first-touch")?.1;
                let b = pb_cell(v, 0.75, "read-first-touch")?.1;
                Ok(vec![("1x/0.75x".into(), a / b)])
            }),
            reason: PB_SPILL_ENERGY,
        },
        Claim {
            id: "ambix-pb/wrft-2x-equals-rdft-1x".into(),
            sentence: "Write-first-touch at 2x has the throughput of read-first-touch at 1x (the same pages of the write-intensive part are in DCPMM)".into(),
            source: src("section 3.3, Figure 4 (\"Both cases exhibit identical throughput\"; tolerance 15% inferred)"),
            paper: "1.00x".into(),
            expect: Expect::Ratio { paper: 1.0, tolerance: 0.15 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let a = pb_cell(v, 2.0, "write-first-touch")?.0;
                let b = pb_cell(v, 1.0, "read-first-touch")?.0;
                Ok(vec![("WrFT 2x / RdFT 1x".into(), a / b)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "ambix-pb/wrft-2x-equals-rdft-1x-energy".into(),
            sentence: "Write-first-touch at 2x spends the energy per access of read-first-touch at 1x".into(),
            source: src("section 3.3, Figure 4 (\"Both cases exhibit identical throughput and energy consumption\"; tolerance 15% inferred)"),
            paper: "1.00x".into(),
            expect: Expect::Ratio { paper: 1.0, tolerance: 0.15 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                Ok(vec![(
                    "WrFT 2x / RdFT 1x".into(),
                    read::num(v, "/wrft_2x_over_rdft_1x_energy")?,
                )])
            }),
            reason: PB_DCPMM_STANDBY,
        },
        Claim {
            id: "ambix-pb/interleave-degrades-past-1.5x".into(),
            sentence: "Interleave's throughput falls at 2x and 2.5x, when DRAM is full and more pages go to DCPMM (each step by more than 1% of its 1.5x throughput)".into(),
            source: src("section 3.3, Figure 4 (\"in the 2x and 2.5x scenarios, the interleave policy ... negatively impacts both throughput\"; no number: a fall of more than 1% of the 1.5x throughput per step, inferred, so that noise does not count)"),
            paper: "falls 1.5x > 2x > 2.5x".into(),
            expect: Expect::Trend { rising: false, min_step: 0.01 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let at = |s| pb_cell(v, s, "interleave").map(|c| c.0);
                let base = at(1.5)?;
                [1.5, 2.0, 2.5]
                    .iter()
                    .map(|&s| Ok((format!("{s}x / 1.5x"), at(s)? / base)))
                    .collect()
            }),
            reason: INTERLEAVE_BOUND,
        },
    ]
}

/// The NPBAVG speedup of `config` over adm-default at `size`.
fn npbavg(v: &Value, size: &str, config: &str) -> Result<f64, ClaimError> {
    let s = read::row(v, "/npbavg", "size", size)?;
    let c = read::row(s, "/configs", "config", config)?;
    read::num(c, "/geomean_speedup")
}

/// Where Ambix falls short of the paper's speedups: not established; one
/// lead is MG-large (row 8 of the summary's `workloads`: kernels BT, FT,
/// MG, CG by sizes small, medium, large), where Ambix's exchanges did not
/// raise DRAM's share of accesses.
const NPB_AMBIX_WHY: &str = "not established. One lead: Ambix's page exchanges do not raise \
DRAM's share of accesses on every kernel, and the model does not take their migration work \
from the application's cores. On MG-large ambix serves {/workloads/8/configs[config=ambix]/dram_access_share:%} \
of accesses from DRAM against adm-default's \
{/workloads/8/configs[config=adm-default]/dram_access_share:%}, a speedup of \
{/workloads/8/configs[config=ambix]/speedup_over_adm_default:x}";

/// Where the medium and large speedups come from, with a note on the
/// paper's averages.
const SPEEDUP_AT: &str = "section 5.5.2 (\"the MemM, autonuma, and ambix configurations have a speedup of 1.5x, 1.3x, and 2.7x on average, while in the large parametrizations the speedup increases to 2.8x, 1.8x, and 4.4x\"; tolerance 15% inferred). The paper's \"on average\" may not be NPBAVG's geometric mean: its ambix average of 3.6x over all medium and large workloads fits the arithmetic mean of 2.7x and 4.4x, but its \"25% higher average throughput\" than MemM fits neither size's ratio";

/// Checked by `ambix-npb`.
pub fn npb() -> Vec<Claim> {
    let ratio = |id: &str,
                 size: &'static str,
                 config: &'static str,
                 paper: f64,
                 tol: f64,
                 at,
                 reason| {
        Claim {
            id: id.into(),
            sentence: format!("NPBAVG {size}: {config} is {paper}x adm-default (geometric mean over BT, FT, MG, CG)"),
            source: src(at),
            paper: format!("{paper}x"),
            expect: Expect::Ratio { paper, tolerance: tol },
            unit: Unit::Times,
            measure: Box::new(move |v| Ok(vec![(String::new(), npbavg(v, size, config)?)])),
            reason,
        }
    };
    let speedup = |name: &str, config: &'static str, size: &'static str, paper: f64, reason| {
        ratio(
            &format!("ambix-npb/{name}-{size}"),
            size,
            config,
            paper,
            0.15,
            SPEEDUP_AT,
            reason,
        )
    };
    let order = |size: &'static str, paper: &str, margin: f64, at: &'static str| Claim {
        id: format!("ambix-npb/order-{size}"),
        sentence: format!("NPBAVG {size}: ambix > memory-mode > autonuma-tiering > adm-default"),
        source: src(at),
        paper: paper.into(),
        expect: Expect::Order { margin },
        unit: Unit::Times,
        measure: Box::new(move |v| {
            ["ambix", "memory-mode", "autonuma-tiering", "adm-default"]
                .iter()
                .map(|c| Ok((c.to_string(), npbavg(v, size, c)?)))
                .collect()
        }),
        reason: NPB_AMBIX_WHY,
    };
    vec![
        ratio(
            "ambix-npb/memory-mode-small",
            "small",
            "memory-mode",
            0.986,
            0.012,
            "section 5.5.1 (\"MemM has an average 1.4% throughput penalty in all small workloads, reaching up to a 3% drop in the write-intensive FT workload\"; tolerance 1.2% inferred: the band's low end is about the worst kernel's 3% drop, and its high end stays under 1x, so a gain does not hold: docs/claims.md rule 3)",
            UNKNOWN,
        ),
        ratio(
            "ambix-npb/memos-small",
            "small",
            "memos-placement",
            0.18,
            0.15,
            "section 5.5.1 (\"an average 82% lower throughput\"; tolerance 15% inferred)",
            UNKNOWN,
        ),
        speedup("ambix", "ambix", "medium", 2.7, NPB_AMBIX_WHY),
        speedup("ambix", "ambix", "large", 4.4, NPB_AMBIX_WHY),
        speedup("memory-mode", "memory-mode", "medium", 1.5, UNKNOWN),
        speedup("memory-mode", "memory-mode", "large", 2.8, UNKNOWN),
        speedup("autonuma", "autonuma-tiering", "medium", 1.3, UNKNOWN),
        speedup("autonuma", "autonuma-tiering", "large", 1.8, UNKNOWN),
        order(
            "medium",
            "2.7x > 1.5x > 1.3x > 1",
            0.1,
            "section 5.5.2, Figure 6 (2.7x, 1.5x, 1.3x; margin 0.1x inferred: half the paper's smallest gap, 1.5x - 1.3x)",
        ),
        order(
            "large",
            "4.4x > 2.8x > 1.8x > 1",
            0.4,
            "section 5.5.2, Figure 6 (4.4x, 2.8x, 1.8x; margin 0.4x inferred: half the paper's smallest gap, 1.8x - 1x)",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduction::{Options, Output, Results, RunSpec};
    use serde_json::json;
    use thermocline_engine::report::{Report, TierReport};

    fn find(claims: Vec<Claim>, id: &str) -> Claim {
        claims.into_iter().find(|c| c.id == id).unwrap()
    }

    fn pb_summary(rdft: [f64; 3], energy: [f64; 3]) -> Value {
        let sizes: Vec<Value> = [0.75, 1.0, 2.0]
            .iter()
            .enumerate()
            .map(|(i, s)| {
                json!({"size_x_dram": s, "policies": [
                    {"policy": "read-first-touch", "maccesses_per_s": rdft[i], "joules_per_maccess": energy[i]},
                    {"policy": "write-first-touch", "maccesses_per_s": 2.0 * rdft[i], "joules_per_maccess": 1.0}]})
            })
            .collect();
        json!({ "sizes": sizes, "wrft_over_rdft_at_1_5x": 5.9, "wrft_2x_over_rdft_1x_energy": 1.1 })
    }

    #[test]
    fn pb_ratios_are_against_the_array_that_fits() {
        let v = pb_summary([100.0, 32.0, 10.0], [1.0, 2.77, 5.0]);
        let drop = find(pb(), "ambix-pb/rdft-throughput-drop-1x").check(&v);
        assert_eq!(drop.values, vec![0.32]);
        assert!(drop.held);
        assert!(find(pb(), "ambix-pb/rdft-energy-rise-1x").check(&v).held);
        // WrFT at 2x (20) against RdFT at 1x (32): 0.625, not within 15%.
        assert!(!find(pb(), "ambix-pb/wrft-2x-equals-rdft-1x").check(&v).held);
        // Energy: 1.1 is within 15% of identical, 1.2 is not.
        assert!(
            find(pb(), "ambix-pb/wrft-2x-equals-rdft-1x-energy")
                .check(&v)
                .held
        );
        let mut more = v.clone();
        more["wrft_2x_over_rdft_1x_energy"] = json!(1.2);
        assert!(
            !find(pb(), "ambix-pb/wrft-2x-equals-rdft-1x-energy")
                .check(&more)
                .held
        );
        // 5.9 is 18% over 5.
        assert!(!find(pb(), "ambix-pb/wrft-over-rdft-1.5x").check(&v).held);
        // An interleave row that is not there cannot be measured.
        let i = find(pb(), "ambix-pb/interleave-degrades-past-1.5x").check(&v);
        assert!(!i.held);
        assert!(i.reason.unwrap().starts_with("not measured"));
    }

    /// Interleave must lose more than 1% of its 1.5x throughput per step.
    #[test]
    fn interleave_falls_by_more_than_noise() {
        let at = |t: [f64; 3]| {
            let sizes: Vec<Value> = [1.5, 2.0, 2.5]
                .iter()
                .zip(t)
                .map(|(s, x)| {
                    json!({"size_x_dram": s, "policies": [
                    {"policy": "interleave", "maccesses_per_s": x, "joules_per_maccess": 1.0}]})
                })
                .collect();
            find(pb(), "ambix-pb/interleave-degrades-past-1.5x").check(&json!({ "sizes": sizes }))
        };
        let falls = at([100.0, 90.0, 80.0]);
        assert!(falls.held);
        assert_eq!(falls.values, vec![1.0, 0.9, 0.8]);
        assert!(!at([100.0, 99.5, 90.0]).held);
        assert!(!at([100.0, 90.0, 95.0]).held);
    }

    fn npbavg_summary(size: &str, speedups: [f64; 5]) -> Value {
        let configs: Vec<Value> = [
            "adm-default",
            "memory-mode",
            "autonuma-tiering",
            "ambix",
            "memos-placement",
        ]
        .iter()
        .zip(speedups)
        .map(|(c, g)| json!({"config": c, "geomean_speedup": g}))
        .collect();
        json!({"npbavg": [{"size": size, "configs": configs}]})
    }

    #[test]
    fn npb_order_and_ratios_read_npbavg() {
        let v = npbavg_summary("large", [1.0, 2.8, 1.8, 4.0, 0.2]);
        let order = find(npb(), "ambix-npb/order-large").check(&v);
        assert_eq!(order.values, vec![4.0, 2.8, 1.8, 1.0]);
        assert!(order.held);
        // 4.0 is 9% under 4.4.
        assert!(find(npb(), "ambix-npb/ambix-large").check(&v).held);
        assert!(find(npb(), "ambix-npb/memory-mode-large").check(&v).held);
        assert!(find(npb(), "ambix-npb/autonuma-large").check(&v).held);
        assert!(!find(npb(), "ambix-npb/ambix-medium").check(&v).held);
        // Autonuma 0.3x over adm-default is in order but not "more" by the
        // 0.4x margin, nor the paper's 1.8x.
        let close = npbavg_summary("large", [1.0, 2.8, 1.3, 4.4, 0.2]);
        assert!(!find(npb(), "ambix-npb/order-large").check(&close).held);
        assert!(!find(npb(), "ambix-npb/autonuma-large").check(&close).held);
        let medium = npbavg_summary("medium", [1.0, 1.5, 1.3, 2.7, 0.2]);
        assert!(find(npb(), "ambix-npb/order-medium").check(&medium).held);
        assert!(
            find(npb(), "ambix-npb/memory-mode-medium")
                .check(&medium)
                .held
        );
        assert!(find(npb(), "ambix-npb/autonuma-medium").check(&medium).held);
        let tight = npbavg_summary("medium", [1.0, 1.5, 1.45, 2.7, 0.2]);
        assert!(!find(npb(), "ambix-npb/order-medium").check(&tight).held);
    }

    /// Memory mode's small-size penalty: a penalty near the paper's holds,
    /// no penalty (or a gain) does not.
    #[test]
    fn memory_mode_small_is_a_penalty() {
        let at = |g| {
            find(npb(), "ambix-npb/memory-mode-small")
                .check(&npbavg_summary("small", [1.0, g, 1.0, 1.0, 0.18]))
        };
        assert!(at(0.986).held);
        assert!(at(0.975).held);
        assert!(!at(0.999).held);
        assert!(!at(1.0).held);
        assert!(!at(0.97).held);
        assert!(
            find(npb(), "ambix-npb/memos-small")
                .check(&npbavg_summary("small", [1.0, 1.0, 1.0, 1.0, 0.18]))
                .held
        );
    }

    #[test]
    fn iwb_best_shares_and_gains_by_hand() {
        let cells = |wo90: f64| -> Vec<Value> {
            [(80, 127.1, 127.1), (90, 105.0, wo90), (100, 100.0, 100.0)]
                .iter()
                .flat_map(|&(p, ro, wo)| {
                    [("ro", ro), ("wo", wo)].map(|(m, x)| {
                        json!({"mode": m, "threads": 32, "dram_pct": p, "maccesses_per_s": x})
                    })
                })
                .collect()
        };
        let best = |at32| json!({"threads": [1, 2, 4, 32], "ours": [100, 100, 100, at32]});
        let v = json!({"cells": cells(105.0), "best_dram_pct": {"ro": best(80), "wo": best(85)}});
        assert!(
            find(iwb(), "ambix-iwb/all-dram-best-before-saturation")
                .check(&v)
                .held
        );
        assert!(find(iwb(), "ambix-iwb/ro-best-share-32").check(&v).held);
        // One row off the table's best is not the table's best.
        assert!(!find(iwb(), "ambix-iwb/wo-best-share-32").check(&v).held);
        let g = find(iwb(), "ambix-iwb/ro-gain-32").check(&v);
        assert!((g.values[0] - 1.271).abs() < 1e-12);
        assert!(g.held);
        let wo = find(iwb(), "ambix-iwb/wo-gain-32").check(&v);
        assert!((wo.values[0] - 0.05).abs() < 1e-12);
        assert!(wo.held);
        // A loss at 90% is not the paper's gain.
        let loss = json!({"cells": cells(92.0), "best_dram_pct": {"ro": best(80), "wo": best(90)}});
        assert!(!find(iwb(), "ambix-iwb/wo-gain-32").check(&loss).held);
        assert!(find(iwb(), "ambix-iwb/wo-best-share-32").check(&loss).held);
    }

    /// The summary `summarize` makes of `runs`, each run a small report
    /// with accesses in both tiers.
    fn summary_of(
        runs: fn(&Options) -> Vec<RunSpec>,
        summarize: fn(&Options, &Results) -> Output,
    ) -> Value {
        let tier = |reads, writes, energy_j| TierReport {
            name: "t".into(),
            reads,
            writes,
            energy_j,
            ..Default::default()
        };
        crate::claims::testing::summary_of(runs, summarize, |s| Report {
            sim_time_s: 1.0,
            accesses: 1_000_000 + s.workload.len() as u64 * 1000 + s.manager.len() as u64,
            tiers: vec![tier(600, 100, 1.0), tier(300, 100, 1.0)],
            ..Default::default()
        })
    }

    /// A reproduction's claims and a summary of its own.
    type Case = (fn() -> Vec<Claim>, Value);

    /// Every reason's figures are read from paths its own reproduction's
    /// summary has (MG-large is row 8 and 32 threads column 9 of it).
    #[test]
    fn every_reason_reads_its_own_summary() {
        use crate::ambix as a;
        assert_eq!((a::KERNELS[8 / 3], a::SIZES[8 % 3]), ("mg", "large"));
        assert_eq!(a::THREADS[9], 32);
        let cases: [Case; 3] = [
            (iwb, summary_of(a::iwb_runs, a::iwb)),
            (pb, summary_of(a::pb_runs, a::pb)),
            (npb, summary_of(a::npb_runs, a::npb)),
        ];
        for (claims, summary) in cases {
            crate::claims::testing::measured_and_explained(&claims(), &summary);
        }
    }
}
