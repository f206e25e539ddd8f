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

/// What the kernel's `damon_set_attrs()` refuses (mm/damon/core.c): fewer
/// than 3 regions at least, a minimum above the maximum, a sampling
/// interval of zero or longer than the aggregation. Every DAMON-style
/// monitor here is held to it, live or simulated, so a setting that the
/// kernel would refuse is a user's error before any run, not a silent
/// clamp in the middle of one.
pub fn check_monitoring_attrs(
    sample_ms: f64,
    aggregate_ms: f64,
    min_regions: u64,
    max_regions: u64,
) -> Result<(), String> {
    if !(sample_ms > 0.0 && sample_ms.is_finite()) {
        return Err(format!(
            "sample_ms = {sample_ms}: the sampling interval must be a positive number of ms"
        ));
    }
    if !(aggregate_ms >= sample_ms && aggregate_ms.is_finite()) {
        return Err(format!(
            "aggregate_ms = {aggregate_ms}: the aggregation interval must be at least sample_ms ({sample_ms})"
        ));
    }
    if min_regions < 3 {
        return Err(format!(
            "min_regions = {min_regions}: DAMON needs at least 3 regions"
        ));
    }
    if min_regions > max_regions {
        return Err(format!(
            "min_regions = {min_regions} is above max_regions = {max_regions}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod attrs_tests {
    use super::check_monitoring_attrs as check;

    #[test]
    fn the_kernels_refusals_are_errors_and_its_defaults_pass() {
        assert!(check(5.0, 100.0, 10, 1000).is_ok());
        assert!(check(5.0, 5.0, 3, 3).is_ok());
        assert!(check(5.0, 100.0, 100, 10)
            .unwrap_err()
            .contains("above max_regions"));
        assert!(check(5.0, 100.0, 2, 10)
            .unwrap_err()
            .starts_with("min_regions"));
        assert!(check(0.0, 100.0, 10, 1000)
            .unwrap_err()
            .starts_with("sample_ms"));
        assert!(check(200.0, 100.0, 10, 1000)
            .unwrap_err()
            .starts_with("aggregate_ms"));
        assert!(check(f64::NAN, 100.0, 10, 1000).is_err());
    }
}
