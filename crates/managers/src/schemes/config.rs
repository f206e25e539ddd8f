//! Schemes as a user writes them, in a manager's parameters (`schemes`, a
//! list of tables; `--set` reaches each field): the units are the user's
//! (bytes, a share of the most accesses an aggregation can count, seconds,
//! milliseconds), converted to the engine's when the profile's scale is
//! known.

use super::{
    Action, Filter, FilterKind, Goal, GoalMetric, Pattern, Quota, Scheme, WatermarkMetric,
    Watermarks, Weights,
};
use serde::{Deserialize, Serialize};
use thermocline_vocab::{Asid, PageType, TierId};

/// One scheme's parameters.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SchemeParams {
    /// `migrate_hot`, `migrate_cold`, `pageout`, `hugepage`, `nohugepage`
    /// or `stat`.
    pub action: String,
    /// The destination of a migration; default: the fastest tier for
    /// migrate_hot, the slowest for migrate_cold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<u8>,
    /// Region size range (bytes; no maximum when left out).
    pub min_bytes: u64,
    /// ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// Access frequency range: percent of the most accesses one aggregation
    /// can count (DAMON's samples per aggregation).
    pub min_access_pct: f64,
    /// ...
    pub max_access_pct: f64,
    /// Age range (seconds the region's frequency has stayed about the
    /// same; no maximum when left out).
    pub min_age_s: f64,
    /// ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_age_s: Option<f64>,
    /// Apply every this many ms (DAMOS's apply_interval); left out: at
    /// every aggregation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply_interval_ms: Option<f64>,
    /// Bytes per charge interval; 0: none.
    pub quota_bytes: u64,
    /// Time per charge interval (ms); 0: none.
    pub quota_ms: f64,
    /// The charge interval (ms).
    pub quota_reset_ms: f64,
    /// Priority weight of the access frequency when a quota binds.
    pub weight_accesses: u32,
    /// ... of the age.
    pub weight_age: u32,
    /// Goals the quota is tuned towards.
    pub goals: Vec<GoalParams>,
    /// When the scheme is active.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watermarks: Option<WatermarkParams>,
    /// Which memory beyond the pattern.
    pub filters: Vec<FilterParams>,
}

impl Default for SchemeParams {
    fn default() -> Self {
        SchemeParams {
            action: "stat".into(),
            tier: None,
            min_bytes: 0,
            max_bytes: None,
            min_access_pct: 0.0,
            max_access_pct: 100.0,
            min_age_s: 0.0,
            max_age_s: None,
            apply_interval_ms: None,
            quota_bytes: 0,
            quota_ms: 0.0,
            quota_reset_ms: 1000.0,
            weight_accesses: 1,
            weight_age: 1,
            goals: Vec::new(),
            watermarks: None,
            filters: Vec::new(),
        }
    }
}

/// A quota goal.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GoalParams {
    /// `tier_used_bp`, `tier_free_bp`, `slow_access_bp` or `stall_us`.
    pub metric: String,
    /// The tier of a tier metric (default 0).
    #[serde(default)]
    pub tier: u8,
    /// The target value.
    pub target: f64,
}

/// Watermarks on a tier's free share (per mille).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WatermarkParams {
    /// The tier watched (default 0).
    #[serde(default)]
    pub tier: u8,
    /// How often (ms).
    #[serde(default = "default_wmark_interval")]
    pub interval_ms: f64,
    /// Above: off.
    pub high: f64,
    /// At or below, while off: on.
    pub mid: f64,
    /// Below: off.
    pub low: f64,
}

fn default_wmark_interval() -> f64 {
    5000.0
}

/// A filter.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FilterParams {
    /// `addr`, `target`, `anon`, `huge` or `page_type`.
    pub kind: String,
    /// Exclude matching memory (default); false: include only it.
    #[serde(default = "yes")]
    pub exclude: bool,
    /// `addr`: first byte.
    #[serde(default)]
    pub start: u64,
    /// `addr`: one past the last.
    #[serde(default)]
    pub end: u64,
    /// `target`: the address space.
    #[serde(default)]
    pub asid: u16,
    /// `page_type`: anon, file-cache, slab, io-buffer or page-table.
    #[serde(default)]
    pub page_type: Option<PageType>,
}

fn yes() -> bool {
    true
}

