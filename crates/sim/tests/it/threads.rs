//! The exact machine charges a fault to the thread that takes it
//! (the performance model's threads, `thermocline_model::perf`).

use thermocline_backend::{Backend, MemPolicy};
use thermocline_model::{tiers, MachineConfig, PerfConfig};
use thermocline_sim::Machine;
use thermocline_vocab::{Access, Asid, PageType, RegionInfo, TierId};

const BASE: u64 = 1 << 30;
const PAGES: u64 = 2048;

/// A 4-thread machine whose one 8 MiB region (4 KiB pages) lives in
/// BadgerTrap-emulated slow memory, where every TLB miss faults for 1 us.
fn machine() -> Machine {
    let len = PAGES * 4096;
    let mut t = vec![tiers::dram(), tiers::badgertrap()];
    t[0].capacity_bytes = len;
    t[1].capacity_bytes = len;
    let cfg = MachineConfig {
        perf: PerfConfig {
            threads: 4,
            compute_ns: 100.0,
            ..Default::default()
        },
        ..MachineConfig::with_tiers(t)
    };
    let region = RegionInfo {
        asid: Asid(0),
        name: "r".into(),
        start: BASE,
        len,
        page_type: PageType::Anon,
        thp: false,
    };
    let mut m = Machine::new(cfg, vec![region]).unwrap();
    m.set_policy(Asid(0), MemPolicy::Bind { tier: TierId(1) })
        .unwrap();
    m
}

/// Touches every page twice, the first pass to map them (first-touch faults
/// are the same in both runs); the second pass's TLB misses fault, on the
/// cores `core` picks. Returns the time the second pass added over ideal.
fn faulting_pass(core: impl Fn(u64) -> u16) -> (f64, u64) {
    let mut m = machine();
    let run = |m: &mut Machine, core: &dyn Fn(u64) -> u16| {
        for p in 0..PAGES {
            m.access(Access {
                va: BASE + p * 4096,
                asid: 0,
                core: core(p),
                write: false,
            });
            if p % 64 == 63 {
                m.settle();
            }
        }
        m.settle();
    };
    run(&mut m, &|p| (p % 4) as u16);
    let (t0, i0, f0) = (m.time_ns(), m.ideal_time_ns(), m.stats().tier_faults);
    run(&mut m, &core);
    let extra = (m.time_ns() - t0) - (m.ideal_time_ns() - i0);
    (extra, m.stats().tier_faults - f0)
}

/// The same accesses and faults cost four times as much when one thread
/// takes all of them (its share is late by all their time) as when the four
/// threads take a quarter each (each is late by its own quarter).
#[test]
fn faults_on_one_thread_delay_the_application_by_all_their_time() {
    let (spread, n_spread) = faulting_pass(|p| (p % 4) as u16);
    let (one, n_one) = faulting_pass(|_| 0);
    assert_eq!(n_spread, PAGES, "every access misses the 1536-entry STLB");
    assert_eq!(n_one, PAGES);
    let fault = tiers::badgertrap().fault_on_access_ns.unwrap();
    let all = PAGES as f64 * fault;
    assert!((one - all).abs() < 0.01 * all, "one thread: {one} vs {all}");
    assert!(
        (spread - all / 4.0).abs() < 0.01 * all,
        "four threads: {spread} vs {}",
        all / 4.0
    );
}
