//! Page colours on the exact machine with Memos' memory system (section
//! 5.1, Fig. 8): a page moves to a frame of the bank and LLC slab asked
//! for, in another tier or its own, until no such frame is free.

use super::common;
use thermocline_backend::{Backend, BackendError, Capability, FramePlace};
use thermocline_backend::{Colours, Dma};
use thermocline_model::config::LlcConfig;
use thermocline_model::{tiers, MachineConfig};

use thermocline_sim::Machine;
use thermocline_vocab::{Asid, PageType, TierId};

const BASE: u64 = 1 << 30;
const A0: Asid = Asid(0);
const PAGE: u64 = 4096;

/// DRAM of `fast` bytes below 4 GB, PCM above, the paper's mapping and an
/// 8 MB LLC of 16 slabs; one 16 MiB region, THP as asked.
fn machine(fast: u64, memory: bool, thp: bool) -> Machine {
    let mut t = vec![tiers::dram(), tiers::pcm()];
    t[0].capacity_bytes = fast;
    t[1].capacity_bytes = 32 << 20;
    let cfg = MachineConfig {
        llc: LlcConfig {
            bytes: 8 << 20,
            ways: 16,
            hit_ns: 15.0,
        },
        memory: memory.then(Default::default),
        ..MachineConfig::with_tiers(t)
    };
    let region = common::region("r", BASE, 16 << 20, PageType::Anon, thp);
    Machine::new(cfg, vec![region]).unwrap()
}

fn touch(m: &mut Machine, va: u64) {
    common::touch(m, va, false);
}

fn place(m: &Machine, va: u64) -> (TierId, FramePlace) {
    let t = m.translate(A0, va).unwrap().unwrap();
    (t.tier, m.frame_place(t.frame).unwrap())
}

#[test]
fn a_page_moves_to_the_bank_and_slab_asked_for_in_any_tier() {
    let mut m = machine(64 << 20, true, false);
    touch(&mut m, BASE);
    assert!(
        matches!(
            m.migrate_placed(A0, BASE, TierId::FAST, Some(5), Some(3)),
            Err(BackendError::Invalid { .. })
        ),
        "coloured allocation is off by default"
    );
    assert!(m.capabilities().has(Capability::Colours));
    m.set_coloured_allocation(true).unwrap();
    // Fig. 8: 32 banks per channel (5 bits), 16 slabs (4 bits).
    assert_eq!(m.place_counts().unwrap(), (32, 16));
    // The page starts in DRAM (first touch): move it within DRAM.
    assert!(m
        .migrate_placed(A0, BASE, TierId::FAST, Some(5), Some(3))
        .unwrap());
    assert_eq!(
        place(&m, BASE),
        (TierId::FAST, FramePlace { bank: 5, slab: 3 })
    );
    // Then to PCM, any bank, slab 15 (Memos' rarely-touched slab).
    assert!(m
        .migrate_placed(A0, BASE, TierId::SLOW, None, Some(15))
        .unwrap());
    let (tier, p) = place(&m, BASE);
    assert_eq!((tier, p.slab), (TierId::SLOW, 15));
    // Asking for where it already is moves nothing.
    let moved = m.stats().migrated_bytes;
    assert!(m
        .migrate_placed(A0, BASE, TierId::SLOW, Some(p.bank), Some(15))
        .unwrap());
    assert_eq!(m.stats().migrated_bytes, moved);
}

#[test]
fn a_colour_runs_out_and_says_so() {
    // 4 MiB of DRAM: two 2 MiB blocks, so each of the 512 colours (one
    // bank and slab each) has 2 frames.
    let mut m = machine(4 << 20, true, false);
    m.set_coloured_allocation(true).unwrap();
    for i in 0..3 {
        touch(&mut m, BASE + i * PAGE);
    }
    let mut placed = 0;
    for i in 0..3 {
        if m.migrate_placed(A0, BASE + i * PAGE, TierId::FAST, Some(31), Some(15))
            .unwrap()
        {
            placed += 1;
            assert_eq!(
                place(&m, BASE + i * PAGE).1,
                FramePlace { bank: 31, slab: 15 }
            );
        }
    }
    // The first touches took frames of other colours in turn, so both
    // frames of bank 31 and slab 15 were free: two pages fit, the third not.
    assert_eq!(placed, 2);
}

#[test]
fn no_memory_system_no_colours_and_huge_pages_have_none() {
    let mut m = machine(64 << 20, false, false);
    assert!(matches!(
        m.set_coloured_allocation(true),
        Err(BackendError::Unsupported(Capability::Colours))
    ));
    assert!(m.place_counts().is_err());
    assert!(!m.capabilities().has(Capability::Colours));
    let mut m = machine(64 << 20, true, true);
    m.set_coloured_allocation(true).unwrap();
    touch(&mut m, BASE);
    assert_eq!(
        m.translate(A0, BASE).unwrap().unwrap().size,
        thermocline_vocab::PageSize::Huge
    );
    assert!(matches!(
        m.migrate_placed(A0, BASE, TierId::SLOW, Some(0), Some(0)),
        Err(BackendError::Invalid { .. })
    ));
}

