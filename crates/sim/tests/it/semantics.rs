//! The exact machine against the Intel SDM's paging rules
//! (../shared/reference/paging.md), through the backend interface only.

use super::common;
use proptest::prelude::*;
use thermocline_backend::{Backend, Flush, MemPolicy};
use thermocline_backend::{Dma, Exchange, HugePages, Poisoning, Sampling};
use thermocline_model::{tiers, MachineConfig, PerfConfig};

use common::touch;
use thermocline_sim::Machine;
use thermocline_vocab::Access;
use thermocline_vocab::{Asid, Level, PageSize, PageType, TierId};

const BASE: u64 = 1 << 30;
const A0: Asid = Asid(0);

fn machine(len: u64, thp: bool, fast: u64) -> Machine {
    machine_with(tiers::dcpmm(), 2, len, thp, fast)
}

/// DRAM of `fast` bytes and `slow` sized to the region, one region of `len`
/// bytes at BASE, `threads` threads.
fn machine_with(slow: tiers::TierSpec, threads: usize, len: u64, thp: bool, fast: u64) -> Machine {
    let mut t = vec![tiers::dram(), slow];
    t[0].capacity_bytes = fast;
    t[1].capacity_bytes = len + (4 << 20);
    let cfg = MachineConfig {
        perf: PerfConfig {
            threads,
            ..Default::default()
        },
        ..MachineConfig::with_tiers(t)
    };
    let region = common::region("r", BASE, len, PageType::Anon, thp);
    Machine::new(cfg, vec![region]).unwrap()
}

fn a(m: &mut Machine, va: u64, level: Level) -> bool {
    m.accessed(A0, va, level, false).unwrap()
}

#[test]
fn a_walk_sets_accessed_at_every_level_and_dirty_only_on_stores() {
    let mut m = machine(8 << 20, false, 64 << 20);
    assert!(
        m.accessed(A0, BASE, Level::Pte, false).is_err(),
        "untouched page is not mapped"
    );
    touch(&mut m, BASE, false);
    for l in Level::ALL {
        assert!(a(&mut m, BASE, l), "{l:?}");
    }
    assert!(!m.dirty(A0, BASE, false).unwrap());
    touch(&mut m, BASE + 8, true);
    assert!(
        m.dirty(A0, BASE, false).unwrap(),
        "store through a clean translation sets D"
    );
    assert_eq!(m.stats().first_touch_faults, 1);
}

#[test]
fn cleared_accessed_stays_clear_while_the_translation_is_cached() {
    let mut m = machine(8 << 20, false, 64 << 20);
    touch(&mut m, BASE, false);
    m.accessed(A0, BASE, Level::Pte, true).unwrap();
    touch(&mut m, BASE, false);
    assert!(
        !a(&mut m, BASE, Level::Pte),
        "a TLB hit does not set A (the kstaled weakness)"
    );
    m.flush_tlb(A0, Flush::Page(BASE)).unwrap();
    touch(&mut m, BASE, false);
    assert!(
        a(&mut m, BASE, Level::Pte),
        "after INVLPG the next access walks and sets A"
    );
}

#[test]
fn walks_that_hit_the_pde_cache_do_not_set_upper_accessed_bits() {
    let mut m = machine(8 << 20, false, 64 << 20);
    touch(&mut m, BASE, false);
    for l in [Level::Pgd, Level::Pud, Level::Pmd] {
        m.accessed(A0, BASE, l, true).unwrap();
    }
    // Another page of the same 2 MiB range: TLB miss, PDE-cache hit.
    touch(&mut m, BASE + 4096, false);
    assert!(a(&mut m, BASE + 4096, Level::Pte));
    for l in [Level::Pgd, Level::Pud, Level::Pmd] {
        assert!(!a(&mut m, BASE, l), "{l:?} set despite the PSC hit");
    }
    // INVLPG of any page drops every PSC entry of the address space.
    m.flush_tlb(A0, Flush::Page(BASE + 4096)).unwrap();
    touch(&mut m, BASE + 2 * 4096, false);
    for l in [Level::Pgd, Level::Pud, Level::Pmd] {
        assert!(a(&mut m, BASE, l), "{l:?} not set by a full walk");
    }
}

