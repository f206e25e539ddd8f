//! One phase's access rates as disjoint pieces of uniform density, with prefix
//! sums, so that the mass of accesses (or of stores, or of TLB misses) under
//! any virtual range is two binary searches: O(log pieces), whatever the size
//! of the range (../shared/reference/rate-model.md, "upper-level entry").

use crate::che::{characteristic_time, miss_probability, miss_probability_of, ItemGroup};
use std::sync::atomic::{AtomicUsize, Ordering};
use thermocline_model::rates::RatePhase;
use thermocline_model::{LlcConfig, TlbConfig};
use thermocline_vocab::RegionInfo;

/// Which mass a query sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mass {
    /// Every access.
    All = 0,
    /// Stores.
    Writes = 1,
    /// Accesses that miss the STLB (hardware walks).
    Walks = 2,
    /// Accesses that miss the L1 dTLB.
    L1Misses = 3,
    /// Accesses that miss the LLC (all of them when no LLC is modelled).
    LlcMisses = 4,
    /// Loads.
    Reads = 5,
    /// Page-table entries read by hardware walks.
    WalkEntries = 6,
    /// Operations (an operation touches `burst` bytes in order); a range
    /// query also counts the operations on objects that only partly overlap
    /// it ([`PhaseIndex::ops`]).
    Ops = 7,
}

const KINDS: usize = 8;

/// A range of one address space with uniform access density.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// Address space.
    pub asid: u16,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Fraction of the phase's accesses per byte, by [`Mass`] kind.
    pub density: [f64; KINDS],
    /// Whether the region is backed by huge pages.
    pub huge: bool,
    /// Bytes an operation touches in order (64: independent accesses).
    pub burst: u64,
    /// Bytes between an operation's consecutive accesses.
    pub stride: u64,
    /// Whether the piece's operation sweeps its whole segment (pages and
    /// lines then recur periodically rather than at random).
    pub periodic: bool,
}

/// The index of one phase.
#[derive(Clone, Debug, Default)]
pub struct PhaseIndex {
    pieces: Vec<Piece>,
    /// Mass before each piece, by kind; one extra entry for the total.
    cum: Vec<[f64; KINDS]>,
    /// Operations per access on one object of each piece, summed before it.
    cum_object_ops: Vec<f64>,
    /// Where the last search by start ended.
    hint: Hint,
}

/// A position in `pieces` to try before a binary search: telemetry asks
/// about pages in address order (a scan clears page after page), so the
/// next answer is most often the last one or the one after it.
#[derive(Debug, Default)]
struct Hint(AtomicUsize);

