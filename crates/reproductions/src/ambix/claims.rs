//! The claims Ambix's reproductions check
//! (../shared/papers/004_5016d0e3a63ff357.txt), measured from the summaries
//! `ambix.rs` writes.
//!
//! The paper gives ratios ("around 5x", "2.7x on average"); where it does not
//! say how close a number is, the tolerance is ours (inferred) and stated in
//! the claim: 5 points for a best DRAM share read off a heat map with 5-point
//! rows, 15% for ratios of measured throughputs or energies.

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

const KNEE: &str = "the rounded saturation knee fitted to the low-thread cells also rounds the \
bandwidth split, so our best shares sit 5-10 points closer to DRAM (RESULTS.md analysis at \
57e0371)";

/// Checked by `ambix-iwb`.
pub fn iwb() -> Vec<Claim> {
    let share = |id: &str, mode: &'static str, lo: f64, hi: f64, paper: &str, at| Claim {
        id: id.into(),
        sentence: format!(
            "{}, 32 threads (DRAM saturated): the best share of pages in DRAM is the paper's",
            if mode == "ro" {
                "Read-only"
            } else {
                "Write-only"
            }
        ),
        source: src(at),
        paper: paper.into(),
        expect: Expect::Band { lo, hi },
        unit: Unit::Num(0),
        measure: Box::new(move |v| best(v, mode, &[32])),
        reason: KNEE,
    };
    let gain = |id: &str, mode: &'static str, pct: u64, paper: f64, tolerance: f64, at| Claim {
        id: id.into(),
        sentence: format!(
            "{}, 32 threads: {pct}% of pages in DRAM gives {:.0}% more throughput than 100%",
            if mode == "ro" {
                "Read-only"
            } else {
                "Write-only"
            },
            (paper - 1.0) * 100.0
        ),
        source: src(at),
        paper: format!("{paper:.2}x"),
        expect: Expect::Ratio { paper, tolerance },
        unit: Unit::Times,
        measure: Box::new(move |v| {
            let a = iwb_cell(v, mode, 32, pct)?;
            let b = iwb_cell(v, mode, 32, 100)?;
            Ok(vec![(format!("{pct}%/100%"), a / b)])
        }),
        reason: KNEE,
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
            75.0,
            85.0,
            "80% (+-5 inferred)",
            "section 3.2, Figure 2 (\"stabilizes around the 80% range\")",
        ),
        share(
            "ambix-iwb/wo-best-share-32",
            "wo",
            85.0,
            95.0,
            "90% (+-5 inferred)",
            "section 3.2, Figure 3 (\"stabilize at 90% after DRAM is saturated\")",
        ),
        gain(
            "ambix-iwb/ro-gain-32",
            "ro",
            80,
            1.27,
            0.15,
            "section 3.2, Figure 2 (\"27% increase in throughput when 20% of pages are allocated in DCPMM\"; tolerance 15% inferred)",
        ),
        gain(
            "ambix-iwb/wo-gain-32",
            "wo",
            90,
            1.05,
            0.04,
            "section 3.2, Figure 3 (\"only a 5% increase in the 90% vs. 100%\"; tolerance 4% inferred: the widest that keeps a loss out, docs/claims.md rule 3)",
        ),
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

/// Why read-first-touch's 1x step is smaller than the paper's (measured at
/// c3a832b).
const PB_SPILL: &str = "DCPMM's write bandwidth caps it: at 1x with the paper's 27 of 32 GB in DRAM \
(section 3.1) 5 GB of the write half spill, 21% of the accesses, all 1R1W; IWB's own write-only \
cells (Figure 3: 70-95% DRAM at 32 threads within 7% of the slower tier's bandwidth bound) show the two \
tiers overlap, which caps the drop at 0.49x (ours 0.52x) and gives the paper's ~5x at 1.5x. The \
paper's 0.32x is what ~24 GB free gives, which is also what its 'at 1.5x each portion is \
fully in opposite tiers' needs: `thermocline run --workload ambix-pb:1:read-first --manager \
first-touch --set run.machine=dram+dcpmm-ambix --set run.fast_capacity=768MiB` (and 0.75x, 1.5x, \
2x) gives 0.32x, 5.3x at 1.5x, WrFT 2x / RdFT 1x 1.15x. All threads sweeping the array together \
(tiers serialized; an uncommitted variant of the sweep) gives 0.38x but 2.2x at 1.5x";