#[test]
fn clearing_dirty_without_a_flush_hides_later_stores() {
    let mut m = machine(8 << 20, false, 64 << 20);
    touch(&mut m, BASE, true);
    m.dirty(A0, BASE, true).unwrap();
    touch(&mut m, BASE, true);
    assert!(
        !m.dirty(A0, BASE, false).unwrap(),
        "cached dirty translation: no new D"
    );
    m.flush_tlb(A0, Flush::All).unwrap();
    touch(&mut m, BASE, true);
    assert!(m.dirty(A0, BASE, false).unwrap());
}

#[test]
fn poisoned_pages_fault_once_per_tlb_miss() {
    let mut m = machine(8 << 20, false, 64 << 20);
    touch(&mut m, BASE, false);
    m.set_poison(A0, BASE, true).unwrap();
    for _ in 0..10 {
        touch(&mut m, BASE + 64, false);
    }
    assert_eq!(m.poison_faults(A0, BASE, false).unwrap(), 1);
    m.flush_tlb(A0, Flush::Page(BASE)).unwrap();
    touch(&mut m, BASE, true);
    assert_eq!(m.poison_faults(A0, BASE, true).unwrap(), 2);
    assert_eq!(m.poison_faults(A0, BASE, false).unwrap(), 0, "reset");
    m.set_poison(A0, BASE, false).unwrap();
    m.flush_tlb(A0, Flush::All).unwrap();
    touch(&mut m, BASE, false);
    assert_eq!(m.stats().poison_faults, 2);
}

#[test]
fn thp_split_inherits_bits_and_collapse_restores_a_huge_page() {
    let mut m = machine(4 << 20, true, 64 << 20);
    touch(&mut m, BASE + 4096 * 3, true);
    let t = m.translate(A0, BASE).unwrap().unwrap();
    assert_eq!(t.size, PageSize::Huge);
    assert_eq!(t.frame % 512, 0);
    m.split_huge(A0, BASE).unwrap();
    for i in [0u64, 3, 511] {
        let ti = m.translate(A0, BASE + i * 4096).unwrap().unwrap();
        assert_eq!((ti.size, ti.frame), (PageSize::Base, t.frame + i));
        assert!(a(&mut m, BASE + i * 4096, Level::Pte), "A inherited");
        assert!(m.dirty(A0, BASE + i * 4096, false).unwrap(), "D inherited");
    }
    assert!(m.split_huge(A0, BASE).is_err(), "already split");
    // Move some base pages to the slow tier, clear every bit, then collapse.
    let slow: Vec<u64> = (0..100).map(|i| BASE + i * 4096).collect();
    assert_eq!(m.migrate(A0, &slow, TierId::SLOW).unwrap().pages, 100);
    for i in 0..512 {
        m.accessed(A0, BASE + i * 4096, Level::Pte, true).unwrap();
        m.dirty(A0, BASE + i * 4096, true).unwrap();
    }
    m.flush_tlb(A0, Flush::All).unwrap();
    touch(&mut m, BASE + 7 * 4096, false);
    m.collapse_huge(A0, BASE).unwrap();
    let c = m.translate(A0, BASE + 12345).unwrap().unwrap();
    assert_eq!(
        (c.size, c.tier),
        (PageSize::Huge, TierId::FAST),
        "majority tier"
    );
    assert!(a(&mut m, BASE, Level::Pmd), "A is the OR of the PTEs");
    assert!(!m.dirty(A0, BASE, false).unwrap());
    assert_eq!(m.resident_bytes(), vec![2 << 20, 0]);
    // Untouched second huge range cannot collapse.
    assert!(m.collapse_huge(A0, BASE + (2 << 20)).is_err());
}

