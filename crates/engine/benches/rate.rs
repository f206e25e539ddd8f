//! The rate-driven machine's telemetry primitives on the 5 TiB multi-phase
//! heap: Accessed-bit samples per second (a DAMON/Telescope sample reads one
//! entry and clears another) at PTE and PUD level, and clock advances per
//! second. `benchsuite/run.sh` runs this and appends the figures to
//! `benchsuite/results.csv`; the whole-run goal (issue 3: each technique's
//! `telescope-multiphase` run under 60 s and 1 GiB on one core) is measured
//! there too.

use criterion::{BenchmarkId, Criterion, Throughput};
use thermocline_backend::Backend;
use thermocline_model::{tiers, MachineConfig};
use thermocline_rate::RateMachine;
use thermocline_vocab::{Asid, Level, Rng};
use thermocline_workloads::presets::{self, WorkloadOptions};

const PER_ITER: u64 = 10_000;

fn machine() -> (RateMachine, u64, u64) {
    let o = WorkloadOptions {
        seed: 1,
        access_rate: None,
        compute_ns: None,
        thp: Some(false),
        base_va: None,
        masim_burst: None,
        fast_read_ns: 80.0,
        mlp: 4.0,
    };
    let w = presets::load("telescope-multiphase", &o).expect("preset");
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = 768 << 30;
    t[1].capacity_bytes = w.footprint_bytes();
    let cfg = MachineConfig::with_tiers(t);
    let lo = w.regions.iter().map(|r| r.start).min().unwrap();
    let hi = w.regions.iter().map(|r| r.end()).max().unwrap();
    let m = RateMachine::new(cfg, w.regions.clone(), w.rates.as_ref().unwrap()).unwrap();
    (m, lo, hi)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("rate");
    g.throughput(Throughput::Elements(PER_ITER));
    g.sample_size(20);
    let (mut m, lo, hi) = machine();
    m.advance(1e9, f64::INFINITY);
    let mut rng = Rng::new(3);
    let pages = (hi - lo) / 4096;
    for (name, level) in [("pte", Level::Pte), ("pud", Level::Pud)] {
        g.bench_function(BenchmarkId::new("sample-5tib", name), |b| {
            b.iter(|| {
                for _ in 0..PER_ITER {
                    let va = lo + rng.below(pages) * 4096;
                    let _ = m.accessed(Asid(0), va, level, false);
                    let _ = m.accessed(Asid(0), va, level, true);
                }
            })
        });
    }
    let mut t = 1e9;
    g.bench_function(BenchmarkId::new("advance-5tib", "5ms-steps"), |b| {
        b.iter(|| {
            for _ in 0..PER_ITER {
                t += 5e6;
                m.advance(t, f64::INFINITY);
            }
        })
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
