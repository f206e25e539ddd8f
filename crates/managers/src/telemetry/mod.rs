//! The telemetry core the managers share, below every technique and the
//! schemes: what a profile is ([`Counted`] regions), how a profile becomes
//! a migration plan ([`Migration`]), DAMON's monitoring intervals
//! auto-tuning ([`intervals`]) and DAMON's feedback loop ([`feedback`]),
//! which the intervals and the schemes' quota goals both run.
//!
//! Above it: [`crate::schemes`] (DAMOS-like rules over a profile), then the
//! paper folders ([`crate::telescope`]'s techniques, [`crate::thermostat`],
//! [`crate::memos`], [`crate::ambix`], [`crate::kernel_tiering`]). Nothing
//! here imports them.

pub mod feedback;
pub mod intervals;
mod migration;

pub use feedback::feed_loop_next;
pub use intervals::{IntervalsGoal, IntervalsTuner};
pub use migration::Migration;

use thermocline_vocab::Asid;

/// One region of a profile and its access count in the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Counted {
    /// Address space.
    pub asid: Asid,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Accesses seen (samples with the Accessed bit set, or PEBS samples).
    pub count: f64,
}
