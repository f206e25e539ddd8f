//! Where pages live, as runs of pages with one home: memory proportional to
//! the number of placement decisions, not to the footprint. Also where each
//! region is first placed, by its address space's allocation policy.
//!
//! No tier is placed beyond its capacity. Interleaved and random runs
//! spread their pages (by expectation) only while every tier they spread to
//! has room; the rest of the region then fills the tiers with room in order,
//! as the exact machine's allocator falls back page by page. With two tiers
//! this is the exact machine's expectation; with more, the pages that picked
//! a full tier and those that did not are not told apart after the spread
//! ends (a simplification: no preset spreads over three tiers).

use crate::streams;
use std::cell::Cell;
use std::collections::BTreeMap;
use thermocline_backend::{AllocCounts, MemPolicy};
use thermocline_vocab::{PageType, RegionInfo, Rng};

/// Where the pages of a run live.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Home {
    /// All in one tier.
    Tier(u8),
    /// Page `i` (by page number) in tier `i mod tiers` (MPOL_INTERLEAVE).
    Interleave,
    /// Each page in the fast tier with this probability, else the slowest.
    Random(f64),
}

/// A run of pages of one size and home.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// One past the last byte.
    pub end: u64,
    /// Home of its pages.
    pub home: Home,
    /// Mapped by 2 MiB pages.
    pub huge: bool,
}

/// A mapped page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// First byte.
    pub base: u64,
    /// Bytes: 4 KiB, or 2 MiB for a huge page.
    pub bytes: u64,
    /// Tier it lives in.
    pub tier: u8,
}

impl Page {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.base + self.bytes
    }

    /// Whether it is a 2 MiB page.
    pub fn huge(&self) -> bool {
        self.bytes > 4096
    }
}

/// A run met while walking an address range ([`Placement::run_from`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunAt {
    /// The address to continue from: inside the run.
    pub from: u64,
    /// The run's first byte.
    pub start: u64,
    /// The run.
    pub run: Run,
}

/// The placement of every mapped page.
pub struct Placement {
    runs: BTreeMap<(u16, u64), Run>,
    /// The run [`Placement::find`] last found, (asid, start, run): telemetry
    /// and translations ask about page after page of one run. Emptied
    /// whenever the runs change.
    last: Cell<Option<(u16, u64, Run)>>,
    used: Vec<f64>,
    /// Bytes mapped per tier by address space.
    used_by: BTreeMap<u16, Vec<f64>>,
    tiers: usize,
    seed: u64,
    /// Allocation policy by address space (default: prefer the fast tier).
    policies: BTreeMap<u16, MemPolicy>,
    /// Policies by (address space, page type index) that override the
    /// address space's.
    type_policies: BTreeMap<(u16, usize), MemPolicy>,
    /// Caps on the 4 KiB frames an address space may hold in a tier.
    quotas: BTreeMap<(u16, u8), u64>,
    /// Allocations by address space, per page type.
    allocs: BTreeMap<u16, [AllocCounts; PageType::COUNT]>,
    /// Frame numbers per tier, rebuilt on demand after a change.
    frames: Option<Vec<Vec<FrameSpan>>>,
    /// Whether the regions have been placed.
    mapped: bool,
}

/// A run of pages of one tier in frame order: frames are numbered per
/// tier in (address space, address) order of the pages held there.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FrameSpan {
    /// Frames of the tier before this span (4 KiB units).
    first: u64,
    /// Address space.
    asid: u16,
    /// First byte.
    start: u64,
    /// One past the last byte.
    end: u64,
}

impl Placement {
    /// Nothing mapped yet.
    pub fn new(tiers: usize, seed: u64) -> Self {
        Placement {
            runs: BTreeMap::new(),
            last: Cell::new(None),
            used: vec![0.0; tiers],
            used_by: BTreeMap::new(),
            tiers,
            seed,
            policies: BTreeMap::new(),
            type_policies: BTreeMap::new(),
            quotas: BTreeMap::new(),
            allocs: BTreeMap::new(),
            frames: None,
            mapped: false,
        }
    }

