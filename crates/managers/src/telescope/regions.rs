//! Region-based sampling: DAMON's monitor (mm/damon/core.c, vaddr.c) and
//! Telescope's page-table profiling on top of the same region management
//! (paper 002, sections 3.2, 5.1, 5.2 and 6.1.1).
//!
//! DAMON, as in the kernel (defaults from the kernel, intervals from the
//! paper): the address space is cut into `min_regions` (10) equal regions;
//! every sample interval (5 ms moderate, 1 ms aggressive) each region's
//! sampled page is checked (its Accessed bit read) and a new random page of
//! the region is picked and its Accessed bit cleared (`ptep_test_and_clear_young`,
//! *without* a TLB flush, as DAMON does on x86). Every aggregation interval
//! (200 ms): regions' ages are updated and adjacent regions whose counts
//! differ by at most a tenth of the maximum (and whose sum stays under
//! total / `min_regions`) are merged, the threshold doubling while there are
//! more than `max_regions` (1000); the window's regions are reported; counts
//! are reset; and, if there are at most `max_regions` / 2 regions, each is
//! split at a random point (1..9 tenths, 4 KiB-aligned) into 2, or 3 when
//! the count did not change since the last split and is under a third of the
//! maximum.
//!
//! Inferred or changed:
//! - The monitored span is the address space's regions from the lowest to
//!   the highest address (DAMON's vaddr uses three big areas around the two
//!   largest gaps; a MASIM heap is one area). Pages in gaps between regions
//!   are sampled and read as not accessed.
//! - A reported region is hot when its count is at least `hot_min_accesses`
//!   (1): the paper does not state its rule for the microbenchmarks.
//! - Telescope (bounded / flex): the same regions; per region per sample
//!   interval, a random address of the region is drawn, then the entry at the
//!   highest level (PGD, PUD, PMD, else the leaf) that contains it and lies
//!   inside the region (bounded), or overshoots it by at most 15% of its span
//!   at PGD and PUD or 25% at PMD (flex, section 6.1.1; the paper's example
//!   applies 15% at PGD), is cleared. Drawing the address first makes an
//!   entry's chance proportional to the part of the region it covers, so
//!   the whole region is covered (section 5.2.1's 600 GB example).
//! - Telescope empties the paging-structure caches once per sample interval
//!   (an INVLPG), or upper-level bits would stay clear behind cached
//!   entries (../shared/reference/paging.md); the paper does not say how it
//!   handles them.

use super::{hot_set, Costs, Counted, Migration};
use crate::{HotSet, Manager};
use serde::Deserialize;
use thermocline_backend::{Backend, BackendError, Flush};
use thermocline_vocab::{Asid, Level, Rng};

/// How a region's sample entry is picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// DAMON: the leaf entry of a random page.
    Leaf,
    /// Telescope-bounded: the highest entry inside the region.
    Bounded,
    /// Telescope-flex: the highest entry within the error thresholds.
    Flex,
}

/// Parameters of DAMON and Telescope.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RegionSamplerParams {
    /// Sampling interval (ms).
    pub sample_ms: f64,
    /// Aggregation (profiling window) interval (ms).
    pub aggregate_ms: f64,
    /// Minimum number of regions.
    pub min_regions: usize,
    /// Maximum number of regions.
    pub max_regions: usize,
    /// A reported region is hot if its count reaches this.
    pub hot_min_accesses: f64,
    /// Flex's error threshold at PGD and PUD.
    pub flex_upper_error: f64,
    /// Flex's error threshold at PMD.
    pub flex_pmd_error: f64,
    /// Seed of the random picks.
    pub seed: u64,
    /// Migration rules (off by default).
    pub migration: Migration,
}

