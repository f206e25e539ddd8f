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

/// How many FastMem pages a pressured pass should free: enough for as many
/// allocations as missed in the last interval, plus the free watermark,
/// beyond what is free already (pages an unmap or a completed eviction
/// freed since count). *Inferred*: the last interval's misses predict the
/// next's demand.
pub fn reclaim_target(fast_free_pages: u64, fast_pages: u64, watermark: f64, misses: u64) -> u64 {
    let reserve = (watermark * fast_pages as f64).ceil() as u64;
    (misses + reserve).saturating_sub(fast_free_pages)
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

/// Whether an inactive FastMem page of a type may go, the type holding
/// `held` FastMem pages of which this pass evicted `evicted` already: only
/// while the type stays above its threshold share of the `fast_pages`.
/// `held` is `None` while the type's FastMem pages are not known yet (the
/// hand has not gone round once): no threshold holds a page back then.
pub fn may_evict(held: Option<u64>, evicted: u64, fast_pages: u64, share: f64) -> bool {
    let keep = (share * fast_pages as f64).floor() as u64;
    held.is_none_or(|h| h.saturating_sub(evicted) > keep)
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
    fn the_target_is_the_misses_and_the_watermark_beyond_what_is_free() {
        assert_eq!(reclaim_target(0, 1000, 0.01, 50), 60);
        assert_eq!(reclaim_target(30, 1000, 0.01, 50), 30);
        assert_eq!(
            reclaim_target(100, 1000, 0.01, 50),
            0,
            "an unmap freed enough"
        );
        assert_eq!(reclaim_target(5, 1000, 0.01, 0), 5, "the watermark alone");
    }

    #[test]
    fn a_threshold_holds_back_its_share_and_zero_holds_back_nothing() {
        // 600 heap pages of 1000 FastMem pages, threshold 0: all may go.
        assert!(may_evict(Some(600), 599, 1000, 0.0));
        assert!(!may_evict(Some(600), 600, 1000, 0.0));
        // Threshold 0.5: 500 stay, so 100 may go.
        assert!(may_evict(Some(600), 99, 1000, 0.5));
        assert!(!may_evict(Some(600), 100, 1000, 0.5));
        assert!(
            !may_evict(Some(400), 0, 1000, 0.5),
            "below its share already"
        );
        assert!(may_evict(None, 10_000, 1000, 0.9), "not known yet");
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
        /// Evicting page by page while `may_evict` allows leaves a type
        /// exactly at its share when it held more, untouched otherwise.
        #[test]
        fn evicting_while_allowed_stops_at_the_share(held in 0u64..5000, share in 0.0f64..1.0, fast in 1u64..5000) {
            let mut evicted = 0;
            while evicted < held && may_evict(Some(held), evicted, fast, share) {
                evicted += 1;
            }
            let keep = (share * fast as f64).floor() as u64;
            prop_assert_eq!(held - evicted, keep.min(held));
        }
    }
}
