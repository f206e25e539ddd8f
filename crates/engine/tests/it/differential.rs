//! Differential tests: the rate-driven machine against the exact machine on
//! small workloads, through the backend interface only.
//!
//! The workload: 64 regions of 4 MiB, one per 1 GiB of address space (so 64
//! PUD entries, 128 PMD entries and 65 536 PTEs share the accesses evenly),
//! uniform random loads. The exact machine replays the same rate profile
//! access by access ([`RateStream`]) after touching every page once, as the
//! rate machine assumes initialised memory.
//!
//! Tolerances: each compared fraction comes from >= 1 000 Bernoulli trials,
//! so its standard error is <= 1.6 points; fractions must agree within 5
//! points. Counts of thousands of events must agree within 6%. Known bias:
//! right after a full flush every access walks, while the rate machine sets
//! upper-level bits at the steady-state walk rate (here 97.7% of accesses),
//! so its PMD fraction runs about a point low.

use thermocline_backend::{Backend, Flush, MemPolicy, SampleEvent, SamplingConfig};
use thermocline_model::{tiers, MachineConfig};
use thermocline_rate::RateMachine;
use thermocline_sim::Machine;
use thermocline_vocab::Access;
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Asid, Level, PageType, Rng, TierId};
use thermocline_workloads::rates::{RatePhase, RateProfile, RateSegment, RateStream};

const REGIONS: u64 = 64;
const REGION_BYTES: u64 = 4 << 20;
const PAGES: u64 = REGIONS * REGION_BYTES / 4096;

fn regions() -> Vec<RegionInfo> {
    (0..REGIONS)
        .map(|k| RegionInfo {
            asid: Asid(0),
            name: format!("r{k}"),
            start: (k + 1) << 30,
            len: REGION_BYTES,
            page_type: PageType::Anon,
            thp: false,
        })
        .collect()
}

/// Uniform loads over every region, except that region 0 takes `hot_share`
/// of them when given; operations of `burst` bytes.
fn profile(hot_share: Option<f64>, burst: u64) -> RateProfile {
    shaped(hot_share, burst, 64, false)
}

/// [`profile`] with a stride, or with every region swept by a cursor.
fn shaped(hot_share: Option<f64>, burst: u64, stride: u64, sweep: bool) -> RateProfile {
    let rs = regions();
    let segments = rs
        .iter()
        .enumerate()
        .map(|(i, r)| RateSegment {
            asid: r.asid,
            start: r.start,
            len: r.len,
            share: match hot_share {
                None => 1.0 / REGIONS as f64,
                Some(h) if i == 0 => h,
                Some(h) => (1.0 - h) / (REGIONS - 1) as f64,
            },
            write_fraction: 0.0,
            burst_bytes: burst,
            stride_bytes: stride,
            sweep,
        })
        .collect();
    RateProfile {
        phases: vec![RatePhase {
            name: "run".into(),
            accesses: 1 << 40,
            segments,
        }],
    }
}

fn config(fast_bytes: u64) -> MachineConfig {
    let mut fast = tiers::dram();
    fast.capacity_bytes = fast_bytes;
    let mut slow = tiers::dcpmm();
    slow.capacity_bytes = REGIONS * REGION_BYTES + (2 << 20);
    MachineConfig {
        seed: 9,
        ..MachineConfig::with_tiers(vec![fast, slow])
    }
}

/// Both machines, driven in lockstep by accesses issued.
struct Pair {
    exact: Machine,
    rate: RateMachine,
    stream: RateStream,
    issued: u64,
}

impl Pair {
    fn new(hot_share: Option<f64>, fast_bytes: u64, policy: Option<MemPolicy>) -> Self {
        Self::with_burst(hot_share, fast_bytes, policy, 64)
    }

    fn with_burst(
        hot_share: Option<f64>,
        fast_bytes: u64,
        policy: Option<MemPolicy>,
        burst: u64,
    ) -> Self {
        Self::with_profile(profile(hot_share, burst), fast_bytes, policy)
    }

