//! Schemes: rules that turn a profile of regions (from any telemetry that
//! reports regions with an access frequency and an age) into tiering
//! actions, with DAMOS's semantics (Linux Documentation/mm/damon/design.rst,
//! "Operation Schemes", and mm/damon/core.c as of 6.12): an access pattern,
//! an action, a quota with priorities and goal tuning, watermarks and
//! filters, and statistics per scheme.
//!
//! The engine is pure: it sees a profile, decides, and asks an
//! [`Actuator`] to act, so that the same rules run over every telemetry
//! and every backend, and a small reference model can test it.
//!
//! Two deviations:
//! - The kernel resets a region's age when an action other than `stat` is
//!   applied to it; the engine reports the ranges it acted on
//!   ([`Engine::apply`]'s return) and leaves ages to the telemetry that
//!   keeps them.
//! - A move (migrate_hot, migrate_cold, pageout) charges its size quota
//!   with the bytes it moved, not with the region's size: bytes already in
//!   the destination tier are skipped and cost nothing, and a destination
//!   that is full (or refuses pages) ends the scheme's walk until the next
//!   apply. DAMOS
//!   charges the whole region (core.c, damos_apply_scheme), which is right
//!   for its paddr tiering, where the kernel's sample (samples/damon/
//!   mtier.c) gives each node's physical range its own context so that
//!   every region tried is a candidate; over virtual addresses the hottest
//!   regions are the ones already in the fast tier, and in the
//!   schemes-tiering reproduction at 512e7dc telescope-bounded's promotion
//!   tried 3.16 TB to move 17.1 GB, its quota spent every interval on
//!   regions already there. Other actions charge as DAMOS does.

mod config;
mod filter;
mod quota;
mod run;
mod score;
mod watermark;

pub use config::{
    mtier_recipe, Configured, FilterParams, GoalParams, SchemeParams, WatermarkParams,
};
pub use run::SchemeSet;

pub use filter::{passing, Filter, FilterKind, Traits};
pub use quota::{goal_score, Goal, GoalMetric, Quota, QuotaState};
pub use score::{Weights, MAX_SCORE};
pub use watermark::{WatermarkMetric, WatermarkState, Watermarks};

use thermocline_backend::BackendError;
use thermocline_vocab::{Asid, TierId};

/// The smallest unit the engine cuts a region at (DAMON_MIN_REGION).
pub const MIN_REGION: u64 = 4096;

/// One region of a profile: DAMON's `damon_region` with what the filters
/// need.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Region {
    /// Address space, page type, huge pages.
    pub traits: Traits,
    /// First byte.
    pub start: u64,
    /// One past the last.
    pub end: u64,
    /// Samples of the last aggregation that found it accessed.
    pub nr_accesses: u32,
    /// Aggregations its access frequency has stayed about the same.
    pub age: u32,
}

impl Region {
    /// Its size in bytes.
    pub fn bytes(&self) -> u64 {
        self.end - self.start
    }
}

/// A profile: the regions (in address-space, then address order) of one
/// aggregation, with the scale of their counts.
#[derive(Clone, Copy, Debug)]
pub struct Profile<'a> {
    /// The regions.
    pub regions: &'a [Region],
    /// The most `nr_accesses` can be (samples per aggregation).
    pub max_nr_accesses: u32,
    /// The aggregation interval (ns), the unit of `age`.
    pub aggregation_ns: u64,
}

/// Which regions a scheme acts on: inclusive ranges of size, frequency and
/// age.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// Bytes.
    pub min_bytes: u64,
    /// ...
    pub max_bytes: u64,
    /// Samples per aggregation that found the region accessed.
    pub min_nr_accesses: u32,
    /// ...
    pub max_nr_accesses: u32,
    /// Aggregation intervals.
    pub min_age: u32,
    /// ...
    pub max_age: u32,
}

impl Default for Pattern {
    fn default() -> Self {
        Pattern {
            min_bytes: 0,
            max_bytes: u64::MAX,
            min_nr_accesses: 0,
            max_nr_accesses: u32::MAX,
            min_age: 0,
            max_age: u32::MAX,
        }
    }
}

impl Pattern {
    /// Whether `r` matches.
    pub fn matches(&self, r: &Region) -> bool {
        (self.min_bytes..=self.max_bytes).contains(&r.bytes())
            && (self.min_nr_accesses..=self.max_nr_accesses).contains(&r.nr_accesses)
            && (self.min_age..=self.max_age).contains(&r.age)
    }

    /// Whether no region can ever match (a range with min > max).
    pub fn never_matches(&self) -> bool {
        self.min_bytes > self.max_bytes
            || self.min_nr_accesses > self.max_nr_accesses
            || self.min_age > self.max_age
    }
}