impl Clone for Hint {
    fn clone(&self) -> Self {
        Hint(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
}

/// The shape of a segment's operations. Ordered by bytes first: where
/// segments overlap, a piece takes the largest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct OpShape {
    /// Bytes an operation touches.
    burst: u64,
    /// Bytes between its consecutive accesses.
    stride: u64,
    /// Whether it sweeps the whole segment.
    sweep: bool,
}

/// Where a segment starts or ends.
#[derive(Clone, Copy, Debug)]
struct Boundary {
    asid: u16,
    va: u64,
    /// Change in access density (per byte) from here on.
    density: f64,
    /// Change in store density.
    writes: f64,
    /// +1 where a segment starts, -1 where one ends.
    delta: i32,
    /// The segment's operations.
    op: OpShape,
}

fn key(asid: u16, va: u64) -> (u16, u64) {
    (asid, va)
}

impl PhaseIndex {
    /// Builds the index of `phase` over `regions` with the machine's TLB and LLC.
    pub fn new(
        phase: &RatePhase,
        regions: &[RegionInfo],
        tlb: &TlbConfig,
        llc: &LlcConfig,
    ) -> Self {
        // Sweep over segment boundaries per address space: densities add up
        // where segments overlap, and a piece takes the largest operation
        // among them.
        let mut events: Vec<Boundary> = Vec::new();
        for s in &phase.segments {
            if s.share <= 0.0 || s.len == 0 {
                continue;
            }
            let d = s.share / s.len as f64;
            let op = OpShape {
                burst: s.burst_bytes.min(s.len).max(64),
                stride: s.stride_bytes.max(1),
                sweep: s.sweep,
            };
            let edge = |va, sign: f64, delta| Boundary {
                asid: s.asid.0,
                va,
                density: sign * d,
                writes: sign * d * s.write_fraction,
                delta,
                op,
            };
            events.push(edge(s.start, 1.0, 1));
            events.push(edge(s.end(), -1.0, -1));
        }
        events.sort_by_key(|e| (e.asid, e.va));
        let mut pieces: Vec<Piece> = Vec::new();
        let (mut d, mut w, mut active) = (0.0f64, 0.0f64, 0i32);
        let mut bursts: std::collections::BTreeMap<OpShape, i32> = Default::default();
        let mut i = 0;
        while i < events.len() {
            let (asid, at) = (events[i].asid, events[i].va);
            while let Some(e) = events.get(i).filter(|e| e.asid == asid && e.va == at) {
                d += e.density;
                w += e.writes;
                active += e.delta;
                let n = bursts.entry(e.op).or_insert(0);
                *n += e.delta;
                if *n == 0 {
                    bursts.remove(&e.op);
                }
                i += 1;
            }
            if active == 0 {
                (d, w) = (0.0, 0.0);
            }
            let Some(next) = events.get(i).filter(|e| e.asid == asid).map(|e| e.va) else {
                continue;
            };
            if active > 0 && d > 0.0 {
                let huge = regions
                    .iter()
                    .any(|r| r.asid.0 == asid && r.start <= at && at < r.end() && r.thp);
                let mut density = [0.0; KINDS];
                density[Mass::All as usize] = d;
                density[Mass::Writes as usize] = w.clamp(0.0, d);
                density[Mass::Reads as usize] = d - density[Mass::Writes as usize];
                let OpShape {
                    burst,
                    stride,
                    sweep: periodic,
                } = bursts.keys().next_back().copied().unwrap_or(OpShape {
                    burst: 64,
                    stride: 64,
                    sweep: false,
                });
                // Operations per access: one per burst / stride accesses.
                density[Mass::Ops as usize] = d * (stride.min(burst) as f64) / burst as f64;
                pieces.push(Piece {
                    asid,
                    start: at,
                    end: next,
                    density,
                    huge,
                    burst,
                    stride,
                    periodic,
                });
            }
        }
        apply_tlb_and_llc(&mut pieces, tlb, llc);
        let mut cum = Vec::with_capacity(pieces.len() + 1);
        let mut acc = [0.0; KINDS];
        for p in &pieces {
            cum.push(acc);
            for (k, a) in acc.iter_mut().enumerate() {
                *a += p.density[k] * (p.end - p.start) as f64;
            }
        }
        cum.push(acc);
        let mut cum_object_ops = Vec::with_capacity(pieces.len() + 1);
        let mut c = 0.0;
        for p in &pieces {
            cum_object_ops.push(c);
            c += p.density[Mass::Ops as usize] * p.burst as f64;
        }
        cum_object_ops.push(c);
        PhaseIndex {
            pieces,
            cum,
            cum_object_ops,
            hint: Hint::default(),
        }
    }

    /// Operations per access that touch `[start, end)`: those starting
    /// inside it, plus one object's worth for each piece it overlaps (the
    /// object it cuts into). For independent accesses this is the access
    /// mass plus a negligible term.
    pub fn ops(&self, asid: u16, start: u64, end: u64) -> f64 {
        self.ops_and_walks(asid, start, end, false).0
    }

    /// [`Self::ops`] and, if `walks`, the walk mass of `[start, end)` (else
    /// 0), from one search for each end of the range: a scan asks this of
    /// every page.
    fn ops_and_walks(&self, asid: u16, start: u64, end: u64, walks: bool) -> (f64, f64) {
        if end <= start {
            return (0.0, 0.0);
        }
        let i0 = self.starting_at_or_before(asid, start);
        let i1 = self.starting_at_or_before(asid, end);
        let mass =
            |kind| (self.cdf_at(i1, asid, end, kind) - self.cdf_at(i0, asid, start, kind)).max(0.0);
        // Pieces are sorted and disjoint: those ending by `start` are the
        // ones starting by it but the last if that one reaches past it;
        // those starting before `end`, the ones starting by it but one
        // starting at it.
        let first = match i0.checked_sub(1).map(|j| &self.pieces[j]) {
            Some(p) if key(p.asid, p.end) > key(asid, start) => i0 - 1,
            _ => i0,
        };
        let last = match i1.checked_sub(1).map(|j| &self.pieces[j]) {
            Some(p) if key(p.asid, p.start) == key(asid, end) => i1 - 1,
            _ => i1,
        };
        let cut = if last > first {
            self.cum_object_ops[last] - self.cum_object_ops[first]
        } else {
            0.0
        };
        let w = if walks { mass(Mass::Walks) } else { 0.0 };
        (mass(Mass::Ops) + cut, w)
    }