    fn with_profile(p: RateProfile, fast_bytes: u64, policy: Option<MemPolicy>) -> Self {
        let mut exact = Machine::new(config(fast_bytes), regions()).unwrap();
        let mut rate = RateMachine::new(config(fast_bytes), regions(), &p).unwrap();
        if let Some(pol) = policy {
            exact.set_policy(Asid(0), pol).unwrap();
            rate.set_policy(Asid(0), pol).unwrap();
        }
        // Touch every page once, in address order, as initialisation does.
        for r in regions() {
            for va in (r.start..r.end()).step_by(4096) {
                exact.access(Access {
                    va,
                    asid: 0,
                    core: 0,
                    write: true,
                });
            }
        }
        exact.settle();
        rate.advance(0.0, 0.0);
        let mut pair = Pair {
            exact,
            rate,
            stream: RateStream::new(p, 1, 5),
            issued: 0,
        };
        pair.run(200_000); // warm the TLBs and caches
        pair
    }

    fn run(&mut self, n: u64) {
        let mut buf = vec![Access::default(); 4096];
        let mut left = n;
        while left > 0 {
            let k = self.stream.fill(&mut buf[..left.min(4096) as usize]);
            for a in &buf[..k] {
                self.exact.access(*a);
            }
            self.exact.settle();
            left -= k as u64;
        }
        self.issued += n;
        self.rate.advance(f64::INFINITY, self.issued as f64);
    }

    fn both(&mut self) -> [&mut dyn Backend; 2] {
        [&mut self.exact, &mut self.rate]
    }
}

/// Clears the entries at `level` over `vas`, optionally flushes everything,
/// runs `delta` accesses, and returns the fraction found set, per machine.
fn set_fraction(pair: &mut Pair, vas: &[u64], level: Level, flush: bool, delta: u64) -> [f64; 2] {
    for b in pair.both() {
        for &va in vas {
            b.accessed(Asid(0), va, level, true).unwrap();
        }
        if flush {
            b.flush_tlb(Asid(0), Flush::All).unwrap();
        }
    }
    pair.run(delta);
    let mut out = [0.0; 2];
    for (i, b) in pair.both().into_iter().enumerate() {
        let set = vas
            .iter()
            .filter(|&&va| b.accessed(Asid(0), va, level, false).unwrap())
            .count();
        out[i] = set as f64 / vas.len() as f64;
    }
    out
}

fn close(what: &str, f: [f64; 2], tol: f64) {
    eprintln!("{what}: exact {:.4}, rate {:.4}", f[0], f[1]);
    assert!(
        (f[0] - f[1]).abs() <= tol,
        "{what}: exact {:.4} vs rate {:.4}",
        f[0],
        f[1]
    );
}

fn random_pages(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    let rs = regions();
    (0..n)
        .map(|_| {
            let r = &rs[rng.below(REGIONS) as usize];
            r.start + rng.below(REGION_BYTES / 4096) * 4096
        })
        .collect()
}

#[test]
fn leaf_accessed_bits_agree_with_and_without_a_flush() {
    let mut pair = Pair::new(None, 1 << 30, None);
    let vas = random_pages(1500, 1);
    // ln 2 of a page's expected accesses: about half are set.
    let delta = (PAGES as f64 * std::f64::consts::LN_2) as u64;
    let unflushed = set_fraction(&mut pair, &vas, Level::Pte, false, delta);
    close("PTE, no flush", unflushed, 0.05);
    let flushed = set_fraction(&mut pair, &vas, Level::Pte, true, delta);
    close("PTE, flushed", flushed, 0.05);
    assert!((flushed[1] - 0.5).abs() < 0.05, "{flushed:?}");
}

