//! The claims `heteroos-drf` checks (../shared/papers/001_f8c99e4789a9a37b.txt,
//! section 5.5), measured from the summary `drf.rs` writes.
//!
//! Figure 13 is an image: the numbers checked are the ones the text gives
//! (GraphChi ~73% and Metis 36% slower under max-min than alone; DRF's 42%
//! and 87% gains for GraphChi, and what the two give for max-min
//! coordinated over VMM-exclusive), each as the effect itself (a slowdown
//! or a gain, not the time ratio, so that the tolerance is a share of the
//! paper's effect) within 25%, inferred; the rest are the orderings and the
//! mechanism the text states.

use crate::claims::{read, Claim, ClaimError, Expect, Source, Unit, UNKNOWN};
use crate::heteroos::drf_setup::{scaled_mib, CONFIGS, PAPER_RESERVATIONS_GB, VMS};
use serde_json::Value;

const FILE: &str = "001_f8c99e4789a9a37b.txt";

fn src(at: &'static str) -> Source {
    Source { file: FILE, at }
}

/// The GraphChi-like and Metis-like VMs' keys in the summary.
const GRAPHCHI: &str = VMS[0].0;
const METIS: &str = VMS[1].0;

/// A value of VM `m` under setup `key`.
fn vm(v: &Value, key: &str, m: &str, field: &str) -> Result<f64, ClaimError> {
    read::num(v, &format!("/configs/{key}/{m}/{field}"))
}

/// VM `m`'s slowdown under max-min HeteroOS-coordinated against its
/// single-VM run (`vs_alone - 1`).
fn maxmin_slowdown(v: &Value, m: &str) -> Result<f64, ClaimError> {
    Ok(vm(v, "maxmin-coordinated", m, "vs_alone")? - 1.0)
}

/// DRF HeteroOS-coordinated's gain for VM `m` over setup `over`: the
/// other's time over DRF's, minus 1.
fn gain(v: &Value, m: &str, over: &str) -> Result<f64, ClaimError> {
    Ok(read::num(v, &format!("/drf_gain/{m}/{over}"))? - 1.0)
}

/// The GraphChi-like VM's least SlowMem quota under `key` over its
/// reservation; missing where the run reported no quota (the summary's
/// least over no samples is infinite).
fn graphchi_quota_share(v: &Value, key: &str) -> Result<f64, ClaimError> {
    let least = vm(v, key, GRAPHCHI, "least_slow_quota_mib")?;
    if !least.is_finite() {
        return Err(ClaimError::Missing {
            path: format!("/configs/{key}/{GRAPHCHI}/least_slow_quota_mib"),
        });
    }
    Ok(least / scaled_mib(PAPER_RESERVATIONS_GB[0][1]) as f64)
}

/// The paper's DRF gains for the GraphChi VM over max-min coordinated and
/// over max-min VMM-exclusive, as time ratios.
const PAPER_DRF_GAIN: [f64; 2] = [1.42, 1.87];

const BASELINE: &str = "the single-VM baseline here is each model alone on the whole machine, \
where its working set fits FastMem and nothing swaps, and a VM's time is its tenant estimate \
(every access priced at the tier that served it, every swap fault at the swap device's cost); the \
paper's stars are \"the single-VM HeteroOS-coordinated time (best case in the earlier \
evaluation)\", whose memory it does not give, so both VMs look slower against ours: under max-min \
the GraphChi-like VM takes {/configs/maxmin-coordinated/graphchi-6g/vs_alone:x} its time alone \
with {/configs/maxmin-coordinated/graphchi-6g/swap_faults:0} swap faults, the Metis-like \
{/configs/maxmin-coordinated/metis-8g/vs_alone:x} with \
{/configs/maxmin-coordinated/metis-8g/swap_faults:0}";

const GAIN_OVER_MAXMIN: &str = "max-min lends the GraphChi-like VM's idle SlowMem (its cold \
heap) to the Metis-like VM, its SlowMem quota falling to \
{/configs/maxmin-coordinated/graphchi-6g/least_slow_quota_mib:0} MiB where DRF keeps its whole \
reservation, and its cold pages then fault in from swap more often \
({/configs/maxmin-coordinated/graphchi-6g/swap_faults:0} swap faults against \
{/configs/drf-coordinated/graphchi-6g/swap_faults:0} under DRF); how much that costs rests on how \
often the cold heap is touched, which the paper does not give (here each cold page about once a \
run, inferred, not tuned to the figure), and on max-min's sampling of active pages, which the \
run's seed sets";