#[test]
fn migration_moves_frames_and_counts_traffic() {
    let mut m = machine(8 << 20, false, 64 << 20);
    for i in 0..4 {
        touch(&mut m, BASE + i * 4096, false);
    }
    let vas: Vec<u64> = (0..4).map(|i| BASE + i * 4096).collect();
    let r = m.migrate(A0, &vas, TierId::SLOW).unwrap();
    assert_eq!((r.pages, r.bytes), (4, 4 * 4096));
    assert_eq!(m.translate(A0, BASE).unwrap().unwrap().tier, TierId::SLOW);
    assert_eq!(m.tier_counters(TierId::SLOW).unwrap().writes, 4 * 64);
    assert_eq!(
        m.migrate(A0, &vas[..1], TierId::SLOW)
            .unwrap()
            .already_there,
        1
    );
    touch(&mut m, BASE + 64, false);
    assert_eq!(
        m.app_counters()[1].reads,
        1,
        "the access after migration hits the new tier"
    );
    m.migrate(A0, &vas[1..2], TierId::FAST).unwrap();
    m.exchange(A0, BASE, BASE + 4096).unwrap();
    assert_eq!(m.translate(A0, BASE).unwrap().unwrap().tier, TierId::FAST);
    assert_eq!(
        m.translate(A0, BASE + 4096).unwrap().unwrap().tier,
        TierId::SLOW
    );
    assert!(m.manager_ns() > 0.0);
}

#[test]
fn policies_place_first_touches_and_full_tiers_fall_back() {
    let mut m = machine(8 << 20, false, 8192);
    m.set_policy(A0, MemPolicy::PreferFast).unwrap();
    for i in 0..4 {
        touch(&mut m, BASE + i * 4096, false);
    }
    assert_eq!(m.resident_bytes(), vec![8192, 8192]);
    let r = m.migrate(A0, &[BASE + 3 * 4096], TierId::FAST).unwrap();
    assert_eq!(r.failed, 1, "fast tier full");
    m.set_policy(A0, MemPolicy::Bind { tier: TierId::SLOW })
        .unwrap();
    touch(&mut m, BASE + 10 * 4096, false);
    assert_eq!(
        m.translate(A0, BASE + 10 * 4096).unwrap().unwrap().tier,
        TierId::SLOW
    );
    assert!(m
        .set_policy(A0, MemPolicy::Bind { tier: TierId(5) })
        .is_err());
}

#[test]
fn all_fast_time_equals_the_ideal_clock() {
    let mut m = machine(8 << 20, false, 64 << 20);
    for i in 0..10_000u64 {
        m.access(Access {
            va: BASE + (i * 4160) % (8 << 20),
            asid: 0,
            core: (i % 2) as u16,
            write: i % 3 == 0,
        });
        if i % 256 == 0 {
            m.settle();
        }
    }
    m.settle();
    assert!(m.time_ns() > 0.0);
    assert_eq!(m.time_ns(), m.ideal_time_ns());
    m.migrate(A0, &[BASE], TierId::SLOW).unwrap();
    touch(&mut m, BASE, false);
    assert!(m.time_ns() > m.ideal_time_ns());
}

#[derive(Clone, Debug)]
enum Op {
    Read(u64),
    Write(u64),
    ClearA(u64),
    ClearD(u64),
    ClearPmdA,
    Invlpg(u64),
    FlushAll,
}

fn op() -> impl Strategy<Value = Op> {
    let page = 0u64..16;
    prop_oneof![
        3 => page.clone().prop_map(Op::Read),
        2 => page.clone().prop_map(Op::Write),
        2 => page.clone().prop_map(Op::ClearA),
        1 => page.clone().prop_map(Op::ClearD),
        1 => Just(Op::ClearPmdA),
        1 => page.prop_map(Op::Invlpg),
        1 => Just(Op::FlushAll),
    ]
}

