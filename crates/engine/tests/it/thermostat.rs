//! Thermostat and the kstaled-like baseline on small MASIM workloads: the
//! cold region goes to slow memory, the slowdown stays under the target, a
//! region that turns hot comes back, and Accessed-bit idleness misses the
//! target Thermostat keeps.

use super::common;

use thermocline_engine::report::Report;

/// 16 MiB hot, 32 MiB "later" (cold, then hot), 80 MiB cold; 2 x 30 s.
const CFG: &str = "\
hot, 16777216
later, 33554432
cold, 83886080

steady
30000
hot, 1, 64, 980, rw
later, 1, 64, 10, ro
cold, 1, 64, 10, ro

later turns hot
30000
hot, 1, 64, 490, rw
later, 1, 64, 490, ro
cold, 1, 64, 20, ro
";

fn run(manager: &str, extra: &[&str]) -> Report {
    let manager_set = format!("run.manager={manager}");
    let sets = [
        &[
            manager_set.as_str(),
            "workload.thp=true",
            "workload.access_rate=300000",
            // At this slowed-down rate masim's 131072-access bursts would
            // last 437 ms each (a real masim's last about a millisecond);
            // interleave the patterns access by access instead.
            "workload.masim_burst=1",
        ],
        extra,
    ]
    .concat();
    common::run_masim(&format!("thermostat-{manager}"), CFG, &sets)
}

fn gauge(r: &Report, at_s: f64, k: &str) -> f64 {
    let w = r.windows.iter().find(|w| w.t_s >= at_s).unwrap();
    w.manager[k]
}

#[test]
fn thermostat_demotes_cold_memory_within_budget_and_corrects_mistakes() {
    let params = [
        "thermostat-badgertrap.scan_period_s=2",
        "thermostat-badgertrap.sample_fraction=0.25",
    ];
    let r = run("thermostat-badgertrap", &params);
    assert_eq!(r.machine, "dram+badgertrap");
    // By the end of phase 1 most of the 112 MiB of cold memory is in slow
    // memory; units being re-sampled are split into 4 KiB pages meanwhile.
    let cold = gauge(&r, 29.0, "cold_huge_bytes") + gauge(&r, 29.0, "cold_base_bytes");
    assert!(cold >= 96.0 * (1 << 20) as f64, "cold bytes {cold}");
    assert!(gauge(&r, 29.0, "cold_huge_bytes") > 0.0);
    // Phase 2 makes "later" hot: the correction sends it back.
    let promoted = gauge(&r, 59.0, "promoted_by_correction_bytes")
        + gauge(&r, 59.0, "promoted_by_sampling_bytes");
    assert!(promoted >= 16.0 * (1 << 20) as f64, "promoted {promoted}");
    // The slow tier's fault rate ends under the 30 K/s budget...
    let tail: Vec<f64> = r
        .windows
        .iter()
        .filter(|w| w.t_s > 50.0)
        .map(|w| w.slow_tier_faults_per_s)
        .collect();
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!(mean < 30_000.0, "slow faults/s at the end {mean}");
    // ...and the whole run stays within the 3% target (+0.5 pp).
    assert!(r.slowdown <= 0.035, "slowdown {}", r.slowdown);
    assert!(r.slowdown > 0.0);
    // Sampling costs the manager well under 1% of a core.
    assert!(r.manager_cpu_util < 0.01, "{}", r.manager_cpu_util);
}

#[test]
fn a_larger_tolerable_slowdown_moves_more_memory() {
    let base = [
        "thermostat-badgertrap.scan_period_s=2",
        "thermostat-badgertrap.sample_fraction=0.25",
        "run.duration_s=30",
        "workload.access_rate=2000000",
    ];
    let slow = |x: &str| {
        let mut sets = base.to_vec();
        sets.push(x);
        let r = run("thermostat-badgertrap", &sets);
        let w = r.windows.last().unwrap();
        (w.resident_bytes[1], r.slowdown)
    };
    let (at1, s1) = slow("thermostat-badgertrap.slowdown=0.01");
    let (at10, s10) = slow("thermostat-badgertrap.slowdown=0.10");
    assert!(at10 > at1, "10%: {at10} B slow, 1%: {at1} B");
    // Sampling 25% of units per period (5x the paper's rate) costs about a
    // percent on its own, so only the 10% target is checked for the bound.
    assert!(s1 < s10 && s10 <= 0.105, "{s1} {s10}");
}

/// On a workload the paper's sampling suits (its faults are far below the
/// budget) the adaptive sampling never acts: the run is the paper's
/// mechanism's, report for report, and carries no note.
#[test]
fn on_a_friendly_workload_thermostat_is_the_papers() {
    let params = [
        "thermostat-badgertrap.scan_period_s=2",
        "thermostat-badgertrap.sample_fraction=0.25",
        "run.duration_s=30",
    ];
    let adaptive = run("thermostat-badgertrap", &params);
    let fixed = run(
        "thermostat-badgertrap",
        &[
            &params[..],
            &["thermostat-badgertrap.adaptive_sampling=false"],
        ]
        .concat(),
    );
    assert!(adaptive.notes.is_empty(), "{:?}", adaptive.notes);
    assert_eq!(adaptive, fixed);
    let last = adaptive.windows.last().unwrap();
    assert_eq!(last.manager["reduced_batches_count"], 0.0);
    assert!(last.resident_bytes[1] > 0, "it did demote");
}