/// Memos' reclaimed pages (4.2 (1), 4.3 case 2): a DMA copy lands in the
/// slab asked for, a page written during its copy stays, and with no free
/// frame of that slab the copy goes to any frame of the tier.
#[test]
fn a_placed_dma_copy_lands_in_the_slab_asked_for() {
    let mut m = machine(64 << 20, true, false);
    for i in 0..3 {
        touch(&mut m, BASE + i * PAGE);
    }
    assert!(
        m.dma_start_placed(A0, BASE, TierId::SLOW, None, Some(15))
            .is_err(),
        "coloured allocation is off"
    );
    m.set_coloured_allocation(true).unwrap();
    assert!(m
        .dma_start_placed(A0, BASE, TierId::SLOW, None, Some(15))
        .unwrap());
    assert!(m
        .dma_start_placed(A0, BASE + PAGE, TierId::SLOW, Some(7), Some(15))
        .unwrap());
    common::touch(&mut m, BASE + PAGE, true);
    while m.dma_poll().unwrap().pending > 0 {
        touch(&mut m, BASE + 2 * PAGE);
        assert!(m.time_ns() < 1e9, "the copies never finished");
    }
    let (tier, p) = place(&m, BASE);
    assert_eq!((tier, p.slab), (TierId::SLOW, 15));
    assert_eq!(place(&m, BASE + PAGE).0, TierId::FAST, "written: aborted");
    // Fill bank 3's slab-15 frames of PCM, then ask for one more there.
    let mut filled = 0;
    for i in 3..4096u64 {
        let va = BASE + i * PAGE;
        touch(&mut m, va);
        if m.migrate_placed(A0, va, TierId::SLOW, Some(3), Some(15))
            .unwrap()
        {
            filled += 1;
        } else {
            break;
        }
    }
    assert!(filled > 0);
    let va = BASE + 4095 * PAGE;
    touch(&mut m, va);
    assert!(m
        .dma_start_placed(A0, va, TierId::SLOW, Some(3), Some(15))
        .unwrap());
    while m.dma_poll().unwrap().pending > 0 {
        touch(&mut m, BASE + 2 * PAGE);
        assert!(m.time_ns() < 1e10, "the copy never finished");
    }
    let (tier, p) = place(&m, va);
    assert_eq!(tier, TierId::SLOW, "no frame of bank 3 slab 15: any frame");
    assert_ne!((p.bank, p.slab), (3, 15));
}

mod bank_moves {
    //! Memos' bank moves within a channel (4.3): a page asked into another
    //! bank of its own tier lands in a frame of that bank (and the slab
    //! asked), keeps its tier, its size and its Dirty bit, and no other
    //! page's mapping changes; checked against a reference that only
    //! records, per page, its tier, bank, slab and Dirty bit.

    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Pages of the region used.
    const PAGES: u64 = 64;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Ref {
        tier: TierId,
        bank: u16,
        slab: u16,
        dirty: bool,
    }

    fn frame(m: &Machine, va: u64) -> u64 {
        m.translate(A0, va).unwrap().unwrap().frame
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn a_bank_move_lands_in_the_bank_asked_and_keeps_the_page(
            ops in proptest::collection::vec((0u8..5, 0u64..PAGES, 0u16..4, 0u16..2), 1..120),
        ) {
            // 4 MiB of DRAM: two frames of each colour; with moves drawn
            // into 4 banks and 2 slabs, colours run out.
            let mut m = machine(4 << 20, true, false);
            m.set_coloured_allocation(true).unwrap();
            let mut model: BTreeMap<u64, Ref> = BTreeMap::new();
            for (op, page, bank, slab) in ops {
                let va = BASE + page * PAGE;
                match op {
                    // A load or a store maps the page (first touch: DRAM).
                    0 | 1 => {
                        common::touch(&mut m, va, op == 1);
                        let (tier, p) = place(&m, va);
                        let r = model.entry(va).or_insert(Ref {
                            tier,
                            bank: p.bank,
                            slab: p.slab,
                            dirty: false,
                        });
                        r.dirty |= op == 1;
                    }
                    // A move to the other tier, any bank, the slab drawn:
                    // so that bank moves happen in both channels.
                    4 => {
                        let Some(r) = model.get(&va).copied() else {
                            continue;
                        };
                        let to = TierId(1 - r.tier.0);
                        if m.migrate_placed(A0, va, to, None, Some(slab)).unwrap() {
                            let (tier, p) = place(&m, va);
                            prop_assert_eq!((tier, p.slab), (to, slab));
                            model.insert(va, Ref { tier, bank: p.bank, slab, ..r });
                        }
                    }
                    // A bank move within the page's tier, keeping its slab
                    // (as Memos asks) or to the slab drawn.
                    _ => {
                        let Some(r) = model.get(&va).copied() else {
                            prop_assert!(m.migrate_placed(A0, va, TierId::FAST, Some(bank), Some(slab)).is_err());
                            continue;
                        };
                        let slab = if op == 2 { r.slab } else { slab };
                        let free = m.tiers()[r.tier.index()].free_bytes;
                        let old = frame(&m, va);
                        let moved = m.migrate_placed(A0, va, r.tier, Some(bank), Some(slab)).unwrap();
                        let (tier, p) = place(&m, va);
                        prop_assert_eq!(tier, r.tier, "a bank move keeps the tier");
                        prop_assert_eq!(m.tiers()[r.tier.index()].free_bytes, free);
                        if moved {
                            prop_assert_eq!((p.bank, p.slab), (bank, slab));
                            model.insert(va, Ref { bank, slab, ..r });
                        } else {
                            prop_assert_eq!(frame(&m, va), old, "no free frame: it stays");
                        }
                    }
                }
                // Every page against the reference; no two share a frame.
                let mut frames = std::collections::BTreeSet::new();
                for (&va, r) in &model {
                    let t = m.translate(A0, va).unwrap().unwrap();
                    prop_assert_eq!(t.size, thermocline_vocab::PageSize::Base);
                    let (tier, p) = place(&m, va);
                    prop_assert_eq!((tier, p.bank, p.slab), (r.tier, r.bank, r.slab));
                    prop_assert!(frames.insert(t.frame), "frame {} mapped twice", t.frame);
                    prop_assert_eq!(m.dirty(A0, va, false).unwrap(), r.dirty);
                }
            }
        }
    }
}
