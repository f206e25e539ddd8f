//! Simulated accesses per second of the exact machine on 1 GiB workloads, and
//! host bytes per simulated 4 KiB page. `benchsuite/run.sh` runs this and
//! appends the figures to `benchsuite/results.csv`.
//!
//! Goals (issue 2): LLC off, one core, >= 100 M accesses/s sequential and
//! >= 30 M/s random; <= 16 host bytes per 4 KiB page.
//!
//! For profilers, `ACCESS_PROFILE=sequential|random ACCESS_COUNT=n` skips
//! criterion: it warms the 1 GiB machine, runs `n` accesses of that pattern
//! as the bench does and exits, e.g. host instructions per access are the
//! difference of `valgrind --tool=cachegrind` totals at two counts.

use criterion::{BenchmarkId, Criterion, Throughput};
use thermocline_model::{tiers, MachineConfig, PerfConfig};
use thermocline_sim::Machine;
use thermocline_vocab::Access;
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Asid, PageType, Rng};

const GIB: u64 = 1 << 30;
const BATCH: usize = 256;
const PER_ITER: usize = 1 << 20;

fn machine(bytes: u64) -> (Machine, u64) {
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = bytes / 2;
    t[1].capacity_bytes = bytes;
    let cfg = MachineConfig {
        perf: PerfConfig {
            compute_ns: 20.0,
            ..Default::default()
        },
        ..MachineConfig::with_tiers(t)
    };
    let start = GIB;
    let r = RegionInfo {
        asid: Asid(0),
        name: "heap".into(),
        start,
        len: bytes,
        page_type: PageType::Anon,
        thp: false,
    };
    (Machine::new(cfg, vec![r]).unwrap(), start)
}

fn warm(m: &mut Machine, start: u64, bytes: u64) {
    for p in (0..bytes).step_by(4096) {
        m.access(Access {
            va: start + p,
            asid: 0,
            core: 0,
            write: false,
        });
    }
    m.settle();
}

/// Runs `PER_ITER` accesses in batches, as the runner does.
fn drive(m: &mut Machine, buf: &mut [Access; BATCH], mut next: impl FnMut() -> u64) {
    for _ in 0..PER_ITER / BATCH {
        for a in buf.iter_mut() {
            a.va = next();
        }
        m.access_batch(buf);
        m.settle();
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("exact");
    g.throughput(Throughput::Elements(PER_ITER as u64));
    g.sample_size(20);
    let (mut m, start) = machine(GIB);
    warm(&mut m, start, GIB);
    let mut buf = [Access::default(); BATCH];
    let mut off = 0u64;
    g.bench_function(BenchmarkId::new("sequential-1g", "64B-stride"), |b| {
        b.iter(|| {
            drive(&mut m, &mut buf, || {
                off = (off + 64) & (GIB - 1);
                start + off
            })
        })
    });
    let mut rng = Rng::new(7);
    g.bench_function(BenchmarkId::new("random-1g", "uniform-lines"), |b| {
        b.iter(|| drive(&mut m, &mut buf, || start + (rng.below(GIB / 64) << 6)))
    });
    g.finish();
}

fn memory_per_page() {
    let bytes = 4 * GIB;
    let (mut m, start) = machine(bytes);
    warm(&mut m, start, bytes);
    let per_page = m.host_bytes() as f64 / (bytes / 4096) as f64;
    println!("host-bytes-per-4k-page,{per_page:.2}");
}

/// Runs `count` accesses of one pattern on a warm 1 GiB machine.
fn profile(pattern: &str, count: usize) {
    let (mut m, start) = machine(GIB);
    warm(&mut m, start, GIB);
    let mut buf = [Access::default(); BATCH];
    let mut off = 0u64;
    let mut rng = Rng::new(7);
    let span: u64 = std::env::var("SPAN").map_or(GIB, |s| s.parse().unwrap());
    for _ in 0..count / BATCH {
        for a in buf.iter_mut() {
            a.va = match pattern {
                "sequential" => {
                    off = (off + 64) & (GIB - 1);
                    start + off
                }
                "random" => start + (rng.below(span / 64) << 6),
                _ => panic!("ACCESS_PROFILE: sequential or random"),
            };
        }
        m.access_batch(&buf);
        m.settle();
    }
    println!("{pattern}: {:?}", m.stats());
}

fn main() {
    if let Ok(pattern) = std::env::var("ACCESS_PROFILE") {
        let count = std::env::var("ACCESS_COUNT").map_or(1 << 24, |c| {
            c.parse().expect("ACCESS_COUNT: a number of accesses")
        });
        profile(&pattern, count);
        return;
    }
    memory_per_page();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