    /// Sets the allocation policy of `asid` for regions not yet placed.
    pub fn set_policy(&mut self, asid: u16, policy: MemPolicy) {
        self.policies.insert(asid, policy);
    }

    /// Sets (or with `None` removes) the policy of pages of type index `ty`
    /// of `asid`, for regions not yet placed.
    pub fn set_type_policy(&mut self, asid: u16, ty: usize, policy: Option<MemPolicy>) {
        match policy {
            Some(p) => self.type_policies.insert((asid, ty), p),
            None => self.type_policies.remove(&(asid, ty)),
        };
    }

    /// Caps (or with `None` uncaps) the 4 KiB frames `asid` holds in `tier`.
    pub fn set_quota(&mut self, asid: u16, tier: u8, pages: Option<u64>) {
        match pages {
            Some(p) => self.quotas.insert((asid, tier), p),
            None => self.quotas.remove(&(asid, tier)),
        };
    }

    /// Bytes `asid` may still place in `tier` under its quota (unbounded
    /// without one).
    pub fn quota_room(&self, asid: u16, tier: usize) -> f64 {
        match self.quotas.get(&(asid, tier as u8)) {
            Some(&q) => (q as f64 * 4096.0 - self.used_by(asid, tier)).max(0.0),
            None => f64::INFINITY,
        }
    }

    /// Bytes `asid` has mapped in `tier` (interleaved and random runs by
    /// expectation).
    pub fn used_by(&self, asid: u16, tier: usize) -> f64 {
        self.used_by.get(&asid).map_or(0.0, |u| u[tier])
    }

    /// The allocations of `asid` so far, per page type.
    pub fn alloc_counts(&self, asid: u16) -> [AllocCounts; PageType::COUNT] {
        self.allocs.get(&asid).copied().unwrap_or_default()
    }

    /// Whether the regions have been placed ([`Placement::map_regions`]).
    pub fn is_mapped(&self) -> bool {
        self.mapped
    }

    /// Places every region by its address space's policy (first touch in
    /// address order) in tiers of capacities `caps` (bytes), once: returns
    /// false if they were already placed.
    pub fn map_regions(&mut self, regions: &[RegionInfo], caps: &[f64]) -> bool {
        if self.mapped {
            return false;
        }
        self.mapped = true;
        let tiers = caps.len();
        for r in regions {
            let (asid, start, end) = (r.asid.0, r.start, r.end());
            let ty = r.page_type.index();
            let policy = self
                .type_policies
                .get(&(asid, ty))
                .or_else(|| self.policies.get(&asid))
                .copied()
                .unwrap_or(MemPolicy::PreferFast);
            let unit = if r.thp { 2u64 << 20 } else { 4096 };
            let pages = (end - start) / 4096;
            let counts = &mut self.allocs.entry(asid).or_default()[ty];
            counts.requests += pages;
            let spread = match policy {
                MemPolicy::Interleave => Some(Home::Interleave),
                MemPolicy::Random { fast_probability } => {
                    Some(Home::Random(fast_probability.clamp(0.0, 1.0)))
                }
                MemPolicy::PreferFast | MemPolicy::Bind { .. } => None,
            };
            let mut at = start;
            let first = match (policy, spread) {
                (_, Some(home)) => {
                    // Spread pages while every tier they go to has room; the
                    // rest falls back, as the exact machine's allocator does
                    // page by page.
                    let shares = self.shares(home);
                    let fits = (0..tiers)
                        .filter(|&t| shares[t] > 0.0)
                        .map(|t| self.room(asid, t, caps) / shares[t])
                        .fold(f64::INFINITY, f64::min);
                    let len = (fits.min((end - start) as f64) as u64) / unit * unit;
                    if len > 0 {
                        self.set(asid, start, start + len, home, r.thp);
                        let counts = &mut self.allocs.entry(asid).or_default()[ty];
                        counts.preferred += len / 4096;
                        at = start + len;
                    }
                    if at >= end {
                        continue;
                    }
                    // Pages that picked a full tier fall back; the others
                    // still go where they picked.
                    let rest = (end - at) / 4096;
                    let full: f64 = (0..tiers)
                        .filter(|&t| self.room(asid, t, caps) < unit as f64)
                        .map(|t| shares[t])
                        .sum();
                    let fallback = (rest as f64 * full).round() as u64;
                    let counts = &mut self.allocs.entry(asid).or_default()[ty];
                    counts.fallback += fallback;
                    counts.preferred += rest - fallback;
                    // The rest fills the tiers with room in order (exact for
                    // two tiers; with more, a simplification: see the module
                    // docs).
                    self.fill(asid, at..end, r.thp, 0, caps, None);
                    continue;
                }
                (MemPolicy::Bind { tier }, None) => tier.index().min(tiers - 1),
                _ => 0,
            };
            self.fill(asid, at..end, r.thp, first, caps, Some(ty));
        }
        true
    }

