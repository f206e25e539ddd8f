//! DAMON's monitoring intervals auto-tuning (issue #24, "Self-tuning
//! sampling"), for every region-based telemetry: DAMON (vaddr and
//! paddr) and Telescope bounded / flex, all
//! [`crate::telescope::RegionSampler`].
//!
//! As the kernel does it (read in torvalds/linux, mm/damon/core.c:
//! `struct damon_intervals_goal`, `damon_valid_intervals_goal`,
//! `damon_get_intervals_score`, `damon_get_intervals_adaptation_bp`,
//! `kdamond_tune_intervals`, `damon_update_monitoring_result` and the
//! tuning point in `kdamond_fn`; Documentation/mm/damon/design.rst,
//! "Monitoring Intervals Auto-tuning"):
//! - The user gives a goal: `access_bp`, the share of DAMON-observed access
//!   events in the most the regions could show, in basis points; `aggrs`,
//!   every how many aggregation intervals to tune (0: off); and the bounds
//!   of the sampling interval, `min_sample_us` and `max_sample_us`. The
//!   kernel's own users (mm/damon/stat.c, samples/damon/mtier.c) set
//!   400 bp (4%: the Pareto rule twice), 3 aggregations, 5 ms and 10 s,
//!   which are the defaults of [`IntervalsGoal`].
//! - **Score** (`damon_get_intervals_score`), at the end of an aggregation:
//!   observed events are `sum(size * nr_accesses)` over the regions (a
//!   region of X bytes seen accessed in Y samples counts X * Y events,
//!   DAMON's region assumption), the most `sum(size * aggr_samples)`; the
//!   target is the most * `access_bp` / 10 000 (at least 1), the score the
//!   observed events * 10 000 / the target (10 000: on goal).
//! - **Adaptation** (`damon_get_intervals_adaptation_bp`): DAMOS's feedback
//!   loop (`damon_feed_loop_next_input`, [`super::feed_loop_next`])
//!   from an input of 10^8 with that score, over 10 000: 20 000 - score
//!   below twice the goal (a score of 0 doubles the intervals), else 1; a
//!   value up to 10 000 (shrinking) is rescaled to 5 000 + value / 2, so the
//!   intervals at most halve per tuning.
//! - **Tuning** (`kdamond_tune_intervals`): nothing when the adaptation is
//!   exactly 10 000; else the sampling interval becomes
//!   `sample * adaptation / 10 000` (integer microseconds), clamped to
//!   `[min_sample_us, max_sample_us]`, and the aggregation interval
//!   `sample * aggr_samples`: the samples per aggregation never change.
//!   `kdamond_fn` tunes at the end of every `aggrs`-th aggregation
//!   (`next_intervals_tune_sis` advances by `aggr_samples * aggrs`
//!   samples), after the merge and the schemes and before the counts are
//!   reset and the regions split, and the score reads that last
//!   aggregation's counts only (not the `aggrs` aggregations the design
//!   document speaks of).
//! - `damon_set_attrs` then rescales each region's monitoring results for
//!   the new intervals (`damon_update_monitoring_result`, not in the middle
//!   of an aggregation): `nr_accesses` through basis points of the most
//!   (`nr * 10 000 / old max * new max / 10 000`, integer: the same count
//!   unless 10 000 is not a multiple of the samples per aggregation) and
//!   `age * old aggregation / new aggregation`.
//! - `damon_set_attrs` refuses a goal with `min_sample_us > max_sample_us`
//!   or a sampling interval outside the bounds (when `aggrs` is not 0);
//!   so does [`IntervalsGoal::check`], at parameter time.
//!
//! Where this differs from the kernel:
//! - The samples per aggregation are `aggregate_ms / sample_ms` rounded
//!   (the sampler's rule since before this tuning), where the kernel's
//!   `aggr_samples` is the integer quotient of the microseconds; the same
//!   for every entry's defaults (200 / 5 and 200 / 1).
//! - Sums are in 128 bits: the kernel's `unsigned long` products would wrap
//!   for a few PiB of regions times their samples; below that the results
//!   are the kernel's.
//! - The schemes' own region ages and counts ([`crate::schemes::SchemeSet`]
//!   keeps them per region) are rescaled with the same two functions when
//!   the intervals change, as are the monitor's own.
//! - The intervals go to the runner as [`crate::Manager::tick_ns`], which
//!   it reads again after every tick; the kernel's `kdamond_usleep` sleeps
//!   the new interval likewise from the next sample on.
//! - Not for `source = "kernel"` (the host's DAMON): the host's monitor
//!   attributes here carry no intervals goal, so such a goal is refused.
//! - Linear scans and PEBS-like sampling are not region-based and keep
//!   their fixed intervals: a linear scan checks every page once a pass, so
//!   there is no "most samples" per region to take a share of (its pass
//!   length is set by `sleep_ms`), and PEBS's rate already follows its own
//!   feedback loop (perf's frequency mode re-estimates the period to get
//!   `freq_hz` samples a second) while a 2 MiB unit's sample count has no
//!   maximum.

