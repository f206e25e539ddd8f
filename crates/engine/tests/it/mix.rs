//! Multi-programmed mixes end to end on the exact machine: each component
//! in its own address space and on its own core, its footprint counted,
//! and a manager that walks every address space (Memos) acting on both.

use thermocline_engine::config;
use thermocline_engine::report::Report;
use thermocline_engine::runner;
use thermocline_engine::RunError;

fn run(workload: &str, manager: &str) -> Result<Report, RunError> {
    let sets: Vec<String> = [
        format!("run.workload=\"{workload}\""),
        format!("run.manager=\"{manager}\""),
        "run.machine=\"dram+pcm\"".into(),
        "workload.access_rate=2000000".into(),
    ]
    .into();
    runner::run(&config::load(None, &sets)?, &mut |_, _| {})
}

#[test]
fn a_mix_runs_each_part_in_its_own_space_and_core() {
    let alone = run("memos:mcf:0.02:25", "memos").unwrap();
    let r = run("mix:memos:mcf:0.02:25+memos:stream:0.02:25", "memos").unwrap();
    let stream = run("memos:stream:0.02:25", "all-fast").unwrap();
    assert_eq!(
        r.footprint_bytes,
        alone.footprint_bytes + stream.footprint_bytes
    );
    // Two cores at the same nominal rate: twice the accesses in the same
    // nominal time (the mix ends with its first part).
    let ratio = r.accesses as f64 / alone.accesses as f64;
    assert!((1.9..=2.01).contains(&ratio), "{ratio}");
    // Memos found hot pages in both spaces and moved some.
    let last = &r.windows.last().unwrap().manager;
    assert!(last["promoted_pages_count"] > 0.0);
    assert!(
        last["stream_pages_count"] > 0.0,
        "the STREAM-like part's sweeps"
    );
}

#[test]
fn bad_mixes_are_clear_errors() {
    for (spec, why) in [
        ("mix:", "unknown"),
        ("mix:memos-mcf+mix:memos-mcf+memos-lbm", "cannot hold a mix"),
        ("mix:memos-mcf+nope", "nope"),
    ] {
        let Err(e) = run(spec, "first-touch") else {
            panic!("{spec} accepted")
        };
        assert!(e.to_string().contains(why), "{spec}: {e}");
    }
}

/// The two-VM example on two LevelDB-like VMs and a short run, the first
/// VM with a large SlowMem reservation and the second with none.
fn two_vms(sharing: &str) -> Report {
    two_vms_with(sharing, "lru", "256MiB")
}

fn two_vms_with(sharing: &str, guest: &str, fast: &str) -> Report {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/two-vms.toml");
    let sets: Vec<String> = vec![
        "run.workload=\"mix:heteroos-leveldb+heteroos-leveldb\"".into(),
        format!("run.fast_capacity=\"{fast}\""),
        format!("heteroos-vms.sharing=\"{sharing}\""),
        format!("heteroos-vms.guest=\"{guest}\""),
        "heteroos-vms.vms=[{slow_min=\"400MiB\"},{}]".into(),
        "run.duration_s=0.4".into(),
    ];
    let text = std::fs::read_to_string(example).unwrap();
    let cfg = config::load(Some((example, &text)), &sets).unwrap();
    runner::run(&cfg, &mut |_, _| {}).unwrap()
}

/// Each VM stays within the quota its sharing policy gave it, every VM's
/// guest gets its own memory events, the tenants add up to the run, and
/// the policies differ as section 4.2 says.
#[test]
fn two_vms_share_the_machine_within_their_quotas() {
    let drf = two_vms("drf");
    let maxmin = two_vms("max-min");
    for r in [&drf, &maxmin] {
        assert_eq!(r.tenants.len(), 2);
        assert_eq!(
            r.tenants.iter().map(|t| t.footprint_bytes).sum::<u64>(),
            r.footprint_bytes
        );
        let by_tenant: u64 = r.tenants.iter().flat_map(|t| &t.accesses).sum();
        assert_eq!(by_tenant, r.accesses, "every access belongs to a tenant");
        for w in &r.windows {
            for vm in ["vm0", "vm1"] {
                let g = |k: &str| w.manager[&format!("{vm}_{k}")];
                assert!(g("fast_held_pages") <= g("fast_quota_pages"), "{vm}: {w:?}");
                assert!(g("slow_held_pages") <= g("slow_quota_pages"), "{vm}: {w:?}");
            }
        }
        let last = &r.windows.last().unwrap().manager;
        assert!(
            last["io_evicted_pages_count"] > 0.0,
            "the guests saw their I/O completions"
        );
        for t in &r.tenants {
            assert!(t.memory_bound_slowdown >= 0.0, "{t:?}");
            assert!((0.0..=1.0).contains(&t.slow_access_share), "{t:?}");
        }
    }
    // Max-min, blind to the types, fills the VM holding fewer pages in all
    // (the second) from FastMem first, and it takes all of it; weighted DRF
    // counts the first VM's dominant share from its SlowMem and gives it
    // part of FastMem.
    let fast = |r: &Report, vm: &str| r.windows[0].manager[&format!("{vm}_fast_quota_pages")];
    assert_eq!(fast(&maxmin, "vm0"), 0.0);
    assert!(fast(&drf, "vm0") > 0.0);
    let share = |r: &Report| r.tenants[0].slow_access_share;
    assert!(
        share(&drf) < share(&maxmin),
        "{} {}",
        share(&drf),
        share(&maxmin)
    );
}

