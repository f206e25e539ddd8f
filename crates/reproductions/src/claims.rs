//! Claims: what a reproduction must show if it reproduces its paper, and the
//! check that says whether it does.
//!
//! A claim is typed (a value within a band, a ratio to the paper's value
//! within a tolerance, an ordering between techniques, a monotone trend
//! across a sweep), cites the paper's figure (file, section, figure or
//! table), and measures our figure from the reproduction's JSON summary (the
//! `json` of [`crate::reproduction::Output`]), so the same check runs on a
//! full run, a short CI run and a hand-made fixture. A claim that is not
//! held carries the reason we know for it, or says that none is known yet.

use serde::Serialize;
use serde_json::Value;

pub use crate::kinds::Kind;

/// One seed's verdict on a claim.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeedVerdict {
    /// The seed of every run.
    pub seed: u64,
    /// Whether the claim held on it.
    pub held: bool,
    /// Our values on it, as printed.
    pub ours: String,
}

/// Where in the papers a claim comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    /// The paper's file under `../shared/papers/`.
    pub file: &'static str,
    /// Section, figure or table (and "inferred" where the number is ours).
    pub at: &'static str,
}

/// Why a claim could not be measured from a summary.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum ClaimError {
    /// The summary has no number at this place.
    #[error("the summary has no number at {path}")]
    Missing {
        /// A JSON pointer, with `[key=value]` for a row picked by key.
        path: String,
    },
    /// The summary has the place, but the run had nothing there to measure
    /// (no copy made, no run of that cell): written as 0 or null, it is no
    /// figure.
    #[error("the run has nothing to measure at {path} ({why})")]
    Empty {
        /// A JSON pointer.
        path: String,
        /// What was absent.
        why: String,
    },
    /// The claim needs a different count of values than it measured.
    #[error("measured {got} values where the claim needs {need}")]
    Count {
        /// What the claim needs (e.g. "1", "at least 2").
        need: &'static str,
        /// What was measured.
        got: usize,
    },
}

/// How to print a measured value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Unit {
    /// A fraction, printed as a percentage with one decimal.
    Percent,
    /// A plain number with this many decimals.
    Num(u8),
    /// A ratio, printed as `N.NNx`.
    Times,
}

impl Unit {
    /// `v` as this unit prints it.
    pub fn show(self, v: f64) -> String {
        match self {
            Unit::Percent => format!("{:.1}%", v * 100.0),
            Unit::Num(d) => format!("{v:.*}", usize::from(d)),
            Unit::Times => format!("{v:.2}x"),
        }
    }
}

/// What the measured values must satisfy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Expect {
    /// Every value lies in `[lo, hi]`.
    Band {
        /// Lower bound (inclusive).
        lo: f64,
        /// Upper bound (inclusive).
        hi: f64,
    },
    /// The one value is within `tolerance` (relative) of `paper`:
    /// `|ours / paper - 1| <= tolerance`.
    Ratio {
        /// The paper's value.
        paper: f64,
        /// Relative tolerance.
        tolerance: f64,
    },
    /// The values, listed best first, each exceed the next by more than
    /// `margin` (an ordering between techniques or configurations).
    Order {
        /// Least difference that counts as "more".
        margin: f64,
    },
    /// The values, in the order of a sweep, rise (or fall) by more than
    /// `min_step` at every step.
    Trend {
        /// Rising (true) or falling (false).
        rising: bool,
        /// Least change per step that counts.
        min_step: f64,
    },
}