use super::feed_loop_next;
use serde::{Deserialize, Serialize};

/// `struct damon_intervals_goal`: what the intervals are tuned towards.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct IntervalsGoal {
    /// Observed access events per aggregation over the most there could
    /// be, in basis points (400: 4%).
    pub access_bp: u64,
    /// Tune at the end of every this many aggregations; 0: never.
    pub aggrs: u64,
    /// Lowest sampling interval the tuning may set (µs).
    pub min_sample_us: u64,
    /// Highest sampling interval the tuning may set (µs).
    pub max_sample_us: u64,
}

impl Default for IntervalsGoal {
    /// The kernel's own choice (mm/damon/stat.c, samples/damon/mtier.c):
    /// 4% over 3 aggregations, sampling between 5 ms and 10 s.
    fn default() -> Self {
        IntervalsGoal {
            access_bp: 400,
            aggrs: 3,
            min_sample_us: 5_000,
            max_sample_us: 10_000_000,
        }
    }
}

impl IntervalsGoal {
    /// Whether the intervals are tuned at all (`aggrs` above 0).
    pub fn enabled(&self) -> bool {
        self.aggrs > 0
    }

    /// `damon_valid_intervals_goal`: the bounds in order and the starting
    /// sampling interval (µs) within them, when tuning is on.
    pub fn check(&self, sample_us: u64) -> Result<(), String> {
        if !self.enabled() {
            return Ok(());
        }
        if self.min_sample_us > self.max_sample_us {
            return Err(format!(
                "intervals_goal: min_sample_us ({}) is above max_sample_us ({})",
                self.min_sample_us, self.max_sample_us
            ));
        }
        if sample_us < self.min_sample_us || self.max_sample_us < sample_us {
            return Err(format!(
                "intervals_goal: the sampling interval ({sample_us} us) is outside [min_sample_us, max_sample_us] = [{}, {}]",
                self.min_sample_us, self.max_sample_us
            ));
        }
        Ok(())
    }
}

/// `damon_get_intervals_score`: the observed access events of `regions`
/// (`(bytes, nr_accesses)`) over the goal's share of the most
/// (`bytes * aggr_samples`), in basis points (10 000: on goal).
pub fn intervals_score(
    regions: impl IntoIterator<Item = (u64, u32)>,
    aggr_samples: u64,
    access_bp: u64,
) -> u64 {
    let (mut max_events, mut events) = (0u128, 0u128);
    for (bytes, nr) in regions {
        max_events += u128::from(bytes) * u128::from(aggr_samples);
        events += u128::from(bytes) * u128::from(nr);
    }
    let target = (max_events * u128::from(access_bp) / 10_000).max(1);
    (events * 10_000 / target).min(u128::from(u64::MAX)) as u64
}

/// `damon_get_intervals_adaptation_bp`: how much to scale the intervals by,
/// in basis points, for a score; shrinking is at most by half.
pub fn adaptation_bp(score_bp: u64) -> u64 {
    let a = feed_loop_next(100_000_000, score_bp) / 10_000;
    if a <= 10_000 {
        5_000 + a / 2
    } else {
        a
    }
}

/// `kdamond_tune_intervals`' new sampling interval (µs) from the current
/// one and an adaptation; `None` when the kernel leaves the intervals as
/// they are (an adaptation of exactly 10 000).
pub fn next_sample_us(goal: &IntervalsGoal, sample_us: u64, adaptation_bp: u64) -> Option<u64> {
    if adaptation_bp == 10_000 {
        return None;
    }
    let scaled = u128::from(sample_us) * u128::from(adaptation_bp) / 10_000;
    let scaled = scaled.min(u128::from(u64::MAX)) as u64;
    Some(scaled.min(goal.max_sample_us).max(goal.min_sample_us))
}

/// `damon_nr_accesses_for_new_attrs`: a count of `old_max` samples as one
/// of `new_max`, through basis points as the kernel converts it.
pub fn rescale_nr_accesses(nr: u32, old_max: u32, new_max: u32) -> u32 {
    let bp = u64::from(nr) * 10_000 / u64::from(old_max.max(1));
    (bp * u64::from(new_max) / 10_000).min(u64::from(u32::MAX)) as u32
}

/// `damon_age_for_new_attrs`: an age in aggregations of `old_aggr_us` as
/// one in aggregations of `new_aggr_us`.
pub fn rescale_age(age: u32, old_aggr_us: u64, new_aggr_us: u64) -> u32 {
    (u128::from(age) * u128::from(old_aggr_us) / u128::from(new_aggr_us.max(1)))
        .min(u128::from(u32::MAX)) as u32
}

