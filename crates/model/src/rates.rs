//! Workloads described by access *rates*: what the rate-driven machine runs,
//! and (through `thermocline_workloads::rates::RateStream`) what the exact
//! machine replays, so that one description drives both backends. It lives
//! here, below both, so that no backend depends on the workloads crate.
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

use thermocline_vocab::{Asid, RegionInfo};

/// A phase boundary, for reports.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PhaseMark {
    /// Phase name.
    pub name: String,
    /// Index of the first access of the phase.
    pub first_access: u64,
}

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
    pub fn validate(&self, regions: &[RegionInfo]) -> Result<(), ProfileError> {
        let err = |phase: &RatePhase, what: String| ProfileError {
            phase: phase.name.clone(),
            what,
        };
        for p in &self.phases {
            let sum: f64 = p.segments.iter().map(|s| s.share).sum();
            if p.accesses > 0 && (sum - 1.0).abs() > 1e-6 {
                return Err(err(p, format!("shares sum to {sum}, not 1")));
            }
            for s in &p.segments {
                if s.len == 0
                    || !(0.0..=1.0).contains(&s.write_fraction)
                    || s.share < 0.0
                    || s.burst_bytes < 64
                    || s.stride_bytes == 0
                {
                    return Err(err(p, format!("bad segment {s:?}")));
                }
                let inside = regions
                    .iter()
                    .any(|r| r.asid == s.asid && r.start <= s.start && s.end() <= r.end());
                if !inside {
                    return Err(err(
                        p,
                        format!(
                            "segment {:#x}+{:#x} is outside every region",
                            s.start, s.len
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A rate profile that cannot describe a workload.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("phase {phase:?}: {what}")]
pub struct ProfileError {
    /// The phase's name.
    pub phase: String,
    /// What is wrong with it.
    pub what: String,
}