impl Expect {
    /// Whether `values` satisfy the expectation, or why they cannot be
    /// judged.
    pub fn holds(&self, values: &[f64]) -> Result<bool, ClaimError> {
        let need = |need, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(ClaimError::Count {
                    need,
                    got: values.len(),
                })
            }
        };
        match *self {
            Expect::Band { lo, hi } => {
                need("at least 1", !values.is_empty())?;
                Ok(values.iter().all(|v| (lo..=hi).contains(v)))
            }
            Expect::Ratio { paper, tolerance } => {
                need("1", values.len() == 1)?;
                Ok((values[0] / paper - 1.0).abs() <= tolerance)
            }
            Expect::Order { margin } => {
                need("at least 2", values.len() >= 2)?;
                Ok(values.windows(2).all(|w| w[0] - w[1] > margin))
            }
            Expect::Trend { rising, min_step } => {
                need("at least 2", values.len() >= 2)?;
                Ok(values.windows(2).all(|w| {
                    let step = if rising { w[1] - w[0] } else { w[0] - w[1] };
                    step > min_step
                }))
            }
        }
    }

    /// The expectation in words, with values printed in `unit`.
    pub fn describe(&self, unit: Unit) -> String {
        match *self {
            Expect::Band { lo, hi } if hi == f64::INFINITY => format!(">= {}", unit.show(lo)),
            Expect::Band { lo, hi } if lo == f64::NEG_INFINITY => format!("<= {}", unit.show(hi)),
            Expect::Band { lo, hi } => format!("in [{}, {}]", unit.show(lo), unit.show(hi)),
            Expect::Ratio { paper, tolerance } => {
                format!("{} within {:.0}%", unit.show(paper), tolerance * 100.0)
            }
            Expect::Order { margin } if margin > 0.0 => {
                format!("each > next by more than {}", unit.show(margin))
            }
            Expect::Order { .. } => "each > next".into(),
            Expect::Trend { rising, min_step } => format!(
                "{} by more than {} per step",
                if rising { "rises" } else { "falls" },
                unit.show(min_step)
            ),
        }
    }
}

/// Our figure, measured from a summary: labelled values, in the order the
/// expectation reads them.
pub type Measured = Vec<(String, f64)>;

/// Measures our figure from a reproduction's JSON summary.
pub type Measure = Box<dyn Fn(&Value) -> Result<Measured, ClaimError> + Send + Sync>;

/// One claim of a paper that a reproduction should hold.
pub struct Claim {
    /// Stable id, `reproduction/what`.
    pub id: String,
    /// The claim in one sentence.
    pub sentence: String,
    /// Where the paper makes it.
    pub source: Source,
    /// The paper's figure, as the paper gives it.
    pub paper: String,
    /// What our values must satisfy.
    pub expect: Expect,
    /// How values print.
    pub unit: Unit,
    /// Our figure.
    pub measure: Measure,
    /// Why it does not hold, where that is known; "unknown yet" otherwise.
    /// Printed only when the claim is not held.
    pub reason: &'static str,
}

/// The reason of a claim whose failure nobody has explained.
pub const UNKNOWN: &str = "unknown yet";

/// The verdict on one claim.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The claim's id.
    pub id: String,
    /// The claim in one sentence.
    pub sentence: String,
    /// Where the paper makes it.
    pub source: Source,
    /// The paper's figure.
    pub paper: String,
    /// The expectation in words.
    pub expect: String,
    /// Our values, labelled, as printed.
    pub ours: Vec<(String, String)>,
    /// Our raw values.
    pub values: Vec<f64>,
    /// Whether the claim holds.
    pub held: bool,
    /// Why not: the claim's known reason, or why it could not be measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Paper claim, calibration or project goal.
    pub kind: Kind,
    /// Each seed's verdict, when more than one seed ran (the claim holds
    /// when it holds on every one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<SeedVerdict>,
}

impl Verdict {
    /// Whether the seeds disagree on the claim.
    pub fn flips(&self) -> bool {
        self.seeds.iter().any(|s| s.held) && self.seeds.iter().any(|s| !s.held)
    }