/// The VMM-level managers run per VM too, each within its VM's quota.
#[test]
fn coordinated_and_vmm_exclusive_run_per_vm() {
    for guest in ["coordinated", "vmm-exclusive"] {
        // FastMem tight enough that allocations miss and tracking starts.
        let r = two_vms_with("drf", guest, "64MiB");
        let last = &r.windows.last().unwrap().manager;
        assert!(last["scanned_pages_count"] > 0.0, "{guest}: {last:?}");
        for w in &r.windows {
            for vm in ["vm0", "vm1"] {
                let g = |k: &str| w.manager[&format!("{vm}_{k}")];
                assert!(
                    g("fast_held_pages") <= g("fast_quota_pages"),
                    "{guest} {vm}: {w:?}"
                );
            }
        }
    }
}

#[test]
fn vm_reservations_that_do_not_fit_are_clear_errors() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/two-vms.toml");
    for (set, why) in [
        (
            "heteroos-vms.vms=[{fast_min=\"2GiB\"},{}]",
            "FastMem minimum (2048 MiB) is above its maximum",
        ),
        (
            "heteroos-vms.vms=[{}]",
            "2 address spaces (VMs) but heteroos-vms.vms gives 1",
        ),
        (
            "heteroos-vms.vms=[{fast_min=\"lots\"},{}]",
            "vms[0].fast_min",
        ),
    ] {
        let sets = vec![set.to_string(), "run.duration_s=0.01".to_string()];
        let text = std::fs::read_to_string(example).unwrap();
        let err = config::load(Some((example, &text)), &sets)
            .map_err(RunError::from)
            .and_then(|cfg| runner::run(&cfg, &mut |_, _| {}))
            .unwrap_err();
        assert!(err.to_string().contains(why), "{set}: {err}");
    }
}

/// One VM given the whole machine is HeteroOS-coordinated itself: the VMM
/// layer (shares, quotas, handing events over) changes nothing.
#[test]
fn one_vm_with_the_whole_machine_is_heteroos_coordinated() {
    let run = |manager: &str| {
        let sets: Vec<String> = vec![
            "run.workload=\"heteroos-leveldb\"".into(),
            format!("run.manager=\"{manager}\""),
            "run.machine=\"fastmem+slowmem-heteroos\"".into(),
            "run.fast_capacity=\"64MiB\"".into(),
            "run.duration_s=0.4".into(),
        ];
        runner::run(&config::load(None, &sets).unwrap(), &mut |_, _| {}).unwrap()
    };
    let (vms, alone) = (run("heteroos-vms"), run("heteroos-coordinated"));
    assert!(
        alone.migrations.promoted_pages > 0,
        "{:?}",
        alone.migrations
    );
    assert_eq!(vms.sim_time_s, alone.sim_time_s);
    assert_eq!(vms.migrations, alone.migrations);
    assert_eq!(vms.tiers, alone.tiers);
}

/// Overcommitted VMs on a machine with a swap device: pages beyond a VM's
/// quotas go to swap, swapped pages touched come back (a fault each), the
/// guests swap out inactive SlowMem pages to make room, and every VM stays
/// within its quotas. Without the swap tier the same VMs are refused.
#[test]
fn overcommitted_vms_swap_within_their_quotas() {
    let vms = "[{fast_min=\"16MiB\",slow_min=\"48MiB\"},{fast_min=\"16MiB\",slow_min=\"48MiB\"}]";
    let run = |machine: &str, caps: &str, vms: &str| {
        let sets: Vec<String> = vec![
            "run.workload=\"mix:heteroos-leveldb+heteroos-leveldb\"".into(),
            "run.manager=\"heteroos-vms\"".into(),
            format!("run.machine=\"{machine}\""),
            "run.fast_capacity=\"32MiB\"".into(),
            format!("machine.tier_capacities={caps}"),
            "heteroos-vms.guest=\"lru\"".into(),
            format!("heteroos-vms.vms={vms}"),
            "run.duration_s=0.4".into(),
        ];
        runner::run(&config::load(None, &sets)?, &mut |_, _| {})
    };
    let r = run(
        "fastmem+slowmem+swap-heteroos",
        "[\"96MiB\", \"100%\"]",
        vms,
    )
    .unwrap();
    let last = &r.windows.last().unwrap().manager;
    assert!(last["swapped_out_pages_count"] > 0.0, "{last:?}");
    assert!(r.stats.tier_fault_promotions > 0, "swapped pages come back");
    assert!(
        r.tenants.iter().any(|t| t.resident_bytes[2] > 0),
        "{:?}",
        r.tenants
    );
    let faults: u64 = r.tenants.iter().map(|t| t.tier_faults).sum();
    assert_eq!(
        faults, r.stats.tier_faults,
        "every swap fault is a tenant's"
    );
    for w in &r.windows {
        for vm in ["vm0", "vm1"] {
            let g = |k: &str| w.manager[&format!("{vm}_{k}")];
            assert!(g("fast_held_pages") <= g("fast_quota_pages"), "{vm}: {w:?}");
            assert!(g("slow_held_pages") <= g("slow_quota_pages"), "{vm}: {w:?}");
        }
    }
    // The same shares (SlowMem capped at the reservations) with no swap.
    let capped = vms.replace("\"48MiB\"}", "\"48MiB\",slow_max=\"48MiB\"}");
    let e = run("fastmem+slowmem-heteroos", "[\"100%\"]", &capped).unwrap_err();
    assert!(e.to_string().contains("no swap device"), "{e}");
}

