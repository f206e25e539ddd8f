//! A phase's patterns at work: which one runs next, and its burst of
//! accesses (masim's `exec_phase` draw and `do_access` loops).

use super::region::Region;
use super::{Pattern, Phase, RwMode};
use thermocline_vocab::Rng;

/// Draws a phase's patterns by their relative probabilities.
pub(super) struct Picker {
    /// Running sums of the probabilities.
    cumulative: Vec<u64>,
}

impl Picker {
    /// For `phase`, `None` when every probability is 0 (which [`super::parse`]
    /// rejects).
    pub(super) fn new(phase: &Phase) -> Option<Picker> {
        let cumulative: Vec<u64> = phase
            .patterns
            .iter()
            .scan(0u64, |sum, p| {
                *sum = sum.saturating_add(p.probability);
                Some(*sum)
            })
            .collect();
        (cumulative.last().copied().unwrap_or(0) > 0).then_some(Picker { cumulative })
    }

    /// The index of the next pattern: `rnd % total` falls in its share, as
    /// in masim's `prob_start..prob_end` test.
    pub(super) fn pick(&self, rng: &mut Rng) -> usize {
        let total = self.cumulative[self.cumulative.len() - 1];
        let r = rng.below(total);
        self.cumulative.partition_point(|&c| c <= r)
    }
}

/// masim's sequential step: advance by the stride, back to 0 at or past the
/// end (`size_t` arithmetic, so a negative stride wraps first).
#[inline]
pub(super) fn seq_next(last: u64, stride: u64, size: u64) -> u64 {
    let o = last.wrapping_add(stride);
    if o >= size {
        0
    } else {
        o
    }
}

/// `n` accesses of `pattern` on `region`; `cursor` is the pattern's
/// `last_offset`. Allocates nothing.
pub(super) fn burst(
    region: &mut Region,
    pattern: &Pattern,
    cursor: &mut u64,
    rng: &mut Rng,
    n: u64,
) {
    let size = region.size();
    let write = pattern.mode != RwMode::ReadOnly;
    // One loop per case, as masim's do_{rnd,seq}_{ro,wo,rw}: no branch on
    // the pattern inside.
    match (pattern.random, write) {
        (true, false) => {
            for _ in 0..n {
                region.read(rng.below(size));
            }
        }
        (true, true) => {
            for _ in 0..n {
                region.write(rng.below(size));
            }
        }
        (false, false) => {
            let mut o = *cursor;
            for _ in 0..n {
                o = seq_next(o, pattern.stride, size);
                region.read(o);
            }
            *cursor = o;
        }
        (false, true) => {
            let mut o = *cursor;
            for _ in 0..n {
                o = seq_next(o, pattern.stride, size);
                region.write(o);
            }
            *cursor = o;
        }
    }
    if write {
        region.writes += n;
    } else {
        region.reads += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::masim::parse;

    #[test]
    fn a_sequential_stride_wraps_at_the_end() {
        // 4096, 8192, 12288, then past the end of 16384: back to 0.
        let mut o = 0;
        let got: Vec<u64> = (0..6)
            .map(|_| {
                o = seq_next(o, 4096, 16384);
                o
            })
            .collect();
        assert_eq!(got, [4096, 8192, 12288, 0, 4096, 8192]);
        // A partial last stride is still touched.
        assert_eq!(seq_next(4096, 4096, 10000), 8192);
        assert_eq!(seq_next(8192, 4096, 10000), 0);
        // A stride of 0, as large as the region, or negative: offset 0.
        for stride in [0, 4096, (-4096i64) as u64] {
            assert_eq!(seq_next(0, stride, 4096), 0, "{stride}");
        }
    }

    #[test]
    fn sequential_bursts_resume_where_they_stopped() {
        let cfg = parse("a, 16384\n\np\n1\na, 0, 4096, 1, rw\n", "t").unwrap();
        let mut r = Region::new("a", 0, 4, 1).unwrap();
        let mut rng = Rng::new(1);
        let mut cursor = 0;
        let p = &cfg.phases[0].patterns[0];
        burst(&mut r, p, &mut cursor, &mut rng, 3);
        assert_eq!(cursor, 12288);
        burst(&mut r, p, &mut cursor, &mut rng, 2);
        // 0 and 4096: pages 0, 1 and 2 written twice, page 3 once.
        assert_eq!(cursor, 4096);
        assert_eq!(r.writes, 5);
        assert_eq!(r.reads, 0);
    }

    #[test]
    fn probabilities_are_respected_over_many_draws() {
        let cfg = parse(
            "a, 4096\nb, 4096\nc, 4096\nd, 4096\n\np\n1\na, 1, 0, 1\nb, 1, 0, 3\nc, 1, 0, 0\nd, 0, 0, 6\n",
            "t",
        )
        .unwrap();
        let picker = Picker::new(&cfg.phases[0]).unwrap();
        let mut rng = Rng::new(42);
        let mut counts = [0u32; 4];
        let n = 200_000;
        for _ in 0..n {
            counts[picker.pick(&mut rng)] += 1;
        }
        assert_eq!(counts[2], 0, "a probability of 0 never runs");
        for (i, want) in [(0, 0.1), (1, 0.3), (3, 0.6)] {
            let got = f64::from(counts[i]) / f64::from(n);
            assert!((got - want).abs() < 0.005, "pattern {i}: {got} vs {want}");
        }
    }

    #[test]
    fn random_bursts_stay_in_the_region() {
        let cfg = parse("a, 8192\n\np\n1\na, 1, 64, 1, wo\n", "t").unwrap();
        let mut r = Region::new("a", 0, 2, 1).unwrap();
        let mut rng = Rng::new(3);
        let mut cursor = 0;
        burst(
            &mut r,
            &cfg.phases[0].patterns[0],
            &mut cursor,
            &mut rng,
            10_000,
        );
        assert_eq!(r.writes, 10_000);
        let t = r.check();
        assert_eq!((t.corrupted_bytes, t.lost_writes), (0, 0));
    }
}
