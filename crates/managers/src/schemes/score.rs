//! DAMOS's priority of a region when a quota binds: a hotness score in
//! 0..=99 from its access frequency and its age, weighted by the quota's
//! weights (Linux mm/damon/ops-common.c, `damon_hot_score` and
//! `damon_cold_score`, as of 6.12). The kernel's `weight_sz` is accepted
//! but, as in the kernel, enters no score.

/// The highest score (DAMOS_MAX_SCORE).
pub const MAX_SCORE: u32 = 99;
const MAX_SUBSCORE: i64 = 100;
const MAX_AGE_IN_LOG: i64 = 32;

/// Weights over a region's access frequency and age.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Of `nr_accesses`.
    pub nr_accesses: u32,
    /// Of age.
    pub age: u32,
}

/// A region's hotness: the frequency subscore (its share of the most
/// accesses an aggregation can count) and the age subscore (log2 of its
/// age in seconds, negated for a region with no access, so that an old
/// idle region is the coldest), combined by the weights and scaled to
/// 0..=[`MAX_SCORE`].
pub fn hot(nr_accesses: u32, max_nr_accesses: u32, age: u32, aggr_ns: u64, w: Weights) -> u32 {
    let freq = (i64::from(nr_accesses) * MAX_SUBSCORE / i64::from(max_nr_accesses.max(1)))
        .min(MAX_SUBSCORE);
    let age_s = u64::from(age) * aggr_ns / 1_000_000_000;
    // The kernel shifts age_s right until it is 0, at most 32 times: its
    // bit length, capped.
    let mut age_log = i64::from(64 - age_s.leading_zeros()).min(MAX_AGE_IN_LOG);
    if freq == 0 {
        age_log = -age_log;
    }
    let age_sub = (age_log + MAX_AGE_IN_LOG) * MAX_SUBSCORE / MAX_AGE_IN_LOG / 2;
    let (fw, aw) = (i64::from(w.nr_accesses), i64::from(w.age));
    let mut hotness = fw * freq + aw * age_sub;
    if fw + aw > 0 {
        hotness /= fw + aw;
    }
    (hotness * i64::from(MAX_SCORE) / MAX_SUBSCORE) as u32
}

/// A region's coldness: [`MAX_SCORE`] minus its hotness.
pub fn cold(nr_accesses: u32, max_nr_accesses: u32, age: u32, aggr_ns: u64, w: Weights) -> u32 {
    MAX_SCORE - hot(nr_accesses, max_nr_accesses, age, aggr_ns, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Weights = Weights {
        nr_accesses: 1,
        age: 1,
    };
    const AGGR: u64 = 100_000_000;

    #[test]
    fn scores_follow_the_kernels_arithmetic() {
        // 20 of 20 samples, age 0: freq 100, age subscore (0 + 32) * 100 / 64 = 50
        assert_eq!(hot(20, 20, 0, AGGR, W), 75 * 99 / 100);
        // no access for 16 s (160 aggregations): log2 steps 5, negated:
        // (-5 + 32) * 100 / 64 = 42; (0 + 42) / 2 = 21 -> 21 * 99 / 100 = 20
        assert_eq!(hot(0, 20, 160, AGGR, W), 20);
        assert_eq!(cold(0, 20, 160, AGGR, W), 79);
        // weights: frequency only
        let f = Weights {
            nr_accesses: 1,
            age: 0,
        };
        assert_eq!(hot(10, 20, 1000, AGGR, f), 49);
        // no weight at all: the unweighted sum, as the kernel leaves it
        let none = Weights {
            nr_accesses: 0,
            age: 0,
        };
        assert_eq!(hot(10, 20, 0, AGGR, none), 0);
        // a count above the maximum (attributes changed) is capped
        assert_eq!(hot(40, 20, 0, AGGR, W), hot(20, 20, 0, AGGR, W));
    }

    #[test]
    fn the_age_log_is_the_kernels_shift_loop() {
        let shifts = |mut a: u64| {
            let mut n = 0;
            while n < MAX_AGE_IN_LOG && a > 0 {
                n += 1;
                a >>= 1;
            }
            n
        };
        for a in (0..70)
            .map(|k| (1u64 << (k % 64)) - 1 + k / 64)
            .chain([0, 1, 2, 3, u64::MAX])
        {
            assert_eq!(
                i64::from(64 - a.leading_zeros()).min(MAX_AGE_IN_LOG),
                shifts(a),
                "{a}"
            );
        }
    }

    #[test]
    fn a_busier_or_older_busy_region_is_never_colder() {
        for n in 0..20 {
            for age in [0, 1, 10, 100, 10_000] {
                assert!(hot(n + 1, 20, age, AGGR, W) >= hot(n, 20, age, AGGR, W));
                if n > 0 {
                    assert!(hot(n, 20, age * 2 + 10, AGGR, W) >= hot(n, 20, age, AGGR, W));
                } else {
                    assert!(hot(0, 20, age * 2 + 10, AGGR, W) <= hot(0, 20, age, AGGR, W));
                }
            }
        }
    }
}