    /// Our figure in one line: `label value, label value`.
    pub fn ours_line(&self) -> String {
        if self.ours.is_empty() {
            return "n/a".into();
        }
        self.ours
            .iter()
            .map(|(l, v)| {
                if l.is_empty() {
                    v.clone()
                } else {
                    format!("{l} {v}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Claim {
    /// Checks the claim against a summary. A claim that cannot be measured
    /// is not held, and says why.
    pub fn check(&self, summary: &Value) -> Verdict {
        let measured = (self.measure)(summary);
        let (values, ours, judged) = match measured {
            Ok(m) => {
                let values: Vec<f64> = m.iter().map(|x| x.1).collect();
                let ours = m
                    .iter()
                    .map(|(l, v)| (l.clone(), self.unit.show(*v)))
                    .collect();
                let judged = self.expect.holds(&values);
                (values, ours, judged)
            }
            Err(e) => (Vec::new(), Vec::new(), Err(e)),
        };
        let (held, reason) = match judged {
            Ok(true) => (true, None),
            Ok(false) => (false, Some(fill_reason(self.reason, summary))),
            Err(e) => (false, Some(format!("not measured: {e}"))),
        };
        Verdict {
            id: self.id.clone(),
            sentence: self.sentence.clone(),
            source: self.source.clone(),
            paper: self.paper.clone(),
            expect: self.expect.describe(self.unit),
            ours,
            values,
            held,
            reason,
            kind: crate::kinds::kind_of(&self.id),
            seeds: Vec::new(),
        }
    }
}

/// One claim's verdicts over several seeds, as one verdict: held when it
/// holds on every seed; our values are the first seed's, each label's
/// spread over the seeds where they differ; the seeds' own verdicts kept.
/// `per_seed` is in seed order and non-empty.
pub fn merge_seeds(per_seed: &[(u64, &Verdict)]) -> Verdict {
    let (_, first) = per_seed[0];
    let mut v = first.clone();
    v.held = per_seed.iter().all(|(_, x)| x.held);
    v.seeds = per_seed
        .iter()
        .map(|(seed, x)| SeedVerdict {
            seed: *seed,
            held: x.held,
            ours: x.ours_line(),
        })
        .collect();
    let same_labels = per_seed.iter().all(|(_, x)| {
        x.ours.len() == first.ours.len() && x.ours.iter().zip(&first.ours).all(|(a, b)| a.0 == b.0)
    });
    if same_labels {
        for (i, (_, shown)) in v.ours.iter_mut().enumerate() {
            let all: Vec<&str> = per_seed.iter().map(|(_, x)| x.ours[i].1.as_str()).collect();
            let vals: Vec<f64> = per_seed
                .iter()
                .filter_map(|(_, x)| x.values.get(i).copied())
                .collect();
            if all.iter().any(|s| *s != all[0]) && vals.len() == all.len() {
                let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let at = |x: f64| {
                    let j = vals.iter().position(|&y| y == x).unwrap_or(0);
                    all[j].to_string()
                };
                *shown = format!("{}..{}", at(lo), at(hi));
            }
        }
    }
    if v.held {
        v.reason = None;
    } else if v.reason.is_none() {
        v.reason = per_seed.iter().find_map(|(_, x)| x.reason.clone());
    }
    if v.flips() {
        let on: Vec<String> = v
            .seeds
            .iter()
            .filter(|s| !s.held)
            .map(|s| s.seed.to_string())
            .collect();
        let why = v.reason.take().unwrap_or_default();
        v.reason = Some(format!(
            "holds on some seeds, not on seed(s) {}{}{}",
            on.join(", "),
            if why.is_empty() { "" } else { "; " },
            why
        ));
    }
    v
}

/// A claim's reason with its figures read from the run that failed it
/// (docs/claims.md, rule 7): each `{PATH}` or `{PATH:FORMAT}` is the number
/// at PATH in the summary ([`read::path`]), printed by FORMAT: `%` (a
/// fraction as a percentage), `x` (a ratio), or a count of decimals (`0`
/// to `3`; 2 when none is given). A path the run lacks prints as `?` and
/// is named at the end, so a stale reason shows itself.
pub fn fill_reason(text: &str, summary: &Value) -> String {
    let mut out = String::with_capacity(text.len());
    let mut missing = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{/") {
        out.push_str(&rest[..open]);
        let Some(len) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let inner = &rest[open + 1..open + len];
        let (path, format) = inner.rsplit_once(':').unwrap_or((inner, "2"));
        match read::path(summary, path).ok().and_then(Value::as_f64) {
            Some(x) => out.push_str(&match format {
                "%" => Unit::Percent.show(x),
                "x" => Unit::Times.show(x),
                d => Unit::Num(d.parse().unwrap_or(2)).show(x),
            }),
            None => {
                out.push('?');
                missing.push(path.to_string());
            }
        }
        rest = &rest[open + len + 1..];
    }
    out.push_str(rest);
    if !missing.is_empty() {
        out.push_str(&format!(" (not in this run: {})", missing.join(", ")));
    }
    out
}

/// Checks every claim against one summary.
pub fn check_all(claims: &[Claim], summary: &Value) -> Vec<Verdict> {
    claims.iter().map(|c| c.check(summary)).collect()
}

/// The verdicts as lines for the terminal: `held` / `NOT held`, ours beside
/// the paper's, and the reason of each that is not held.
pub fn render(verdicts: &[Verdict]) -> String {
    let mut s = String::new();
    for v in verdicts {
        s.push_str(&format!(
            "{:<8} {}: {}\n         ours: {} | paper: {} ({}; {}, {})\n",
            if v.held { "held" } else { "NOT held" },
            v.id,
            v.sentence,
            v.ours_line(),
            v.paper,
            v.expect,
            v.source.file,
            v.source.at
        ));
        if let Some(r) = &v.reason {
            s.push_str(&format!("         why: {r}\n"));
        }
    }
    s
}

/// Reading numbers out of a summary, each failure naming the place.
pub mod read {
    use super::ClaimError;
    use serde_json::Value;

    /// The value at a JSON pointer.
    pub fn at<'a>(v: &'a Value, pointer: &str) -> Result<&'a Value, ClaimError> {
        v.pointer(pointer).ok_or_else(|| ClaimError::Missing {
            path: pointer.into(),
        })
    }

    /// The number at a JSON pointer.
    pub fn num(v: &Value, pointer: &str) -> Result<f64, ClaimError> {
        at(v, pointer)?.as_f64().ok_or_else(|| ClaimError::Missing {
            path: pointer.into(),
        })
    }

    /// The value at a path: a JSON pointer whose segments may pick an
    /// array's row by key, `key[field=value]` (`/models[name=mcf]/iqr`).
    pub fn path<'a>(v: &'a Value, path: &str) -> Result<&'a Value, ClaimError> {
        let missing = || ClaimError::Missing { path: path.into() };
        let mut at = v;
        for seg in path.split('/').skip(1) {
            at = match seg.split_once('[') {
                Some((key, pick)) => {
                    let (field, value) = pick
                        .strip_suffix(']')
                        .and_then(|p| p.split_once('='))
                        .ok_or_else(missing)?;
                    let arr = if key.is_empty() {
                        at
                    } else {
                        at.get(key).ok_or_else(missing)?
                    };
                    arr.as_array()
                        .and_then(|a| {
                            a.iter().find(|r| match &r[field] {
                                Value::String(s) => s == value,
                                other => value
                                    .parse::<f64>()
                                    .is_ok_and(|x| other.as_f64() == Some(x)),
                            })
                        })
                        .ok_or_else(missing)?
                }
                None => {
                    let seg = seg.replace("~1", "/").replace("~0", "~");
                    match at {
                        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
                        _ => at.get(&seg),
                    }
                    .ok_or_else(missing)?
                }
            };
        }
        Ok(at)
    }

    /// The number at a JSON pointer when it is above 0: a summary writes 0
    /// (or null) where its run had nothing to measure, and that is
    /// [`ClaimError::Empty`], not a figure.
    pub fn positive(v: &Value, pointer: &str, why: &str) -> Result<f64, ClaimError> {
        let x = at(v, pointer)?;
        match x.as_f64() {
            Some(x) if x > 0.0 => Ok(x),
            Some(_) => Err(ClaimError::Empty {
                path: pointer.into(),
                why: why.into(),
            }),
            None if x.is_null() => Err(ClaimError::Empty {
                path: pointer.into(),
                why: why.into(),
            }),
            None => Err(ClaimError::Missing {
                path: pointer.into(),
            }),
        }
    }

    /// The number at a JSON pointer unless it is 0 or not finite, which a
    /// summary writes for a run it lacks ([`ClaimError::Empty`]): for
    /// figures no run that happened gives exactly 0 of (a speedup, a gain
    /// over another run, an overhead).
    pub fn ran(v: &Value, pointer: &str) -> Result<f64, ClaimError> {
        let x = num(v, pointer)?;
        if x != 0.0 && x.is_finite() {
            Ok(x)
        } else {
            Err(ClaimError::Empty {
                path: pointer.into(),
                why: "0 or not finite: no run".into(),
            })
        }
    }

    /// The element of the array at `pointer` whose `key` is `value`.
    pub fn row<'a>(
        v: &'a Value,
        pointer: &str,
        key: &str,
        value: &str,
    ) -> Result<&'a Value, ClaimError> {
        at(v, pointer)?
            .as_array()
            .and_then(|a| a.iter().find(|r| r[key] == value))
            .ok_or_else(|| ClaimError::Missing {
                path: format!("{pointer}[{key}={value}]"),
            })
    }
}

