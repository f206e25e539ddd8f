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

/// Figure 3's study (section 3.3): how well the dominance of the last
/// `w` Dirty records predicts the dominance of the next `future` ones, for
/// every window length `w` in `1..=max_window`.
///
/// A page's records are kept newest first (bit 0: the latest interval).
/// Once a page has `max_window + future` records, each new record judges
/// the prediction made `future` intervals ago: its history is the `w`
/// records before them, its truth the `future` records since (inferred:
/// the paper says the prediction should hold "for 10 sampling intervals"
/// but not how accuracy was scored). Every window length is judged at the
/// same moments, so the lengths compare on the same pairs. A pair is
/// judged only if the page was accessed in its history and in its future:
/// an idle page's prediction is trivially right.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryTally {
    /// Predictions judged, by window length - 1.
    pub judged: Vec<u64>,
    /// Predictions right, by window length - 1.
    pub correct: Vec<u64>,
}

impl HistoryTally {
    /// A tally for window lengths `1..=max_window`.
    pub fn new(max_window: u32) -> Self {
        HistoryTally {
            judged: vec![0; max_window as usize],
            correct: vec![0; max_window as usize],
        }
    }

    /// Judges one page after a new record: `dirty` and `accessed` hold its
    /// records newest first, `n` how many it has.
    pub fn judge(&mut self, dirty: u64, accessed: u64, n: u32, future: u32) {
        let max_w = self.judged.len() as u32;
        if future == 0 || n < max_w + future || max_w + future > 64 {
            return;
        }
        let fut = low_bits64(future);
        if accessed & fut == 0 {
            return;
        }
        let truth = dominance64(dirty & fut, future);
        for w in 1..=max_w {
            let hist = low_bits64(w) << future;
            if accessed & hist == 0 {
                continue;
            }
            let predicted = dominance64((dirty & hist) >> future, w);
            self.judged[w as usize - 1] += 1;
            self.correct[w as usize - 1] += u64::from(predicted == truth);
        }
    }

    /// Share of right predictions at window length `w` (`None` if none
    /// were judged).
    pub fn accuracy(&self, w: u32) -> Option<f64> {
        let i = (w as usize).checked_sub(1)?;
        match (self.judged.get(i), self.correct.get(i)) {
            (Some(&j), Some(&c)) if j > 0 => Some(c as f64 / j as f64),
            _ => None,
        }
    }
}

fn low_bits64(len: u32) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1 << len) - 1
    }
}

fn dominance64(records: u64, len: u32) -> Dominance {
    if len > 0 && 2 * records.count_ones() >= len {
        Dominance::Write
    } else {
        Dominance::Read
    }
}

/// The work each monitoring approach of Figure 6 does over one
/// preparation, in the units the cost table charges.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MonitorWork {
    /// TLB misses counted (each a fault).
    pub faults: u64,
    /// Page-table entries read (and cleared).
    pub pte_reads: u64,
    /// Full TLB flushes.
    pub flushes: u64,
}

impl MonitorWork {
    /// Its cost in ns at `fault_ns` per counted miss, `pte_ns` per entry
    /// read and `flush_ns` per flush.
    pub fn cost_ns(&self, fault_ns: f64, pte_ns: f64, flush_ns: f64) -> f64 {
        self.faults as f64 * fault_ns
            + self.pte_reads as f64 * pte_ns
            + self.flushes as f64 * flush_ns
    }

    /// Accessed-bit-only monitoring ([53,87] in the paper): every one of
    /// `pages` read once per interval over `intervals` intervals, one
    /// flush each.
    pub fn accessed_bit_only(pages: u64, intervals: u64) -> Self {
        MonitorWork {
            faults: 0,
            pte_reads: pages * intervals,
            flushes: intervals,
        }
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

    /// Records newest first: `h` then `f` as written (oldest on the left).
    fn recs(h: &str, f: &str) -> u64 {
        let all = format!("{h}{f}");
        all.chars()
            .fold(0u64, |acc, c| acc << 1 | u64::from(c == '1'))
    }

    #[test]
    fn the_history_window_is_judged_against_the_future_records() {
        // Two window lengths, two future records; the history is the
        // records before the future ones, newest nearest.
        let mut t = HistoryTally::new(2);
        let all = u64::MAX;
        // History (oldest..newest) 0 1, future 1 1: w=1 sees "1" -> WD,
        // right; w=2 sees "01", half dirty -> WD, right.
        t.judge(recs("01", "11"), all, 4, 2);
        assert_eq!(
            (t.judged.clone(), t.correct.clone()),
            (vec![1, 1], vec![1, 1])
        );
        // History 1 0, future 0 0: w=1 sees "0" -> RD, right; w=2 sees "10" -> WD, wrong.
        t.judge(recs("10", "00"), all, 4, 2);
        assert_eq!(
            (t.judged.clone(), t.correct.clone()),
            (vec![2, 2], vec![2, 1])
        );
        assert_eq!(t.accuracy(2), Some(0.5));
        assert_eq!(t.accuracy(1), Some(1.0));
        assert_eq!(t.accuracy(3), None);
        assert_eq!(t.accuracy(0), None);
        // Too few records: nothing judged.
        t.judge(recs("01", "11"), all, 3, 2);
        assert_eq!(t.judged, vec![2, 2]);
        // Idle in the future (or in the whole history): not judged.
        t.judge(recs("01", "11"), recs("11", "00"), 4, 2);
        t.judge(recs("01", "11"), recs("00", "11"), 4, 2);
        assert_eq!(t.judged, vec![2, 2]);
        // Idle in the last record of history only: w=1 is not judged, w=2 is.
        t.judge(recs("11", "11"), recs("10", "11"), 4, 2);
        assert_eq!(t.judged, vec![2, 3]);
    }

    #[test]
    fn a_window_as_long_as_the_noise_beats_a_short_one_on_a_steady_page() {
        // A page dirty in 3 of 4 intervals at random: longer histories
        // predict its (write-dominated) future better.
        let mut rng = Rng::new(5);
        let mut t = HistoryTally::new(8);
        let (mut dirty, mut n) = (0u64, 0u32);
        for _ in 0..20_000 {
            dirty = dirty << 1 | u64::from(rng.chance(0.75));
            n += 1;
            t.judge(dirty, u64::MAX, n, 8);
        }
        let (a1, a8) = (t.accuracy(1).unwrap(), t.accuracy(8).unwrap());
        assert!(a8 > a1 + 0.1, "{a1} {a8}");
    }

    #[test]
    fn monitor_work_costs_add_up() {
        let w = MonitorWork {
            faults: 3,
            pte_reads: 10,
            flushes: 2,
        };
        assert_eq!(w.cost_ns(1000.0, 20.0, 500.0), 3000.0 + 200.0 + 1000.0);
        let a = MonitorWork::accessed_bit_only(1000, 8);
        assert_eq!((a.pte_reads, a.flushes, a.faults), (8000, 8, 0));
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