/// What one tuning changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retune {
    /// The aggregation interval before (µs).
    pub old_aggr_us: u64,
    /// ... and after (µs).
    pub new_aggr_us: u64,
}

/// The intervals of one monitor and when it next tunes them.
#[derive(Clone, Debug, PartialEq)]
pub struct IntervalsTuner {
    goal: IntervalsGoal,
    sample_us: u64,
    aggr_samples: u64,
    aggregations: u64,
    last_score_bp: Option<u64>,
    tunings: u64,
}

impl IntervalsTuner {
    /// A monitor sampling every `sample_us` with `aggr_samples` samples per
    /// aggregation, tuned towards `goal`.
    pub fn new(goal: IntervalsGoal, sample_us: u64, aggr_samples: u64) -> Self {
        IntervalsTuner {
            goal,
            sample_us: sample_us.max(1),
            aggr_samples: aggr_samples.max(1),
            aggregations: 0,
            last_score_bp: None,
            tunings: 0,
        }
    }

    /// The goal.
    pub fn goal(&self) -> &IntervalsGoal {
        &self.goal
    }

    /// The current sampling interval (µs).
    pub fn sample_us(&self) -> u64 {
        self.sample_us
    }

    /// The current aggregation interval (µs): `aggr_samples` samples.
    pub fn aggr_us(&self) -> u64 {
        self.sample_us.saturating_mul(self.aggr_samples)
    }

    /// The score of the last tuning point (basis points of the goal), if
    /// one has passed.
    pub fn last_score_bp(&self) -> Option<u64> {
        self.last_score_bp
    }

    /// Tuning points passed.
    pub fn tunings(&self) -> u64 {
        self.tunings
    }