impl Default for RegionSamplerParams {
    fn default() -> Self {
        RegionSamplerParams {
            sample_ms: 5.0,
            aggregate_ms: 200.0,
            min_regions: 10,
            max_regions: 1000,
            hot_min_accesses: 1.0,
            flex_upper_error: 0.15,
            flex_pmd_error: 0.25,
            seed: 1,
            migration: Migration::default(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Region {
    start: u64,
    end: u64,
    nr_accesses: u32,
    last_nr_accesses: u32,
    age: u32,
    /// The entry cleared last interval: (address, level).
    sample: Option<(u64, Level)>,
}

/// DAMON or Telescope.
pub struct RegionSampler {
    name: &'static str,
    pick: Pick,
    p: RegionSamplerParams,
    asid: Asid,
    regions: Vec<Region>,
    total_bytes: u64,
    samples_per_window: u32,
    samples_done: u32,
    last_nr_regions: usize,
    rng: Rng,
    costs: Costs,
}

impl RegionSampler {
    /// A technique; `name` is its registry name.
    pub fn new(name: &'static str, pick: Pick, p: RegionSamplerParams) -> Self {
        let samples = (p.aggregate_ms / p.sample_ms).round().max(1.0) as u32;
        RegionSampler {
            name,
            pick,
            rng: Rng::derive(p.seed, name),
            p,
            asid: Asid(0),
            regions: Vec::new(),
            total_bytes: 0,
            samples_per_window: samples,
            samples_done: 0,
            last_nr_regions: 0,
            costs: Costs::default(),
        }
    }

    /// The current regions (start, end, count), for tests.
    pub fn regions(&self) -> Vec<(u64, u64, u32)> {
        self.regions
            .iter()
            .map(|r| (r.start, r.end, r.nr_accesses))
            .collect()
    }

    fn random_page(&mut self, r: &Region) -> u64 {
        let pages = ((r.end - r.start) / 4096).max(1);
        r.start + self.rng.below(pages) * 4096
    }

    /// The entry to profile for a random address of `r`.
    fn entry_for(&self, r: &Region, va: u64) -> (u64, Level) {
        if self.pick == Pick::Leaf {
            return (va, Level::Pte);
        }
        for level in [Level::Pgd, Level::Pud, Level::Pmd] {
            let span = level.span();
            let lo = va & !(span - 1);
            let hi = lo + span;
            let inside = r.start.max(lo)..r.end.min(hi);
            let outside = span - (inside.end - inside.start);
            let allowed = match (self.pick, level) {
                (Pick::Bounded, _) => 0,
                (_, Level::Pmd) => (self.p.flex_pmd_error * span as f64) as u64,
                _ => (self.p.flex_upper_error * span as f64) as u64,
            };
            if outside <= allowed {
                return (va, level);
            }
        }
        (va, Level::Pte)
    }

    fn check_and_prepare(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let asid = self.asid;
        for i in 0..self.regions.len() {
            let r = self.regions[i];
            if let Some((va, level)) = r.sample {
                // Unmapped (a gap between mappings): not accessed.
                if matches!(b.accessed(asid, va, level, false), Ok(true)) {
                    self.regions[i].nr_accesses += 1;
                }
            }
            let va = self.random_page(&r);
            let (va, level) = self.entry_for(&r, va);
            match b.accessed(asid, va, level, true) {
                Ok(was) => {
                    self.costs.bits_flipped += u64::from(was);
                    self.regions[i].sample = Some((va, level));
                }
                Err(BackendError::NotMapped { .. }) => self.regions[i].sample = None,
                Err(e) => return Err(e),
            }
        }
        if self.pick != Pick::Leaf {
            if let Some(r) = self.regions.iter().find(|r| r.sample.is_some()) {
                let (va, _) = r.sample.expect("found");
                b.flush_tlb(asid, Flush::Page(va))?;
            }
        }
        Ok(())
    }

    /// kdamond_merge_regions: age, then merge similar neighbours.
    fn merge(&mut self) {
        let max = self.samples_per_window;
        let mut threshold = (max / 10).max(1);
        let sz_limit = (self.total_bytes / self.p.min_regions.max(1) as u64).max(4096);
        for r in &mut self.regions {
            if r.nr_accesses.abs_diff(r.last_nr_accesses) > threshold {
                r.age = 0;
            } else {
                r.age += 1;
            }
        }
        loop {
            let mut out: Vec<Region> = Vec::with_capacity(self.regions.len());
            for r in self.regions.drain(..) {
                if let Some(prev) = out.last_mut() {
                    let (sa, sb) = (prev.end - prev.start, r.end - r.start);
                    if prev.end == r.start
                        && prev.nr_accesses.abs_diff(r.nr_accesses) <= threshold
                        && sa + sb <= sz_limit
                    {
                        let w = |x: u32, y: u32| {
                            ((u64::from(x) * sa + u64::from(y) * sb) / (sa + sb)) as u32
                        };
                        prev.nr_accesses = w(prev.nr_accesses, r.nr_accesses);
                        prev.age = w(prev.age, r.age);
                        prev.end = r.end;
                        continue;
                    }
                }
                out.push(r);
            }
            self.regions = out;
            if self.regions.len() <= self.p.max_regions || threshold / 2 >= max {
                break;
            }
            threshold = (threshold * 2).max(1);
        }
    }

    /// kdamond_split_regions.
    fn split(&mut self) {
        let n = self.regions.len();
        if n > self.p.max_regions / 2 {
            return;
        }
        let subs = if self.last_nr_regions == n && n < self.p.max_regions / 3 {
            3
        } else {
            2
        };
        self.last_nr_regions = n;
        let mut out = Vec::with_capacity(n * subs);
        for r in std::mem::take(&mut self.regions) {
            let mut rest = r;
            let mut pieces = Vec::new();
            let mut sz = rest.end - rest.start;
            for _ in 0..subs - 1 {
                if sz <= 2 * 4096 {
                    break;
                }
                let sub = (self.rng.below(9) + 1) * sz / 10 / 4096 * 4096;
                if sub == 0 || sub >= sz {
                    continue;
                }
                // Split at start + sub: the left part goes on being split.
                let right = Region {
                    start: rest.start + sub,
                    sample: None,
                    ..rest
                };
                pieces.push(right);
                rest.end = rest.start + sub;
                sz = sub;
            }
            out.push(rest);
            out.extend(pieces.into_iter().rev());
        }
        out.sort_by_key(|r| r.start);
        self.regions = out;
    }

    fn profile(&self) -> Vec<Counted> {
        self.regions
            .iter()
            .map(|r| Counted {
                asid: self.asid,
                start: r.start,
                end: r.end,
                count: f64::from(r.nr_accesses),
            })
            .collect()
    }
}

impl Manager for RegionSampler {
    fn name(&self) -> &'static str {
        self.name
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        let mut g = self.costs.gauges();
        g.push(("regions", self.regions.len() as f64));
        g
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        self.p.migration.start(b)?;
        self.costs.ns_at_start = b.manager_ns();
        let Some(first) = b.regions().first() else {
            return Ok(());
        };
        self.asid = first.asid;
        let asid = self.asid;
        let (lo, hi) = b
            .regions()
            .iter()
            .filter(|r| r.asid == asid)
            .fold((u64::MAX, 0), |(lo, hi), r| {
                (lo.min(r.start), hi.max(r.end()))
            });
        self.total_bytes = hi - lo;
        let n = self.p.min_regions.max(1) as u64;
        let sz = (self.total_bytes / n / 4096 * 4096).max(4096);
        let mut start = lo;
        while start < hi {
            let end = if hi - start < 2 * sz { hi } else { start + sz };
            self.regions.push(Region {
                start,
                end,
                nr_accesses: 0,
                last_nr_accesses: 0,
                age: 0,
                sample: None,
            });
            start = end;
        }
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        Some((self.p.sample_ms * 1e6) as u64)
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        self.check_and_prepare(b)?;
        self.samples_done += 1;
        if self.samples_done < self.samples_per_window {
            self.costs.update(b);
            return Ok(None);
        }
        self.samples_done = 0;
        self.merge();
        let profile = self.profile();
        let hot = hot_set(&profile, self.p.hot_min_accesses);
        self.costs.migrated_bytes += self.p.migration.apply(b, &profile)?;
        for r in &mut self.regions {
            r.last_nr_accesses = r.nr_accesses;
            r.nr_accesses = 0;
        }
        self.split();
        self.costs.update(b);
        Ok(Some(hot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampler(lo: u64, hi: u64) -> RegionSampler {
        let mut s =
            RegionSampler::new("damon-moderate", Pick::Leaf, RegionSamplerParams::default());
        s.total_bytes = hi - lo;
        let n = 10;
        let sz = (hi - lo) / n / 4096 * 4096;
        s.regions = (0..n)
            .map(|i| Region {
                start: lo + i * sz,
                end: if i + 1 == n { hi } else { lo + (i + 1) * sz },
                nr_accesses: 0,
                last_nr_accesses: 0,
                age: 0,
                sample: None,
            })
            .collect();
        s
    }

    proptest::proptest! {
        /// Whatever the counts, merging and splitting keep the regions a
        /// sorted, gap-free tiling of the span, within the region limits.
        #[test]
        fn merge_and_split_keep_a_tiling(counts in proptest::collection::vec(0u32..41, 1..300)) {
            let (lo, hi) = (1u64 << 30, (1u64 << 30) + (64 << 30));
            let mut s = sampler(lo, hi);
            for (i, c) in counts.iter().enumerate() {
                for (j, r) in s.regions.iter_mut().enumerate() {
                    r.nr_accesses = if (i + j) % 7 == 0 { *c } else { c / 4 };
                }
                s.merge();
                proptest::prop_assert!(s.regions.len() <= s.p.max_regions);
                for r in &mut s.regions {
                    r.last_nr_accesses = r.nr_accesses;
                    r.nr_accesses = 0;
                }
                s.split();
                proptest::prop_assert_eq!(s.regions.first().unwrap().start, lo);
                proptest::prop_assert_eq!(s.regions.last().unwrap().end, hi);
                for w in s.regions.windows(2) {
                    proptest::prop_assert_eq!(w[0].end, w[1].start);
                    proptest::prop_assert!(w[0].start < w[0].end);
                    proptest::prop_assert_eq!(w[0].start % 4096, 0);
                }
            }
        }
    }

    #[test]
    fn bounded_picks_stay_inside_and_flex_may_overshoot() {
        let s = RegionSampler::new(
            "telescope-bounded",
            Pick::Bounded,
            RegionSamplerParams::default(),
        );
        let gib = 1u64 << 30;
        // A 600 GiB region from 0: PGD entry 0 fits; beyond 512 GiB only PUDs.
        let r = Region {
            start: 0,
            end: 600 * gib,
            nr_accesses: 0,
            last_nr_accesses: 0,
            age: 0,
            sample: None,
        };
        assert_eq!(s.entry_for(&r, 5 * gib).1, Level::Pgd);
        assert_eq!(s.entry_for(&r, 550 * gib).1, Level::Pud);
        // 450 GiB: no PGD fits for bounded; flex accepts 62 GiB (12%) over.
        let r = Region {
            end: 450 * gib,
            ..r
        };
        assert_eq!(s.entry_for(&r, 5 * gib).1, Level::Pud);
        let f = RegionSampler::new("telescope-flex", Pick::Flex, RegionSamplerParams::default());
        assert_eq!(f.entry_for(&r, 5 * gib).1, Level::Pgd);
        // 300 GiB: beyond 15%, flex falls back to PUDs.
        let r = Region {
            end: 300 * gib,
            ..r
        };
        assert_eq!(f.entry_for(&r, 5 * gib).1, Level::Pud);
        // A 3 MiB region: bounded takes the PMD it wholly contains, else PTEs.
        let r = Region {
            start: 2 << 20,
            end: 5 << 20,
            ..r
        };
        assert_eq!(s.entry_for(&r, 3 << 20).1, Level::Pmd);
        assert_eq!(s.entry_for(&r, (4 << 20) + 4096).1, Level::Pte);
        // Flex: the PMD at 4 MiB is half outside (50% > 25%): PTE too.
        assert_eq!(f.entry_for(&r, (4 << 20) + 4096).1, Level::Pte);
    }
}