/// The kernel's DAMON memory-tiering sample (Linux 6.16,
/// samples/damon/mtier.c): promote to the fastest tier what was seen
/// accessed (its `min_nr_accesses` 1 of 20 samples per 100 ms aggregation:
/// 5%) while the fastest tier is under 99.7% used, demote what was seen
/// idle while it has under 0.5% free; each at most 200 MiB per second,
/// applied every second, frequency and age weighted alike. Its `young`
/// page filters (a page's Accessed bit read again when the action is
/// applied) are not modelled.
pub fn mtier_recipe() -> Vec<SchemeParams> {
    let goal = |metric: &str, target: f64| GoalParams {
        metric: metric.into(),
        tier: 0,
        target,
    };
    let common = SchemeParams {
        quota_bytes: 200 << 20,
        quota_reset_ms: 1000.0,
        apply_interval_ms: Some(1000.0),
        weight_accesses: 100,
        weight_age: 100,
        ..SchemeParams::default()
    };
    vec![
        SchemeParams {
            action: "migrate_hot".into(),
            min_access_pct: 5.0,
            goals: vec![goal("tier_used_bp", 9970.0)],
            ..common.clone()
        },
        SchemeParams {
            action: "migrate_cold".into(),
            max_access_pct: 0.0,
            goals: vec![goal("tier_free_bp", 50.0)],
            ..common
        },
    ]
}

/// A scheme the engine can run, with the user's frequency and age units
/// kept until the profile's scale is known.
#[derive(Clone, Debug, PartialEq)]
pub struct Configured {
    /// The scheme, its pattern's frequency and age still unset.
    pub scheme: Scheme,
    /// Percent of the most accesses.
    pub access_pct: (f64, f64),
    /// Seconds.
    pub age_s: (f64, f64),
}

impl Configured {
    /// The scheme for a profile whose counts go up to `max_nr_accesses` per
    /// aggregation of `aggregation_ns`.
    pub fn scheme_for(&self, max_nr_accesses: u32, aggregation_ns: u64) -> Scheme {
        let mut s = self.scheme.clone();
        let max = f64::from(max_nr_accesses);
        let aggr_s = aggregation_ns.max(1) as f64 / 1e9;
        s.pattern.min_nr_accesses = (self.access_pct.0 / 100.0 * max).ceil() as u32;
        s.pattern.max_nr_accesses = if self.access_pct.1 >= 100.0 {
            u32::MAX
        } else {
            (self.access_pct.1 / 100.0 * max).floor() as u32
        };
        s.pattern.min_age = (self.age_s.0 / aggr_s).ceil() as u32;
        s.pattern.max_age = if self.age_s.1.is_finite() {
            (self.age_s.1 / aggr_s).floor().min(f64::from(u32::MAX)) as u32
        } else {
            u32::MAX
        };
        s
    }
}

fn range_ok(what: &str, lo: f64, hi: f64) -> Result<(), String> {
    if lo.is_nan() || hi.is_nan() || lo < 0.0 {
        return Err(format!("{what}: the range must be of numbers >= 0"));
    }
    if lo > hi {
        return Err(format!(
            "min_{what} ({lo}) is above max_{what} ({hi}): the scheme could never match"
        ));
    }
    Ok(())
}