/// Why read-first-touch's energy rises less than the paper's (measured at
/// c3a832b).
const PB_SPILL_ENERGY: &str = "our energy per access is mostly DRAM standby power times time \
(Memos Table 1's 1 W/GB; 0.52x throughput, 2.07x energy), so it follows the throughput drop \
above; the paper's 2.77x over its 0.32x means 11% less memory power at 1x, ours 7% more (DCPMM \
writes at the PCM stand-in's 16.82 pJ/bit). With ~24 GB free (the 768MiB run above) ours is \
3.28x, just over the band; the load phase, which the paper's perf window leaves out, moves ours \
by 0.5%";

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
            id: "ambix-pb/interleave-degrades-past-1.5x".into(),
            sentence: "Interleave's throughput falls at 2x and 2.5x, when DRAM is full and more pages go to DCPMM".into(),
            source: src("section 3.3, Figure 4 (\"in the 2x and 2.5x scenarios, the interleave policy ... negatively impacts both throughput\")"),
            paper: "falls 1.5x > 2x > 2.5x".into(),
            expect: Expect::Trend { rising: false, min_step: 0.0 },
            unit: Unit::Num(1),
            measure: Box::new(|v| {
                [1.5, 2.0, 2.5]
                    .iter()
                    .map(|&s| Ok((format!("{s}x"), pb_cell(v, s, "interleave")?.0)))
                    .collect()
            }),
            reason: "with half the pages already in DCPMM our interleave is bound by DCPMM's write \
bandwidth, which more DCPMM pages do not make worse (RESULTS.md analysis at 57e0371)",
        },
    ]
}

/// The NPBAVG speedup of `config` over adm-default at `size`.
fn npbavg(v: &Value, size: &str, config: &str) -> Result<f64, ClaimError> {
    let s = read::row(v, "/npbavg", "size", size)?;
    let c = read::row(s, "/configs", "config", config)?;
    read::num(c, "/geomean_speedup")
}

const NPB_WHY: &str = "not established. With the kernels executed and SWITCH always on, the \
large size at --duration 1 measured ambix/adm-default 3.27x on CG (its gathered vector moves to \
DRAM). At full length (c3a832b) FT-large is 1.05x: SWITCH raised DRAM's share of writes from \
50% to 63% and lowered its share of accesses from 64% to 52%. On npb-mg-large (3 G accesses) \
adm-default takes 66.1 s and ambix 71.9 s (0.92x): SWITCH exchanged 444 K page pairs in 35 periods and lowered \
DRAM's share of accesses from 38% to 33%, its share of writes staying at 25-26%. Ambix's 129% of \
a core is migration, not SelMo's walks: 61 s of HeteroOS Table 6 copies (68.7 us a page, 43.2 us \
of it Linux's migration walk), 28.5 s of shootdown IPIs, 3 s of R/D scans (20 ns an entry, \
inferred); the model does not take that CPU from the application, which pays 1.0 s of shootdown \
stalls and 2.1 s of DCPMM write bandwidth for the copies. The period and delay are the paper's \
(2 s, 50 ms; section 5.2.3) on workloads 1/32 its size; scaling them by 1/32 as well \
(ambix.period_s=0.0625, ambix.clear_delay_ms=1.5625) did not help: 73.6 s, 32% of accesses in \
DRAM, 312% of a core";