/// Checked by `heteroos-drf`.
pub fn drf() -> Vec<Claim> {
    vec![
        Claim {
            id: "heteroos-drf/contention-slows-both".into(),
            sentence: "Sharing the machine slows each VM down against its single-VM HeteroOS-coordinated run, under every setup".into(),
            source: src("section 5.5 (\"resource contention across multiple VMs (Graphchi and Metis) slows down the performance compared to a single VM HeteroOS-coordinated approach\")"),
            paper: "> 1x".into(),
            expect: Expect::Band { lo: 1.0 + 1e-9, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let mut out = Vec::new();
                for (key, ..) in CONFIGS {
                    for (m, _) in VMS {
                        out.push((format!("{key} {m}"), vm(v, key, m, "vs_alone")?));
                    }
                }
                Ok(out)
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-drf/maxmin-graphchi-73pct".into(),
            sentence: "Under max-min HeteroOS-coordinated the GraphChi-like VM runs about 73% slower than alone (within 25% of the slowdown, inferred)".into(),
            source: src("section 5.5 (\"the Graphchi VM suffers ~73% slowdown relative to the single-VM execution baseline\"); within 25%, inferred: the text gives one value and Figure 13 is an image; the band, 55% to 91%, stays a slowdown"),
            paper: "+73%".into(),
            expect: Expect::Ratio { paper: 0.73, tolerance: 0.25 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(vec![("graphchi".into(), maxmin_slowdown(v, GRAPHCHI)?)])),
            reason: BASELINE,
        },
        Claim {
            id: "heteroos-drf/maxmin-metis-36pct".into(),
            sentence: "Under max-min HeteroOS-coordinated the Metis-like VM runs about 36% slower than alone (within 25% of the slowdown, inferred)".into(),
            source: src("section 5.5 (\"Metis VM which only suffers 36% slowdown\"); within 25%, inferred, as for Graphchi: the band is 27% to 45%"),
            paper: "+36%".into(),
            expect: Expect::Ratio { paper: 0.36, tolerance: 0.25 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(vec![("metis".into(), maxmin_slowdown(v, METIS)?)])),
            reason: BASELINE,
        },
        Claim {
            id: "heteroos-drf/maxmin-hurts-graphchi-more".into(),
            sentence: "Under max-min HeteroOS-coordinated the GraphChi-like VM's slowdown against its single-VM run is about twice the Metis-like one's, the paper's 73% / 36% = 2.03x (within 25%, inferred)".into(),
            source: src("section 5.5 (Graphchi \"~73% slowdown\" against Metis \"which only suffers 36% slowdown\"); within 25%, inferred: the band, 1.52x to 2.53x, stays above 1x"),
            paper: "73% / 36% = 2.03x".into(),
            expect: Expect::Ratio { paper: 0.73 / 0.36, tolerance: 0.25 },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let g = maxmin_slowdown(v, GRAPHCHI)?;
                let m = maxmin_slowdown(v, METIS)?;
                // Over a Metis-like VM that is not slowed down, the ratio
                // says nothing: shown as not a number, which no band holds.
                Ok(vec![if m > 0.0 {
                    ("graphchi / metis".into(), g / m)
                } else {
                    ("metis-like not slowed".into(), f64::NAN)
                }])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-drf/maxmin-balloons-graphchi-slowmem".into(),
            sentence: "Under max-min HeteroOS-coordinated the Metis-like VM takes part of the GraphChi-like VM's SlowMem reservation by ballooning (GraphChi's least SlowMem quota over its reservation)".into(),
            source: src("section 5.5 (\"The memory-hungry Metis ... starts exhausting SlowMem by ballooning out the Graphchi VM's SlowMem pages too\")"),
            paper: "< 1".into(),
            expect: Expect::Band { lo: 0.0, hi: 1.0 - 1e-9 },
            unit: Unit::Num(2),
            measure: Box::new(|v| {
                Ok(vec![("graphchi".into(), graphchi_quota_share(v, "maxmin-coordinated")?)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-drf/drf-guarantees-graphchi-slowmem".into(),
            sentence: "Under DRF the GraphChi-like VM keeps its whole SlowMem reservation throughout (its least SlowMem quota over its reservation)".into(),
            source: src("section 5.5 (DRF \"guarantees the 4GB SlowMem availability for Graphchi VM\")"),
            paper: ">= 1".into(),
            expect: Expect::Band { lo: 1.0, hi: f64::INFINITY },
            unit: Unit::Num(2),
            measure: Box::new(|v| {
                Ok(vec![("graphchi".into(), graphchi_quota_share(v, "drf-coordinated")?)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-drf/coordinated-beats-vmm-under-maxmin".into(),
            sentence: "Under max-min, HeteroOS-coordinated outperforms VMM-exclusive for the Metis-like VM (VMM-exclusive's time over coordinated's; the GraphChi-like VM's, which the paper's numbers give, is the claim maxmin-coordinated-over-vmm-graphchi)".into(),
            source: src("section 5.5 (\"the simple max-min fairness-based HeteroOS-coordinated outperforms the VMM-exclusive approach by reducing migrations\"; no number for Metis)"),
            paper: "> 1x".into(),
            expect: Expect::Band { lo: 1.0 + 1e-9, hi: f64::INFINITY },
            unit: Unit::Times,
            measure: Box::new(|v| {
                let vmm = vm(v, "maxmin-vmm", METIS, "time_factor")?;
                let co = vm(v, "maxmin-coordinated", METIS, "time_factor")?;
                Ok(vec![("metis".into(), vmm / co)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-drf/maxmin-coordinated-over-vmm-graphchi".into(),
            sentence: "Under max-min, HeteroOS-coordinated is about 32% faster than VMM-exclusive for the GraphChi-like VM, as DRF's two gains for it give (t_VMM-exclusive / t_coordinated - 1; within 25%, inferred)".into(),
            source: src("section 5.5 (DRF \"improves the Graphchi VM's performance by 42%, and 87% compared to a simple max-min fairness-based HeteroOS-coordinated and VMM-exclusive approach\", so 1.87 / 1.42 - 1 = 32%: derived, not stated); within 25%, inferred: the band, 24% to 40%, stays a gain"),
            paper: "1.87 / 1.42 - 1 = +32%".into(),
            expect: Expect::Ratio { paper: PAPER_DRF_GAIN[1] / PAPER_DRF_GAIN[0] - 1.0, tolerance: 0.25 },
            unit: Unit::Percent,
            measure: Box::new(|v| {
                let vmm = vm(v, "maxmin-vmm", GRAPHCHI, "time_factor")?;
                let co = vm(v, "maxmin-coordinated", GRAPHCHI, "time_factor")?;
                Ok(vec![("graphchi".into(), vmm / co - 1.0)])
            }),
            reason: UNKNOWN,
        },
        Claim {
            id: "heteroos-drf/drf-gain-over-maxmin-coordinated".into(),
            sentence: "DRF HeteroOS-coordinated improves the GraphChi-like VM's performance by about 42% over max-min HeteroOS-coordinated (t_max-min / t_DRF - 1; within 25%, inferred)".into(),
            source: src("section 5.5 (\"DRF-based HeteroOS-coordinated improves the Graphchi VM's performance by 42% ... compared to a simple max-min fairness-based HeteroOS-coordinated\"); within 25%, inferred: the text gives one value and Figure 13 is an image; the band, 31.5% to 52.5%, stays a gain"),
            paper: "+42%".into(),
            expect: Expect::Ratio { paper: PAPER_DRF_GAIN[0] - 1.0, tolerance: 0.25 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(vec![("graphchi".into(), gain(v, GRAPHCHI, "maxmin-coordinated")?)])),
            reason: GAIN_OVER_MAXMIN,
        },
        Claim {
            id: "heteroos-drf/drf-gain-over-vmm-exclusive".into(),
            sentence: "DRF HeteroOS-coordinated improves the GraphChi-like VM's performance by about 87% over (max-min) VMM-exclusive (t_VMM-exclusive / t_DRF - 1; within 25%, inferred)".into(),
            source: src("section 5.5 (\"improves the Graphchi VM's performance by 42%, and 87% compared to a simple max-min fairness-based HeteroOS-coordinated and VMM-exclusive approach\"); within 25%, inferred, as over max-min: the band is 65% to 109%"),
            paper: "+87%".into(),
            expect: Expect::Ratio { paper: PAPER_DRF_GAIN[1] - 1.0, tolerance: 0.25 },
            unit: Unit::Percent,
            measure: Box::new(|v| Ok(vec![("graphchi".into(), gain(v, GRAPHCHI, "maxmin-vmm")?)])),
            reason: UNKNOWN,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heteroos::placement_claims::fixture;
    use serde_json::{json, Map};

    fn find(id: &str) -> Claim {
        drf().into_iter().find(|c| c.id == id).unwrap()
    }

    /// A `heteroos-drf` summary: each VM's time factor alone `alone`, and
    /// under each setup (in CONFIGS' order) from `time(setup, vm)`.
    fn summary(time: impl Fn(&str, &str) -> f64) -> Value {
        let alone = [1.0, 1.0];
        let mut configs = Map::new();
        for (key, ..) in CONFIGS {
            let mut per = Map::new();
            for (k, (m, _)) in VMS.iter().enumerate() {
                let f = time(key, m);
                per.insert(
                    m.to_string(),
                    json!({"time_factor": f, "vs_alone": f / alone[k], "swap_faults": 10.0,
                           "least_slow_quota_mib": if key == "maxmin-coordinated" { 3000.0 } else { 4096.0 }}),
                );
            }
            configs.insert(key.into(), Value::Object(per));
        }
        let mut gains = Map::new();
        for (m, _) in VMS {
            let mut g = Map::new();
            for (key, ..) in &CONFIGS[..2] {
                g.insert(
                    key.to_string(),
                    json!(time(key, m) / time("drf-coordinated", m)),
                );
            }
            gains.insert(m.to_string(), Value::Object(g));
        }
        json!({ "configs": configs, "drf_gain": gains })
    }

    /// Section 5.5's numbers: GraphChi 1.73x alone under max-min
    /// coordinated, DRF 1.42x and 1.87x faster than max-min coordinated and
    /// VMM-exclusive; Metis 1.36x alone.
    fn papers(key: &str, m: &str) -> f64 {
        let graphchi = m == GRAPHCHI;
        match key {
            "maxmin-coordinated" if graphchi => 1.73,
            "maxmin-coordinated" => 1.36,
            "maxmin-vmm" if graphchi => 1.73 / 1.42 * 1.87,
            "maxmin-vmm" => 1.6,
            _ if graphchi => 1.73 / 1.42,
            _ => 1.2,
        }
    }

    #[test]
    fn the_papers_numbers_hold_and_ours_do_not() {
        let ids = [
            "heteroos-drf/contention-slows-both",
            "heteroos-drf/maxmin-graphchi-73pct",
            "heteroos-drf/maxmin-metis-36pct",
            "heteroos-drf/maxmin-hurts-graphchi-more",
            "heteroos-drf/maxmin-balloons-graphchi-slowmem",
            "heteroos-drf/drf-guarantees-graphchi-slowmem",
            "heteroos-drf/coordinated-beats-vmm-under-maxmin",
            "heteroos-drf/maxmin-coordinated-over-vmm-graphchi",
            "heteroos-drf/drf-gain-over-maxmin-coordinated",
            "heteroos-drf/drf-gain-over-vmm-exclusive",
        ];
        let paper = summary(papers);
        for id in ids {
            let v = find(id).check(&paper);
            assert!(v.held, "{id}: {:?}", v.ours);
        }
        // A 27% gain over max-min is a third short of 42%.
        let short = summary(|k, m| {
            if (k, m) == ("drf-coordinated", GRAPHCHI) {
                1.73 / 1.27
            } else {
                papers(k, m)
            }
        });
        let v = find("heteroos-drf/drf-gain-over-maxmin-coordinated").check(&short);
        assert!(!v.held);
        assert!(v.reason.unwrap().contains("quota falling to 3000 MiB"));
        // GraphChi slowed 2.83x alone and Metis 1.74x: both numbers and
        // their proportion (3.8x) missed.
        let ours = summary(|k, m| match (k, m == GRAPHCHI) {
            ("maxmin-coordinated", true) => 3.83,
            ("maxmin-coordinated", false) => 1.74,
            _ => papers(k, m),
        });
        for id in &ids[1..4] {
            assert!(!find(id).check(&ours).held, "{id}");
        }
        // A Metis-like VM sped up is no slowdown to compare with.
        let faster = summary(|k, m| match (k, m == GRAPHCHI) {
            ("maxmin-coordinated", false) => 0.9,
            _ => papers(k, m),
        });
        let v = find("heteroos-drf/maxmin-hurts-graphchi-more").check(&faster);
        assert!(!v.held);
        assert_eq!(v.ours[0].0, "metis-like not slowed");
    }

    #[test]
    fn a_run_without_quota_samples_is_not_measured() {
        let mut v = summary(papers);
        v["configs"]["drf-coordinated"][GRAPHCHI]["least_slow_quota_mib"] = Value::Null;
        let c = find("heteroos-drf/drf-guarantees-graphchi-slowmem").check(&v);
        assert!(!c.held);
        assert!(c.reason.unwrap().starts_with("not measured"));
    }

    #[test]
    fn reasons_read_fields_the_summaries_have() {
        fixture::reasons_resolve("heteroos-drf");
    }
}