    /// Bytes `asid` may still place in `tier`: the tier's free bytes within
    /// the address space's quota.
    fn room(&self, asid: u16, tier: usize, caps: &[f64]) -> f64 {
        (caps[tier] - self.used[tier])
            .min(self.quota_room(asid, tier))
            .max(0.0)
    }

    /// Places `[at, end)` in tier `first` while it has room, then in the
    /// others in order; the last takes what is left. Counts the pages as
    /// preferred or fallback allocations of type `ty` when given.
    fn fill(
        &mut self,
        asid: u16,
        range: std::ops::Range<u64>,
        huge: bool,
        first: usize,
        caps: &[f64],
        ty: Option<usize>,
    ) {
        let unit = if huge { 2u64 << 20 } else { 4096 };
        let (mut at, end) = (range.start, range.end);
        let tiers = caps.len();
        let order = std::iter::once(first).chain((0..tiers).filter(|&t| t != first));
        for (i, t) in order.enumerate() {
            if at >= end {
                break;
            }
            let room = self.room(asid, t, caps) as u64 / unit * unit;
            let take = if i + 1 == tiers {
                end - at
            } else {
                room.min(end - at)
            };
            if take > 0 {
                self.set(asid, at, at + take, Home::Tier(t as u8), huge);
                if let Some(ty) = ty {
                    let counts = &mut self.allocs.entry(asid).or_default()[ty];
                    if i == 0 {
                        counts.preferred += take / 4096;
                    } else {
                        counts.fallback += take / 4096;
                    }
                }
                at += take;
            }
        }
    }

    /// Bytes mapped per tier (interleaved and random runs by expectation).
    pub fn used(&self) -> &[f64] {
        &self.used
    }

    /// The runs, in address order.
    pub fn runs(&self) -> impl Iterator<Item = (u16, u64, &Run)> {
        self.runs.iter().map(|(&(a, s), r)| (a, s, r))
    }

    /// Runs in the map.
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// Fraction of a run's bytes in each tier.
    pub fn shares(&self, home: Home) -> Vec<f64> {
        let mut s = vec![0.0; self.tiers];
        match home {
            Home::Tier(t) => s[t as usize] = 1.0,
            Home::Interleave => s.iter_mut().for_each(|x| *x = 1.0 / self.tiers as f64),
            Home::Random(p) => {
                s[0] = p;
                s[self.tiers - 1] += 1.0 - p;
            }
        }
        s
    }

    /// The run containing `va`: (start, run).
    pub fn find(&self, asid: u16, va: u64) -> Option<(u64, Run)> {
        if let Some((a, start, run)) = self.last.get() {
            if a == asid && start <= va && va < run.end {
                return Some((start, run));
            }
        }
        let (&(a, start), run) = self.runs.range(..=(asid, va)).next_back()?;
        let found = (a == asid && va < run.end).then_some((start, *run));
        if found.is_some() {
            self.last.set(Some((asid, start, *run)));
        }
        found
    }

