//! The workload's rates over progress: an index per phase, where each phase
//! starts, which ranges are ever accessed, and what the rates add up to over
//! a window of progress.

use crate::index::{Mass, PhaseIndex};
use std::ops::Range;
use thermocline_model::rates::RateProfile;
use thermocline_model::{LlcConfig, TlbConfig};
use thermocline_vocab::RegionInfo;

/// A range of one address space, of bytes (or of 2 MiB units).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Span {
    /// Address space.
    pub asid: u16,
    /// The first in it.
    pub start: u64,
    /// One past the last.
    pub end: u64,
}

/// Where a phase overlaps a window of progress.
#[derive(Clone, Copy, Debug)]
struct Overlap {
    /// The phase.
    phase: usize,
    /// Accesses of the window in it.
    accesses: f64,
}

/// The phases of a rate profile, indexed.
pub(crate) struct Profile {
    phases: Vec<PhaseIndex>,
    /// Progress (accesses) at which each phase starts; one extra for the end.
    starts: Vec<f64>,
    /// Ranges with positive mass in some phase, sorted and merged.
    ever: Vec<Span>,
}

impl Profile {
    /// Indexes `profile` over `regions` with the machine's TLB and LLC.
    pub fn new(
        profile: &RateProfile,
        regions: &[RegionInfo],
        tlb: &TlbConfig,
        llc: &LlcConfig,
    ) -> Self {
        let phases: Vec<PhaseIndex> = profile
            .phases
            .iter()
            .map(|p| PhaseIndex::new(p, regions, tlb, llc))
            .collect();
        let mut starts = vec![0.0];
        for p in &profile.phases {
            let last = *starts.last().expect("non-empty");
            starts.push(last + p.accesses as f64);
        }
        let mut ever: Vec<Span> = phases
            .iter()
            .flat_map(|ix| {
                ix.pieces().iter().map(|p| Span {
                    asid: p.asid,
                    start: p.start,
                    end: p.end,
                })
            })
            .collect();
        ever.sort_unstable();
        let mut merged: Vec<Span> = Vec::new();
        for r in ever {
            match merged.last_mut() {
                Some(m) if m.asid == r.asid && r.start <= m.end => m.end = m.end.max(r.end),
                _ => merged.push(r),
            }
        }
        Profile {
            phases,
            starts,
            ever: merged,
        }
    }

    /// The index of phase `k`, if there is one.
    pub fn phase(&self, k: usize) -> Option<&PhaseIndex> {
        self.phases.get(k)
    }

    /// Phase boundaries: one more than the phases.
    pub fn boundaries(&self) -> usize {
        self.starts.len()
    }

    /// Progress at which phase `k` starts (`k` = the number of phases: the
    /// end of the workload).
    pub fn start(&self, k: usize) -> f64 {
        self.starts[k]
    }

    /// Progress at which the workload ends.
    pub fn end(&self) -> f64 {
        *self.starts.last().expect("non-empty")
    }

    /// Host memory the indexes hold (bytes, approximate).
    pub fn host_bytes(&self) -> usize {
        self.phases
            .iter()
            .map(|p| p.pieces().len() * 100)
            .sum::<usize>()
    }

    /// The progress at which an exponential amount `need` of intensity has
    /// accrued from progress `at` in phase `phase` on, given the rate per
    /// access `intensity(k, phase k)` of each phase (infinite: never).
    /// `need` is drawn only once some phase has a positive rate: an entry
    /// cold from here on is never set, whatever the draw.
    pub fn accrue(
        &self,
        need: impl FnOnce() -> f64,
        mut at: f64,
        phase: usize,
        mut intensity: impl FnMut(usize, &PhaseIndex) -> f64,
    ) -> f64 {
        let mut draw = Some(need);
        let mut need = 0.0;
        for k in phase..self.phases.len() {
            let phase_end = self.starts[k + 1];
            if phase_end <= at {
                continue;
            }
            let m = intensity(k, &self.phases[k]);
            if m > 0.0 {
                if let Some(d) = draw.take() {
                    need = d();
                }
                let span = phase_end - at;
                if need <= m * span {
                    return at + need / m;
                }
                need -= m * span;
            }
            at = phase_end;
        }
        f64::INFINITY
    }