    /// The end of one aggregation, with its regions' `(bytes,
    /// nr_accesses)` as merged (`kdamond_fn`: after the merge and the
    /// schemes, before the counts are reset). At every `aggrs`-th it tunes:
    /// `Some` when the intervals changed, for the caller to rescale its
    /// regions' counts and ages ([`rescale_nr_accesses`], [`rescale_age`]).
    pub fn end_of_aggregation(
        &mut self,
        regions: impl IntoIterator<Item = (u64, u32)>,
    ) -> Option<Retune> {
        if !self.goal.enabled() {
            return None;
        }
        self.aggregations += 1;
        if self.aggregations < self.goal.aggrs {
            return None;
        }
        self.aggregations = 0;
        self.tunings += 1;
        let score = intervals_score(regions, self.aggr_samples, self.goal.access_bp);
        self.last_score_bp = Some(score);
        let next = next_sample_us(&self.goal, self.sample_us, adaptation_bp(score))?;
        let old_aggr_us = self.aggr_us();
        self.sample_us = next.max(1);
        Some(Retune {
            old_aggr_us,
            new_aggr_us: self.aggr_us(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `damon_feed_loop_next_input(10^8, score) / 10^4` written out: the
    /// last input plus (or minus) its share `(goal - score) / goal`, i.e.
    /// `10^4 * (2 - score / 10^4)`, and at twice the goal or more the
    /// loop's floor (10^4 / 10^4 = 1); then the kernel's rescale of
    /// `[1, 10 000]` to `[5 000, 10 000]`.
    fn reference_adaptation(score: u64) -> u64 {
        let a = if score >= 20_000 { 1 } else { 20_000 - score };
        if a <= 10_000 {
            5_000 + a / 2
        } else {
            a
        }
    }

    /// `damon_get_intervals_score` as the kernel writes it, on regions of
    /// `(bytes, nr_accesses)`.
    fn reference_score(regions: &[(u64, u32)], aggr_samples: u64, goal_bp: u64) -> u64 {
        let max: u128 = regions
            .iter()
            .map(|r| u128::from(r.0) * u128::from(aggr_samples))
            .sum();
        let seen: u128 = regions
            .iter()
            .map(|r| u128::from(r.0) * u128::from(r.1))
            .sum();
        let target = max * u128::from(goal_bp) / 10_000;
        let target = if target == 0 { 1 } else { target };
        (seen * 10_000 / target) as u64
    }

    proptest::proptest! {
        #[test]
        fn adaptation_is_the_kernels(score in 0u64..60_000) {
            proptest::prop_assert_eq!(adaptation_bp(score), reference_adaptation(score));
        }

        #[test]
        fn score_is_the_kernels(
            regions in proptest::collection::vec((1u64..(1 << 40), 0u32..41), 1..50),
            samples in 1u64..200,
            goal in 0u64..10_001,
        ) {
            let regions: Vec<(u64, u32)> = regions
                .into_iter()
                .map(|(b, n)| (b, n.min(samples as u32)))
                .collect();
            proptest::prop_assert_eq!(
                intervals_score(regions.iter().copied(), samples, goal),
                reference_score(&regions, samples, goal)
            );
        }

        /// Whatever the scores, the sampling interval stays within the
        /// goal's bounds, never more than doubles or halves at once, and
        /// the aggregation is always `aggr_samples` samples.
        #[test]
        fn tuned_intervals_stay_within_bounds(
            scores in proptest::collection::vec(0u32..41, 1..100),
            min in 1u64..20_000,
            span in 0u64..5_000_000,
        ) {
            let goal = IntervalsGoal { access_bp: 400, aggrs: 1, min_sample_us: min, max_sample_us: min + span };
            let mut t = IntervalsTuner::new(goal, min, 40);
            for nr in scores {
                let before = t.sample_us();
                t.end_of_aggregation([(4096u64, nr), (1 << 20, 0)]);
                let s = t.sample_us();
                proptest::prop_assert!((min..=min + span).contains(&s));
                proptest::prop_assert!(s <= before * 2 && s * 2 >= before.saturating_sub(1));
                proptest::prop_assert_eq!(t.aggr_us(), s * 40);
            }
        }
    }

    #[test]
    fn the_kernels_points() {
        // on goal: 10 000, nothing changes
        assert_eq!(adaptation_bp(10_000), 10_000);
        let g = IntervalsGoal::default();
        assert_eq!(next_sample_us(&g, 5_000, 10_000), None);
        // nothing seen: double
        assert_eq!(adaptation_bp(0), 20_000);
        assert_eq!(next_sample_us(&g, 5_000, 20_000), Some(10_000));
        // half the goal: x1.5; 1.5x the goal: x0.75
        assert_eq!(adaptation_bp(5_000), 15_000);
        assert_eq!(adaptation_bp(15_000), 7_500);
        // twice the goal or more: halve (the floor 1 rescaled to 5 000)
        assert_eq!(adaptation_bp(20_000), 5_000);
        assert_eq!(adaptation_bp(1_000_000), 5_000);
        // clamped to the bounds
        assert_eq!(next_sample_us(&g, 6_000, 5_000), Some(5_000));
        assert_eq!(next_sample_us(&g, 8_000_000, 20_000), Some(10_000_000));
        // 4% of 10 equal regions x 40 samples: 16 samples found set
        let mut regions = [(4096u64, 0u32); 10];
        regions[3].1 = 16;
        assert_eq!(intervals_score(regions.iter().copied(), 40, 400), 10_000);
        regions[3].1 = 8;
        assert_eq!(intervals_score(regions.iter().copied(), 40, 400), 5_000);
        // a goal of 0: the target is 1 event (the kernel's fix)
        assert_eq!(
            intervals_score([(4096u64, 16u32)], 40, 0),
            16 * 4096 * 10_000
        );
    }

    #[test]
    fn results_are_rescaled_as_the_kernel_does() {
        // 40 samples: exact; 30: 1 of 30 is 333 bp, 333 * 30 / 10 000 = 0
        assert_eq!(rescale_nr_accesses(7, 40, 40), 7);
        assert_eq!(rescale_nr_accesses(1, 30, 30), 0);
        assert_eq!(rescale_nr_accesses(20, 40, 20), 10);
        assert_eq!(rescale_age(10, 200_000, 400_000), 5);
        assert_eq!(rescale_age(3, 400_000, 200_000), 6);
    }

    #[test]
    fn tunes_every_aggrs_aggregations_and_checks_its_goal() {
        let g = IntervalsGoal::default();
        let mut t = IntervalsTuner::new(g, 5_000, 40);
        let idle = [(1u64 << 30, 0u32)];
        assert_eq!(t.end_of_aggregation(idle), None);
        assert_eq!(t.end_of_aggregation(idle), None);
        assert_eq!(
            t.end_of_aggregation(idle),
            Some(Retune {
                old_aggr_us: 200_000,
                new_aggr_us: 400_000
            })
        );
        assert_eq!((t.sample_us(), t.last_score_bp()), (10_000, Some(0)));
        let off = IntervalsGoal { aggrs: 0, ..g };
        let mut t = IntervalsTuner::new(off, 5_000, 40);
        for _ in 0..10 {
            assert_eq!(t.end_of_aggregation(idle), None);
        }
        assert!(off.check(1).is_ok());
        assert!(g.check(5_000).is_ok());
        assert!(g.check(4_999).is_err());
        assert!(IntervalsGoal {
            min_sample_us: 10,
            max_sample_us: 5,
            ..g
        }
        .check(7)
        .is_err());
    }
}
