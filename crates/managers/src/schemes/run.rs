//! Schemes over a telemetry technique's profile on a backend: the ages the
//! engine needs (DAMON's rule, kept here for every technique), the scale of
//! each technique's counts, and the actions and metrics as backend calls.

use super::config::{Configured, SchemeParams};
use super::{
    Action, Actuator, Applied, Engine, GoalMetric, Profile, Region, Stats, Traits, WatermarkMetric,
};
use crate::telemetry::intervals::{rescale_age, rescale_nr_accesses};
use crate::telemetry::Counted;
use thermocline_backend::{Backend, BackendError, Capability};
use thermocline_vocab::{Asid, PageSize, PageType, TierId};

const HUGE: u64 = 2 << 20;

/// The schemes of one manager, ready to run on its profiles.
#[derive(Debug, Default)]
pub struct SchemeSet {
    configured: Vec<Configured>,
    engine: Engine,
    /// The last profile as (asid, start, end, count, age), for ages.
    last: Vec<(Asid, u64, u64, u32, u32)>,
    /// The tiers' access counts when the slow-access goal was last read.
    last_accesses: Vec<u64>,
    regions: Vec<Region>,
    /// The aggregation interval (ns) and most count of the last profile:
    /// when the intervals change, the last ages and counts are rescaled.
    last_scale: Option<(u64, u32)>,
}

