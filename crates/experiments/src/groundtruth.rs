//! Scoring a reported hot set against the simulator's ground truth, with
//! Telescope's definitions (paper 002, section 6.2) at 2 MiB granularity:
//! precision = |reported AND hot| / |reported|, recall = |reported AND hot| / |hot|.
//! A unit is hot when it received at least `threshold` accesses since the
//! manager's previous report (the rule is written into every report).

use std::collections::BTreeSet;
use thermocline_managers::HotSet;
use thermocline_sim::Machine;

/// One scored profiling window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// None when nothing was reported.
    pub precision: Option<f64>,
    /// None when nothing was hot.
    pub recall: Option<f64>,
}

/// Scores `hot` against the counts accumulated since the last call, then resets them.
pub fn score(machine: &mut Machine, hot: &HotSet, threshold: u64) -> Score {
    let mut reported: BTreeSet<(u16, u64)> = BTreeSet::new();
    for &(asid, start, len) in &hot.ranges {
        if len == 0 {
            continue;
        }
        for unit in (start >> 21)..=((start + len - 1) >> 21) {
            reported.insert((asid.0, unit));
        }
    }
    let asids: BTreeSet<u16> = machine.regions_asids();
    let mut actual: BTreeSet<(u16, u64)> = BTreeSet::new();
    for asid in asids {
        machine.visit_counts(asid, true, |va, counts| {
            let sum: u64 = counts.iter().map(|&c| u64::from(c)).sum();
            if sum >= threshold.max(1) {
                actual.insert((asid, va >> 21));
            }
        });
    }
    let both = reported.intersection(&actual).count() as f64;
    Score {
        precision: (!reported.is_empty()).then(|| both / reported.len() as f64),
        recall: (!actual.is_empty()).then(|| both / actual.len() as f64),
    }
}
