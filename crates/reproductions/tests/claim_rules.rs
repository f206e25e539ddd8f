//! The claim rules of docs/claims.md that a claim's own fields show,
//! checked over every claim of every reproduction.

use thermocline_reproductions::claims::{Expect, Kind, Unit};
use thermocline_reproductions::{kinds, reproduce};

/// Rule 3: a ratio's band never reaches the value of no effect (1x for a
/// ratio, 0 for a share or a difference), so a loss cannot hold as a gain
/// or a rise as a fall. A ratio whose paper value is the no-effect value
/// itself ("as fast as") is exempt.
#[test]
fn no_ratio_band_admits_the_opposite_direction() {
    let mut bad = Vec::new();
    for r in reproduce::all() {
        for c in (r.claims)() {
            let Expect::Ratio { paper, tolerance } = c.expect else {
                continue;
            };
            let neutral = match c.unit {
                Unit::Times => 1.0,
                Unit::Percent | Unit::Num(_) => 0.0,
            };
            if paper == neutral {
                continue;
            }
            let (lo, hi) = (paper * (1.0 - tolerance), paper * (1.0 + tolerance));
            let (lo, hi) = (lo.min(hi), lo.max(hi));
            if (lo..=hi).contains(&neutral) {
                bad.push(format!(
                    "{}: {paper} within {:.0}% reaches {neutral}",
                    c.id,
                    tolerance * 100.0
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "ratio bands that admit the opposite effect:\n{}",
        bad.join("\n")
    );
}

/// Rule 2: a tolerance is finite, below 100% (a band that reaches 0 or
/// doubles the value says nothing), and a band has lo <= hi.
#[test]
fn every_band_is_a_band() {
    for r in reproduce::all() {
        for c in (r.claims)() {
            match c.expect {
                Expect::Ratio { paper, tolerance } => {
                    assert!(paper.is_finite() && paper != 0.0, "{}", c.id);
                    assert!((0.0..1.0).contains(&tolerance), "{}: {tolerance}", c.id);
                }
                Expect::Band { lo, hi } => assert!(lo <= hi, "{}: [{lo}, {hi}]", c.id),
                Expect::Order { margin } => assert!(margin >= 0.0, "{}", c.id),
                Expect::Trend { min_step, .. } => assert!(min_step >= 0.0, "{}", c.id),
            }
        }
    }
}

/// Rule 5: ids are unique (a verdict is found by id), and every claim of a
/// goal reproduction is a goal.
#[test]
fn ids_are_unique_and_kinds_follow_the_table() {
    let mut seen = std::collections::BTreeSet::new();
    for r in reproduce::all() {
        for c in (r.claims)() {
            assert!(seen.insert(c.id.clone()), "{} twice", c.id);
            assert!(
                c.id.starts_with(&format!("{}/", r.name)) || c.id.contains('/'),
                "{}",
                c.id
            );
            if kinds::GOAL_REPRODUCTIONS.contains(&r.name)
                && kinds::why_calibration(&c.id).is_none()
            {
                assert_eq!(kinds::kind_of(&c.id), Kind::Goal, "{}", c.id);
            }
        }
    }
}
