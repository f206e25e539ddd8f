//! Workloads described by access *rates*: what the rate-driven machine runs,
//! and (through [`RateStream`]) what the exact machine replays, so that one
//! description drives both backends.
//!
//! A [`RateProfile`] is a list of phases; a phase issues a number of accesses,
//! each of which lands in one of the phase's [`RateSegment`]s with the
//! segment's `share` of probability, uniformly over its bytes, and is a store
//! with the segment's `write_fraction`. Accesses come in *operations*: an
//! operation picks one of the segment's objects (`burst_bytes` each, from the
//! segment's start) uniformly and touches it in order every `stride_bytes`,
//! as a key-value store copies a value or a sweep walks an array; with
//! `burst_bytes = 64` every access is its own
//! operation, the independent reference model of
//! ../shared/reference/rate-model.md (page i of a segment of `n` pages
//! receives `share / n` of the phase's accesses, independently).
//!
//! What the model cannot say exactly, and how it is approximated:
//! - a MASIM *sequential* pattern is a sweep (`sweep`): a cursor over the
//!   segment at its stride, one access per pick; the rate machine counts its
//!   page visits and periodic TLB misses, but not *when* the cursor reaches a
//!   page (the moving position of issue 3), so an Accessed bit over a swept
//!   range is set at the sweep's rate by a Poisson draw rather than at the
//!   passing time;
//! - a MASIM *random* pattern with a stride above 4 KiB touches only every
//!   k-th page; here its accesses are spread over every page of the region.

use crate::{Access, PhaseMark};
use thermocline_backend::RegionInfo;
use thermocline_vocab::{Asid, Rng};

/// A range of one address space that receives a share of a phase's accesses,
/// uniformly over its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct RateSegment {
    /// Address space.
    pub asid: Asid,
    /// First byte.
    pub start: u64,
    /// Length in bytes (> 0).
    pub len: u64,
    /// Fraction of the phase's accesses that land here (the shares of a
    /// phase sum to 1).
    pub share: f64,
    /// Fraction of those accesses that are stores (of operations, when
    /// operations touch more than a line: an operation stores or loads).
    pub write_fraction: f64,
    /// Bytes one operation touches in order (an object); 64 (one line) for
    /// independent accesses, the region's length for a sequential sweep.
    pub burst_bytes: u64,
    /// Bytes between two consecutive accesses of an operation (64: every
    /// line; a MASIM sweep's stride).
    pub stride_bytes: u64,
    /// A moving cursor over the whole segment, advanced one access per pick
    /// (a MASIM sequential pattern): pages recur periodically, not at random.
    pub sweep: bool,
}

impl RateSegment {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.start + self.len
    }

    /// Accesses per operation.
    pub fn lines_per_op(&self) -> u64 {
        self.burst_bytes
            .min(self.len)
            .div_ceil(self.stride_bytes.max(1))
            .max(1)
    }
}

/// One phase of a rate profile.
#[derive(Clone, Debug, PartialEq)]
pub struct RatePhase {
    /// Name, for reports.
    pub name: String,
    /// Accesses the phase issues (all threads).
    pub accesses: u64,
    /// Where they land.
    pub segments: Vec<RateSegment>,
}

/// A workload as access rates.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RateProfile {
    /// Phases in order.
    pub phases: Vec<RatePhase>,
}

impl RateProfile {
    /// Accesses of all phases.
    pub fn total_accesses(&self) -> u64 {
        // Saturates: a huge rate can ask for 2^64 accesses a phase.
        self.phases
            .iter()
            .fold(0u64, |t, p| t.saturating_add(p.accesses))
    }

    /// Phase marks (first access of each phase).
    pub fn marks(&self) -> Vec<PhaseMark> {
        let mut first = 0;
        self.phases
            .iter()
            .map(|p| {
                let m = PhaseMark {
                    name: p.name.clone(),
                    first_access: first,
                };
                first = first.saturating_add(p.accesses);
                m
            })
            .collect()
    }