/// What a scheme does to the regions it picks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    /// Move to a faster tier.
    MigrateHot(TierId),
    /// Move to a slower tier.
    MigrateCold(TierId),
    /// Page out to the compressed or swap tier.
    Pageout,
    /// Collapse into huge pages.
    Hugepage,
    /// Split huge pages.
    Nohugepage,
    /// Nothing: count only.
    #[default]
    Stat,
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::MigrateHot(t) => write!(f, "migrate_hot to tier {}", t.0),
            Action::MigrateCold(t) => write!(f, "migrate_cold to tier {}", t.0),
            Action::Pageout => f.write_str("pageout"),
            Action::Hugepage => f.write_str("hugepage"),
            Action::Nohugepage => f.write_str("nohugepage"),
            Action::Stat => f.write_str("stat"),
        }
    }
}

impl Action {
    /// Whether it moves pages to a tier (and so charges the bytes moved).
    pub fn moves(self) -> bool {
        matches!(
            self,
            Action::MigrateHot(_) | Action::MigrateCold(_) | Action::Pageout
        )
    }

    /// The region's priority under this action when a quota binds: hot
    /// regions first for a promotion, cold ones for a demotion or a
    /// page-out, none for the others.
    fn score(&self, r: &Region, p: &Profile, w: Weights) -> u32 {
        let args = (r.nr_accesses, p.max_nr_accesses, r.age, p.aggregation_ns, w);
        match self {
            Action::MigrateHot(_) => score::hot(args.0, args.1, args.2, args.3, args.4),
            Action::MigrateCold(_) | Action::Pageout => {
                score::cold(args.0, args.1, args.2, args.3, args.4)
            }
            Action::Hugepage | Action::Nohugepage | Action::Stat => MAX_SCORE,
        }
    }
}

/// A rule: pattern, action, quota, watermarks, filters.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Scheme {
    /// Which regions.
    pub pattern: Pattern,
    /// What to do.
    pub action: Action,
    /// How much per interval; the default limits nothing.
    pub quota: Quota,
    /// When it is active; the default: always.
    pub watermarks: Watermarks,
    /// Which memory beyond the pattern.
    pub filters: Vec<Filter>,
    /// Apply at most every this many ns (DAMOS's apply_interval); 0: at
    /// every profile.
    pub apply_interval_ns: u64,
}

/// What a scheme has done (DAMOS's per-scheme stats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Regions the action was tried on.
    pub nr_tried: u64,
    /// ... their bytes.
    pub sz_tried: u64,
    /// Regions it changed something in.
    pub nr_applied: u64,
    /// ... the bytes changed.
    pub sz_applied: u64,
    /// Charge intervals that ended with the quota used up.
    pub qt_exceeds: u64,
}

/// What applying an action did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Bytes changed (moved, paged out, collapsed, split).
    pub bytes: u64,
    /// Time it took (ns), charged to a time quota.
    pub ns: u64,
    /// A move left pages it tried where they were: its destination is
    /// full, or the backend refused them (a live backend's busy pages or
    /// its own per-tick quota).
    pub full: bool,
}

/// What the engine acts through and measures with: a backend adapter, or
/// a model in tests.
pub trait Actuator {
    /// Applies `action` to `[start, end)` of `asid`. A move skips the
    /// bytes already in its destination and stops, in address order, once
    /// `max_bytes` have moved; other actions ignore `max_bytes` (the
    /// engine cuts their range to the quota).
    fn apply(
        &mut self,
        action: Action,
        asid: Asid,
        start: u64,
        end: u64,
        max_bytes: u64,
    ) -> Result<Applied, BackendError>;
    /// A goal's metric now.
    fn goal_metric(&mut self, metric: GoalMetric) -> f64;
    /// A watermark's metric now.
    fn watermark_metric(&mut self, metric: WatermarkMetric) -> f64;
}

/// A scheme and where it stands.
#[derive(Clone, Debug, PartialEq)]
struct Running {
    scheme: Scheme,
    quota: QuotaState,
    marks: WatermarkState,
    stats: Stats,
    /// Where the last charge interval stopped with its quota used up: the
    /// next one starts after it, so that every region gets its turn.
    charge_from: Option<(Asid, u64)>,
    /// When the scheme next applies (its apply interval).
    next_apply_ns: u64,
    /// Each region's score in the profile being applied, or
    /// [`NO_MATCH`]: computed once for the quota's cut and the walk.
    scores: Vec<u32>,
}

/// A region the pattern does not match, in [`Running::scores`].
const NO_MATCH: u32 = u32::MAX;

/// Runs schemes over profiles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Engine {
    running: Vec<Running>,
}

impl Engine {
    /// An engine for `schemes`, applied in order.
    pub fn new(schemes: Vec<Scheme>) -> Self {
        Engine {
            running: schemes
                .into_iter()
                .map(|scheme| Running {
                    scheme,
                    quota: QuotaState::default(),
                    marks: WatermarkState::default(),
                    stats: Stats::default(),
                    charge_from: None,
                    next_apply_ns: 0,
                    scores: Vec::new(),
                })
                .collect(),
        }
    }

    /// Each scheme's statistics, in order.
    pub fn stats(&self) -> Vec<Stats> {
        self.running
            .iter()
            .map(|r| Stats {
                qt_exceeds: r.quota.exceeded,
                ..r.stats
            })
            .collect()
    }

