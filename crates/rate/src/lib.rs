//! The rate-driven simulated machine (`backend: "rate"`): terabyte footprints
//! for minutes of simulated time, at a cost proportional to the telemetry
//! work done rather than to the accesses simulated.
//!
//! The workload is a [`thermocline_model::rates::RateProfile`]: per phase,
//! segments of uniform access density (the independent reference model).
//! The machine advances a clock from those rates with the exact machine's
//! performance model ([`thermocline_model::epoch_time`]), and answers every
//! telemetry primitive lazily and exactly in distribution
//! (../shared/reference/rate-model.md):
//! - TLB (L1 and STLB) and LLC hit probabilities from Che's approximation
//!   over the phase's rate distribution ([`che`]);
//! - an Accessed bit cleared at progress `a0` is next set after an
//!   exponential amount of the entry's mass: the mass of TLB misses under a
//!   leaf entry (accesses that hit the TLB do not walk), or of all its
//!   accesses once its page is flushed; for an upper-level entry, the TLB-miss
//!   mass of every page under it (prefix sums over the phase's pieces, [`index`]);
//! - Dirty bits likewise from the store mass; poison fault counts and
//!   PEBS-like samples as Poisson draws from the TLB-miss and event masses.
//!
//! Time is kept in workload *progress* (accesses issued) as well as in ns, and
//! every draw is made in progress, seeded by (seed, entry, progress at the
//! clear): answers do not depend on how placement changed the clock, and the
//! same inputs give the same answers.
//!
//! The machine ([`RateMachine`], `machine`) composes parts with one job each;
//! the backend interface (`ops`) answers each call from them:
//! - `profile`: the workload's rates over progress: a [`index::PhaseIndex`]
//!   per phase, the progress at which each phase starts, the ranges ever
//!   accessed, and sums of the rates over windows of progress (draws of the
//!   next set, poison-fault means, hot units);
//! - `clock`: progress, simulated and ideal time, the phase being run, and the
//!   steps taken;
//! - `per_access`: what one access costs and produces in expectation under
//!   the current phase and placement, recomputed when either changes;
//! - `placement`: where pages live, as runs of one home, and where each
//!   region is first placed by its address space's policy;
//! - `telemetry`: Accessed bits by level and Dirty bits of leaves (lazy,
//!   `bits`), and the cleared leaf entries a TLB flush would change;
//! - `poison`: poisoned pages and armed hint faults;
//! - `sampler`: PEBS-like sampling into a bounded buffer;
//! - `accounting`: expected event counts, line traffic per tier, migrations,
//!   shootdowns and manager CPU time;
//! - `streams`: every random stream the machine draws from, named in one
//!   place, each draw keyed through [`thermocline_vocab::Rng::keyed`] or
//!   [`thermocline_vocab::Rng::keyed_unit`].
//!
//! Deviations and simplifications (each also noted where it is made):
//! - every region is mapped (initialised) before the first access, by its
//!   address space's allocation policy in address order; frames are not
//!   modelled (a translation's frame is its virtual page number);
//! - upper-level Accessed bits are answered as if the paging-structure caches
//!   had been flushed after the clear (Telescope flushes them; the exact
//!   machine models them);
//! - TLB reach follows each region's THP setting, not later splits/collapses;
//!   walks cost 4 (4 KiB) or 3 (2 MiB) entry reads, without PSC hits;
//! - migration traffic is counted per tier but costs the application only its
//!   TLB shootdown, not bandwidth; hint faults cost no application time;
//! - with an LLC, a run's dirty LLC victims per miss are the chance that a
//!   line's residency saw a store, at the run's mean LLC hit ratio
//!   ([`dram_cache::dirty_on_eviction`]), not counted line by line; in
//!   Memory Mode the DRAM cache behind the LLC is answered as if its
//!   accesses were Poisson requests ([`dram_cache`]);
//! - a MASIM sequential pattern is a sweep whose pages recur periodically;
//!   its cursor's position is not tracked, so an Accessed bit over a swept
//!   range is a Poisson draw at the sweep's rate (see `rates`);
//! - typed allocation (HeteroOS): each region is placed once, when the
//!   workload starts, by its page type's policy (else its address space's)
//!   within the tiers' room and the address space's tier quotas; a policy
//!   or quota set later governs only migrations, and the allocation counts
//!   are those of that one placement. A rate profile issues no memory
//!   events (releases, I/O completions): draining them gives none;
//! - the reverse map numbers each tier's frames in (address space,
//!   address) order of the pages it holds, renumbered whenever placement
//!   changes, while `translate` still answers with virtual page numbers:
//!   a clock hand over frames sees pages in address order.
#![deny(missing_docs)]

mod accounting;
mod bits;
pub mod che;
mod clock;
pub mod dram_cache;
pub mod index;
mod machine;
mod ops;
mod per_access;
mod placement;
mod poison;
mod profile;
mod sampler;
mod streams;
mod telemetry;

pub use machine::{RateConfigError, RateMachine};