    /// The run containing `va`, else the next run of `asid` that starts
    /// below `end`.
    pub fn run_from(&self, asid: u16, va: u64, end: u64) -> Option<RunAt> {
        if let Some((start, run)) = self.find(asid, va) {
            return Some(RunAt {
                from: va,
                start,
                run,
            });
        }
        let (&(_, s), run) = self
            .runs
            .range((asid, va.saturating_add(1))..(asid, u64::MAX))
            .next()?;
        (s < end).then_some(RunAt {
            from: s,
            start: s,
            run: *run,
        })
    }

    /// The page containing `va`.
    pub fn page(&self, asid: u16, va: u64) -> Option<Page> {
        let (_, run) = self.find(asid, va)?;
        let bytes = if run.huge { 2u64 << 20 } else { 4096 };
        let base = va & !(bytes - 1);
        let tier = match run.home {
            Home::Tier(t) => t,
            Home::Interleave => ((base / bytes) % self.tiers as u64) as u8,
            Home::Random(p) => {
                if Rng::keyed_unit(self.seed, streams::RANDOM_HOME, u64::from(asid), base) <= p {
                    0
                } else {
                    (self.tiers - 1) as u8
                }
            }
        };
        Some(Page { base, bytes, tier })
    }

    fn account(&mut self, asid: u16, len: u64, home: Home, sign: f64) {
        let tiers = self.tiers;
        let shares = self.shares(home);
        let by = self.used_by.entry(asid).or_insert_with(|| vec![0.0; tiers]);
        for (t, s) in shares.into_iter().enumerate() {
            self.used[t] += sign * s * len as f64;
            by[t] += sign * s * len as f64;
        }
    }

    /// The page held in frame `frame` of `tier` (4 KiB frames numbered in
    /// (address space, address) order of the tier's pages): (address space,
    /// the frame's 4 KiB piece). Pages of interleaved or random runs have
    /// no frame here.
    pub fn reverse(&mut self, tier: usize, frame: u64) -> Option<(u16, u64)> {
        if self.frames.is_none() {
            let mut per = vec![Vec::new(); self.tiers];
            let mut count = vec![0u64; self.tiers];
            for (&(asid, start), run) in &self.runs {
                if let Home::Tier(t) = run.home {
                    let t = t as usize;
                    per[t].push(FrameSpan {
                        first: count[t],
                        asid,
                        start,
                        end: run.end,
                    });
                    count[t] += (run.end - start) / 4096;
                }
            }
            self.frames = Some(per);
        }
        let spans = self.frames.as_ref()?.get(tier)?;
        let i = spans.partition_point(|s| s.first <= frame).checked_sub(1)?;
        let s = spans[i];
        let va = s.start + (frame - s.first) * 4096;
        (va < s.end).then_some((s.asid, va))
    }

    /// Splits the run containing `at` (if any) so that a run starts at `at`.
    fn cut(&mut self, asid: u16, at: u64) {
        if let Some((start, run)) = self.find(asid, at) {
            if start < at {
                self.runs.get_mut(&(asid, start)).expect("found").end = at;
                self.runs.insert((asid, at), run);
                self.last.set(None);
            }
        }
    }

    /// Maps `[start, end)` (or re-homes it) with `home` and page size `huge`.
    /// Pages of the range that were not mapped become mapped.
    pub fn set(&mut self, asid: u16, start: u64, end: u64, home: Home, huge: bool) {
        if end <= start {
            return;
        }
        self.cut(asid, start);
        self.cut(asid, end);
        let old: Vec<(u64, Run)> = self
            .runs
            .range((asid, start)..(asid, end))
            .map(|(&(_, s), r)| (s, *r))
            .collect();
        for (s, r) in old {
            self.account(asid, r.end - s, r.home, -1.0);
            self.runs.remove(&(asid, s));
        }
        self.account(asid, end - start, home, 1.0);
        self.frames = None;
        self.runs.insert((asid, start), Run { end, home, huge });
        self.merge_around(asid, start);
        self.last.set(None);
    }