/// Checks the claim modules' tests share: a claim's figures and its
/// reason's placeholders are found in a summary built like the real one.
#[cfg(test)]
pub(crate) mod testing {
    use super::{fill_reason, Claim};
    use serde_json::Value;

    /// Every `{/path}` in the claims' reasons is a number of `summary`.
    pub(crate) fn reasons_resolve(claims: &[Claim], summary: &Value) {
        for c in claims {
            let why = fill_reason(c.reason, summary);
            assert!(!why.contains("(not in this run: "), "{}: {why}", c.id);
        }
    }

    /// The summary `summarize` makes of a reproduction's `runs` (its
    /// default options, seed 1), each run's report made by `report`.
    pub(crate) fn summary_of(
        runs: fn(&crate::reproduction::Options) -> Vec<crate::reproduction::RunSpec>,
        summarize: fn(
            &crate::reproduction::Options,
            &crate::reproduction::Results,
        ) -> crate::reproduction::Output,
        report: impl Fn(&crate::reproduction::RunSpec) -> thermocline_engine::report::Report,
    ) -> Value {
        let o = crate::reproduction::Options {
            duration_s: None,
            seed: 1,
        };
        let res: crate::reproduction::Results = runs(&o)
            .into_iter()
            .map(|s| {
                let r = report(&s);
                (s, r)
            })
            .collect();
        summarize(&o, &res).json
    }

