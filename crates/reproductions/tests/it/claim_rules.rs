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

/// Units that make a number a measured figure.
const UNITS: [&str; 22] = [
    "%", "x", "s", "ms", "us", "ns", "K", "M", "G", "GB", "MB", "KB", "GiB", "MiB", "KiB", "TiB",
    "TB", "K/s", "M/s", "GB/s", "MB/s", "W",
];

/// The figures and commits a reason's own text carries, outside its
/// `{/path}` placeholders (which the run fills in).
fn stale_figures(reason: &str) -> Vec<String> {
    let mut text = String::new();
    let mut rest = reason;
    while let Some(i) = rest.find("{/") {
        text.push_str(&rest[..i]);
        rest = rest[i..].split_once('}').map_or("", |(_, r)| r);
        text.push(' ');
    }
    text.push_str(rest);
    let mut found = Vec::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_matches(|c: char| "()[],;:'\"`".contains(c));
        let hex = w.len() >= 7
            && w.len() <= 40
            && w.chars().all(|c| c.is_ascii_hexdigit())
            && w.chars().any(|c| c.is_ascii_digit())
            && w.chars().any(|c| c.is_ascii_alphabetic());
        if hex {
            found.push(format!("commit {w}"));
            continue;
        }
        let digits = w.trim_start_matches(['-', '+', '~']);
        let num_len = digits
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(digits.len());
        if num_len == 0 || !digits.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let unit = &digits[num_len..];
        let next = words
            .get(i + 1)
            .map(|n| n.trim_end_matches(|c: char| ",;:)".contains(c)))
            .unwrap_or("");
        if UNITS.contains(&unit) || (unit.is_empty() && UNITS.contains(&next)) {
            found.push(w.to_string());
        }
    }
    if reason.contains("measured at") {
        found.push("\"measured at\"".into());
    }
    found
}

/// Rule 7: a reason says why in words; its figures come from the run that
/// failed the claim (`{/path}` placeholders, `claims::fill_reason`), never
/// from text that outlives them, and it cites no commit.
#[test]
fn no_reason_carries_a_figure_or_a_commit() {
    let mut bad = Vec::new();
    for r in reproduce::all() {
        for c in (r.claims)() {
            let f = stale_figures(c.reason);
            if !f.is_empty() {
                bad.push(format!("{}: {}", c.id, f.join(", ")));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} reasons carry figures:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_figure_finder_finds_figures_and_commits_only() {
    assert!(stale_figures("section 4.3, Figure 12, rule 3, W7, step 2").is_empty());
    assert!(stale_figures("ours {/a/b:%} against {/c:x}").is_empty());
    assert_eq!(
        stale_figures("at afcd592 it was 1.17x, 30 s and 4.5%").len(),
        4
    );
    assert_eq!(stale_figures("16.4 M faults").len(), 1);
}

/// Every listed calibration is a claim of a registered reproduction, and
/// every goal reproduction exists: a renamed claim cannot silently become a
/// paper claim again.
#[test]
fn every_listed_claim_and_reproduction_exists() {
    let all = reproduce::all();
    let ids: Vec<String> = all
        .iter()
        .flat_map(|r| (r.claims)())
        .map(|c| c.id)
        .collect();
    for (id, why) in kinds::CALIBRATIONS {
        assert!(ids.iter().any(|i| i == id), "{id} is not a claim");
        assert!(!why.is_empty());
        assert_eq!(kinds::kind_of(id), Kind::Calibration);
    }
    for name in kinds::GOAL_REPRODUCTIONS {
        assert!(all.iter().any(|r| r.name == *name), "{name}");
    }
    assert_eq!(kinds::kind_of("live-damon/x"), Kind::Goal);
    assert_eq!(kinds::kind_of("ambix-npb/ambix-medium"), Kind::Paper);
}
