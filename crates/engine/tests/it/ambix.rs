//! Ambix and Memory Mode on small MASIM workloads.

use super::common;

use thermocline_engine::report::Report;

fn run(name: &str, cfg_text: &str, sets: &[&str]) -> Report {
    let all = [&["run.machine=dram+dcpmm-ambix"], sets].concat();
    common::run_masim(&format!("ambix-{name}"), cfg_text, &all)
}

fn dram_write_share(r: &Report) -> f64 {
    let w: u64 = r.tiers.iter().map(|t| t.writes).sum();
    r.tiers[0].writes as f64 / w.max(1) as f64
}

/// Reads fill DRAM first, then a write-hot region lands in DCPMM.
const WRITES_LAND_IN_DCPMM: &str = "\
r, 16777216
w, 16777216

reads first
2000
r, 1, 64, 1, ro

writes arrive
10000
r, 1, 64, 1, ro
w, 1, 64, 1, wo
";

#[test]
fn ambix_switches_write_intensive_pages_into_dram() {
    // Reads and writes interleaved access by access (masim's default
    // bursts of 131072 accesses would alternate 65 ms of one region and
    // 65 ms of the other at this rate): this checks the switch rule.
    let sets = [
        "run.fast_capacity=12MiB",
        "workload.access_rate=2000000",
        "workload.masim_burst=1",
    ];
    let adm = run(
        "adm",
        WRITES_LAND_IN_DCPMM,
        &[&sets[..], &["run.manager=adm-default"]].concat(),
    );
    let ambix = run(
        "ambix",
        WRITES_LAND_IN_DCPMM,
        &[&sets[..], &["run.manager=ambix"]].concat(),
    );
    let (a, b) = (dram_write_share(&adm), dram_write_share(&ambix));
    assert!(a < 0.1, "adm-default keeps the writes in DCPMM: {a}");
    assert!(b > 0.5, "ambix moves them to DRAM: {b}");
    assert!(ambix.windows.last().unwrap().manager["switch_count"] >= 1.0);
    // DCPMM absorbs far fewer application writes.
    assert!(ambix.tiers[1].writes * 2 < adm.tiers[1].writes);
}

#[test]
fn memory_mode_caches_what_fits_and_thrashes_what_does_not() {
    let small = "a, 4194304\n\nrandom\n2000\na, 1, 64, 1, ro\n";
    let big = "a, 67108864\n\nrandom\n2000\na, 1, 64, 1, ro\n";
    let sets = [
        "run.manager=memory-mode",
        "run.fast_capacity=8MiB",
        "workload.access_rate=1000000",
    ];
    let share = |r: &Report| {
        let all: u64 = r.tiers.iter().map(|t| t.reads + t.writes).sum();
        (r.tiers[0].reads + r.tiers[0].writes) as f64 / all as f64
    };
    let s = run("mm-small", small, &sets);
    let b = run("mm-big", big, &sets);
    // Every page lives in DCPMM; DRAM serves hits only.
    assert_eq!(s.tiers[0].avg_resident_bytes, 0.0);
    assert!(share(&s) > 0.9, "{}", share(&s));
    // 8 MiB of cache over 64 MiB of random lines: about 1 hit in 8.
    assert!((0.08..0.2).contains(&share(&b)), "{}", share(&b));
}

/// DEMOTE frees the 5% buffer, counted in bytes: huge pages are 512 base
/// pages' worth, so DRAM is not emptied to free a few megabytes.
#[test]
fn ambix_demotes_only_the_buffer_with_huge_pages() {
    let cfg = "a, 67108864\n\nrandom\n6000\na, 1, 64, 1, ro\n";
    let r = run(
        "ambix-thp",
        cfg,
        &[
            "run.manager=ambix",
            "run.fast_capacity=32MiB",
            "workload.thp=true",
            "workload.access_rate=500000",
        ],
    );
    let cap = r.tiers[0].capacity_bytes as f64;
    for w in &r.windows {
        assert!(
            w.resident_bytes[0] as f64 >= 0.8 * cap,
            "{:?}",
            w.resident_bytes
        );
    }
    assert!(r.windows.last().unwrap().manager["demote_count"] >= 1.0);
}