/// The reference model: per page A, D, "translation cached" and "cached with
/// D"; one PMD Accessed bit and whether the PDE cache holds the range. With 16
/// pages in distinct TLB sets nothing is evicted, so the model needs no LRU.
#[derive(Default)]
struct Model {
    mapped: [bool; 16],
    a: [bool; 16],
    d: [bool; 16],
    cached: [bool; 16],
    cached_dirty: [bool; 16],
    pmd_a: bool,
    pde_cached: bool,
}

impl Model {
    fn access(&mut self, i: usize, write: bool) {
        self.mapped[i] = true;
        if !self.cached[i] {
            if !self.pde_cached {
                self.pmd_a = true;
                self.pde_cached = true;
            }
            self.a[i] = true;
            self.cached[i] = true;
            self.cached_dirty[i] = self.d[i] || write;
            self.d[i] |= write;
        } else if write && !self.cached_dirty[i] {
            self.d[i] = true;
            self.cached_dirty[i] = true;
        }
    }
}

proptest! {
    /// Random sequences of accesses, bit clears and flushes: the machine's
    /// Accessed and Dirty bits equal the reference model's after every step.
    #[test]
    fn accessed_and_dirty_bits_match_the_reference_model(ops in proptest::collection::vec(op(), 1..200)) {
        let mut m = machine(2 << 20, false, 64 << 20);
        let mut model = Model::default();
        let va = |i: u64| BASE + i * 4096;
        for op in ops {
            match op {
                Op::Read(i) => { touch(&mut m, va(i) + 8, false); model.access(i as usize, false); }
                Op::Write(i) => { touch(&mut m, va(i) + 8, true); model.access(i as usize, true); }
                Op::ClearA(i) => if model.mapped[i as usize] {
                    m.accessed(A0, va(i), Level::Pte, true).unwrap();
                    model.a[i as usize] = false;
                },
                Op::ClearD(i) => if model.mapped[i as usize] {
                    m.dirty(A0, va(i), true).unwrap();
                    model.d[i as usize] = false;
                },
                Op::ClearPmdA => if model.mapped.iter().any(|&x| x) {
                    m.accessed(A0, BASE, Level::Pmd, true).unwrap();
                    model.pmd_a = false;
                },
                Op::Invlpg(i) => {
                    m.flush_tlb(A0, Flush::Page(va(i))).unwrap();
                    model.cached[i as usize] = false;
                    model.pde_cached = false;
                }
                Op::FlushAll => {
                    m.flush_tlb(A0, Flush::All).unwrap();
                    model.cached = [false; 16];
                    model.pde_cached = false;
                }
            }
            for i in 0..16 {
                if model.mapped[i] {
                    prop_assert_eq!(m.accessed(A0, va(i as u64), Level::Pte, false).unwrap(), model.a[i], "A of page {}", i);
                    prop_assert_eq!(m.dirty(A0, va(i as u64), false).unwrap(), model.d[i], "D of page {}", i);
                }
            }
            if model.mapped.iter().any(|&x| x) {
                prop_assert_eq!(m.accessed(A0, BASE, Level::Pmd, false).unwrap(), model.pmd_a, "PMD A");
            }
        }
    }
}

fn sampling(
    event: thermocline_backend::SampleEvent,
    period: u64,
    buffer: usize,
) -> thermocline_backend::SamplingConfig {
    thermocline_backend::SamplingConfig {
        event,
        period,
        buffer,
    }
}