/// Checked by `ambix-npb`.
pub fn npb() -> Vec<Claim> {
    let ratio = |id: &str, size: &'static str, config: &'static str, paper: f64, tol: f64, at| {
        Claim {
            id: id.into(),
            sentence: format!("NPBAVG {size}: {config} is {paper}x adm-default (geometric mean over BT, FT, MG, CG)"),
            source: src(at),
            paper: format!("{paper}x"),
            expect: Expect::Ratio { paper, tolerance: tol },
            unit: Unit::Times,
            measure: Box::new(move |v| Ok(vec![(String::new(), npbavg(v, size, config)?)])),
            reason: NPB_WHY,
        }
    };
    let order = |size: &'static str, paper: &str| Claim {
        id: format!("ambix-npb/order-{size}"),
        sentence: format!("NPBAVG {size}: ambix > memory-mode > autonuma-tiering > adm-default"),
        source: src("section 5.5.2, Figure 6"),
        paper: paper.into(),
        expect: Expect::Order { margin: 0.0 },
        unit: Unit::Times,
        measure: Box::new(move |v| {
            ["ambix", "memory-mode", "autonuma-tiering", "adm-default"]
                .iter()
                .map(|c| Ok((c.to_string(), npbavg(v, size, c)?)))
                .collect()
        }),
        reason: NPB_WHY,
    };
    vec![
        ratio(
            "ambix-npb/memory-mode-small",
            "small",
            "memory-mode",
            0.986,
            0.01,
            "section 5.5.1 (\"an average 1.4% throughput penalty\"; tolerance 1% inferred: the widest that keeps a gain out, docs/claims.md rule 3)",
        ),
        ratio(
            "ambix-npb/memos-small",
            "small",
            "memos-placement",
            0.18,
            0.15,
            "section 5.5.1 (\"an average 82% lower throughput\"; tolerance 15% inferred)",
        ),
        ratio(
            "ambix-npb/ambix-medium",
            "medium",
            "ambix",
            2.7,
            0.15,
            "section 5.5.2 (\"2.7x on average\"; tolerance 15% inferred)",
        ),
        ratio(
            "ambix-npb/ambix-large",
            "large",
            "ambix",
            4.4,
            0.15,
            "section 5.5.2 (\"4.4x\"; tolerance 15% inferred)",
        ),
        order("medium", "2.7x > 1.5x > 1.3x > 1"),
        order("large", "4.4x > 2.8x > 1.8x > 1"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        json!({ "sizes": sizes, "wrft_over_rdft_at_1_5x": 5.9 })
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
        // 5.9 is 18% over 5.
        assert!(!find(pb(), "ambix-pb/wrft-over-rdft-1.5x").check(&v).held);
        // An interleave row that is not there cannot be measured.
        let i = find(pb(), "ambix-pb/interleave-degrades-past-1.5x").check(&v);
        assert!(!i.held);
        assert!(i.reason.unwrap().starts_with("not measured"));
    }

    #[test]
    fn npb_order_and_ratios_read_npbavg() {
        let v = json!({"npbavg": [{"size": "large", "configs": [
            {"config": "adm-default", "geomean_speedup": 1.0},
            {"config": "memory-mode", "geomean_speedup": 2.8},
            {"config": "autonuma-tiering", "geomean_speedup": 1.8},
            {"config": "ambix", "geomean_speedup": 4.0}]}]});
        let order = find(npb(), "ambix-npb/order-large").check(&v);
        assert_eq!(order.values, vec![4.0, 2.8, 1.8, 1.0]);
        assert!(order.held);
        // 4.0 is 9% under 4.4.
        assert!(find(npb(), "ambix-npb/ambix-large").check(&v).held);
        assert!(!find(npb(), "ambix-npb/ambix-medium").check(&v).held);
    }

    #[test]
    fn iwb_best_shares_and_gains_by_hand() {
        let cells: Vec<Value> = [(80, 127.0), (90, 105.0), (100, 100.0)]
            .iter()
            .flat_map(|&(p, x)| {
                ["ro", "wo"]
                    .map(|m| json!({"mode": m, "threads": 32, "dram_pct": p, "maccesses_per_s": x}))
            })
            .collect();
        let best = json!({"threads": [1, 2, 4, 32], "ours": [100, 100, 100, 80]});
        let v = json!({"cells": cells, "best_dram_pct": {"ro": best, "wo": best}});
        assert!(
            find(iwb(), "ambix-iwb/all-dram-best-before-saturation")
                .check(&v)
                .held
        );
        assert!(find(iwb(), "ambix-iwb/ro-best-share-32").check(&v).held);
        assert!(!find(iwb(), "ambix-iwb/wo-best-share-32").check(&v).held);
        let g = find(iwb(), "ambix-iwb/ro-gain-32").check(&v);
        assert_eq!(g.values, vec![1.27]);
        assert!(g.held);
        assert!(find(iwb(), "ambix-iwb/wo-gain-32").check(&v).held);
    }
}
