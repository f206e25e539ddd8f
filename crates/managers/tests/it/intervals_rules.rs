//! DAMON's monitoring intervals auto-tuning on a simulated run (the fake
//! backend, its clock moved by the manager's own `tick_ns`): a workload
//! whose hot set is small is seen accessed in few samples at 5 ms, so the
//! sampling interval grows until the observed share of access events nears
//! the goal (4%), and it never leaves `[min_sample_us, max_sample_us]`.

use super::common;

use common::{Fake, PAGE};
use thermocline_managers::Manager;

const BASE: u64 = 1 << 30;
const PAGES: u64 = 25_600; // 100 MiB
/// 10 MiB hot at 30-40 MiB: 8.8% of what DAMON monitors (the workload,
/// 4 MiB of libraries, the 10 MiB image and heap, the stack).
const HOT: (u64, u64) = (BASE + (30 << 20), BASE + (40 << 20));
/// Each hot page is accessed this many times a second (a Poisson process):
/// set within an interval T with probability 1 - exp(-2 T), 1% at 5 ms.
const RATE_PER_PAGE: f64 = 2.0;

/// A deterministic uniform draw in [0, 1) (xorshift64*).
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn damon(goal: &str, sample_ms: f64) -> Box<dyn Manager> {
    let params: toml::Table = toml::from_str(&format!(
        "sample_ms = {sample_ms}\naggregate_ms = {}\n[intervals_goal]\n{goal}\n",
        sample_ms * 40.0
    ))
    .unwrap();
    thermocline_managers::registry::build("damon-moderate", params, 1).unwrap()
}

fn gauge(m: &dyn Manager, name: &str) -> Option<f64> {
    m.gauges().into_iter().find(|g| g.0 == name).map(|g| g.1)
}

/// Runs `m` for `seconds` of simulated time over the fake machine, hot
/// pages (those in `hot`) accessed `rate` times a second; returns the sampling
/// interval (µs) and the observed share (bp) after each tick where a
/// tuning point passed.
fn run(m: &mut dyn Manager, hot: (u64, u64), rate: f64, seconds: f64) -> Vec<(f64, f64, f64)> {
    let mut b = Fake::new(BASE, PAGES, PAGES, PAGES, false);
    for i in 0..PAGES {
        b.touch(BASE + i * PAGE, false);
    }
    m.start(&mut b).unwrap();
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let mut seen = Vec::new();
    let mut last_score = None;
    while (b.now as f64) < seconds * 1e9 {
        let t = m.tick_ns().unwrap();
        b.now += t;
        let p = 1.0 - (-rate * t as f64 / 1e9).exp();
        let mut va = hot.0;
        while va < hot.1 {
            if draw.next() < p {
                b.touch(va, false);
            }
            va += PAGE;
        }
        m.tick(&mut b).unwrap();
        let score = gauge(m, "observed_access_bp");
        if score != last_score {
            last_score = score;
            seen.push((
                b.now as f64 / 1e9,
                gauge(m, "sample_interval_us").unwrap(),
                score.unwrap(),
            ));
        }
    }
    seen
}

#[test]
fn a_small_hot_set_lengthens_sampling_until_the_share_nears_the_goal() {
    let mut m = damon("access_bp = 400", 5.0);
    assert_eq!(m.tick_ns(), Some(5_000_000));
    let seen = run(m.as_mut(), HOT, RATE_PER_PAGE, 600.0);
    for (t, s, bp) in &seen {
        eprintln!("{t:8.1} s  sample {:8.1} ms  observed {bp:6.1} bp", s / 1e3);
    }
    assert!(seen.len() > 15, "{} tunings", seen.len());
    // It starts far below the goal (~1% of 8.8% of the bytes: ~9 bp).
    assert!(seen[0].2 < 50.0, "{:?}", seen[0]);
    assert!(seen.iter().all(|s| (5_000.0..=10_000_000.0).contains(&s.1)));
    // The share of 4% is reached at -ln(1 - 0.04 / 0.0876) / 2 = 0.31 s
    // per sample; the second half of the run stays around it.
    let late = &seen[seen.len() / 2..];
    let mean_bp = late.iter().map(|s| s.2).sum::<f64>() / late.len() as f64;
    assert!((280.0..=560.0).contains(&mean_bp), "mean {mean_bp} bp");
    for (_, s, _) in late {
        assert!((100_000.0..=1_000_000.0).contains(s), "sample {s} us");
    }
    // The aggregation keeps its 40 samples.
    let (s, a) = (
        gauge(m.as_ref(), "sample_interval_us").unwrap(),
        gauge(m.as_ref(), "aggregation_interval_us").unwrap(),
    );
    assert_eq!(a, 40.0 * s);
    assert_eq!(m.tick_ns(), Some(s as u64 * 1_000));
    assert!(m.notes().iter().any(|n| n.contains("intervals auto-tuned")));
}

#[test]
fn the_sampling_interval_stops_at_its_bounds() {
    // At most 50 ms: 9.5% of samples of the hot pages set, 0.8% of the
    // events, below the goal at every tuning, so it stays at the top.
    let mut m = damon("access_bp = 400\nmax_sample_us = 50000", 5.0);
    let seen = run(m.as_mut(), HOT, RATE_PER_PAGE, 120.0);
    assert!(seen.iter().all(|s| s.1 <= 50_000.0));
    assert_eq!(seen.last().unwrap().1, 50_000.0, "{seen:?}");
    // Half the workload accessed in nearly every 5 ms: far above the goal
    // (~44% of the events) at 80 ms, the interval halves at each tuning
    // point down to 5 ms and stays there.
    let mut m = damon("access_bp = 400\nmin_sample_us = 5000", 80.0);
    let seen = run(m.as_mut(), (BASE, BASE + (50 << 20)), 1000.0, 22.0);
    let samples: Vec<f64> = seen.iter().map(|s| s.1).collect();
    assert_eq!(&samples[..4], &[40_000.0, 20_000.0, 10_000.0, 5_000.0]);
    assert!(samples[4..].iter().all(|&s| s == 5_000.0), "{samples:?}");
}

#[test]
fn left_out_or_off_the_intervals_stay_fixed_and_bad_goals_are_refused() {
    let fixed =
        thermocline_managers::registry::build("damon-moderate", toml::Table::new(), 1).unwrap();
    assert_eq!(fixed.tick_ns(), Some(5_000_000));
    assert_eq!(gauge(fixed.as_ref(), "sample_interval_us"), None);
    // aggrs = 0 is the kernel's "off"
    let mut off = damon("aggrs = 0", 5.0);
    run(off.as_mut(), HOT, RATE_PER_PAGE, 20.0);
    assert_eq!(off.tick_ns(), Some(5_000_000));
    let build = |t: &str| {
        thermocline_managers::registry::build("telescope-bounded", toml::from_str(t).unwrap(), 1)
    };
    let err = build("[intervals_goal]\nmin_sample_us = 10000")
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("outside"), "{err}");
    let err = build("[intervals_goal]\nmin_sample_us = 20\nmax_sample_us = 10")
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("above max_sample_us"), "{err}");
    let err = build("[intervals_goal]\nsample_bp = 400")
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("sample_bp"), "{err}");
    let err = thermocline_managers::registry::build(
        "damon-kernel",
        toml::from_str("[intervals_goal]\naccess_bp = 400").unwrap(),
        1,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("host's DAMON"), "{err}");
    // Telescope tunes the same way.
    let t = build("[intervals_goal]\naccess_bp = 400").unwrap();
    assert_eq!(t.tick_ns(), Some(5_000_000));
}