#[test]
fn sampling_takes_about_one_event_in_period_and_drops_when_full() {
    use thermocline_backend::SampleEvent;
    let mut m = machine(8 << 20, false, 64 << 20);
    m.set_sampling(Some(sampling(SampleEvent::LlcMissLoads, 100, 1000)))
        .unwrap();
    for i in 0..50_000u64 {
        m.access(Access {
            va: BASE + (i * 64) % (8 << 20),
            asid: 0,
            core: 0,
            write: i % 2 == 1,
        });
    }
    m.settle();
    let mut out = Vec::new();
    assert_eq!(m.drain_samples(&mut out).unwrap(), 0);
    // 25 000 loads at one sample per ~100: jittered, so a band.
    assert!((200..300).contains(&out.len()), "{}", out.len());
    assert!(out
        .iter()
        .all(|s| !s.write && s.va >= BASE && s.va < BASE + (8 << 20)));
    m.set_sampling(Some(sampling(SampleEvent::LlcMissAll, 1, 10)))
        .unwrap();
    for i in 0..100u64 {
        touch(&mut m, BASE + i * 64, false);
    }
    out.clear();
    assert!(
        m.drain_samples(&mut out).unwrap() > 0,
        "a full buffer drops samples"
    );
    assert_eq!(out.len(), 10);
    assert!(m
        .set_sampling(Some(sampling(SampleEvent::LlcMissAll, 0, 1)))
        .is_err());
}

/// The default (page-by-page) `scan_accessed` of the trait, to compare the
/// machine's bulk version against.
struct PageByPage<'a>(&'a mut Machine);

fn reference_scan(m: &mut Machine, start: u64, len: u64, clear: bool) -> (Vec<u64>, u64) {
    let (mut out, mut read) = (Vec::new(), 0);
    let end = start + len;
    let mut va = start & !0xfff;
    while va < end {
        let Some(t) = m.translate(A0, va).unwrap() else {
            va += 4096;
            continue;
        };
        let base = t.size.align_down(va);
        read += 1;
        if m.accessed(A0, va, Level::Pte, clear).unwrap() {
            out.push(base);
        }
        va = base + t.size.bytes();
    }
    (out, read)
}

impl PageByPage<'_> {
    fn scan(&mut self, start: u64, len: u64, clear: bool) -> (Vec<u64>, u64) {
        reference_scan(self.0, start, len, clear)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The bulk Accessed-bit scan reports what reading every leaf one by one
    /// reports, for mixed page sizes and unaligned ranges, and clears alike.
    #[test]
    fn bulk_scan_matches_page_by_page(
        touches in proptest::collection::vec(0u64..(8 << 20), 1..200),
        splits in proptest::collection::vec(0u64..4, 0..3),
        start in 0u64..(2 << 20),
        len in 1u64..(6 << 20),
        clear in any::<bool>(),
    ) {
        let mut a = machine(8 << 20, true, 16 << 20);
        let mut b = machine(8 << 20, true, 16 << 20);
        for m in [&mut a, &mut b] {
            for &t in &touches {
                touch(m, BASE + t, false);
            }
            for &s in &splits {
                let _ = m.split_huge(A0, BASE + (s << 21));
            }
            for &t in touches.iter().step_by(3) {
                touch(m, BASE + t, false);
            }
        }
        let mut bulk = Vec::new();
        let read = a.scan_accessed(A0, BASE + start, len, clear, &mut bulk).unwrap();
        let (want, want_read) = PageByPage(&mut b).scan(BASE + start, len, clear);
        prop_assert_eq!(&bulk, &want);
        prop_assert_eq!(read, want_read);
        // Clearing leaves both machines in the same state.
        let again = reference_scan(&mut a, BASE, 8 << 20, false);
        let again_b = reference_scan(&mut b, BASE, 8 << 20, false);
        prop_assert_eq!(again, again_b);
    }
}

/// BadgerTrap emulation: a page of the emulated slow tier stays there, every
/// TLB miss to it costs one fault, and a poisoned page of that tier is
/// charged once (the monitoring fault is the emulation fault).
#[test]
fn badgertrap_tier_faults_once_per_tlb_miss_and_keeps_the_page() {
    let mut m = machine_with(tiers::badgertrap(), 1, 4 << 20, false, 16 << 20);
    m.set_policy(A0, MemPolicy::Bind { tier: TierId(1) })
        .unwrap();
    touch(&mut m, BASE, false);
    let faults = m.stats().tier_faults;
    assert_eq!(faults, 1, "the first touch misses the TLB");
    touch(&mut m, BASE + 64, false);
    assert_eq!(m.stats().tier_faults, 1, "a TLB hit does not fault");
    m.set_poison(A0, BASE, true).unwrap();
    m.settle();
    let t0 = m.time_ns();
    touch(&mut m, BASE + 128, false);
    assert_eq!(m.stats().tier_faults, 2);
    assert_eq!(m.poison_faults(A0, BASE, false).unwrap(), 1);
    // One 1 us fault, not two, plus the access itself.
    let dt = m.time_ns() - t0;
    assert!((1_000.0..1_500.0).contains(&dt), "{dt}");
    let tr = m.translate(A0, BASE).unwrap().unwrap();
    assert_eq!(tr.tier, TierId(1), "the emulated slow page stays put");
}