    /// The rate (per access) at which an Accessed bit over `[start, end)`,
    /// once cleared, is set again: by the next operation that walks the
    /// page table under it, or, for a leaf whose TLB entry was flushed, by
    /// the next operation on it.
    pub fn set_intensity(&self, asid: u16, start: u64, end: u64, flushed_leaf: bool) -> f64 {
        let (ops, walks) = self.ops_and_walks(asid, start, end, !flushed_leaf);
        if flushed_leaf {
            ops
        } else {
            ops.min(walks)
        }
    }

    /// [`Self::set_intensity`] unflushed and flushed, from one search.
    pub fn set_intensities(&self, asid: u16, start: u64, end: u64) -> (f64, f64) {
        let (ops, walks) = self.ops_and_walks(asid, start, end, true);
        (ops.min(walks), ops)
    }

    /// The pieces with positive density, sorted.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The piece containing `va`, if it has any mass.
    pub fn piece_at(&self, asid: u16, va: u64) -> Option<&Piece> {
        let i = self.starting_at_or_before(asid, va);
        let p = self.pieces.get(i.checked_sub(1)?)?;
        (p.asid == asid && va < p.end).then_some(p)
    }

    /// Mass of `kind` over all pieces (1 for `Mass::All` in a phase with accesses).
    pub fn total(&self, kind: Mass) -> f64 {
        self.cum.last().map_or(0.0, |c| c[kind as usize])
    }

    /// The number of pieces that start at or before `va` of `asid`: what
    /// `partition_point` over the starts gives, found from the hint when
    /// the answer is the hint or the one after it.
    fn starting_at_or_before(&self, asid: u16, va: u64) -> usize {
        let k = key(asid, va);
        let starts_by = |i: usize| key(self.pieces[i].asid, self.pieces[i].start) <= k;
        let n = self.pieces.len();
        let h = self.hint.0.load(Ordering::Relaxed);
        for i in [h, h + 1] {
            if i <= n && (i == 0 || starts_by(i - 1)) && (i == n || !starts_by(i)) {
                self.hint.0.store(i, Ordering::Relaxed);
                return i;
            }
        }
        let i = self.pieces.partition_point(|p| key(p.asid, p.start) <= k);
        self.hint.0.store(i, Ordering::Relaxed);
        i
    }

    /// Mass of `kind` below `va` in address space `asid` (and in lower ones).
    fn cdf(&self, asid: u16, va: u64, kind: Mass) -> f64 {
        self.cdf_at(self.starting_at_or_before(asid, va), asid, va, kind)
    }

    /// [`Self::cdf`], given `i`, the pieces starting at or before `va`.
    fn cdf_at(&self, i: usize, asid: u16, va: u64, kind: Mass) -> f64 {
        if i == 0 {
            return 0.0;
        }
        let p = &self.pieces[i - 1];
        let k = kind as usize;
        if p.asid == asid && va < p.end {
            self.cum[i - 1][k] + p.density[k] * (va - p.start) as f64
        } else {
            self.cum[i][k]
        }
    }

    /// Fraction of the phase's accesses of `kind` that fall in `[start, end)`.
    pub fn mass(&self, asid: u16, start: u64, end: u64, kind: Mass) -> f64 {
        if end <= start {
            return 0.0;
        }
        (self.cdf(asid, end, kind) - self.cdf(asid, start, kind)).max(0.0)
    }