impl SchemeSet {
    /// Builds the schemes `params` describe for `b`; an error names the
    /// scheme (by its place in the list) and what is wrong.
    pub fn start(params: &[SchemeParams], b: &dyn Backend) -> Result<Self, BackendError> {
        let tiers = b.tiers().len();
        let mut configured = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let c = p
                .build(tiers)
                .map_err(|why| BackendError::Unfit(format!("schemes[{i}]: {why}")))?;
            let needs = match c.scheme.action {
                Action::MigrateHot(_) | Action::MigrateCold(_) | Action::Pageout => {
                    Some(Capability::Migrate)
                }
                Action::Hugepage | Action::Nohugepage => Some(Capability::HugePages),
                Action::Stat => None,
            };
            if let Some(cap) = needs {
                if !b.capabilities().has(cap) {
                    return Err(BackendError::Unsupported(cap));
                }
            }
            configured.push(c);
        }
        let engine = Engine::new(configured.iter().map(|c| c.scheme.clone()).collect());
        Ok(SchemeSet {
            configured,
            engine,
            ..SchemeSet::default()
        })
    }

    /// Whether there is any scheme.
    pub fn is_empty(&self) -> bool {
        self.configured.is_empty()
    }

    /// Each scheme's statistics.
    pub fn stats(&self) -> Vec<Stats> {
        self.engine.stats()
    }

    /// The schemes' totals as gauges (none without schemes).
    pub fn gauges(&self) -> Vec<(&'static str, f64)> {
        if self.is_empty() {
            return Vec::new();
        }
        let st = self.stats();
        let sum = |f: fn(&Stats) -> u64| st.iter().map(f).sum::<u64>() as f64;
        let mut g = vec![
            ("schemes_tried_bytes", sum(|s| s.sz_tried)),
            ("schemes_applied_bytes", sum(|s| s.sz_applied)),
            ("schemes_quota_exceeded_count", sum(|s| s.qt_exceeds)),
        ];
        if self
            .configured
            .iter()
            .any(|c| !c.scheme.quota.goals.is_empty())
        {
            // what goal tuning does: the effective quotas of the schemes
            // with goals, and their goals' values at the last reading
            // (one goal: its value, e.g. the stall in us of the last
            // charge interval)
            let tuned: Vec<_> = self
                .configured
                .iter()
                .zip(self.engine.quota_states())
                .filter(|(c, _)| !c.scheme.quota.goals.is_empty())
                .map(|(_, q)| q)
                .collect();
            g.push((
                "schemes_goal_quota_bytes",
                tuned.iter().map(|q| q.esz as f64).sum(),
            ));
            g.push((
                "schemes_goal_value",
                tuned.iter().flat_map(|q| q.goal_values.iter()).sum(),
            ));
        }
        g
    }

    /// One sentence per scheme: what it tried and applied.
    pub fn notes(&self) -> Vec<String> {
        self.configured
            .iter()
            .zip(self.stats())
            .enumerate()
            .zip(self.engine.quota_states())
            .map(|((i, (c, st)), q)| {
                let mut note = format!(
                    "scheme {i} ({}): tried on {} regions ({} bytes), applied to {} ({} bytes); its quota ran out in {} charge intervals",
                    c.scheme.action, st.nr_tried, st.sz_tried, st.nr_applied, st.sz_applied, st.qt_exceeds
                );
                for (g, v) in c.scheme.quota.goals.iter().zip(&q.goal_values) {
                    note += &format!(
                        "; goal {}: {v:.0} at the last reading (target {}), effective quota then {} bytes",
                        goal_name(g.metric),
                        g.target,
                        q.esz
                    );
                }
                note
            })
            .collect()
    }

    /// Runs the schemes over one aggregation's `profile`, whose counts go
    /// up to `max_count` per aggregation of `aggregation_ns`; returns the
    /// bytes the actions changed. Mapped memory the profile leaves out is
    /// offered as regions of no access: for techniques that report only
    /// what they saw accessed (linear scans, PEBS-like samples).
    pub fn apply(
        &mut self,
        b: &mut dyn Backend,
        profile: &[Counted],
        max_count: f64,
        aggregation_ns: u64,
    ) -> Result<u64, BackendError> {
        self.apply_inner(b, profile, max_count, aggregation_ns, true)
    }

    /// [`SchemeSet::apply`] for a technique that knows the heat of only
    /// the memory it sampled (Thermostat's sampled units, Memos' counted
    /// pages): the memory the profile leaves out is unknown, not idle, and
    /// no scheme sees it.
    pub fn apply_known(
        &mut self,
        b: &mut dyn Backend,
        profile: &[Counted],
        max_count: f64,
        aggregation_ns: u64,
    ) -> Result<u64, BackendError> {
        self.apply_inner(b, profile, max_count, aggregation_ns, false)
    }

    fn apply_inner(
        &mut self,
        b: &mut dyn Backend,
        profile: &[Counted],
        max_count: f64,
        aggregation_ns: u64,
        fill_gaps: bool,
    ) -> Result<u64, BackendError> {
        if self.configured.is_empty() {
            return Ok(0);
        }
        let max = max_count.max(1.0).round().min(f64::from(u32::MAX)) as u32;
        for (i, c) in self.configured.iter().enumerate() {
            self.engine
                .set_pattern(i, c.scheme_for(max, aggregation_ns).pattern);
        }
        self.rescale(aggregation_ns, max);
        self.age(b, profile, max, fill_gaps);
        let mut act = BackendActuator {
            b,
            last_accesses: &mut self.last_accesses,
            changed: 0,
        };
        let now = act.b.now_ns();
        let touched = self.engine.apply(
            now,
            &Profile {
                regions: &self.regions,
                max_nr_accesses: max,
                aggregation_ns,
            },
            &mut act,
        )?;
        let changed = act.changed;
        // the kernel starts a region's age again once an action changed it;
        // `last` is sorted and its regions do not overlap, so each range
        // finds its first region by bisection (a walk over millions of
        // page-sized regions touches most of them)
        for (asid, s, e) in touched {
            let first = self.last.partition_point(|l| (l.0, l.2) <= (asid, s));
            for l in self.last[first..]
                .iter_mut()
                .take_while(|l| l.0 == asid && l.1 < e)
            {
                l.4 = 0;
            }
        }
        Ok(changed)
    }

    /// The last profile's ages and counts in the units of one aggregated
    /// over `aggregation_ns` with at most `max` (DAMON's damon_set_attrs
    /// rescaling), when the aggregation interval changed (intervals
    /// auto-tuning). A most that changes alone is a technique's own scale
    /// (PEBS-like samples: the window's busiest unit) and rescales nothing.
    fn rescale(&mut self, aggregation_ns: u64, max: u32) {
        if let Some((old_ns, old_max)) = self.last_scale {
            if old_ns != aggregation_ns {
                for l in &mut self.last {
                    l.3 = rescale_nr_accesses(l.3, old_max, max);
                    l.4 = rescale_age(l.4, old_ns, aggregation_ns);
                }
            }
        }
        self.last_scale = Some((aggregation_ns, max));
    }

    /// Sets `self.regions` from the profile, with the memory it leaves out
    /// as regions of no access when `fill_gaps` (techniques that report
    /// only what they saw accessed), and each region's age: one more than
    /// the last profile's region at its start when its count stayed within
    /// DAMON's merge threshold (a tenth of the most), else 0.
    fn age(&mut self, b: &dyn Backend, profile: &[Counted], max: u32, fill_gaps: bool) {
        let threshold = (max / 10).max(1);
        let mut seen: Vec<(Asid, u64, u64, u32)> = profile
            .iter()
            .filter(|c| c.end > c.start)
            .map(|c| {
                let n = c.count.max(0.0).round().min(f64::from(u32::MAX)) as u32;
                (c.asid, c.start, c.end, n)
            })
            .collect();
        seen.sort_unstable_by_key(|c| (c.0, c.1));
        let mut all = Vec::with_capacity(seen.len() * 2);
        let mut spans: Vec<(Asid, u64, u64)> = b
            .regions()
            .iter()
            .map(|r| (r.asid, r.start, r.end()))
            .collect();
        spans.sort_unstable_by_key(|r| (r.0, r.1));
        let mut i = 0;
        for &(asid, start, end) in spans.iter().filter(|_| fill_gaps) {
            while i < seen.len() && (seen[i].0, seen[i].2) <= (asid, start) {
                all.push(seen[i]);
                i += 1;
            }
            let mut cursor = start;
            while i < seen.len() && seen[i].0 == asid && seen[i].1 < end {
                if seen[i].1 > cursor {
                    all.push((asid, cursor, seen[i].1, 0));
                }
                cursor = cursor.max(seen[i].2);
                all.push(seen[i]);
                i += 1;
            }
            if cursor < end {
                all.push((asid, cursor, end, 0));
            }
        }
        all.extend_from_slice(&seen[i..]);
        let all = mapped_only(&all, &spans);
        self.regions.clear();
        let mut next = Vec::with_capacity(all.len());
        for (asid, start, end, count) in all {
            let j = self.last.partition_point(|l| (l.0, l.1) <= (asid, start));
            let age = match j.checked_sub(1).map(|j| self.last[j]) {
                Some(l) if l.0 == asid && start < l.2 && count.abs_diff(l.3) <= threshold => {
                    l.4.saturating_add(1)
                }
                _ => 0,
            };
            let info = b
                .regions()
                .iter()
                .find(|r| r.asid == asid && r.start <= start && start < r.end());
            self.regions.push(Region {
                traits: Traits {
                    asid,
                    page_type: info.map_or(PageType::Anon, |r| r.page_type),
                    huge: info.is_some_and(|r| r.thp),
                },
                start,
                end,
                nr_accesses: count,
                age,
            });
            next.push((asid, start, end, count, age));
        }
        self.last = next;
    }
}