/// A huge page split in place and collapsed again is re-mapped by its PMD
/// without a copy (a PTE-mapped THP), keeping A/D.
#[test]
fn collapse_of_an_untouched_split_is_in_place() {
    let mut m = machine(4 << 20, true, 8 << 20);
    touch(&mut m, BASE, true);
    let before = m.translate(A0, BASE).unwrap().unwrap();
    assert_eq!(before.size, PageSize::Huge);
    m.split_huge(A0, BASE).unwrap();
    let copied = m.stats().migrated_bytes;
    let reads_before = m.tier_counters(TierId::FAST).unwrap().reads;
    m.collapse_huge(A0, BASE).unwrap();
    let after = m.translate(A0, BASE).unwrap().unwrap();
    assert_eq!(
        (after.size, after.frame, after.tier),
        (PageSize::Huge, before.frame, before.tier)
    );
    assert_eq!(m.stats().migrated_bytes, copied);
    assert_eq!(
        m.tier_counters(TierId::FAST).unwrap().reads,
        reads_before,
        "no copy"
    );
    assert!(m.dirty(A0, BASE, false).unwrap());
    // After a base page moved, collapsing copies.
    m.split_huge(A0, BASE).unwrap();
    m.migrate(A0, &[BASE + 4096], TierId(1)).unwrap();
    m.collapse_huge(A0, BASE).unwrap();
    assert!(m.tier_counters(TierId::FAST).unwrap().reads >= reads_before + 64 * 511);
}

/// A NUMA hint fault fires once: the fault restores the mapping.
#[test]
fn hint_faults_fire_once() {
    let mut m = machine(4 << 20, false, 8 << 20);
    touch(&mut m, BASE, false);
    m.arm_hint_fault(A0, BASE).unwrap();
    for _ in 0..3 {
        m.flush_tlb(A0, Flush::All).unwrap();
        touch(&mut m, BASE + 64, false);
    }
    assert_eq!(m.poison_faults(A0, BASE, true).unwrap(), 1);
    assert_eq!(m.stats().poison_faults, 1);
    // Plain poisoning keeps faulting on every TLB miss.
    m.set_poison(A0, BASE, true).unwrap();
    for _ in 0..3 {
        m.flush_tlb(A0, Flush::All).unwrap();
        touch(&mut m, BASE + 64, false);
    }
    assert_eq!(m.poison_faults(A0, BASE, false).unwrap(), 3);
}

/// What changes mappings: first touches, migrations, exchanges, splits and
/// collapses, over 4 huge ranges of a THP region.
#[derive(Clone, Debug)]
enum MapOp {
    Touch(u64),
    Migrate(u64, bool),
    Exchange(u64, u64),
    Split(u64),
    Collapse(u64),
}

fn map_op() -> impl Strategy<Value = MapOp> {
    let page = 0u64..4 * 512;
    prop_oneof![
        4 => page.clone().prop_map(MapOp::Touch),
        2 => (page.clone(), any::<bool>()).prop_map(|(p, f)| MapOp::Migrate(p, f)),
        1 => (page.clone(), page).prop_map(|(a, b)| MapOp::Exchange(a, b)),
        1 => (0u64..4).prop_map(MapOp::Split),
        1 => (0u64..4).prop_map(MapOp::Collapse),
    ]
}