    /// Expected accesses of `kind` to `[start, end)` of `asid` in the
    /// progress window `[from, to)`: the phases from `phase` on first, then
    /// the earlier ones.
    pub fn mass_between(&self, from: f64, to: f64, phase: usize, range: Span, kind: Mass) -> f64 {
        let mut mean = 0.0;
        let later = phase..self.phases.len();
        let earlier = 0..phase.min(self.phases.len());
        for k in later.chain(earlier) {
            let a = from.max(self.starts[k]);
            let b = to.min(self.starts[k + 1]);
            if b > a {
                mean += (b - a) * self.phases[k].mass(range.asid, range.start, range.end, kind);
            }
        }
        mean
    }

    /// Expected accesses to each 2 MiB unit in the progress window
    /// `[from, to)`: the units whose expectation reaches `threshold`, as
    /// sorted, merged intervals of unit numbers `(asid, first, last + 1)`.
    pub fn hot_units(&self, from: f64, to: f64, threshold: f64) -> Vec<(u16, u64, u64)> {
        let mut spans: Vec<Overlap> = Vec::new();
        for k in 0..self.phases.len() {
            let a = from.max(self.starts[k]);
            let b = to.min(self.starts[k + 1]);
            if b > a {
                spans.push(Overlap {
                    phase: k,
                    accesses: b - a,
                });
            }
        }
        let total: f64 = spans.iter().map(|s| s.accesses).sum();
        let threshold = threshold.max(1e-9);
        let mut candidates: Vec<Span> = Vec::new();
        for s in &spans {
            for p in self.phases[s.phase].pieces() {
                // A unit wholly at this density over the whole window: if even
                // that misses the threshold, no unit made of such pieces is hot.
                if p.density[0] * (2u64 << 20) as f64 * total < threshold {
                    continue;
                }
                candidates.push(Span {
                    asid: p.asid,
                    start: p.start >> 21,
                    end: ((p.end - 1) >> 21) + 1,
                });
            }
        }
        candidates.sort_unstable();
        let mut out: Vec<Span> = Vec::new();
        let mut last: Option<(u16, u64)> = None;
        for c in candidates {
            let asid = c.asid;
            for unit in c.start..c.end {
                if last.is_some_and(|l| l >= (asid, unit)) {
                    continue;
                }
                last = Some((asid, unit));
                let count: f64 = spans
                    .iter()
                    .map(|s| {
                        s.accesses
                            * self.phases[s.phase].mass(
                                asid,
                                unit << 21,
                                (unit + 1) << 21,
                                Mass::All,
                            )
                    })
                    .sum();
                if count >= threshold {
                    match out.last_mut() {
                        Some(o) if o.asid == asid && o.end == unit => o.end = unit + 1,
                        _ => out.push(Span {
                            asid,
                            start: unit,
                            end: unit + 1,
                        }),
                    }
                }
            }
        }
        out.into_iter().map(|s| (s.asid, s.start, s.end)).collect()
    }

    /// Whether `[start, end)` of `asid` has positive mass in some phase.
    pub fn ever_hot(&self, asid: u16, start: u64, end: u64) -> bool {
        let i = self
            .ever
            .partition_point(|r| (r.asid, r.end) <= (asid, start));
        self.ever
            .get(i)
            .is_some_and(|r| r.asid == asid && r.start < end && start < r.end)
    }

    /// The next range at or after `start` (below `end`) with positive mass
    /// in some phase, clipped to `[start, end)`.
    pub fn next_ever(&self, asid: u16, start: u64, end: u64) -> Option<Range<u64>> {
        let i = self
            .ever
            .partition_point(|r| (r.asid, r.end) <= (asid, start));
        let r = self.ever.get(i)?;
        (r.asid == asid && r.start < end).then(|| r.start.max(start)..r.end.min(end))
    }
}