    /// Each scheme's quota state: its effective quota, its goals' values
    /// at the last reading.
    pub fn quota_states(&self) -> Vec<&QuotaState> {
        self.running.iter().map(|r| &r.quota).collect()
    }

    /// Replaces scheme `i`'s pattern (when the profile's scale changes).
    pub fn set_pattern(&mut self, i: usize, pattern: Pattern) {
        if let Some(r) = self.running.get_mut(i) {
            r.scheme.pattern = pattern;
        }
    }

    /// Each scheme's effective size quota in this charge interval (0:
    /// unlimited).
    pub fn effective_quotas(&self) -> Vec<u64> {
        self.running.iter().map(|r| r.quota.esz).collect()
    }

    /// Applies every active scheme to `profile` at `now_ns`; returns the
    /// ranges an action other than `stat` was applied to.
    pub fn apply(
        &mut self,
        now_ns: u64,
        profile: &Profile,
        act: &mut dyn Actuator,
    ) -> Result<Vec<(Asid, u64, u64)>, BackendError> {
        let mut touched = Vec::new();
        for run in &mut self.running {
            run.apply(now_ns, profile, act, &mut touched)?;
        }
        Ok(touched)
    }
}

impl Running {
    fn apply(
        &mut self,
        now_ns: u64,
        profile: &Profile,
        act: &mut dyn Actuator,
        touched: &mut Vec<(Asid, u64, u64)>,
    ) -> Result<(), BackendError> {
        let s = &self.scheme;
        if now_ns < self.next_apply_ns {
            return Ok(());
        }
        self.next_apply_ns = now_ns + s.apply_interval_ns;
        let metric = s.watermarks.metric;
        if !self
            .marks
            .update(&s.watermarks, now_ns, &mut || act.watermark_metric(metric))
        {
            return Ok(());
        }
        let limited = s.quota.limits();
        let w = s.quota.weights;
        self.scores.clear();
        self.scores.extend(profile.regions.iter().map(|r| {
            if !s.pattern.matches(r) {
                NO_MATCH
            } else if limited {
                s.action.score(r, profile, w)
            } else {
                0
            }
        }));
        if limited {
            self.quota
                .roll(&s.quota, now_ns, &mut |m| act.goal_metric(m));
            self.quota.set_min_score(
                profile
                    .regions
                    .iter()
                    .zip(&self.scores)
                    .filter(|(_, &sc)| sc != NO_MATCH)
                    .map(|(r, &sc)| (sc, r.bytes())),
            );
        }
        let used_up = |q: &QuotaState| q.esz > 0 && q.charged >= q.esz;
        if used_up(&self.quota) {
            return Ok(());
        }
        let mut skipping = self.charge_from;
        for (r, &score) in profile.regions.iter().zip(&self.scores) {
            if used_up(&self.quota) {
                return Ok(());
            }
            let mut start = r.start;
            if let Some((asid, from)) = skipping {
                if r.traits.asid != asid || r.end <= from {
                    continue;
                }
                start = start.max(from);
                skipping = None;
                self.charge_from = None;
            }
            if score == NO_MATCH || (limited && self.quota.esz > 0 && score < self.quota.min_score)
            {
                continue;
            }
            let moves = s.action.moves();
            let room = if self.quota.esz > 0 {
                (self.quota.esz - self.quota.charged) / MIN_REGION * MIN_REGION
            } else {
                u64::MAX
            };
            let mut end = r.end;
            if !moves && end - start > room {
                if room == 0 {
                    self.stats.nr_tried += 1;
                    continue;
                }
                end = start + room;
            }
            let pieces = passing(&s.filters, &r.traits, start, end);
            if pieces.is_empty() {
                continue;
            }
            let mut applied = Applied::default();
            for &(a, b) in &pieces {
                let left = room.saturating_sub(applied.bytes);
                if moves && left == 0 {
                    break;
                }
                let got = act.apply(s.action, r.traits.asid, a, b, left)?;
                applied.bytes += got.bytes;
                applied.ns += got.ns;
                applied.full |= got.full;
                if s.action != Action::Stat {
                    touched.push((r.traits.asid, a, b));
                }
                if got.full {
                    break;
                }
            }
            let sz = end - start;
            self.quota
                .charge(if moves { applied.bytes } else { sz }, applied.ns);
            if used_up(&self.quota) {
                // a move may have stopped inside the region: its turn
                // starts again there (what moved is skipped then)
                self.charge_from = Some((r.traits.asid, if moves { start } else { end }));
            }
            self.stats.nr_tried += 1;
            self.stats.sz_tried += sz;
            if applied.bytes > 0 {
                self.stats.nr_applied += 1;
                self.stats.sz_applied += applied.bytes;
            }
            if applied.full {
                // nothing more can move there until the next apply
                return Ok(());
            }
        }
        if skipping.is_some() {
            // the profile ended before the place the last interval stopped
            // (its regions changed): start from the beginning next time
            self.charge_from = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