#[test]
fn upper_level_accessed_bits_agree() {
    let mut pair = Pair::new(None, 1 << 30, None);
    let pmds: Vec<u64> = regions()
        .iter()
        .flat_map(|r| [r.start, r.start + (2 << 20)])
        .collect();
    let puds: Vec<u64> = regions().iter().map(|r| r.start).collect();
    let mut pmd = [0.0; 2];
    let mut pud = [0.0; 2];
    let rounds = 40;
    for _ in 0..rounds {
        let f = set_fraction(&mut pair, &pmds, Level::Pmd, true, 89);
        let g = set_fraction(&mut pair, &puds, Level::Pud, true, 44);
        for i in 0..2 {
            pmd[i] += f[i] / rounds as f64;
            pud[i] += g[i] / rounds as f64;
        }
    }
    close("PMD", pmd, 0.05);
    close("PUD", pud, 0.05);
    assert!((pud[1] - 0.5).abs() < 0.06, "{pud:?}");
    // The one PGD entry is set by the next walk in both.
    let pgd = set_fraction(&mut pair, &[1 << 30], Level::Pgd, true, 20);
    assert_eq!(pgd, [1.0, 1.0]);
}

#[test]
fn tlb_misses_and_walk_entries_agree() {
    let mut pair = Pair::new(Some(0.5), 1 << 30, None);
    let before_e = pair.exact.stats().clone();
    let before_r = pair.rate.stats();
    pair.run(2_000_000);
    let (e, r) = (pair.exact.stats(), pair.rate.stats());
    for (what, x, y) in [
        (
            "L1 misses",
            e.l1_tlb_misses - before_e.l1_tlb_misses,
            r.l1_tlb_misses - before_r.l1_tlb_misses,
        ),
        ("walks", e.walks - before_e.walks, r.walks - before_r.walks),
        (
            "walk entries",
            e.walk_entries - before_e.walk_entries,
            r.walk_entries - before_r.walk_entries,
        ),
    ] {
        let rel = (x as f64 - y as f64).abs() / x as f64;
        eprintln!("{what}: exact {x}, rate {y}");
        assert!(rel < 0.06, "{what}: exact {x} vs rate {y}");
    }
}

#[test]
fn poison_fault_counts_agree() {
    let mut pair = Pair::new(None, 1 << 30, None);
    let vas = random_pages(300, 2);
    let mut vas = vas;
    vas.sort_unstable();
    vas.dedup();
    for b in pair.both() {
        for &va in &vas {
            b.poisoning()
                .and_then(|x| x.set_poison(Asid(0), va, true))
                .unwrap();
        }
    }
    pair.run(PAGES * 10);
    let mut totals = [0u64; 2];
    for (i, b) in pair.both().into_iter().enumerate() {
        totals[i] = vas
            .iter()
            .map(|&va| {
                b.poisoning()
                    .and_then(|x| x.poison_faults(Asid(0), va, true))
                    .unwrap()
            })
            .sum();
    }
    let rel = (totals[0] as f64 - totals[1] as f64).abs() / totals[0] as f64;
    eprintln!("poison faults: exact {}, rate {}", totals[0], totals[1]);
    assert!(totals[0] > 2000 && rel < 0.06, "{totals:?}");
}

