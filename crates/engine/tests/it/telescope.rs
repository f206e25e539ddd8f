//! Telescope and the telemetry techniques it is compared with: the paper's
//! qualitative findings at terabyte scale on the rate machine, the same
//! techniques at gigabyte scale on the exact machine, migration with the
//! paper's rules, and determinism.

use super::common;

use thermocline_engine::report::Report;

/// 2 TiB heap, 8 GiB hot in its middle, 30 s of random loads.
const TB_CFG: &str = "\
cold0, 1095216660480
hot, 8589934592
cold1, 1095216660480

run
30000
hot, 1, 64, 1, ro
";

/// 256 MiB heap, 10% hot.
const GB_CFG: &str = "\
cold0, 120795955
hot, 26843545
cold1, 120795955

run
6000
hot, 1, 64, 1, ro
";

fn tb(manager: &str, extra: &[&str]) -> Report {
    let m = format!("run.manager=\"{manager}\"");
    let sets = [&[m.as_str(), "run.backend=\"rate\""], extra].concat();
    common::run_masim(&format!("tb-{manager}"), TB_CFG, &sets)
}

/// Mean over the scored windows after the first 3 s (convergence); a
/// window where something was hot and nothing was reported has precision 0.
fn steady(r: &Report) -> (f64, f64) {
    let ws: Vec<_> = r
        .windows
        .iter()
        .filter(|w| w.t_s > 3.0 && w.recall.is_some())
        .collect();
    let n = ws.len() as f64;
    (
        ws.iter().map(|w| w.precision.unwrap_or(0.0)).sum::<f64>() / n,
        ws.iter().map(|w| w.recall.unwrap_or(0.0)).sum::<f64>() / n,
    )
}

fn gauge(r: &Report, name: &str) -> f64 {
    r.windows.last().unwrap().manager[name]
}

#[test]
fn at_terabyte_scale_telescope_finds_the_hot_region_and_damon_does_not() {
    for t in ["telescope-bounded", "telescope-flex"] {
        let r = tb(t, &[]);
        assert_eq!(r.backend, "rate");
        let (p, rc) = steady(&r);
        assert!(rc > 0.9, "{t}: recall {rc}");
        assert!(p > 0.7, "{t}: precision {p}");
    }
    // DAMON finds nothing: a 4 KiB page of the 8 GiB is set in ~2% of its
    // 5 ms samples, so no region reads more than 5 of 40 (the paper's hot
    // test, 6.3.2), though the kernel's merge threshold keeps regions that
    // read 1 or 2 apart (reported hot under a test of 1: recall ~0.2-0.4).
    let damon = tb("damon-moderate", &[]);
    let (p, rc) = steady(&damon);
    assert!(p < 0.1 && rc < 0.01, "damon {p} {rc}");
    let pebs = tb("pebs-5khz", &[]);
    let (p, rc) = steady(&pebs);
    assert!(p > 0.95 && rc < 0.5, "pebs {p} {rc}");
    // Fewer bits flipped by Telescope than by DAMON's fresh-page samples.
    let tele = tb("telescope-bounded", &[]);
    assert!(gauge(&tele, "bits_flipped_count") < gauge(&damon, "bits_flipped_count"));
}

#[test]
fn at_gigabyte_scale_on_the_exact_machine_every_sampler_works() {
    for t in ["damon-moderate", "telescope-bounded", "pebs-10khz"] {
        let m = format!("run.manager=\"{t}\"");
        let r = common::run_masim(
            &format!("gb-{t}"),
            GB_CFG,
            &[
                m.as_str(),
                "workload.access_rate=2000000",
                "run.backend=\"exact\"",
            ],
        );
        assert_eq!(r.backend, "exact");
        let (p, rc) = steady(&r);
        assert!(p > 0.8, "{t}: precision {p}");
        assert!(rc > 0.5, "{t}: recall {rc}");
    }
}