/// The parts of `regions` (address space, start, end, count) inside the
/// mapped `spans` (sorted, not overlapping). A technique's regions may
/// span the gaps between mappings (DAMON's vaddr regions do, and the
/// regions it sets around a process's mappings; on a live host those gaps
/// are terabytes): no action changes a gap, and the kernel would charge
/// it to the quota, so that a scheme could spend its quota on nothing for
/// as long as it takes to walk the gaps. Here only mapped memory is
/// offered to the schemes.
fn mapped_only(
    regions: &[(Asid, u64, u64, u32)],
    spans: &[(Asid, u64, u64)],
) -> Vec<(Asid, u64, u64, u32)> {
    let mut out = Vec::with_capacity(regions.len());
    for &(asid, s, e, n) in regions {
        let mut k = spans.partition_point(|m| (m.0, m.2) <= (asid, s));
        while k < spans.len() && spans[k].0 == asid && spans[k].1 < e {
            let (a, b) = (s.max(spans[k].1), e.min(spans[k].2));
            if a < b {
                out.push((asid, a, b, n));
            }
            k += 1;
        }
    }
    out
}

/// A goal metric as the config names it.
fn goal_name(m: GoalMetric) -> String {
    match m {
        GoalMetric::TierUsedBp(t) => format!("tier_used_bp of tier {t}"),
        GoalMetric::TierFreeBp(t) => format!("tier_free_bp of tier {t}"),
        GoalMetric::SlowAccessBp => "slow_access_bp".into(),
        GoalMetric::SomeMemPsiUs => "stall_us".into(),
        GoalMetric::User => "user".into(),
    }
}

/// Actions and metrics as backend calls.
struct BackendActuator<'a> {
    b: &'a mut dyn Backend,
    last_accesses: &'a mut Vec<u64>,
    changed: u64,
}

impl BackendActuator<'_> {
    fn share(&self, tier: u8, free: bool) -> f64 {
        let tiers = self.b.tiers();
        let Some(t) = tiers.get(usize::from(tier)) else {
            return 0.0;
        };
        let f = t.free_bytes as f64 / t.capacity_bytes.max(1) as f64;
        if free {
            f
        } else {
            1.0 - f
        }
    }
}