impl SchemeParams {
    /// Checks the parameters against a machine of `tiers` tiers and builds
    /// the scheme; an error says which field is wrong and why.
    pub fn build(&self, tiers: usize) -> Result<Configured, String> {
        let slowest = tiers.saturating_sub(1);
        let tier = |default: usize| -> Result<TierId, String> {
            let t = self.tier.map_or(default, usize::from);
            if t >= tiers {
                return Err(format!(
                    "tier {t} does not exist (tiers 0 to {slowest}, fastest first)"
                ));
            }
            Ok(TierId(t as u8))
        };
        let action = match self.action.as_str() {
            "migrate_hot" => Action::MigrateHot(tier(0)?),
            "migrate_cold" => Action::MigrateCold(tier(slowest)?),
            "pageout" => Action::Pageout,
            "hugepage" => Action::Hugepage,
            "nohugepage" => Action::Nohugepage,
            "stat" => Action::Stat,
            other => {
                return Err(format!(
                    "action {other:?}: one of migrate_hot, migrate_cold, pageout, hugepage, nohugepage, stat"
                ))
            }
        };
        if self.tier.is_some() && !matches!(action, Action::MigrateHot(_) | Action::MigrateCold(_))
        {
            return Err(format!(
                "tier: only migrate_hot and migrate_cold have one, not {}",
                self.action
            ));
        }
        let max_bytes = self.max_bytes.unwrap_or(u64::MAX);
        if self.min_bytes > max_bytes {
            return Err(format!(
                "min_bytes ({}) is above max_bytes ({max_bytes}): the scheme could never match",
                self.min_bytes
            ));
        }
        if self.min_access_pct > 100.0 {
            return Err(format!(
                "min_access_pct ({}) is above 100: the scheme could never match",
                self.min_access_pct
            ));
        }
        range_ok("access_pct", self.min_access_pct, self.max_access_pct)?;
        let max_age_s = self.max_age_s.unwrap_or(f64::INFINITY);
        range_ok("age_s", self.min_age_s, max_age_s)?;
        let apply_interval_ns = match self.apply_interval_ms {
            None => 0,
            Some(ms) if ms > 0.0 && ms.is_finite() => (ms * 1e6) as u64,
            Some(ms) => return Err(format!("apply_interval_ms ({ms}) must be above 0")),
        };
        if !(self.quota_ms >= 0.0 && self.quota_ms.is_finite()) {
            return Err(format!(
                "quota_ms ({}) must be a number >= 0",
                self.quota_ms
            ));
        }
        if !(self.quota_reset_ms > 0.0 && self.quota_reset_ms.is_finite()) {
            return Err(format!(
                "quota_reset_ms ({}) must be above 0",
                self.quota_reset_ms
            ));
        }
        let goals = self
            .goals
            .iter()
            .map(|g| {
                let t = g.tier;
                if usize::from(t) >= tiers && g.metric.starts_with("tier_") {
                    return Err(format!("goal {}: tier {t} does not exist", g.metric));
                }
                let metric = match g.metric.as_str() {
                    "tier_used_bp" => GoalMetric::TierUsedBp(t),
                    "tier_free_bp" => GoalMetric::TierFreeBp(t),
                    "slow_access_bp" => GoalMetric::SlowAccessBp,
                    "stall_us" => GoalMetric::SomeMemPsiUs,
                    other => {
                        return Err(format!(
                            "goal metric {other:?}: one of tier_used_bp, tier_free_bp, slow_access_bp, stall_us"
                        ))
                    }
                };
                if !(g.target > 0.0 && g.target.is_finite()) {
                    return Err(format!("goal {}: target ({}) must be above 0", g.metric, g.target));
                }
                Ok(Goal {
                    metric,
                    target: g.target,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let watermarks = match &self.watermarks {
            None => Watermarks::default(),
            Some(w) => {
                if usize::from(w.tier) >= tiers {
                    return Err(format!("watermarks: tier {} does not exist", w.tier));
                }
                if !(w.high >= w.mid && w.mid >= w.low && w.low >= 0.0) {
                    return Err(format!(
                        "watermarks: need high >= mid >= low >= 0 (got {}, {}, {})",
                        w.high, w.mid, w.low
                    ));
                }
                if !(w.interval_ms > 0.0 && w.interval_ms.is_finite()) {
                    return Err("watermarks: interval_ms must be above 0".into());
                }
                Watermarks {
                    metric: WatermarkMetric::FreeMemRate(w.tier),
                    interval_ns: (w.interval_ms * 1e6) as u64,
                    high: w.high,
                    mid: w.mid,
                    low: w.low,
                }
            }
        };
        let filters = self
            .filters
            .iter()
            .map(|f| {
                let kind = match f.kind.as_str() {
                    "addr" if f.start < f.end => FilterKind::Addr {
                        start: f.start,
                        end: f.end,
                    },
                    "addr" => {
                        return Err(format!(
                            "addr filter: start ({:#x}) must be below end ({:#x})",
                            f.start, f.end
                        ))
                    }
                    "target" => FilterKind::Target(Asid(f.asid)),
                    "anon" => FilterKind::Anon,
                    "huge" => FilterKind::Huge,
                    "page_type" => match f.page_type {
                        Some(p) => FilterKind::PageType(p),
                        None => return Err("page_type filter: needs page_type".into()),
                    },
                    other => {
                        return Err(format!(
                            "filter kind {other:?}: one of addr, target, anon, huge, page_type"
                        ))
                    }
                };
                Ok(Filter {
                    kind,
                    exclude: f.exclude,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Configured {
            scheme: Scheme {
                pattern: Pattern {
                    min_bytes: self.min_bytes,
                    max_bytes,
                    ..Pattern::default()
                },
                apply_interval_ns,
                action,
                quota: Quota {
                    time_ns: (self.quota_ms * 1e6) as u64,
                    bytes: self.quota_bytes,
                    reset_interval_ns: (self.quota_reset_ms * 1e6) as u64,
                    weights: Weights {
                        nr_accesses: self.weight_accesses,
                        age: self.weight_age,
                    },
                    goals,
                },
                watermarks,
                filters,
            },
            access_pct: (self.min_access_pct, self.max_access_pct),
            age_s: (self.min_age_s, max_age_s),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> SchemeParams {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn units_become_the_profiles_at_its_scale() {
        let p = parse("action = \"migrate_cold\"\nmax_access_pct = 0\nmin_age_s = 2.0\n");
        let c = p.build(2).unwrap();
        assert_eq!(c.scheme.action, Action::MigrateCold(TierId(1)));
        // 20 samples per 100 ms aggregation
        let s = c.scheme_for(20, 100_000_000);
        assert_eq!(
            (s.pattern.min_nr_accesses, s.pattern.max_nr_accesses),
            (0, 0)
        );
        assert_eq!((s.pattern.min_age, s.pattern.max_age), (20, u32::MAX));
        let hot = parse("action = \"migrate_hot\"\nmin_access_pct = 5\n")
            .build(2)
            .unwrap();
        let s = hot.scheme_for(20, 100_000_000);
        assert_eq!(
            (s.pattern.min_nr_accesses, s.pattern.max_nr_accesses),
            (1, u32::MAX)
        );
        assert_eq!(s.action, Action::MigrateHot(TierId(0)));
    }

    #[test]
    fn the_mtier_recipe_builds_and_reads_back_from_toml() {
        let recipe = mtier_recipe();
        for p in &recipe {
            p.build(2).unwrap();
        }
        let text = toml::to_string(&Wrapper {
            schemes: recipe.clone(),
        })
        .unwrap();
        let back: Wrapper = toml::from_str(&text).unwrap();
        assert_eq!(back.schemes, recipe, "{text}");
    }

    #[derive(Serialize, Deserialize)]
    struct Wrapper {
        schemes: Vec<SchemeParams>,
    }

    #[test]
    fn impossible_or_unknown_settings_are_errors_that_say_why() {
        for (text, says) in [
            ("action = \"promote\"", "one of migrate_hot"),
            (
                "action = \"migrate_hot\"\ntier = 2",
                "tier 2 does not exist",
            ),
            (
                "action = \"pageout\"\ntier = 1",
                "only migrate_hot and migrate_cold",
            ),
            ("min_bytes = 10\nmax_bytes = 5", "could never match"),
            (
                "min_access_pct = 50\nmax_access_pct = 10",
                "could never match",
            ),
            ("min_access_pct = 150", "above 100"),
            ("min_age_s = 5.0\nmax_age_s = 1.0", "could never match"),
            ("apply_interval_ms = 0", "above 0"),
            ("quota_reset_ms = 0", "above 0"),
            (
                "[[goals]]\nmetric = \"tier_used_bp\"\ntier = 3\ntarget = 9000",
                "does not exist",
            ),
            (
                "[[goals]]\nmetric = \"psi\"\ntarget = 1",
                "one of tier_used_bp",
            ),
            ("[[goals]]\nmetric = \"stall_us\"\ntarget = 0", "above 0"),
            (
                "[watermarks]\nhigh = 1\nmid = 2\nlow = 0",
                "high >= mid >= low",
            ),
            (
                "[[filters]]\nkind = \"addr\"\nstart = 8\nend = 4",
                "below end",
            ),
            ("[[filters]]\nkind = \"page_type\"", "needs page_type"),
            ("[[filters]]\nkind = \"memcg\"", "one of addr"),
        ] {
            let e = parse(text).build(2).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
        assert!(toml::from_str::<SchemeParams>("actoin = \"stat\"").is_err());
    }
}
