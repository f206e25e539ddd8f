//! Memory events on the exact machine, through its public interface: a
//! release frees the pages of a range and nothing else, a later access
//! faults in a new page, and a manager that asked sees every event.

use super::common;
use proptest::prelude::*;
use thermocline_backend::Backend;
use thermocline_backend::MemEvents;
use thermocline_model::{tiers, MachineConfig};

use thermocline_sim::Machine;
use thermocline_vocab::{Asid, MemEvent, PageType, TierId};

const BASE: u64 = 1 << 30;
const A0: Asid = Asid(0);
const PAGE: u64 = 4096;
const HUGE: u64 = 2 << 20;

/// One region of `len` bytes at BASE, THP as asked, all of it fitting in DRAM.
fn machine(len: u64, thp: bool) -> Machine {
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = len + (4 << 20);
    t[1].capacity_bytes = len + (4 << 20);
    let cfg = MachineConfig::with_tiers(t);
    let region = common::region("r", BASE, len, PageType::Anon, thp);
    Machine::new(cfg, vec![region]).unwrap()
}

fn touch(m: &mut Machine, va: u64) {
    common::touch(m, va, true);
}

fn release(start: u64, len: u64) -> MemEvent {
    MemEvent::Release {
        asid: A0,
        start,
        len,
    }
}

fn resident(m: &Machine) -> u64 {
    m.resident_bytes().iter().sum()
}

#[test]
fn a_release_frees_its_pages_only_and_the_next_access_faults_a_new_one() {
    let mut m = machine(16 * PAGE, false);
    for i in 0..4 {
        touch(&mut m, BASE + i * PAGE);
    }
    assert_eq!(resident(&m), 4 * PAGE);
    m.apply_event(release(BASE + PAGE, 2 * PAGE)).unwrap();
    assert_eq!(resident(&m), 2 * PAGE);
    for (i, mapped) in [(0, true), (1, false), (2, false), (3, true)] {
        assert_eq!(
            m.translate(A0, BASE + i * PAGE).unwrap().is_some(),
            mapped,
            "page {i}"
        );
    }
    // Page 1 was the last one touched before the release on no core; page
    // 3 was the last of all: it must not be served from a stale TLB entry.
    let faults = m.stats().first_touch_faults;
    touch(&mut m, BASE + PAGE);
    assert_eq!(m.stats().first_touch_faults, faults + 1);
    touch(&mut m, BASE + 3 * PAGE);
    assert_eq!(m.stats().first_touch_faults, faults + 1, "page 3 stayed");
    m.apply_event(release(BASE + 3 * PAGE, PAGE)).unwrap();
    touch(&mut m, BASE + 3 * PAGE);
    assert_eq!(
        m.stats().first_touch_faults,
        faults + 2,
        "the last translation used is forgotten too"
    );
}

#[test]
fn a_huge_page_goes_whole_when_covered_and_is_split_when_not() {
    let mut m = machine(2 * HUGE, true);
    touch(&mut m, BASE);
    touch(&mut m, BASE + HUGE);
    assert_eq!(resident(&m), 2 * HUGE);
    m.apply_event(release(BASE, HUGE)).unwrap();
    assert_eq!(resident(&m), HUGE);
    assert!(m.translate(A0, BASE).unwrap().is_none());
    // Half of the second one: split, its other half stays.
    m.apply_event(release(BASE + HUGE, HUGE / 2)).unwrap();
    assert_eq!(resident(&m), HUGE / 2);
    assert!(m.translate(A0, BASE + HUGE).unwrap().is_none());
    let t = m.translate(A0, BASE + HUGE + HUGE / 2).unwrap().unwrap();
    assert_eq!(t.size, thermocline_vocab::PageSize::Base);
}

#[test]
fn a_manager_sees_the_events_after_its_first_drain_in_order() {
    let mut m = machine(16 * PAGE, false);
    touch(&mut m, BASE);
    m.apply_event(release(BASE, PAGE)).unwrap();
    let mut out = Vec::new();
    assert_eq!(m.drain_mem_events(&mut out).unwrap(), 0);
    assert!(out.is_empty(), "nothing is kept before a manager asks");
    let done = MemEvent::IoDone {
        asid: A0,
        start: BASE + PAGE,
        len: PAGE,
    };
    touch(&mut m, BASE + PAGE);
    m.apply_event(done).unwrap();
    assert_eq!(
        resident(&m),
        2 * PAGE - PAGE,
        "I/O completion frees nothing"
    );
    m.apply_event(release(BASE + PAGE, PAGE)).unwrap();
    assert_eq!(m.drain_mem_events(&mut out).unwrap(), 0);
    assert_eq!(out, vec![done, release(BASE + PAGE, PAGE)]);
}

#[test]
fn bad_or_empty_releases() {
    let mut m = machine(16 * PAGE, false);
    assert!(m.apply_event(release(BASE + 1, PAGE)).is_err());
    assert!(m.apply_event(release(BASE, 0)).is_err());
    // Untouched pages and unknown address spaces: nothing to free.
    m.apply_event(release(BASE, 16 * PAGE)).unwrap();
    m.apply_event(MemEvent::Release {
        asid: Asid(7),
        start: BASE,
        len: PAGE,
    })
    .unwrap();
    assert_eq!(resident(&m), 0);
}

proptest! {
    /// Against a set of mapped pages: after any sequence of touches and
    /// releases, a page translates exactly when the model maps it, resident
    /// bytes are the model's pages, and a DRAM-only placement never fails
    /// because released frames were lost.
    #[test]
    fn releases_match_a_set_of_mapped_pages(
        ops in proptest::collection::vec((any::<bool>(), 0u64..32, 1u64..8), 1..120),
    ) {
        let mut m = machine(32 * PAGE, false);
        let mut mapped = std::collections::BTreeSet::new();
        for (is_touch, page, n) in ops {
            if is_touch {
                touch(&mut m, BASE + page * PAGE);
                mapped.insert(page);
            } else {
                let n = n.min(32 - page);
                m.apply_event(release(BASE + page * PAGE, n * PAGE)).unwrap();
                for p in page..page + n {
                    mapped.remove(&p);
                }
            }
            prop_assert_eq!(resident(&m), mapped.len() as u64 * PAGE);
            for p in 0..32 {
                let t = m.translate(A0, BASE + p * PAGE).unwrap();
                prop_assert_eq!(t.is_some(), mapped.contains(&p), "page {}", p);
                if let Some(t) = t {
                    prop_assert_eq!(t.tier, TierId::FAST);
                }
            }
        }
    }
}