fn apply(m: &mut Machine, op: &MapOp) {
    let va = |p: u64| BASE + p * 4096;
    // Operations that do not apply (an unmapped page, a split of a base
    // page, a full tier) fail without changing anything.
    let _ = match *op {
        MapOp::Touch(p) => {
            touch(m, va(p), false);
            Ok(())
        }
        MapOp::Migrate(p, fast) => {
            let to = if fast { TierId::FAST } else { TierId::SLOW };
            m.migrate(A0, &[va(p)], to).map(|_| ())
        }
        MapOp::Exchange(a, b) => m.exchange(A0, va(a), va(b)),
        MapOp::Split(h) => m.split_huge(A0, BASE + (h << 21)),
        MapOp::Collapse(h) => m.collapse_huge(A0, BASE + (h << 21)),
    };
}

/// Per frame, the page it backs (if any).
type Owners = Vec<Option<(Asid, u64)>>;

/// Every frame's owner by the reverse map, beside the owner that forward
/// translation of every page of the region implies.
fn owners(m: &mut Machine) -> (Owners, Owners) {
    let tiers = m.tiers();
    let frames = tiers
        .iter()
        .map(|t| t.first_frame.unwrap() + t.capacity_bytes / 4096)
        .max()
        .unwrap();
    let mut want = vec![None; frames as usize];
    for p in 0..4 * 512 {
        let va = BASE + p * 4096;
        if let Some(t) = m.translate(A0, va).unwrap() {
            let frame = t.frame + (va - t.size.align_down(va)) / 4096;
            want[frame as usize] = Some((A0, va));
        }
    }
    let got = (0..frames)
        .map(|f| m.reverse_translate(f).unwrap())
        .collect();
    (got, want)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// The reverse map answers every frame as forward translation implies,
    /// whether it was kept through the changes or built after them.
    #[test]
    fn reverse_map_agrees_with_translation(ops in proptest::collection::vec(map_op(), 1..60)) {
        let mut kept = machine(8 << 20, true, 4 << 20);
        let mut built = machine(8 << 20, true, 4 << 20);
        prop_assert_eq!(kept.reverse_translate(0).unwrap(), None);
        for op in &ops {
            apply(&mut kept, op);
            apply(&mut built, op);
        }
        let (got, want) = owners(&mut kept);
        prop_assert_eq!(got, want);
        let (got, want) = owners(&mut built);
        prop_assert_eq!(got, want);
    }
}

#[test]
fn reverse_translate_finds_the_page_and_nothing_beyond_the_frames() {
    let mut m = machine(4 << 20, false, 64 << 20);
    touch(&mut m, BASE, false);
    let f = m.translate(A0, BASE).unwrap().unwrap().frame;
    assert_eq!(m.reverse_translate(f).unwrap(), Some((A0, BASE)));
    assert_eq!(m.reverse_translate(u64::MAX).unwrap(), None);
    assert!(m
        .capabilities()
        .has(thermocline_backend::Capability::ReverseMap));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Poisoning a range at once counts the same faults as poisoning its
    /// pages one by one.
    #[test]
    fn range_poison_matches_page_by_page(
        thp in any::<bool>(),
        lo in 0u64..1024,
        n in 1u64..1024,
        touches in proptest::collection::vec(0u64..1024, 1..300),
    ) {
        let len = 4 << 20;
        let mut one = machine(len, thp, 64 << 20);
        let mut bulk = machine(len, thp, 64 << 20);
        for p in (0..1024).step_by(3) {
            touch(&mut one, BASE + p * 4096, false);
            touch(&mut bulk, BASE + p * 4096, false);
        }
        let (start, plen) = (BASE + lo * 4096, n.min(1024 - lo) * 4096);
        let mut va = start;
        let mut pages = 0;
        while va < start + plen {
            match one.translate(A0, va).unwrap() {
                Some(t) => {
                    one.set_poison(A0, va, true).unwrap();
                    pages += 1;
                    va = t.size.align_down(va) + t.size.bytes();
                }
                None => va += 4096,
            }
        }
        prop_assert_eq!(bulk.set_poison_range(A0, start, plen, true).unwrap(), pages);
        for p in touches {
            touch(&mut one, BASE + p * 4096, false);
            touch(&mut bulk, BASE + p * 4096, false);
        }
        for p in 0..1024 {
            let va = BASE + p * 4096;
            prop_assert_eq!(
                one.poison_faults(A0, va, false).unwrap(),
                bulk.poison_faults(A0, va, false).unwrap()
            );
        }
    }
}