    /// Checks that every phase's shares are non-negative and sum to 1 and that
    /// every segment lies inside a region.
    pub fn validate(&self, regions: &[RegionInfo]) -> Result<(), String> {
        for p in &self.phases {
            let sum: f64 = p.segments.iter().map(|s| s.share).sum();
            if p.accesses > 0 && (sum - 1.0).abs() > 1e-6 {
                return Err(format!("phase {:?}: shares sum to {sum}, not 1", p.name));
            }
            for s in &p.segments {
                if s.len == 0
                    || !(0.0..=1.0).contains(&s.write_fraction)
                    || s.share < 0.0
                    || s.burst_bytes < 64
                    || s.stride_bytes == 0
                {
                    return Err(format!("phase {:?}: bad segment {s:?}", p.name));
                }
                let inside = regions
                    .iter()
                    .any(|r| r.asid == s.asid && r.start <= s.start && s.end() <= r.end());
                if !inside {
                    return Err(format!(
                        "phase {:?}: segment {:#x}+{:#x} is outside every region",
                        p.name, s.start, s.len
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Replays a [`RateProfile`] access by access for the exact machine.
pub struct RateStream {
    profile: RateProfile,
    phase: usize,
    left: u64,
    /// Cumulative operation weights of the phase's segments.
    cumulative: Vec<f64>,
    /// The operation in progress: next address, accesses left, store or
    /// load, address space, stride.
    op: (u64, u64, bool, u16, u64),
    /// Cursor of each sweep segment of the phase (offset into it).
    cursors: Vec<u64>,
    threads: usize,
    core: usize,
    rng: Rng,
}

impl RateStream {
    /// A stream over `profile`, the accesses of `threads` threads taking turns.
    pub fn new(profile: RateProfile, threads: usize, seed: u64) -> Self {
        let mut s = RateStream {
            profile,
            phase: 0,
            left: 0,
            cumulative: Vec::new(),
            op: (0, 0, false, 0, 64),
            cursors: Vec::new(),
            threads: threads.max(1),
            core: 0,
            rng: Rng::derive(seed, "rate-stream"),
        };
        s.enter(0);
        s
    }

    fn enter(&mut self, i: usize) {
        self.phase = i;
        self.op.1 = 0;
        let Some(p) = self.profile.phases.get(i) else {
            self.left = 0;
            return;
        };
        self.left = p.accesses;
        self.cursors = vec![0; p.segments.len()];
        // An operation of `l` accesses: weight share / l keeps access
        // shares. A sweep advances its cursor one access per pick, as
        // MASIM interleaves its patterns.
        let mut acc = 0.0;
        self.cumulative = p
            .segments
            .iter()
            .map(|s| {
                acc += if s.sweep {
                    s.share
                } else {
                    s.share / s.lines_per_op() as f64
                };
                acc
            })
            .collect();
    }

    fn start_op(&mut self) {
        let segs = &self.profile.phases[self.phase].segments;
        let total = *self.cumulative.last().unwrap_or(&0.0);
        let x = self.rng.unit() * total;
        let k = self
            .cumulative
            .partition_point(|&c| c <= x)
            .min(segs.len() - 1);
        let s = &segs[k];
        if s.sweep {
            let stride = s.stride_bytes.max(1);
            let at = self.cursors[k];
            let next = at + stride;
            self.cursors[k] = if next >= s.len { 0 } else { next };
            self.op = (
                s.start + at,
                1,
                self.rng.chance(s.write_fraction),
                s.asid.0,
                stride,
            );
            return;
        }
        let lines = s.lines_per_op();
        let va = if lines == 1 {
            s.start + (self.rng.below(s.len.div_ceil(64).max(1)) * 64).min(s.len - 1)
        } else {
            let objects = s.len.div_ceil(s.burst_bytes).max(1);
            s.start + self.rng.below(objects) * s.burst_bytes
        };
        let stride = s.stride_bytes.max(1);
        let lines = lines.min((s.end() - va).div_ceil(stride));
        self.op = (
            va,
            lines,
            self.rng.chance(s.write_fraction),
            s.asid.0,
            stride,
        );
    }

    /// Writes up to `buf.len()` accesses; returns how many (0 at the end).
    pub fn fill(&mut self, buf: &mut [Access]) -> usize {
        let mut n = 0;
        while n < buf.len() {
            while self.left == 0 {
                if self.phase + 1 >= self.profile.phases.len() {
                    return n;
                }
                self.enter(self.phase + 1);
            }
            if self.op.1 == 0 {
                self.start_op();
            }
            buf[n] = Access {
                va: self.op.0,
                asid: self.op.3,
                core: self.core as u16,
                write: self.op.2,
            };
            self.op.0 += self.op.4;
            self.op.1 -= 1;
            self.core = (self.core + 1) % self.threads;
            self.left -= 1;
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lay_out;

    #[test]
    fn stream_follows_shares_and_write_fractions() {
        let regions = lay_out(&[("a".into(), 1 << 20), ("b".into(), 1 << 20)], false);
        let seg = |r: &RegionInfo, share, w| RateSegment {
            asid: r.asid,
            start: r.start,
            len: r.len,
            share,
            write_fraction: w,
            burst_bytes: 64,
            stride_bytes: 64,
            sweep: false,
        };
        let profile = RateProfile {
            phases: vec![RatePhase {
                name: "p".into(),
                accesses: 100_000,
                segments: vec![seg(&regions[0], 0.9, 0.0), seg(&regions[1], 0.1, 1.0)],
            }],
        };
        profile.validate(&regions).unwrap();
        let mut s = RateStream::new(profile, 2, 7);
        let mut buf = vec![Access::default(); 100_001];
        assert_eq!(s.fill(&mut buf), 100_000);
        let in_b = buf[..100_000]
            .iter()
            .filter(|a| a.va >= regions[1].start)
            .count();
        assert!((9_000..11_000).contains(&in_b), "{in_b}");
        assert!(buf[..100_000]
            .iter()
            .all(|a| a.write == (a.va >= regions[1].start)));
        assert!(buf[..100_000]
            .iter()
            .all(|a| a.va % 64 == 0 && regions.iter().any(|r| r.start <= a.va && a.va < r.end())));
    }

    #[test]
    fn operations_touch_whole_objects_in_order() {
        let regions = lay_out(&[("a".into(), 1 << 20)], false);
        let profile = RateProfile {
            phases: vec![RatePhase {
                name: "p".into(),
                accesses: 64 * 100,
                segments: vec![RateSegment {
                    asid: regions[0].asid,
                    start: regions[0].start,
                    len: 1 << 20,
                    share: 1.0,
                    write_fraction: 0.5,
                    burst_bytes: 4096,
                    stride_bytes: 64,
                    sweep: false,
                }],
            }],
        };
        let mut s = RateStream::new(profile, 1, 3);
        let mut buf = vec![Access::default(); 6400];
        assert_eq!(s.fill(&mut buf), 6400);
        for op in buf.chunks(64) {
            assert_eq!(op[0].va % 4096, 0);
            assert!(op
                .windows(2)
                .all(|w| w[1].va == w[0].va + 64 && w[1].write == w[0].write));
        }
    }

    #[test]
    fn sweeps_interleave_with_moving_cursors() {
        let regions = lay_out(&[("a".into(), 1 << 20), ("b".into(), 1 << 20)], false);
        let sweep = |r: &RegionInfo| RateSegment {
            asid: r.asid,
            start: r.start,
            len: r.len,
            share: 0.5,
            write_fraction: 0.0,
            burst_bytes: r.len,
            stride_bytes: 4096,
            sweep: true,
        };
        let profile = RateProfile {
            phases: vec![RatePhase {
                name: "p".into(),
                accesses: 1000,
                segments: vec![sweep(&regions[0]), sweep(&regions[1])],
            }],
        };
        let mut s = RateStream::new(profile, 1, 3);
        let mut buf = vec![Access::default(); 1000];
        assert_eq!(s.fill(&mut buf), 1000);
        for r in &regions {
            let offs: Vec<u64> = buf
                .iter()
                .filter(|a| r.start <= a.va && a.va < r.end())
                .map(|a| a.va - r.start)
                .collect();
            assert!(offs.len() > 400);
            for (i, o) in offs.iter().enumerate() {
                assert_eq!(*o, (i as u64 * 4096) % (1 << 20));
            }
        }
    }

    #[test]
    fn validate_rejects_bad_shares_and_outside_segments() {
        let regions = lay_out(&[("a".into(), 1 << 20)], false);
        let mut p = RateProfile {
            phases: vec![RatePhase {
                name: "p".into(),
                accesses: 1,
                segments: vec![RateSegment {
                    asid: Asid(0),
                    start: regions[0].start,
                    len: 4096,
                    share: 0.5,
                    write_fraction: 0.0,
                    burst_bytes: 64,
                    stride_bytes: 64,
                    sweep: false,
                }],
            }],
        };
        assert!(p.validate(&regions).is_err());
        p.phases[0].segments[0].share = 1.0;
        assert!(p.validate(&regions).is_ok());
        p.phases[0].segments[0].start = 0;
        assert!(p.validate(&regions).is_err());
    }
}