    /// Every claim is measured from `summary`, and every reason resolves.
    pub(crate) fn measured_and_explained(claims: &[Claim], summary: &Value) {
        for c in claims {
            let reason = c.check(summary).reason;
            assert!(
                reason
                    .as_deref()
                    .is_none_or(|r| !r.starts_with("not measured")),
                "{}: {reason:?}",
                c.id
            );
        }
        reasons_resolve(claims, summary);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claim(expect: Expect, measure: Measure) -> Claim {
        Claim {
            id: "r/c".into(),
            sentence: "s".into(),
            source: Source {
                file: "f.txt",
                at: "Figure 1",
            },
            paper: "p".into(),
            expect,
            unit: Unit::Num(2),
            measure,
            reason: UNKNOWN,
        }
    }

    #[test]
    fn a_reason_reads_its_figures_from_the_run() {
        let v = json!({"models": [{"name": "mcf", "iqr": 24.4, "share": 0.125}], "r": 1.5});
        let why = fill_reason(
            "mcf's IQR is {/models[name=mcf]/iqr:1}, its share {/models[name=mcf]/share:%}, ratio {/r:x}; none {/nope}",
            &v,
        );
        assert_eq!(
            why,
            "mcf's IQR is 24.4, its share 12.5%, ratio 1.50x; none ? (not in this run: /nope)"
        );
        assert_eq!(fill_reason("no figures", &v), "no figures");
        assert_eq!(read::path(&v, "/models/0/iqr").unwrap(), 24.4);
        assert!(read::path(&v, "/models[name=x]/iqr").is_err());
    }

    /// Held on every seed or not held; our values show their spread over
    /// the seeds; a claim the seeds disagree on says which failed.
    #[test]
    fn seeds_merge_into_one_verdict() {
        let c = claim(
            Expect::Band { lo: 0.0, hi: 1.0 },
            Box::new(|v| Ok(vec![("a".into(), v["x"].as_f64().unwrap())])),
        );
        let v1 = c.check(&json!({"x": 0.5}));
        let v2 = c.check(&json!({"x": 0.9}));
        let v3 = c.check(&json!({"x": 1.5}));
        let all = merge_seeds(&[(1, &v1), (2, &v2)]);
        assert!(all.held && !all.flips() && all.reason.is_none());
        assert_eq!(all.ours, vec![("a".to_string(), "0.50..0.90".to_string())]);
        assert_eq!(all.seeds.len(), 2);
        let some = merge_seeds(&[(1, &v1), (2, &v2), (3, &v3)]);
        assert!(!some.held && some.flips());
        assert_eq!(some.ours[0].1, "0.50..1.50");
        let why = some.reason.unwrap();
        assert!(
            why.starts_with("holds on some seeds, not on seed(s) 3; unknown yet"),
            "{why}"
        );
        // Identical values print once.
        let same = merge_seeds(&[(1, &v1), (2, &v1)]);
        assert_eq!(same.ours[0].1, "0.50");
        assert_eq!(same.kind, Kind::Paper);
    }

    #[test]
    fn band_needs_every_value_inside() {
        let e = Expect::Band { lo: 0.4, hi: 0.5 };
        assert_eq!(e.holds(&[0.4, 0.45, 0.5]), Ok(true));
        assert_eq!(e.holds(&[0.45, 0.51]), Ok(false));
        assert_eq!(e.holds(&[f64::NAN]), Ok(false));
        assert!(e.holds(&[]).is_err());
    }

    #[test]
    fn ratio_is_relative_to_the_paper() {
        let e = Expect::Ratio {
            paper: 5.0,
            tolerance: 0.2,
        };
        assert_eq!(e.holds(&[4.0]), Ok(true));
        assert_eq!(e.holds(&[6.0]), Ok(true));
        assert_eq!(e.holds(&[3.9]), Ok(false));
        assert_eq!(e.holds(&[6.1]), Ok(false));
        assert_eq!(e.holds(&[f64::NAN]), Ok(false));
        assert!(e.holds(&[5.0, 5.0]).is_err());
    }

    #[test]
    fn order_and_trend_are_strict_by_their_margin() {
        let o = Expect::Order { margin: 0.0 };
        assert_eq!(o.holds(&[3.0, 2.0, 1.0]), Ok(true));
        assert_eq!(o.holds(&[3.0, 3.0]), Ok(false));
        assert!(o.holds(&[3.0]).is_err());
        let up = Expect::Trend {
            rising: true,
            min_step: 0.005,
        };
        assert_eq!(up.holds(&[0.10, 0.12, 0.20]), Ok(true));
        assert_eq!(up.holds(&[0.10, 0.104, 0.20]), Ok(false));
        let down = Expect::Trend {
            rising: false,
            min_step: 0.0,
        };
        assert_eq!(down.holds(&[0.9, 0.5, 0.0]), Ok(true));
        assert_eq!(down.holds(&[0.9, 0.95]), Ok(false));
    }

    #[test]
    fn a_failing_claim_carries_its_reason_and_an_unmeasurable_one_says_why() {
        let c = claim(
            Expect::Band { lo: 0.0, hi: 1.0 },
            Box::new(|v| Ok(vec![("x".into(), read::num(v, "/x")?)])),
        );
        let ok = c.check(&json!({"x": 0.5}));
        assert!(ok.held && ok.reason.is_none());
        assert_eq!(ok.ours, vec![("x".to_string(), "0.50".to_string())]);
        let bad = c.check(&json!({"x": 2.0}));
        assert!(!bad.held);
        assert_eq!(bad.reason.as_deref(), Some(UNKNOWN));
        let missing = c.check(&json!({"y": 1}));
        assert!(!missing.held);
        assert_eq!(
            missing.reason.as_deref(),
            Some("not measured: the summary has no number at /x")
        );
        let text = render(&[ok, bad]);
        assert!(text.starts_with("held     r/c: s\n"), "{text}");
        assert!(text.contains("NOT held r/c"), "{text}");
        assert!(text.contains("why: unknown yet"), "{text}");
    }

    #[test]
    fn rows_are_found_by_key() {
        let v = json!({"w": [{"name": "a", "x": 1.0}, {"name": "b", "x": 2.0}]});
        assert_eq!(read::row(&v, "/w", "name", "b").unwrap()["x"], 2.0);
        assert_eq!(
            read::row(&v, "/w", "name", "c").unwrap_err(),
            ClaimError::Missing {
                path: "/w[name=c]".into()
            }
        );
        assert!(read::num(&v, "/w/0/name").is_err());
    }
}
