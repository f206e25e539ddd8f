//! The rules of HeteroOS's guest placement (../shared/papers/
//! 001_f8c99e4789a9a37b.txt, sections 3.2 and 3.3), apart from the machine:
//! per-type FastMem allocation statistics, HeteroOS-LRU's replacement
//! trigger and its per-type thresholds.
//!
//! *Inferred* (the paper gives the mechanisms, not their numbers):
//! - "memory type-specific thresholds for triggering replacement": the
//!   trigger is FastMem's own pressure (its free pages below a watermark,
//!   or FastMem allocation misses in the last interval), not the whole
//!   system's, which is the limitation of Linux the paper names;
//! - a page type's threshold is the share of FastMem its inactive pages may
//!   keep under pressure; the paper gives none, so every type's default is
//!   0: under pressure every inactive FastMem page is evicted, as "actively
//!   monitors the active to an inactive state change ... and immediately
//!   evicts them from FastMem" says;
//! - a page is inactive when its Accessed bit was not set since the last
//!   scan (one scan, not Linux's two-list second chance: the paper evicts
//!   at the active-to-inactive change).

use serde::{Deserialize, Serialize};
use thermocline_backend::AllocCounts;
use thermocline_vocab::PageType;

const N: usize = PageType::COUNT;

/// The FastMem allocation requests and misses of each page type over one
/// statistics interval (section 3.2: "total page allocation requests,
/// FastMem allocation hits, and misses", every 100 ms).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntervalStats {
    /// Pages allocated, per type ([`PageType::index`]).
    pub requests: [u64; N],
    /// Of those, pages that wanted FastMem and got SlowMem.
    pub misses: [u64; N],
}

impl IntervalStats {
    /// The interval between two cumulative readings of
    /// `Backend::alloc_counts`.
    pub fn between(before: &[AllocCounts; N], now: &[AllocCounts; N]) -> Self {
        let mut s = IntervalStats::default();
        for i in 0..N {
            s.requests[i] = now[i].requests.saturating_sub(before[i].requests);
            s.misses[i] = now[i].fallback.saturating_sub(before[i].fallback);
        }
        s
    }

    /// Misses over requests of one type; `None` without requests.
    pub fn miss_ratio(&self, ty: PageType) -> Option<f64> {
        let i = ty.index();
        (self.requests[i] > 0).then(|| self.misses[i] as f64 / self.requests[i] as f64)
    }

    /// Misses of every type.
    pub fn total_misses(&self) -> u64 {
        self.misses.iter().sum()
    }
}

/// HeteroOS-LRU's trigger: FastMem is under pressure when its free pages
/// fall below `watermark` of it, or when an allocation that wanted it
/// missed during the last interval.
pub fn under_pressure(fast_free_pages: u64, fast_pages: u64, watermark: f64, misses: u64) -> bool {
    misses > 0 || (fast_free_pages as f64) < watermark * fast_pages as f64
}

/// Per page type, the share of FastMem (0-1) that its inactive pages may
/// keep under pressure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Thresholds {
    /// Anonymous heap pages.
    pub heap: f64,
    /// File page cache.
    pub page_cache: f64,
    /// Buffer cache (I/O buffers).
    pub buffer_cache: f64,
    /// Kernel slab (network buffers, file-system metadata).
    pub slab: f64,
}

impl Thresholds {
    /// The share of one type. Page-table pages are never placed in FastMem
    /// by HeteroOS (they are on its exception list), so theirs is 0.
    pub fn share(&self, ty: PageType) -> f64 {
        match ty {
            PageType::Anon => self.heap,
            PageType::FileCache => self.page_cache,
            PageType::IoBuffer => self.buffer_cache,
            PageType::Slab => self.slab,
            PageType::PageTable => 0.0,
        }
    }

    /// Why the thresholds cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        let named = [
            ("heap", self.heap),
            ("page_cache", self.page_cache),
            ("buffer_cache", self.buffer_cache),
            ("slab", self.slab),
        ];
        match named.iter().find(|(_, s)| !(0.0..=1.0).contains(s)) {
            Some((name, s)) => Err(format!("thresholds.{name}: {s} is not a share in 0-1")),
            None => Ok(()),
        }
    }
}