    /// The address at which the cumulative mass of `kind` reaches `u` times
    /// the total (inverse CDF): how samples are drawn. `None` if there is no mass.
    pub fn locate(&self, u: f64, kind: Mass) -> Option<(u16, u64)> {
        let k = kind as usize;
        let total = self.total(kind);
        if total <= 0.0 || self.pieces.is_empty() {
            return None;
        }
        let target = u.clamp(0.0, 1.0) * total;
        let i = self
            .cum
            .partition_point(|c| c[k] <= target)
            .saturating_sub(1)
            .min(self.pieces.len() - 1);
        let p = &self.pieces[i];
        let d = p.density[k];
        let off = if d > 0.0 {
            ((target - self.cum[i][k]) / d) as u64
        } else {
            0
        };
        Some((p.asid, (p.start + off).min(p.end - 1)))
    }
}

/// Sets the walk, L1-miss and LLC-miss densities of each piece by Che's
/// approximation. The L1 dTLBs hold 4 KiB and 2 MiB translations apart; the
/// STLB holds both. Items straddling pieces are counted fractionally, and
/// the L1 and STLB are treated as independent LRU caches (inclusion ignored).
fn apply_tlb_and_llc(pieces: &mut [Piece], tlb: &TlbConfig, llc: &LlcConfig) {
    let item = |p: &Piece| if p.huge { 2u64 << 20 } else { 4096 } as f64;
    // An operation touches a page's lines in a row: only the first can miss.
    let per_visit = |p: &Piece| ((p.burst as f64).min(item(p)) / p.stride as f64).max(1.0);
    let group = |p: &Piece, bytes: f64| ItemGroup {
        count: (p.end - p.start) as f64 / bytes,
        p: p.density[0] * bytes,
        periodic: p.periodic,
    };
    let page_group = |p: &Piece| ItemGroup {
        count: (p.end - p.start) as f64 / item(p),
        p: p.density[0] * item(p) / per_visit(p),
        periodic: p.periodic,
    };
    let all: Vec<ItemGroup> = pieces.iter().map(page_group).collect();
    let of = |huge: bool| -> Vec<ItemGroup> {
        pieces
            .iter()
            .filter(|p| p.huge == huge)
            .map(page_group)
            .collect()
    };
    let t_stlb = characteristic_time(&all, tlb.stlb_entries as f64);
    let t_l1_base = characteristic_time(&of(false), tlb.l1_base_entries as f64);
    let t_l1_huge = characteristic_time(&of(true), tlb.l1_huge_entries as f64);
    // Paging-structure caches, fed by walks: PDE cache entries per 2 MiB,
    // PDPTE per 1 GiB, PML4 per 512 GiB of address space. A piece that
    // spans whole blocks contributes items of its own; pieces that share a
    // block add their walk mass to that block's item.
    // Walks per access: per page visit, the STLB miss probability.
    let walk_density = |p: &Piece| {
        let g = page_group(p);
        g.p / item(p) * miss_probability_of(&g, t_stlb)
    };
    let psc_bytes = [2u64 << 20, 1u64 << 30, 1u64 << 39];
    // An operation's walks come in runs inside one block (a sweep walks a
    // 2 MiB block's 512 pages in a row): only a run's first walk can miss
    // the block's paging-structure-cache entry.
    let run = |p: &Piece, bytes: u64| {
        ((p.burst.min(bytes)) as f64 / item(p).max(p.stride as f64)).max(1.0)
    };
    let mut block_mass: Vec<std::collections::BTreeMap<(u16, u64), f64>> =
        vec![Default::default(); 3];
    let mut t_psc: Vec<Option<f64>> = Vec::new();
    for (i, &bytes) in psc_bytes.iter().enumerate() {
        let mut groups = Vec::new();
        for p in pieces.iter() {
            let w = walk_density(p) / run(p, bytes);
            let (first_full, end_full) = (p.start.div_ceil(bytes), p.end / bytes);
            if end_full > first_full {
                groups.push(ItemGroup::poisson(
                    (end_full - first_full) as f64,
                    w * bytes as f64,
                ));
            }
            // Partial blocks at either end (or the one block holding the piece).
            for blk in [p.start / bytes, (p.end - 1) / bytes] {
                let lo = p.start.max(blk * bytes);
                let hi = p.end.min((blk + 1) * bytes);
                let full = lo == blk * bytes && hi == (blk + 1) * bytes;
                if !full && hi > lo {
                    *block_mass[i].entry((p.asid, blk)).or_insert(0.0) += w * (hi - lo) as f64;
                }
                if p.start / bytes == (p.end - 1) / bytes {
                    break;
                }
            }
        }
        groups.extend(block_mass[i].values().map(|&m| ItemGroup::poisson(1.0, m)));
        let n = [tlb.psc_entries[2], tlb.psc_entries[1], tlb.psc_entries[0]][i];
        t_psc.push(characteristic_time(&groups, n as f64));
    }
    let lines: Vec<ItemGroup> = pieces.iter().map(|p| group(p, 64.0)).collect();
    let t_llc = (llc.bytes > 0).then(|| characteristic_time(&lines, (llc.bytes / 64) as f64));
    for p in pieces.iter_mut() {
        let v = per_visit(p);
        let g = page_group(p);
        // Misses per access: per visit, divided by the visit's accesses.
        let l1 = miss_probability_of(&g, if p.huge { t_l1_huge } else { t_l1_base }) / v;
        let walk = (miss_probability_of(&g, t_stlb) / v).min(l1);
        let llc_miss = match t_llc {
            None => 1.0,
            Some(t) => miss_probability_of(&group(p, 64.0), t),
        };
        p.density[Mass::Walks as usize] = p.density[0] * walk;
        // Entries a walk reads: it starts below the deepest PSC hit (a 2 MiB
        // leaf PDE is not cached in the PDE cache).
        let w = p.density[0] * walk;
        let hit = |i: usize| {
            let bytes = psc_bytes[i];
            let r = run(p, bytes);
            let popularity = if p.end - p.start >= bytes {
                w * bytes as f64 / r
            } else {
                block_mass[i]
                    .get(&(p.asid, p.start / bytes))
                    .copied()
                    .unwrap_or(w * (p.end - p.start) as f64 / r)
            };
            1.0 - miss_probability(popularity, t_psc[i]) / r
        };
        let (pde, pdpte, pml4) = (if p.huge { 0.0 } else { hit(0) }, hit(1), hit(2));
        let levels = if p.huge { 3.0 } else { 4.0 };
        let entries = pde * (levels - 3.0)
            + (1.0 - pde)
                * (pdpte * (levels - 2.0)
                    + (1.0 - pdpte) * (pml4 * (levels - 1.0) + (1.0 - pml4) * levels));
        p.density[Mass::WalkEntries as usize] = w * entries;
        p.density[Mass::L1Misses as usize] = p.density[0] * l1;
        p.density[Mass::LlcMisses as usize] = p.density[0] * llc_miss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_model::rates::RateSegment;
    use thermocline_vocab::{Asid, PageType};

    /// Regions laid out from 1 GiB, each followed by a 2 MiB gap (as the
    /// workloads crate lays out MASIM regions).
    fn lay_out(sizes: &[(String, u64)], thp: bool) -> Vec<RegionInfo> {
        let mut va = 1 << 30;
        sizes
            .iter()
            .map(|(name, len)| {
                let r = RegionInfo {
                    asid: Asid(0),
                    name: name.clone(),
                    start: va,
                    len: *len,
                    page_type: PageType::Anon,
                    thp,
                };
                va += len.div_ceil(2 << 20) * (2 << 20) + (2 << 20);
                r
            })
            .collect()
    }

    fn phase(segs: &[(u64, u64, f64, f64)]) -> RatePhase {
        RatePhase {
            name: "p".into(),
            accesses: 1,
            segments: segs
                .iter()
                .map(|&(start, len, share, w)| RateSegment {
                    asid: Asid(0),
                    start,
                    len,
                    share,
                    write_fraction: w,
                    burst_bytes: 64,
                    stride_bytes: 64,
                    sweep: false,
                })
                .collect(),
        }
    }

    #[test]
    fn overlapping_segments_add_and_masses_are_exact() {
        let r = lay_out(&[("a".into(), 1 << 30)], false);
        let b = r[0].start;
        let ph = phase(&[(b, 1 << 30, 0.5, 0.0), (b + (1 << 29), 1 << 20, 0.5, 1.0)]);
        let ix = PhaseIndex::new(&ph, &r, &TlbConfig::default(), &LlcConfig::default());
        assert_eq!(ix.pieces().len(), 3);
        assert!((ix.total(Mass::All) - 1.0).abs() < 1e-12);
        assert!((ix.total(Mass::Writes) - 0.5).abs() < 1e-12);
        let hot = ix.mass(0, b + (1 << 29), b + (1 << 29) + (1 << 20), Mass::All);
        assert!((hot - (0.5 + 0.5 / 1024.0)).abs() < 1e-9, "{hot}");
        let quarter = ix.mass(0, b, b + (1 << 28), Mass::All);
        assert!((quarter - 0.125).abs() < 1e-12);
        assert_eq!(ix.mass(0, 0, b, Mass::All), 0.0);
        assert_eq!(ix.mass(1, b, b + (1 << 30), Mass::All), 0.0);
        // Inverse CDF: half of the mass lies below the hot megabyte's middle.
        let (_, va) = ix.locate(0.5, Mass::All).unwrap();
        assert!(
            va >= b + (1 << 29) && va < b + (1 << 29) + (1 << 20),
            "{va:#x}"
        );
    }

    #[test]
    fn a_footprint_larger_than_the_tlb_walks_and_a_small_one_does_not() {
        let r = lay_out(&[("a".into(), 1 << 30), ("b".into(), 1 << 20)], false);
        let big = PhaseIndex::new(
            &phase(&[(r[0].start, 1 << 30, 1.0, 0.0)]),
            &r,
            &TlbConfig::default(),
            &LlcConfig::default(),
        );
        let w = big.total(Mass::Walks);
        assert!((w - (1.0 - 1536.0 / 262_144.0)).abs() < 1e-6, "{w}");
        let small = PhaseIndex::new(
            &phase(&[(r[1].start, 1 << 20, 1.0, 0.0)]),
            &r,
            &TlbConfig::default(),
            &LlcConfig::default(),
        );
        assert_eq!(small.total(Mass::Walks), 0.0);
        assert!(small.total(Mass::L1Misses) > 0.5);
    }
}