impl Actuator for BackendActuator<'_> {
    fn apply(
        &mut self,
        action: Action,
        asid: Asid,
        start: u64,
        end: u64,
        max_bytes: u64,
    ) -> Result<Applied, BackendError> {
        let before = self.b.manager_ns();
        let mut full = false;
        let mut moved = |b: &mut dyn Backend, to: TierId| -> Result<u64, BackendError> {
            let r = b.migrate_range(asid, start, end - start, to, max_bytes)?;
            full = r.failed > 0;
            Ok(r.bytes)
        };
        let bytes = match action {
            Action::MigrateHot(t) | Action::MigrateCold(t) => moved(self.b, t)?,
            Action::Pageout => {
                // the slowest tier: the compressed one where there is one
                let slowest = TierId(self.b.tiers().len().saturating_sub(1) as u8);
                moved(self.b, slowest)?
            }
            Action::Hugepage => {
                let mut done = 0;
                let mut va = start.next_multiple_of(HUGE);
                while va + HUGE <= end {
                    match self.b.huge_pages().and_then(|x| x.collapse_huge(asid, va)) {
                        Ok(()) => done += HUGE,
                        Err(BackendError::NotMapped { .. } | BackendError::Invalid { .. }) => {}
                        Err(e) => return Err(e),
                    }
                    va += HUGE;
                }
                done
            }
            Action::Nohugepage => {
                let mut done = 0;
                let mut from = start;
                while let Some((va, t)) = self.b.next_mapped(asid, from, end)? {
                    let step = match t.size {
                        PageSize::Huge => HUGE,
                        PageSize::Base => 4096,
                    };
                    if t.size == PageSize::Huge {
                        self.b.huge_pages()?.split_huge(asid, va)?;
                        done += HUGE;
                    }
                    from = va + step;
                }
                done
            }
            Action::Stat => 0,
        };
        self.changed += bytes;
        Ok(Applied {
            bytes,
            ns: (self.b.manager_ns() - before).max(0.0) as u64,
            full,
        })
    }

    fn goal_metric(&mut self, metric: GoalMetric) -> f64 {
        match metric {
            GoalMetric::TierUsedBp(t) => self.share(t, false) * 10_000.0,
            GoalMetric::TierFreeBp(t) => self.share(t, true) * 10_000.0,
            GoalMetric::SlowAccessBp => {
                // the share of line accesses slower tiers served since the
                // last reading
                let now: Vec<u64> = (0..self.b.tiers().len())
                    .map(|t| {
                        self.b
                            .tier_counters(TierId(t as u8))
                            .map_or(0, |c| c.reads + c.writes)
                    })
                    .collect();
                let delta: Vec<u64> = now
                    .iter()
                    .enumerate()
                    .map(|(i, n)| n - self.last_accesses.get(i).copied().unwrap_or(0).min(*n))
                    .collect();
                *self.last_accesses = now;
                let all: u64 = delta.iter().sum();
                let slow: u64 = delta.iter().skip(1).sum();
                slow as f64 / all.max(1) as f64 * 10_000.0
            }
            // the cumulative total: the quota takes its growth per interval
            GoalMetric::SomeMemPsiUs => self.b.some_memory_stall_us() as f64,
            GoalMetric::User => 0.0,
        }
    }

    fn watermark_metric(&mut self, metric: WatermarkMetric) -> f64 {
        match metric {
            WatermarkMetric::None => 0.0,
            WatermarkMetric::FreeMemRate(t) => self.share(t, true) * 1000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_counts_follow_the_intervals_as_damon_rescales_them() {
        let mut s = SchemeSet {
            last: vec![(Asid(0), 0, 4096, 10, 30), (Asid(0), 4096, 8192, 20, 7)],
            ..SchemeSet::default()
        };
        s.rescale(100_000_000, 20);
        assert_eq!(
            s.last[0],
            (Asid(0), 0, 4096, 10, 30),
            "the first profile sets the scale"
        );
        // aggregations twice as long, samples per aggregation doubled:
        // half the ages, the same share of samples
        s.rescale(200_000_000, 40);
        assert_eq!((s.last[0].3, s.last[0].4), (20, 15));
        assert_eq!((s.last[1].3, s.last[1].4), (40, 3));
        s.rescale(200_000_000, 80);
        assert_eq!((s.last[1].3, s.last[1].4), (40, 3), "the same aggregation");
    }
}
