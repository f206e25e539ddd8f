//! HeteroOS-coordinated's tracking interval (../shared/papers/
//! 001_f8c99e4789a9a37b.txt, section 4.1, Equation 1): the guest shortens
//! the VMM's hotness-tracking and migration interval when LLC misses rise
//! and lengthens it when they fall,
//!
//! ```text
//! dLLCMiss = (LLCMiss_i - LLCMiss_{i-1}) / LLCMiss_{i-1}
//! Interval = Interval - dLLCMiss * Interval
//! ```
//!
//! clamped to 50 ms - 1 s (section 5.4: "dynamically vary the hotness
//! scanning interval from 50ms to 1 second").
//!
//! *Inferred* (the paper does not say):
//! - `LLCMiss` is a rate, misses per second of the epoch
//!   ([`super::coordinated`] passes rates): epochs are as long as the
//!   interval, so raw counts would fall whenever the interval shortened and
//!   lengthen it again (and a first epoch of no length would have none,
//!   sending the interval to 50 ms); with equal epochs it is the same ratio;
//! - a previous epoch without LLC misses gives no ratio: the interval goes
//!   to the shortest if misses appeared, and stays if there are still none;
//! - a miss count that is not a finite number leaves the interval as it is.

/// The shortest interval (ns): 50 ms.
pub const MIN_INTERVAL_NS: u64 = 50_000_000;
/// The longest interval (ns): 1 s.
pub const MAX_INTERVAL_NS: u64 = 1_000_000_000;

/// Equation 1 with its clamp: the next interval after an epoch with
/// `misses` LLC misses (per second), the epoch before it having had
/// `previous`.
pub fn next_interval_ns(interval_ns: u64, previous: f64, misses: f64) -> u64 {
    let clamp = |ns: f64| ns.clamp(MIN_INTERVAL_NS as f64, MAX_INTERVAL_NS as f64) as u64;
    if !(previous.is_finite() && misses.is_finite()) || previous < 0.0 || misses < 0.0 {
        return clamp(interval_ns as f64);
    }
    if previous == 0.0 {
        return if misses > 0.0 {
            MIN_INTERVAL_NS
        } else {
            clamp(interval_ns as f64)
        };
    }
    let delta = (misses - previous) / previous;
    let i = interval_ns as f64;
    clamp(i - delta * i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn more_misses_shorten_fewer_lengthen() {
        // +50% misses: the interval loses half of itself.
        assert_eq!(next_interval_ns(400 * MS, 1000.0, 1500.0), 200 * MS);
        // -25% misses: it grows by a quarter.
        assert_eq!(next_interval_ns(400 * MS, 1000.0, 750.0), 500 * MS);
        // Unchanged misses: unchanged interval.
        assert_eq!(next_interval_ns(400 * MS, 1000.0, 1000.0), 400 * MS);
    }

    #[test]
    fn the_clamp_holds_at_both_ends() {
        // Doubling misses would make it zero (and more, negative).
        assert_eq!(next_interval_ns(400 * MS, 1000.0, 2000.0), MIN_INTERVAL_NS);
        assert_eq!(next_interval_ns(400 * MS, 1000.0, 9000.0), MIN_INTERVAL_NS);
        // Misses gone: at most doubled, and never past 1 s.
        assert_eq!(next_interval_ns(800 * MS, 1000.0, 0.0), MAX_INTERVAL_NS);
    }

    #[test]
    fn no_previous_misses_and_bad_counts() {
        assert_eq!(next_interval_ns(400 * MS, 0.0, 10.0), MIN_INTERVAL_NS);
        assert_eq!(next_interval_ns(400 * MS, 0.0, 0.0), 400 * MS);
        assert_eq!(next_interval_ns(400 * MS, f64::NAN, 10.0), 400 * MS);
        assert_eq!(next_interval_ns(400 * MS, -1.0, 10.0), 400 * MS);
        assert_eq!(
            next_interval_ns(5 * MS, f64::INFINITY, 10.0),
            MIN_INTERVAL_NS
        );
    }

    proptest! {
        /// Whatever the counts, the interval stays within 50 ms - 1 s, and
        /// more misses than before never lengthen it.
        #[test]
        fn always_within_the_clamp(
            interval in 0u64..5_000_000_000,
            previous in prop_oneof![Just(0.0), 0.0f64..1e9],
            misses in prop_oneof![Just(0.0), 0.0f64..1e9],
        ) {
            let next = next_interval_ns(interval, previous, misses);
            prop_assert!((MIN_INTERVAL_NS..=MAX_INTERVAL_NS).contains(&next));
            if misses > previous {
                prop_assert!(next <= interval.clamp(MIN_INTERVAL_NS, MAX_INTERVAL_NS));
            }
        }
    }
}