/// Section 5.5 in small: a GraphChi-like VM whose SlowMem is mostly cold
/// heap and a Metis-like VM that wants more than its reservation, on a
/// machine with swap. Max-min lends the GraphChi-like VM's idle SlowMem to
/// the other VM by ballooning; DRF keeps its reservation whole.
#[test]
fn max_min_balloons_idle_slowmem_away_and_drf_keeps_it() {
    let run = |sharing: &str| {
        let sets: Vec<String> = vec![
            "run.workload=\"mix:heteroos:graphchi-6g:0.02+heteroos:metis-8g:0.02\"".into(),
            "run.manager=\"heteroos-vms\"".into(),
            "run.machine=\"fastmem+slowmem+swap-heteroos\"".into(),
            "run.fast_capacity=\"82MiB\"".into(),
            "machine.tier_capacities=[\"164MiB\", \"100%\"]".into(),
            format!("heteroos-vms.sharing=\"{sharing}\""),
            "heteroos-vms.guest=\"coordinated\"".into(),
            "heteroos-vms.vms=[{fast_min=\"20MiB\",slow_min=\"82MiB\"},{fast_min=\"62MiB\",slow_min=\"82MiB\"}]".into(),
            "run.duration_s=1".into(),
            // The quotas over the run (about 0.6 s at this scale), not
            // only at its end.
            "metrics.window_s=0.05".into(),
        ];
        runner::run(&config::load(None, &sets).unwrap(), &mut |_, _| {}).unwrap()
    };
    let reserved = 82.0 * 256.0;
    let least = |r: &Report| {
        r.windows
            .iter()
            .map(|w| w.manager["vm0_slow_quota_pages"])
            .fold(f64::INFINITY, f64::min)
    };
    let drf = run("drf");
    assert!(least(&drf) >= reserved, "{}", least(&drf));
    let last = &drf.windows.last().unwrap().manager;
    assert_eq!(last["ballooned_pages_count"], 0.0);
    let mm = run("max-min");
    assert!(least(&mm) < reserved, "{}", least(&mm));
    let last = &mm.windows.last().unwrap().manager;
    assert!(last["ballooned_pages_count"] > 0.0, "{last:?}");
    assert!(last["balloon_granted_pages_count"] > 0.0, "{last:?}");
    for w in &mm.windows {
        let q = |vm: &str| w.manager[&format!("{vm}_slow_quota_pages")];
        assert!(q("vm0") + q("vm1") <= 164.0 * 256.0, "{w:?}");
    }
}

/// `examples/section-5-5.toml` loads as written and, scaled down to 2%,
/// runs both VMs with ballooning under either policy.
#[test]
fn the_section_5_5_example_loads_and_runs_scaled_down() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/section-5-5.toml"
    );
    let text = std::fs::read_to_string(example).unwrap();
    let cfg = config::load(Some((example, &text)), &[]).unwrap();
    assert_eq!(
        cfg.run.workload,
        "mix:heteroos-graphchi-6g+heteroos-metis-8g"
    );
    for sharing in ["drf", "max-min"] {
        let sets: Vec<String> = vec![
            "run.workload=\"mix:heteroos:graphchi-6g:0.02+heteroos:metis-8g:0.02\"".into(),
            "run.fast_capacity=\"82MiB\"".into(),
            "machine.tier_capacities=[\"164MiB\", \"100%\"]".into(),
            "heteroos-vms.vms=[{fast_min=\"20MiB\",slow_min=\"82MiB\"},{fast_min=\"62MiB\",slow_min=\"82MiB\"}]".into(),
            format!("heteroos-vms.sharing=\"{sharing}\""),
            "run.duration_s=0.3".into(),
        ];
        let cfg = config::load(Some((example, &text)), &sets).unwrap();
        let r = runner::run(&cfg, &mut |_, _| {}).unwrap();
        assert_eq!(r.tenants.len(), 2, "{sharing}");
        assert!(r.tenants.iter().all(|t| t.accesses.iter().sum::<u64>() > 0));
    }
}
