//! Allocation by page type and per-tier quotas on the exact machine
//! (HeteroOS 3.1-3.2 and 4.2), through the backend interface: a type's
//! policy decides where its new pages go, a quota caps what an address
//! space holds in a tier, and the counts say where each allocation landed.

use super::common;
use proptest::prelude::*;
use thermocline_backend::TypedAlloc;
use thermocline_backend::{AllocCounts, Backend, BackendError, MemPolicy};
use thermocline_model::{tiers, MachineConfig};

use thermocline_sim::Machine;
use thermocline_vocab::{Asid, MemEvent, PageType, TierId};

const HEAP: u64 = 1 << 30;
const CACHE: u64 = 2 << 30;
const A0: Asid = Asid(0);
const PAGE: u64 = 4096;

/// A heap and a page-cache region of 64 pages each; both tiers hold all.
fn machine() -> Machine {
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = 1 << 30;
    t[1].capacity_bytes = 1 << 30;
    let cfg = MachineConfig::with_tiers(t);
    let region =
        |name: &str, start, page_type| common::region(name, start, 64 * PAGE, page_type, false);
    Machine::new(
        cfg,
        vec![
            region("heap", HEAP, PageType::Anon),
            region("cache", CACHE, PageType::FileCache),
        ],
    )
    .unwrap()
}

fn touch(m: &mut Machine, va: u64) {
    common::touch(m, va, false);
}

fn tier(m: &Machine, va: u64) -> TierId {
    m.translate(A0, va).unwrap().unwrap().tier
}

#[test]
fn a_type_policy_places_that_type_only() {
    let mut m = machine();
    m.set_type_policy(
        A0,
        PageType::FileCache,
        Some(MemPolicy::Bind { tier: TierId::SLOW }),
    )
    .unwrap();
    touch(&mut m, HEAP);
    touch(&mut m, CACHE);
    assert_eq!(tier(&m, HEAP), TierId::FAST);
    assert_eq!(tier(&m, CACHE), TierId::SLOW);
    let c = m.alloc_counts(A0).unwrap();
    let one = AllocCounts {
        requests: 1,
        preferred: 1,
        fallback: 0,
    };
    assert_eq!(c[PageType::Anon.index()], one);
    assert_eq!(c[PageType::FileCache.index()], one);
    // Back to the address space's policy.
    m.set_type_policy(A0, PageType::FileCache, None).unwrap();
    touch(&mut m, CACHE + PAGE);
    assert_eq!(tier(&m, CACHE + PAGE), TierId::FAST);
    assert!(m
        .set_type_policy(
            A0,
            PageType::Slab,
            Some(MemPolicy::Bind { tier: TierId(5) })
        )
        .is_err());
}

#[test]
fn a_quota_sends_new_pages_on_and_refuses_migrations_in() {
    let mut m = machine();
    m.set_tier_quota(A0, TierId::FAST, Some(2)).unwrap();
    for i in 0..4 {
        touch(&mut m, HEAP + i * PAGE);
    }
    assert_eq!(m.held_pages(A0, TierId::FAST).unwrap(), 2);
    assert_eq!(m.held_pages(A0, TierId::SLOW).unwrap(), 2);
    let c = m.alloc_counts(A0).unwrap()[PageType::Anon.index()];
    assert_eq!((c.requests, c.preferred, c.fallback), (4, 2, 2));
    let r = m.migrate(A0, &[HEAP + 3 * PAGE], TierId::FAST).unwrap();
    assert_eq!((r.pages, r.failed), (0, 1));
    assert_eq!(tier(&m, HEAP + 3 * PAGE), TierId::SLOW, "over quota: stays");
    // A released fast page makes room for the next new one.
    m.apply_event(MemEvent::Release {
        asid: A0,
        start: HEAP,
        len: PAGE,
    })
    .unwrap();
    touch(&mut m, HEAP + 10 * PAGE);
    assert_eq!(tier(&m, HEAP + 10 * PAGE), TierId::FAST);
    assert!(m.set_tier_quota(A0, TierId(9), Some(1)).is_err());
    assert!(m.held_pages(Asid(3), TierId::FAST).is_err());
}

proptest! {
    /// After any mix of touches, releases and migrations under a fast-tier
    /// quota set from the start: what the address space holds per tier is
    /// what its mapped pages say, never over the quota, and every page
    /// allocated is counted once as preferred or fallback.
    #[test]
    fn held_pages_follow_the_mappings(
        quota in 0u64..20,
        ops in proptest::collection::vec((0u8..3, 0u64..128, 1u64..6), 1..150),
    ) {
        let mut m = machine();
        m.set_tier_quota(A0, TierId::FAST, Some(quota)).unwrap();
        let va = |i: u64| if i < 64 { HEAP + i * PAGE } else { CACHE + (i - 64) * PAGE };
        for (op, i, n) in ops {
            match op {
                0 => touch(&mut m, va(i)),
                1 => {
                    let n = n.min(64 - i % 64);
                    m.apply_event(MemEvent::Release { asid: A0, start: va(i), len: n * PAGE }).unwrap();
                }
                _ => {
                    let to = if n % 2 == 0 { TierId::FAST } else { TierId::SLOW };
                    match m.migrate(A0, &[va(i)], to) {
                        Ok(_) | Err(BackendError::TierFull(_)) | Err(BackendError::NotMapped { .. }) => {}
                        Err(e) => prop_assert!(false, "{e}"),
                    }
                }
            }
            let mut per_tier = [0u64; 2];
            for i in 0..128 {
                if let Some(t) = m.translate(A0, va(i)).unwrap() {
                    per_tier[t.tier.index()] += 1;
                }
            }
            prop_assert_eq!(m.held_pages(A0, TierId::FAST).unwrap(), per_tier[0]);
            prop_assert_eq!(m.held_pages(A0, TierId::SLOW).unwrap(), per_tier[1]);
            prop_assert!(per_tier[0] <= quota);
            for c in m.alloc_counts(A0).unwrap() {
                prop_assert_eq!(c.requests, c.preferred + c.fallback);
            }
        }
    }
}