#[test]
fn linear_scanning_needs_two_passes_and_costs_a_core_when_aggressive() {
    let m = "run.manager=\"linear-scan-aggressive\"";
    let r = common::run_masim(
        "gb-linear",
        GB_CFG,
        &[m, "workload.access_rate=2000000", "run.backend=\"rate\""],
    );
    assert!(gauge(&r, "passes_count") >= 2.0);
    let (p, rc) = steady(&r);
    assert!(p > 0.95 && rc > 0.95, "{p} {rc}");
    assert!(r.manager_cpu_util > 0.95);
    // Conservative mode does not finish a pass of 2 TiB in 30 s.
    let r = tb("linear-scan-conservative", &[]);
    assert_eq!(gauge(&r, "passes_count"), 0.0);
    assert!(r.manager_cpu_util < 0.05);
}

#[test]
fn migration_moves_what_telescope_finds_and_nothing_for_damon() {
    let sets = |t: &str| {
        vec![
            "run.fast_capacity=\"768GiB\"".to_string(),
            format!("{t}.migration.enabled=true"),
            format!("{t}.migration.warmup_s=5"),
        ]
    };
    let run = |t: &str| {
        let s = sets(t);
        let refs: Vec<&str> = s.iter().map(String::as_str).collect();
        tb(t, &refs)
    };
    let tele = run("telescope-bounded");
    // The 8 GiB hot region ends up in the fast tier, by at most 10 GiB per window.
    let gib = (1u64 << 30) as f64;
    assert!(
        tele.migrations.bytes as f64 > 6.0 * gib,
        "{:?}",
        tele.migrations
    );
    assert!(tele.windows.last().unwrap().resident_bytes[0] as f64 > 6.0 * gib);
    let damon = run("damon-moderate");
    assert_eq!(damon.migrations.bytes, 0);
    assert!(
        tele.sim_time_s < damon.sim_time_s,
        "hot data in DRAM runs faster"
    );
}

#[test]
fn rate_runs_are_deterministic() {
    let a = tb("telescope-flex", &["run.duration_s=3"]).to_json();
    let b = tb("telescope-flex", &["run.duration_s=3"]).to_json();
    assert_eq!(a, b);
}

/// Per phase, the mean precision and recall of the scored windows that end
/// in the phase after its first 3 s (convergence).
fn phase_means(r: &Report) -> Vec<(f64, f64)> {
    let starts = &r.phase_starts_s;
    (0..starts.len())
        .map(|i| {
            let (lo, hi) = (
                starts[i] + 3.0,
                starts.get(i + 1).copied().unwrap_or(f64::MAX),
            );
            let ws: Vec<_> = r
                .windows
                .iter()
                .filter(|w| w.t_s > lo && w.t_s <= hi && w.recall.is_some())
                .collect();
            let n = ws.len().max(1) as f64;
            (
                ws.iter().map(|w| w.precision.unwrap_or(0.0)).sum::<f64>() / n,
                ws.iter().map(|w| w.recall.unwrap_or(0.0)).sum::<f64>() / n,
            )
        })
        .collect()
}

/// A small member of the scattered family (issue #20 item 3): 2 TiB, phases
/// of 1, 3 and 8 hot regions of 10 MiB-100 GiB at densities 1x-10x.
/// Telescope-bounded finds every phase's regions, the one-region phase (a
/// few hundred MiB in 2 TiB: a needle) included, which it did not when it
/// merged with a fixed threshold of samples / 10 (a region that read 1 or 2
/// of 40 merged back into its cold neighbours) and reported any region with
/// one set bit as hot.
#[test]
fn telescope_bounded_finds_scattered_hot_regions_in_every_phase() {
    use thermocline_workloads::telescope::{scattered, Scattered};
    let family = Scattered {
        heap: 2 << 40,
        counts: vec![1, 3, 8],
        phase_s: 12,
        seed: 1,
        ..Scattered::family()
    };
    let r = common::run_masim(
        "scattered",
        &scattered(&family),
        &["run.manager=\"telescope-bounded\"", "run.backend=\"rate\""],
    );
    let phases = phase_means(&r);
    assert_eq!(phases.len(), 3);
    // Before the fix: 0.74/0.91, 0.00/0.08, 0.74/0.89; after: 0.97/0.90,
    // 1.00/0.82, 0.97/0.97. Recall stays under 0.9 where a 1x region sits
    // beside 10x ones (see the docs of the region sampler).
    for (i, (p, rc)) in phases.iter().enumerate() {
        assert!(*p > 0.9 && *rc > 0.75, "phase {}: {p:.2}/{rc:.2}", i + 1);
    }
}