    /// Merges the run at `start` with equal neighbours.
    fn merge_around(&mut self, asid: u16, start: u64) {
        let mut start = start;
        let Some(run) = self.runs.get(&(asid, start)).copied() else {
            return;
        };
        if let Some((&(a, ps), prev)) = self.runs.range(..(asid, start)).next_back() {
            if a == asid && prev.end == start && prev.home == run.home && prev.huge == run.huge {
                self.runs.remove(&(asid, start));
                self.runs.get_mut(&(asid, ps)).expect("prev").end = run.end;
                start = ps;
            }
        }
        let run = self.runs[&(asid, start)];
        if let Some(next) = self.runs.get(&(asid, run.end)).copied() {
            if next.home == run.home && next.huge == run.huge {
                self.runs.remove(&(asid, run.end));
                self.runs.get_mut(&(asid, start)).expect("run").end = next.end;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_splits_merges_and_accounts() {
        let mut p = Placement::new(2, 1);
        p.set(0, 0, 1 << 30, Home::Tier(1), false);
        p.set(0, 4096, 8192, Home::Tier(0), false);
        assert_eq!(p.run_count(), 3);
        let page = |base, tier| Page {
            base,
            bytes: 4096,
            tier,
        };
        assert_eq!(p.page(0, 5000), Some(page(4096, 0)));
        assert_eq!(p.page(0, 9000), Some(page(8192, 1)));
        assert_eq!(p.used()[0], 4096.0);
        p.set(0, 4096, 8192, Home::Tier(1), false);
        assert_eq!(p.run_count(), 1);
        assert_eq!(p.used()[1], (1u64 << 30) as f64);
        assert_eq!(p.page(1, 0), None);
    }

    fn region(len: u64, thp: bool) -> RegionInfo {
        RegionInfo {
            asid: thermocline_vocab::Asid(0),
            name: "r".into(),
            start: 0,
            len,
            page_type: PageType::Anon,
            thp,
        }
    }

    #[test]
    fn spreading_policies_fall_back_when_the_fast_tier_fills() {
        // 100 MiB at 10 MiB fast: random (p 0.5) and interleave spread the
        // first 20 MiB, then the slow tier takes the rest, as the exact
        // machine's allocator does page by page.
        for policy in [
            MemPolicy::Random {
                fast_probability: 0.5,
            },
            MemPolicy::Interleave,
        ] {
            let mut p = Placement::new(2, 1);
            p.set_policy(0, policy);
            p.map_regions(&[region(100 << 20, false)], &[(10 << 20) as f64, 1e12]);
            assert_eq!(p.used()[0], (10u64 << 20) as f64, "{policy:?}");
            assert_eq!(p.used()[1], (90u64 << 20) as f64, "{policy:?}");
            assert_eq!(p.page(0, 50 << 20).unwrap().tier, 1, "{policy:?}");
            let c = p.alloc_counts(0)[PageType::Anon.index()];
            assert_eq!(c.requests, 25600);
            // of the 80 MiB past the spread, half picked the full tier
            assert_eq!(c.fallback, 10240, "{policy:?}");
            assert_eq!(c.preferred + c.fallback, c.requests);
        }
    }

    #[test]
    fn a_certain_fast_pick_fills_the_fast_tier_and_no_more() {
        let mut p = Placement::new(2, 1);
        p.set_policy(
            0,
            MemPolicy::Random {
                fast_probability: 1.0,
            },
        );
        p.map_regions(&[region(64 << 20, true)], &[(9 << 20) as f64, 1e12]);
        // 2 MiB pages: four fit in 9 MiB
        assert_eq!(p.used()[0], (8u64 << 20) as f64);
        assert_eq!(p.used()[1], (56u64 << 20) as f64);
    }

    #[test]
    fn interleave_alternates_pages() {
        let mut p = Placement::new(2, 1);
        p.set(0, 0, 1 << 20, Home::Interleave, false);
        let tiers: Vec<u8> = (0..4).map(|i| p.page(0, i * 4096).unwrap().tier).collect();
        assert_eq!(tiers, vec![0, 1, 0, 1]);
        assert_eq!(p.used()[0], (1u64 << 19) as f64);
    }
}
