//! Scoring a reported hot set against the simulator's ground truth, with
//! Telescope's definitions (paper 002, section 6.2) at 2 MiB granularity:
//! precision = |reported AND hot| / |reported|, recall = |reported AND hot| / |hot|.
//!
//! "Actually hot" is the rule written into every report: on the exact
//! machine a unit that *received* at least `threshold` accesses since the
//! manager's previous report; on the rate machine a unit whose *expected*
//! accesses in that span reach `threshold`.
//!
//! Sets are sorted, merged intervals of unit numbers, so that scoring a
//! terabyte-sized report costs its number of ranges, not of units.

use thermocline_managers::HotSet;
use thermocline_sim::Machine;

/// Units `[first, last + 1)` of one address space.
pub type UnitSpan = (u16, u64, u64);

/// One scored profiling window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// None when nothing was reported.
    pub precision: Option<f64>,
    /// None when nothing was hot.
    pub recall: Option<f64>,
}

/// The units a hot set covers, sorted and merged.
pub fn reported_units(hot: &HotSet) -> Vec<UnitSpan> {
    let mut v: Vec<UnitSpan> = hot
        .ranges
        .iter()
        .filter(|r| r.2 > 0)
        .map(|&(asid, start, len)| (asid.0, start >> 21, ((start + len - 1) >> 21) + 1))
        .collect();
    merge(&mut v);
    v
}

/// Sorts and merges overlapping or adjacent spans in place.
pub fn merge(v: &mut Vec<UnitSpan>) {
    v.sort_unstable();
    let mut out: Vec<UnitSpan> = Vec::with_capacity(v.len());
    for &s in v.iter() {
        match out.last_mut() {
            Some(o) if o.0 == s.0 && s.1 <= o.2 => o.2 = o.2.max(s.2),
            _ => out.push(s),
        }
    }
    *v = out;
}

fn count(v: &[UnitSpan]) -> u64 {
    v.iter().map(|s| s.2 - s.1).sum()
}

/// Units in both sorted, merged lists.
fn overlap(a: &[UnitSpan], b: &[UnitSpan]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.0 != y.0 {
            if x.0 < y.0 {
                i += 1;
            } else {
                j += 1;
            }
            continue;
        }
        let lo = x.1.max(y.1);
        let hi = x.2.min(y.2);
        n += hi.saturating_sub(lo);
        if x.2 < y.2 {
            i += 1;
        } else {
            j += 1;
        }
    }
    n
}

/// Scores `reported` against `actual` (both sorted and merged).
pub fn score_spans(reported: &[UnitSpan], actual: &[UnitSpan]) -> Score {
    let both = overlap(reported, actual) as f64;
    let (r, a) = (count(reported), count(actual));
    Score {
        precision: (r > 0).then(|| both / r as f64),
        recall: (a > 0).then(|| both / a as f64),
    }
}

/// The exact machine's hot units since the last call (resetting its counts).
pub fn exact_hot_units(machine: &mut Machine, threshold: u64) -> Vec<UnitSpan> {
    let mut actual: Vec<UnitSpan> = Vec::new();
    for asid in machine.regions_asids() {
        machine.visit_counts(asid, true, |va, counts| {
            let sum: u64 = counts.iter().map(|&c| u64::from(c)).sum();
            if sum >= threshold.max(1) {
                actual.push((asid, va >> 21, (va >> 21) + 1));
            }
        });
    }
    merge(&mut actual);
    actual
}

/// Scores `hot` against the exact machine's counts since the last call,
/// then resets them.
pub fn score(machine: &mut Machine, hot: &HotSet, threshold: u64) -> Score {
    let actual = exact_hot_units(machine, threshold);
    score_spans(&reported_units(hot), &actual)
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_vocab::Asid;

    fn naive(rep: &[UnitSpan], act: &[UnitSpan]) -> (u64, u64, u64) {
        let set = |v: &[UnitSpan]| {
            v.iter()
                .flat_map(|s| (s.1..s.2).map(move |u| (s.0, u)))
                .collect::<std::collections::BTreeSet<_>>()
        };
        let (r, a) = (set(rep), set(act));
        (
            r.intersection(&a).count() as u64,
            r.len() as u64,
            a.len() as u64,
        )
    }

    proptest::proptest! {
        #[test]
        fn interval_scoring_matches_sets(
            rep in proptest::collection::vec((0u16..2, 0u64..50, 1u64..8), 0..12),
            act in proptest::collection::vec((0u16..2, 0u64..50, 1u64..8), 0..12),
        ) {
            let to = |v: &[(u16, u64, u64)]| {
                let mut s: Vec<UnitSpan> = v.iter().map(|&(a, lo, n)| (a, lo, lo + n)).collect();
                merge(&mut s);
                s
            };
            let (r, a) = (to(&rep), to(&act));
            let (both, nr, na) = naive(&r, &a);
            let s = score_spans(&r, &a);
            proptest::prop_assert_eq!(s.precision, (nr > 0).then(|| both as f64 / nr as f64));
            proptest::prop_assert_eq!(s.recall, (na > 0).then(|| both as f64 / na as f64));
        }
    }

    #[test]
    fn reported_ranges_become_units() {
        let hot = HotSet {
            ranges: vec![
                (Asid(0), 0, 4096),
                (Asid(0), 2 << 20, 4 << 20),
                (Asid(1), 0, 0),
            ],
        };
        assert_eq!(reported_units(&hot), vec![(0, 0, 3)]);
    }
}