/// 128 MiB get 90% of the accesses, 896 MiB the rest, all uniformly random
/// over 2 MiB pages: every access to a sampled (split) unit misses the TLB,
/// so each of its poisoned pages faults on nearly every access to it.
const HOSTILE_CFG: &str = "\
hot, 134217728
cold, 939524096

uniform with a hot set
30000
hot, 1, 64, 90, rw
cold, 1, 64, 10, ro
";

/// The paper's target covers "Thermostat's monitoring and ... accesses to
/// data shifted to slow memory" (section 3). On a TLB-hostile pattern the
/// paper's fixed sampling costs more than the whole 3% budget by itself
/// (with 25% of units sampled at 2 M accesses/s, the same ratio of sampled
/// accesses to budget as its 5% at 10 M/s, about 35-50 K faults/s against
/// 30 K/s; checked here so that the test keeps testing something). The
/// adaptive sampling cuts the sampled pages to a third of the budget and
/// stays within the target, and the report says so.
///
/// Tolerance 0.5 point, as in the reproductions' "target met": the first
/// two batches are sampled at the paper's rate before the first
/// measurement (4 s of 30 at ~5%: ~0.3 point), and the controller acts one
/// period late on batches whose cost varies with how many hot units they
/// happen to draw.
#[test]
fn on_a_tlb_hostile_workload_thermostat_keeps_its_target_monitoring_included() {
    let sets = |adaptive: &str| {
        let a = format!("thermostat-badgertrap.adaptive_sampling={adaptive}");
        let sets = [
            "run.manager=thermostat-badgertrap",
            "workload.thp=true",
            "workload.access_rate=2000000",
            "thermostat-badgertrap.scan_period_s=2",
            "thermostat-badgertrap.sample_fraction=0.25",
            a.as_str(),
        ];
        common::run_masim(&format!("hostile-{adaptive}"), HOSTILE_CFG, &sets)
    };
    let fixed = sets("false");
    let mean_sampling = |r: &Report| {
        let v: Vec<f64> = r
            .windows
            .iter()
            .map(|w| w.manager["sampling_faults_per_s"])
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(
        fixed.slowdown > 0.035 && mean_sampling(&fixed) > 30_000.0 / 3.0,
        "the workload is not hostile: {} slowdown, {} sampling faults/s",
        fixed.slowdown,
        mean_sampling(&fixed)
    );
    let adaptive = sets("true");
    assert!(
        adaptive.slowdown <= 0.035,
        "slowdown {} (paper's fixed sampling: {})",
        adaptive.slowdown,
        fixed.slowdown
    );
    assert!(adaptive.slowdown < fixed.slowdown);
    assert!(mean_sampling(&adaptive) < mean_sampling(&fixed) / 2.0);
    assert!(
        adaptive.windows.last().unwrap().resident_bytes[1] > 0,
        "with sampling paid for, some cold memory fits the budget"
    );
    assert_eq!(adaptive.notes.len(), 1);
    assert!(
        adaptive.notes[0].contains("fewer pages"),
        "{:?}",
        adaptive.notes
    );
    assert!(fixed.notes.is_empty());
}

/// Touches everything, then only `hot` for 20 s, then `later` again.
const IDLE_CFG: &str = "\
hot, 8388608
later, 8388608
cold, 16777216

all
5000
hot, 1, 64, 40, rw
later, 1, 64, 30, ro
cold, 1, 64, 30, ro

hot only
20000
hot, 1, 64, 100, rw

later again
5000
hot, 1, 64, 50, rw
later, 1, 64, 50, ro
";

#[test]
fn kstaled_demotes_idle_pages_and_promotes_accessed_ones() {
    let r = common::run_masim(
        "kstaled",
        IDLE_CFG,
        &[
            "run.manager=kstaled",
            "workload.thp=true",
            "workload.access_rate=200000",
        ],
    );
    let at = |t: f64| r.windows.iter().find(|w| w.t_s >= t).unwrap();
    // Idle for 10 scans after 5 s: later + cold (24 MiB) are slow by 17 s.
    assert!(
        at(18.0).resident_bytes[1] >= 23 << 20,
        "{:?}",
        at(18.0).resident_bytes
    );
    // Hot pages, accessed every second, never leave.
    assert!(at(18.0).resident_bytes[0] >= 8 << 20);
    // `later` is accessed again from 25 s: back in fast memory.
    let end = r.windows.last().unwrap();
    assert!(
        end.resident_bytes[1] <= 17 << 20,
        "{:?}",
        end.resident_bytes
    );
    assert_eq!(end.manager["scans_count"] as u64, 30);
}