#[test]
fn per_tier_traffic_and_time_agree() {
    // Region 0 takes 30% of the loads; the fast tier holds the first half of
    // the regions in address order in both machines (bound to it first).
    let mut pair = Pair::new(
        Some(0.3),
        REGIONS * REGION_BYTES / 2,
        Some(MemPolicy::PreferFast),
    );
    let c0 = [pair.exact.app_counters().to_vec(), pair.rate.app_counters()];
    let t0 = [pair.exact.time_ns(), pair.rate.time_ns()];
    pair.run(1_000_000);
    let c1 = [pair.exact.app_counters().to_vec(), pair.rate.app_counters()];
    let share = |i: usize| {
        let fast = (c1[i][0].reads - c0[i][0].reads) as f64;
        let slow = (c1[i][1].reads - c0[i][1].reads) as f64;
        fast / (fast + slow)
    };
    close("fast-tier share of loads", [share(0), share(1)], 0.02);
    assert!(
        (share(1) - (0.3 + 0.7 * 31.0 / 63.0)).abs() < 0.01,
        "{}",
        share(1)
    );
    let dt = [pair.exact.time_ns() - t0[0], pair.rate.time_ns() - t0[1]];
    let rel = (dt[0] - dt[1]).abs() / dt[0];
    eprintln!(
        "time of 1 M accesses: exact {:.0} ns, rate {:.0} ns",
        dt[0], dt[1]
    );
    assert!(rel < 0.03, "time: exact {} vs rate {} ns", dt[0], dt[1]);
    // Page-by-page and range migration move the same bytes on both.
    let hot: Vec<u64> = (regions()[40].start..regions()[40].end())
        .step_by(4096)
        .collect();
    let r41 = regions()[41].clone();
    for b in pair.both() {
        let r = b.migrate(Asid(0), &hot, TierId(0)).unwrap_or_default();
        assert_eq!(r.pages + r.failed, 1024);
        // Make room: region 1 (4 MiB) goes to the slow tier.
        let r1 = regions()[1].clone();
        let r = b
            .migrate_range(Asid(0), r1.start, r1.len, TierId(1), u64::MAX)
            .unwrap();
        assert_eq!(r.bytes, r1.len, "{}", b.kind());
        let r = b
            .migrate_range(Asid(0), r41.start + 4096, r41.len, TierId(0), 1 << 20)
            .unwrap();
        assert_eq!((r.pages, r.bytes), (256, 1 << 20), "{}", b.kind());
        let r = b
            .migrate_range(Asid(0), r41.start, r41.len, TierId(0), u64::MAX)
            .unwrap();
        assert_eq!(r.bytes, r41.len - (1 << 20), "{}", b.kind());
        assert_eq!(
            b.translate(Asid(0), r41.start).unwrap().unwrap().tier,
            TierId(0)
        );
    }
}

#[test]
fn pebs_samples_follow_the_access_distribution() {
    let mut pair = Pair::new(Some(0.5), 1 << 30, None);
    let cfg = SamplingConfig {
        event: SampleEvent::RetiredAll,
        period: 100,
        buffer: 1 << 20,
    };
    for b in pair.both() {
        b.sampling()
            .and_then(|x| x.set_sampling(Some(cfg)))
            .unwrap();
    }
    pair.run(500_000);
    let r0 = regions()[0].clone();
    let mut hot_share = [0.0; 2];
    let mut counts = [0usize; 2];
    for (i, b) in pair.both().into_iter().enumerate() {
        let mut out = Vec::new();
        b.sampling()
            .and_then(|x| x.drain_samples(&mut out))
            .unwrap();
        counts[i] = out.len();
        hot_share[i] = out
            .iter()
            .filter(|s| r0.start <= s.va && s.va < r0.end())
            .count() as f64
            / out.len() as f64;
    }
    let rel = (counts[0] as f64 - counts[1] as f64).abs() / counts[0] as f64;
    eprintln!("samples: exact {}, rate {}", counts[0], counts[1]);
    assert!(rel < 0.06, "sample counts {counts:?}");
    close("share of samples in the hot region", hot_share, 0.03);
}

#[test]
fn operations_over_objects_agree() {
    // 64 KiB objects read whole: 16 pages, 1024 lines per operation.
    let mut pair = Pair::with_burst(None, 1 << 30, None, 64 << 10);
    let before = (pair.exact.stats().walks, pair.rate.stats().walks);
    pair.run(4_000_000);
    let walks = (
        pair.exact.stats().walks - before.0,
        pair.rate.stats().walks - before.1,
    );
    eprintln!("walks with operations: exact {}, rate {}", walks.0, walks.1);
    let rel = (walks.0 as f64 - walks.1 as f64).abs() / walks.0 as f64;
    assert!(rel < 0.06, "{walks:?}");
    // An object is read every 64 x 64 x 1024 accesses on average.
    let object_period = (REGIONS * 64 * 1024) as f64;
    let vas = random_pages(1000, 3);
    let pte = set_fraction(
        &mut pair,
        &vas,
        Level::Pte,
        false,
        (object_period * 0.69) as u64,
    );
    close("PTE under operations", pte, 0.06);
    let pmds: Vec<u64> = regions()
        .iter()
        .flat_map(|r| [r.start, r.start + (2 << 20)])
        .collect();
    let mut pmd = [0.0; 2];
    for _ in 0..8 {
        let f = set_fraction(
            &mut pair,
            &pmds,
            Level::Pmd,
            true,
            (object_period / 32.0 * 0.69) as u64,
        );
        pmd[0] += f[0] / 8.0;
        pmd[1] += f[1] / 8.0;
    }
    close("PMD under operations", pmd, 0.06);
}

