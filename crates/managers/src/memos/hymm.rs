//! HyMM's rules (paper 003, section 3), as pure functions over the records
//! the monitor gathers, so that each rule is tested on its own.

/// A page's read/write dominance over its history (section 3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dominance {
    /// Write-dominated: at least half of the records are dirty.
    Write,
    /// Read-dominated.
    Read,
}

/// The history rule of section 3.3: write-dominated when at least half of
/// the `records` (bit i set: record i read Dirty) are dirty.
pub fn dominance(records: u32, len: u32) -> Dominance {
    let dirty = (records & low_bits(len)).count_ones();
    if len > 0 && 2 * dirty >= len {
        Dominance::Write
    } else {
        Dominance::Read
    }
}

fn low_bits(len: u32) -> u32 {
    if len >= 32 {
        u32::MAX
    } else {
        (1 << len) - 1
    }
}

/// Runs of adjacent items that `same` says belong together, as index
/// ranges: HyMM's hot regions (adjacent hot pages) and sub-regions
/// (adjacent pages of one dominance) alike.
pub fn runs<T>(items: &[T], same: impl Fn(&T, &T) -> bool) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=items.len() {
        if i == items.len() || !same(&items[i - 1], &items[i]) {
            if start < i {
                out.push(start..i);
            }
            start = i;
        }
    }
    out
}

/// The interquartile range of `values` (quartiles by linear interpolation
/// between order statistics, as numpy's default), and their median.
pub fn iqr_and_median(values: &[u32]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let mut v: Vec<u32> = values.to_vec();
    v.sort_unstable();
    let q = |p: f64| {
        let x = p * (v.len() - 1) as f64;
        let (i, f) = (x.floor() as usize, x.fract());
        let hi = v[(i + 1).min(v.len() - 1)];
        f64::from(v[i]) + f * (f64::from(hi) - f64::from(v[i]))
    };
    Some((q(0.75) - q(0.25), q(0.5)))
}

/// Section 3.4's stream test on the TLB-miss counts of one hot region's
/// pages: stream-like when their IQR is under `threshold`. Pages whose
/// counting stopped at the cap all read `cap`, so a region whose median is
/// at the cap is not judged (it would look perfectly regular).
pub fn stream_like(misses: &[u32], threshold: f64, cap: u32) -> bool {
    match iqr_and_median(misses) {
        Some((iqr, median)) => misses.len() >= 4 && median < f64::from(cap) && iqr < threshold,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use thermocline_vocab::Rng;

    #[test]
    fn half_dirty_is_write_dominated() {
        assert_eq!(dominance(0b1111_0000, 8), Dominance::Write);
        assert_eq!(dominance(0b0111_0000, 8), Dominance::Read);
        assert_eq!(dominance(0b101, 3), Dominance::Write, "2 of 3");
        assert_eq!(dominance(0b001, 3), Dominance::Read);
        assert_eq!(dominance(0, 0), Dominance::Read);
        // Records beyond the window do not count.
        assert_eq!(dominance(0b1111_0000_0000, 8), Dominance::Read);
    }

    #[test]
    fn runs_group_adjacent_equals() {
        let r = runs(&[1, 1, 2, 2, 2, 1], |a, b| a == b);
        assert_eq!(r, vec![0..2, 2..5, 5..6]);
        assert!(runs::<u8>(&[], |a, b| a == b).is_empty());
    }

    #[test]
    fn quartiles_interpolate() {
        let (iqr, med) = iqr_and_median(&[1, 2, 3, 4, 5]).unwrap();
        assert_eq!((iqr, med), (2.0, 3.0));
        let (iqr, med) = iqr_and_median(&[7]).unwrap();
        assert_eq!((iqr, med), (0.0, 7.0));
    }

    /// Figure 4's two shapes: STREAM misses about once per page per pass,
    /// so a region's counts barely vary (paper: IQR 0.28 on average); mcf's
    /// irregular accesses give counts that vary a lot (IQR 24.4). A count
    /// that follows the accesses of a page drawn at random (Poisson-like)
    /// varies by about 1.35 x sqrt(mean), above the threshold for every
    /// mean from 10 misses (the hot threshold) up.
    #[test]
    fn the_stream_test_separates_regular_from_random_counts() {
        let mut rng = Rng::new(3);
        for passes in [10u32, 20, 50, 150] {
            // Stream: every page missed once per pass, a few passes cut short.
            let stream: Vec<u32> = (0..512)
                .map(|_| passes - u32::from(rng.chance(0.1)))
                .collect();
            assert!(stream_like(&stream, 2.6, 200), "stream at {passes}");
            // Random: each of passes x 512 misses lands on a random page.
            let mut random = vec![0u32; 512];
            for _ in 0..passes * 512 {
                random[rng.below(512) as usize] += 1;
            }
            assert!(!stream_like(&random, 2.6, 200), "random at {passes}");
        }
        // At the cap every page reads 200: not judged.
        assert!(!stream_like(&[200; 64], 2.6, 200));
    }

    proptest! {
        /// Runs tile the items and each joins only items `same` relates.
        #[test]
        fn runs_tile_the_items(v in proptest::collection::vec(0u8..3, 0..50)) {
            let r = runs(&v, |a, b| a == b);
            let mut next = 0;
            for range in &r {
                prop_assert_eq!(range.start, next);
                prop_assert!(range.end > range.start);
                prop_assert!(v[range.clone()].iter().all(|x| *x == v[range.start]));
                next = range.end;
            }
            prop_assert_eq!(next, v.len());
            for w in r.windows(2) {
                prop_assert_ne!(v[w[0].start], v[w[1].start]);
            }
        }

        /// The dominance rule is the count of dirty records against half.
        #[test]
        fn dominance_counts_dirty_records(bits in any::<u32>(), len in 1u32..=8) {
            let dirty = (0..len).filter(|i| bits >> i & 1 == 1).count() as u32;
            let want = if dirty * 2 >= len { Dominance::Write } else { Dominance::Read };
            prop_assert_eq!(dominance(bits, len), want);
        }
    }
}