/// How many inactive FastMem pages of each type to evict: all of them,
/// except that a type keeps as many as its threshold share of FastMem
/// allows. `held` counts each type's FastMem pages, `inactive` those of
/// them found inactive.
pub fn evictions(
    inactive: &[u64; N],
    held: &[u64; N],
    fast_pages: u64,
    thresholds: &Thresholds,
) -> [u64; N] {
    let mut out = [0; N];
    for ty in PageType::ALL {
        let i = ty.index();
        let keep = (thresholds.share(ty) * fast_pages as f64).floor() as u64;
        let over = held[i].saturating_sub(keep);
        out[i] = inactive[i].min(over);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn counts(requests: u64, fallback: u64) -> AllocCounts {
        AllocCounts {
            requests,
            preferred: requests - fallback,
            fallback,
        }
    }

    #[test]
    fn interval_stats_are_the_difference_of_two_readings() {
        let mut before = [AllocCounts::default(); N];
        let mut now = [AllocCounts::default(); N];
        before[PageType::Anon.index()] = counts(100, 10);
        now[PageType::Anon.index()] = counts(300, 60);
        now[PageType::Slab.index()] = counts(8, 0);
        let s = IntervalStats::between(&before, &now);
        assert_eq!(s.miss_ratio(PageType::Anon), Some(0.25));
        assert_eq!(s.miss_ratio(PageType::Slab), Some(0.0));
        assert_eq!(s.miss_ratio(PageType::FileCache), None);
        assert_eq!(s.total_misses(), 50);
    }

    #[test]
    fn pressure_is_fastmem_s_own_free_space_or_a_miss() {
        assert!(!under_pressure(100, 1000, 0.05, 0));
        assert!(under_pressure(49, 1000, 0.05, 0));
        assert!(under_pressure(900, 1000, 0.05, 1));
        assert!(!under_pressure(0, 1000, 0.0, 0));
    }

    #[test]
    fn every_inactive_page_goes_with_zero_thresholds_and_a_threshold_keeps_its_share() {
        let mut inactive = [0; N];
        let mut held = [0; N];
        let (heap, cache) = (PageType::Anon.index(), PageType::FileCache.index());
        inactive[heap] = 40;
        held[heap] = 600;
        inactive[cache] = 90;
        held[cache] = 100;
        let all = evictions(&inactive, &held, 1000, &Thresholds::default());
        assert_eq!((all[heap], all[cache]), (40, 90));
        // The heap may keep half of FastMem: it holds 600, so 100 may go
        // (all 40 inactive); the page cache may keep 5% (50): 50 go.
        let t = Thresholds {
            heap: 0.5,
            page_cache: 0.05,
            ..Thresholds::default()
        };
        let some = evictions(&inactive, &held, 1000, &t);
        assert_eq!((some[heap], some[cache]), (40, 50));
        let t = Thresholds { heap: 0.6, ..t };
        assert_eq!(evictions(&inactive, &held, 1000, &t)[heap], 0);
    }

    #[test]
    fn thresholds_outside_zero_to_one_are_refused() {
        assert!(Thresholds::default().check().is_ok());
        let bad = Thresholds {
            slab: 1.5,
            ..Thresholds::default()
        };
        assert!(bad.check().unwrap_err().contains("thresholds.slab"));
    }

    proptest! {
        /// Never more than the inactive pages, never below a type's
        /// threshold share, and exactly down to it when enough are inactive.
        #[test]
        fn evictions_respect_inactive_and_threshold(
            inactive in prop::array::uniform5(0u64..1000),
            extra in prop::array::uniform5(0u64..1000),
            share in 0.0f64..1.0,
            fast in 1u64..5000,
        ) {
            let held: [u64; N] = std::array::from_fn(|i| inactive[i] + extra[i]);
            let t = Thresholds { heap: share, page_cache: share, buffer_cache: share, slab: share };
            let e = evictions(&inactive, &held, fast, &t);
            for ty in PageType::ALL {
                let i = ty.index();
                let keep = (t.share(ty) * fast as f64).floor() as u64;
                prop_assert!(e[i] <= inactive[i]);
                prop_assert!(held[i] - e[i] >= keep.min(held[i]));
                if inactive[i] >= held[i].saturating_sub(keep) {
                    prop_assert_eq!(held[i] - e[i], keep.min(held[i]));
                }
            }
        }
    }
}
