//! Allocation by page type, per-tier quotas and the reverse map on the
//! rate machine (what HeteroOS' managers need), held to a simple model:
//! regions are placed once, in address order, each by its type's policy
//! (else its address space's), filling the first tier of its order up to
//! the tier's room and the quota, then the next.

use proptest::prelude::*;
use thermocline_backend::{Backend, MemPolicy};
use thermocline_backend::{MemEvents, TypedAlloc};
use thermocline_model::rates::{RatePhase, RateProfile, RateSegment};
use thermocline_model::{tiers, MachineConfig};
use thermocline_rate::RateMachine;
use thermocline_vocab::{Asid, PageType, RegionInfo, TierId};

const PAGE: u64 = 4096;
const A0: Asid = Asid(0);

/// Regions of `pages[i]` pages of type `types[i]`, one after another from
/// 1 GiB, each getting an equal share of uniform accesses.
fn machine(pages: &[u64], types: &[PageType], fast_pages: u64) -> (RateMachine, Vec<RegionInfo>) {
    let mut start = 1u64 << 30;
    let regions: Vec<RegionInfo> = pages
        .iter()
        .zip(types)
        .enumerate()
        .map(|(i, (&n, &t))| {
            let r = RegionInfo {
                asid: A0,
                name: format!("r{i}"),
                start,
                len: n * PAGE,
                page_type: t,
                thp: false,
            };
            start += n * PAGE + (1 << 21);
            r
        })
        .collect();
    let profile = RateProfile {
        phases: vec![RatePhase {
            name: "p".into(),
            accesses: 1_000_000,
            segments: regions
                .iter()
                .map(|r| RateSegment {
                    asid: A0,
                    start: r.start,
                    len: r.len,
                    share: 1.0 / regions.len() as f64,
                    write_fraction: 0.0,
                    burst_bytes: 64,
                    stride_bytes: 64,
                    sweep: false,
                })
                .collect(),
        }],
    };
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = fast_pages * PAGE;
    t[1].capacity_bytes = 1 << 30;
    let cfg = MachineConfig::with_tiers(t);
    (
        RateMachine::new(cfg, regions.clone(), &profile).unwrap(),
        regions,
    )
}

fn policy(code: u8) -> Option<MemPolicy> {
    match code {
        0 => None,
        1 => Some(MemPolicy::PreferFast),
        _ => Some(MemPolicy::Bind { tier: TierId(1) }),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn placement_quotas_counts_and_frames_follow_the_model(
        regions in proptest::collection::vec((1u64..40, 0usize..PageType::COUNT), 1..5),
        type_codes in proptest::collection::vec(0u8..3, PageType::COUNT),
        space_binds_slow in any::<bool>(),
        fast_pages in 1u64..100,
        quota in proptest::option::of(0u64..100),
    ) {
        let pages: Vec<u64> = regions.iter().map(|r| r.0).collect();
        let types: Vec<PageType> = regions.iter().map(|r| PageType::ALL[r.1]).collect();
        let (mut m, rs) = machine(&pages, &types, fast_pages);
        let space = if space_binds_slow {
            MemPolicy::Bind { tier: TierId(1) }
        } else {
            MemPolicy::PreferFast
        };
        m.set_policy(A0, space).unwrap();
        for (ty, &code) in PageType::ALL.iter().zip(&type_codes) {
            m.set_type_policy(A0, *ty, policy(code)).unwrap();
        }
        m.set_tier_quota(A0, TierId::FAST, quota).unwrap();
        m.advance(f64::INFINITY, 1.0);

        // The model.
        let mut held = [0u64; 2];
        let mut counts = [(0u64, 0u64, 0u64); PageType::COUNT];
        let mut tier_of = Vec::new();
        for r in &rs {
            let p = policy(type_codes[r.page_type.index()]).unwrap_or(space);
            let first = match p {
                MemPolicy::Bind { tier } => tier.index(),
                _ => 0,
            };
            let order = [first, 1 - first];
            let mut left = r.len / PAGE;
            let c = &mut counts[r.page_type.index()];
            c.0 += left;
            let mut at = r.start;
            for (i, &t) in order.iter().enumerate() {
                let room = if i == 1 {
                    left
                } else {
                    let cap = if t == 0 { fast_pages } else { 1 << 18 };
                    let q = if t == 0 { quota.unwrap_or(u64::MAX) } else { u64::MAX };
                    cap.saturating_sub(held[t]).min(q.saturating_sub(held[t])).min(left)
                };
                for _ in 0..room {
                    tier_of.push((at, t));
                    at += PAGE;
                }
                held[t] += room;
                left -= room;
                if i == 0 { c.1 += room } else { c.2 += room }
            }
        }

        for (t, &want) in held.iter().enumerate() {
            prop_assert_eq!(m.held_pages(A0, TierId(t as u8)).unwrap(), want);
        }
        let got = m.alloc_counts(A0).unwrap();
        for (i, c) in counts.iter().enumerate() {
            prop_assert_eq!((got[i].requests, got[i].preferred, got[i].fallback), *c);
        }
        for &(va, t) in &tier_of {
            prop_assert_eq!(m.translate(A0, va).unwrap().unwrap().tier, TierId(t as u8));
        }
        // Frames: each tier's pages in address order, then free frames.
        let tiers = m.tiers();
        for (t, info) in tiers.iter().enumerate() {
            let first = info.first_frame.expect("the rate machine numbers frames");
            let mine: Vec<u64> = tier_of.iter().filter(|x| x.1 == t).map(|x| x.0).collect();
            for (k, &va) in mine.iter().enumerate() {
                prop_assert_eq!(m.reverse_translate(first + k as u64).unwrap(), Some((A0, va)));
            }
            if (mine.len() as u64) < info.capacity_bytes / PAGE {
                prop_assert_eq!(m.reverse_translate(first + mine.len() as u64).unwrap(), None);
            }
        }
    }
}

#[test]
fn a_quota_refuses_migrations_into_its_tier_and_events_are_none() {
    let (mut m, rs) = machine(&[16], &[PageType::Anon], 64);
    m.set_policy(A0, MemPolicy::Bind { tier: TierId(1) })
        .unwrap();
    m.set_tier_quota(A0, TierId::FAST, Some(4)).unwrap();
    m.advance(f64::INFINITY, 1.0);
    assert_eq!(m.held_pages(A0, TierId::FAST).unwrap(), 0);
    let vas: Vec<u64> = (0..8).map(|i| rs[0].start + i * PAGE).collect();
    let r = m.migrate(A0, &vas, TierId::FAST).unwrap();
    assert_eq!((r.pages, r.failed), (4, 4));
    assert_eq!(m.held_pages(A0, TierId::FAST).unwrap(), 4);
    let r = m
        .migrate_range(A0, rs[0].start, rs[0].len, TierId::FAST, u64::MAX)
        .unwrap();
    assert_eq!(r.pages, 0, "the quota is used up");
    let mut events = Vec::new();
    assert_eq!(m.drain_mem_events(&mut events).unwrap(), 0);
    assert!(events.is_empty(), "a rate profile issues no memory events");
}