#[test]
fn interleaved_sweeps_agree() {
    // Four regions swept by their own cursors, 256 B apart, picks
    // interleaved (MASIM's sequential patterns): a page recurs once per
    // cycle of the 4 096 swept pages, so every visit misses the STLB, and
    // each sweep walks a 2 MiB block's pages in a row. (With more
    // interleaved sweeps than PDE-cache entries the rate machine
    // underestimates walk reads: 1.0 against 3.0 per walk for 64.)
    let mut p = shaped(None, REGION_BYTES, 256, true);
    p.phases[0].segments.truncate(4);
    p.phases[0].segments.iter_mut().for_each(|s| s.share = 0.25);
    let mut pair = Pair::with_profile(p, 1 << 30, None);
    let e0 = pair.exact.stats().clone();
    let r0 = pair.rate.stats();
    let t0 = [pair.exact.time_ns(), pair.rate.time_ns()];
    pair.run(4_000_000);
    let (e, r) = (pair.exact.stats(), pair.rate.stats());
    for (what, x, y) in [
        ("sweep walks", e.walks - e0.walks, r.walks - r0.walks),
        (
            "sweep walk entries",
            e.walk_entries - e0.walk_entries,
            r.walk_entries - r0.walk_entries,
        ),
    ] {
        eprintln!("{what}: exact {x}, rate {y}");
        let rel = (x as f64 - y as f64).abs() / x as f64;
        assert!(rel < 0.06, "{what}: exact {x} vs rate {y}");
    }
    let dt = [pair.exact.time_ns() - t0[0], pair.rate.time_ns() - t0[1]];
    eprintln!("sweep time: exact {:.0} ns, rate {:.0} ns", dt[0], dt[1]);
    assert!((dt[0] - dt[1]).abs() / dt[0] < 0.03);
}

/// Both machines accept and refuse the same TLB geometries and the same
/// address space: a shape one of them cannot simulate is an error for both,
/// not a run on one and an error on the other.
#[test]
fn both_machines_refuse_the_same_configurations() {
    let tlb_shapes = [
        (1536, 12, true),
        (64, 64, true),
        (96, 4, false),       // 24 sets: not a power of two
        (64, 3, false),       // not a whole number of sets
        (0, 4, false),        // empty
        (1 << 17, 16, false), // beyond the simulated maximum
    ];
    for (entries, ways, ok) in tlb_shapes {
        let mut cfg = config(64 << 20);
        cfg.tlb.stlb_entries = entries;
        cfg.tlb.stlb_ways = ways;
        let exact = Machine::new(cfg.clone(), regions()).is_ok();
        let rate = RateMachine::new(cfg, regions(), &profile(None, 64)).is_ok();
        assert_eq!(
            (exact, rate),
            (ok, ok),
            "STLB {entries} entries, {ways} ways"
        );
    }
    let mut high = regions();
    high[0].start = (1 << 47) - REGION_BYTES / 2;
    let cfg = config(64 << 20);
    assert!(Machine::new(cfg.clone(), high.clone()).is_err());
    let e = RateMachine::new(cfg, high, &profile(None, 64))
        .err()
        .expect("refused");
    assert!(e.to_string().contains("47-bit"), "{e}");
}
