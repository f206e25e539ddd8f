//! A page in a tier that faults on access (zswap-like) comes back into the
//! fastest tier above it that takes it: the fast tier while it has room,
//! then the next, as a swap-in allocates with fallback to the other nodes.

use thermocline_backend::TypedAlloc;
use thermocline_backend::{Backend, MemPolicy};
use thermocline_model::{tiers, MachineConfig, TierSpec};
use thermocline_sim::Machine;
use thermocline_vocab::{Access, Asid, PageType, RegionInfo, TierId};

const BASE: u64 = 1 << 30;
const PAGE: u64 = 4096;

fn touch(m: &mut Machine, page: u64) {
    m.access(Access {
        va: BASE + page * PAGE,
        asid: 0,
        core: 0,
        write: false,
    });
    m.settle();
}

fn tier_of(m: &Machine, page: u64) -> TierId {
    m.translate(Asid(0), BASE + page * PAGE)
        .unwrap()
        .unwrap()
        .tier
}

/// A machine of `tiers`, one 8-page region whose pages start in `start`.
fn machine_of(tiers: Vec<TierSpec>, start: TierId) -> Machine {
    let region = RegionInfo {
        asid: Asid(0),
        name: "r".into(),
        start: BASE,
        len: 8 * PAGE,
        page_type: PageType::Anon,
        thp: false,
    };
    let mut m = Machine::new(MachineConfig::with_tiers(tiers), vec![region]).unwrap();
    m.set_policy(Asid(0), MemPolicy::Bind { tier: start })
        .unwrap();
    m
}

/// DRAM of one page, CXL of two, and a zswap tier every page starts in.
fn machine() -> Machine {
    let mut t = vec![tiers::dram(), tiers::cxl(), tiers::zswap()];
    t[0].capacity_bytes = PAGE;
    t[1].capacity_bytes = 2 * PAGE;
    t[2].capacity_bytes = 8 * PAGE;
    machine_of(t, TierId(2))
}

#[test]
fn a_faulting_page_moves_to_the_fastest_tier_with_room() {
    let mut m = machine();
    for page in 0..4 {
        touch(&mut m, page);
    }
    assert_eq!(tier_of(&m, 0), TierId(0), "DRAM had room");
    assert_eq!(tier_of(&m, 1), TierId(1), "DRAM full: CXL");
    assert_eq!(tier_of(&m, 2), TierId(1));
    assert_eq!(tier_of(&m, 3), TierId(2), "both full: it stays");
    assert_eq!(m.stats().tier_fault_promotions, 3);
}

#[test]
fn a_quota_counts_as_a_full_tier() {
    let mut m = machine();
    m.set_tier_quota(Asid(0), TierId(0), Some(0)).unwrap();
    touch(&mut m, 0);
    assert_eq!(tier_of(&m, 0), TierId(1), "no DRAM for this space");
}

/// The simulated PSI: each page-in from the zswap tier stalls for its
/// fault (6 us), and the faults of BadgerTrap's emulated slow memory,
/// which keeps the page where it is, are not page-ins.
#[test]
fn page_ins_are_the_memory_stall() {
    let mut m = machine();
    assert_eq!(m.some_memory_stall_us(), 0);
    for page in 0..4 {
        touch(&mut m, page);
    }
    let faults = m.stats().tier_faults;
    assert_eq!(faults, 4, "each first touch in zswap faults once");
    assert_eq!(m.some_memory_stall_us(), faults * 6);

    let mut t = vec![tiers::dram(), tiers::badgertrap()];
    t[0].capacity_bytes = 8 * PAGE;
    t[1].capacity_bytes = 8 * PAGE;
    let mut m = machine_of(t, TierId(1));
    for page in 0..4 {
        touch(&mut m, page);
    }
    assert!(m.stats().tier_faults >= 4);
    assert_eq!(m.some_memory_stall_us(), 0);
}