#[test]
fn dma_copies_keep_only_pages_not_written_during_the_copy() {
    let mut m = machine(8 << 20, false, 64 << 20);
    for i in 0..4 {
        touch(&mut m, BASE + i * 4096, true);
    }
    let vas: Vec<u64> = (0..3).map(|i| BASE + i * 4096).collect();
    let cpu_before = m.manager_ns();
    assert_eq!(m.dma_start(A0, &vas, TierId::SLOW).unwrap(), 3);
    assert!(
        !m.dirty(A0, BASE, false).unwrap(),
        "Dirty cleared at the start"
    );
    let charged = m.manager_ns() - cpu_before;
    // Nothing has finished yet: the pages are still in DRAM and usable.
    let r = m.dma_poll().unwrap();
    assert_eq!((r.moved, r.aborted, r.pending), (0, 0, 3));
    assert_eq!(m.translate(A0, BASE).unwrap().unwrap().tier, TierId::FAST);
    // Page 1 is written while the engine copies; page 3 keeps the clock going.
    touch(&mut m, BASE + 4096, true);
    while m.dma_poll().unwrap().pending > 0
        || m.translate(A0, BASE).unwrap().unwrap().tier == TierId::FAST
    {
        touch(&mut m, BASE + 3 * 4096, false);
        if m.time_ns() > 1e9 {
            panic!("the copies never finished");
        }
    }
    assert_eq!(m.translate(A0, BASE).unwrap().unwrap().tier, TierId::SLOW);
    assert_eq!(
        m.translate(A0, BASE + 4096).unwrap().unwrap().tier,
        TierId::FAST,
        "written: aborted"
    );
    assert_eq!(
        m.translate(A0, BASE + 2 * 4096).unwrap().unwrap().tier,
        TierId::SLOW
    );
    // The CPU paid a quarter of three CPU copies (plus entry accesses and a
    // shootdown), not the copies themselves.
    let cpu_copy = thermocline_model::CostTable::default().base_page_migration_ns(3);
    assert!(charged < 3.0 * cpu_copy * 0.3, "{charged} vs {cpu_copy}");
    assert!(charged > 3.0 * cpu_copy * 0.25);
}

#[test]
fn dma_copies_take_the_engine_time_one_after_another() {
    let mut m = machine(8 << 20, false, 64 << 20);
    for i in 0..2 {
        touch(&mut m, BASE + i * 4096, false);
    }
    let t0 = m.time_ns();
    m.dma_start(A0, &[BASE, BASE + 4096], TierId::SLOW).unwrap();
    let c = thermocline_model::CostTable::default();
    let copy = c.dma_time_ratio * c.base_page_migration_ns(2);
    let mut first_done = None;
    while m.translate(A0, BASE + 4096).unwrap().unwrap().tier == TierId::FAST {
        touch(&mut m, BASE + 8 * 4096, false);
        m.dma_poll().unwrap();
        if first_done.is_none() && m.translate(A0, BASE).unwrap().unwrap().tier == TierId::SLOW {
            first_done = Some(m.time_ns() - t0);
        }
    }
    let second = m.time_ns() - t0;
    let first = first_done.unwrap();
    assert!(first >= copy && first < copy * 1.1, "{first} vs {copy}");
    assert!(
        second >= 2.0 * copy && second < 2.2 * copy,
        "{second} vs {copy}"
    );
}
