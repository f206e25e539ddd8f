//! The scheme engine's own cost per profile (issue #24's goal: below 1% of
//! the telemetry's cost at 10 000 regions): two schemes with binding size
//! quotas (so the score histogram and the min-score cut run) over 10 000
//! DAMON-like regions, with an actuator that only counts, so what is timed
//! is the engine's deciding, not the moves.
//!
//!   cargo bench -p thermocline-managers --bench schemes

use criterion::{Criterion, Throughput};
use thermocline_backend::BackendError;
use thermocline_managers::schemes::{
    Action, Actuator, Applied, Engine, GoalMetric, Pattern, Profile, Quota, Region, Scheme, Traits,
    WatermarkMetric,
};
use thermocline_vocab::{Asid, PageType, Rng, TierId};

const REGIONS: usize = 10_000;

struct Count(u64);

impl Actuator for Count {
    fn apply(
        &mut self,
        _: Action,
        _: Asid,
        start: u64,
        end: u64,
        max_bytes: u64,
    ) -> Result<Applied, BackendError> {
        let bytes = (end - start).min(max_bytes);
        self.0 += bytes;
        Ok(Applied {
            bytes,
            ns: 1,
            full: false,
        })
    }
    fn goal_metric(&mut self, _: GoalMetric) -> f64 {
        0.0
    }
    fn watermark_metric(&mut self, _: WatermarkMetric) -> f64 {
        0.0
    }
}

fn regions() -> Vec<Region> {
    let mut rng = Rng::new(1);
    let mut at = 1 << 30;
    (0..REGIONS)
        .map(|_| {
            let len = (1 + rng.below(256)) * 4096;
            let r = Region {
                traits: Traits {
                    asid: Asid(0),
                    page_type: PageType::Anon,
                    huge: false,
                },
                start: at,
                end: at + len,
                nr_accesses: rng.below(21) as u32,
                age: rng.below(100) as u32,
            };
            at += len;
            r
        })
        .collect()
}

fn engine() -> Engine {
    let quota = Quota {
        bytes: 64 << 20,
        ..Quota::default()
    };
    Engine::new(vec![
        Scheme {
            pattern: Pattern {
                min_nr_accesses: 1,
                ..Pattern::default()
            },
            action: Action::MigrateHot(TierId(0)),
            quota: quota.clone(),
            ..Scheme::default()
        },
        Scheme {
            pattern: Pattern {
                max_nr_accesses: 0,
                min_age: 10,
                ..Pattern::default()
            },
            action: Action::MigrateCold(TierId(1)),
            quota,
            ..Scheme::default()
        },
    ])
}

fn bench(c: &mut Criterion) {
    let rs = regions();
    let profile = Profile {
        regions: &rs,
        max_nr_accesses: 20,
        aggregation_ns: 100_000_000,
    };
    let mut g = c.benchmark_group("schemes");
    g.throughput(Throughput::Elements(REGIONS as u64));
    g.bench_function("two-schemes-binding-quotas-10k-regions", |b| {
        let mut e = engine();
        let mut act = Count(0);
        let mut now = 0u64;
        b.iter(|| {
            // a new charge interval each time: the histogram, the cut and
            // the walk run in full
            now += 1_000_000_000;
            e.apply(now, &profile, &mut act).unwrap()
        })
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
