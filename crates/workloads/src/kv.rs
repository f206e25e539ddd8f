//! Key-value store models for Telescope's application benchmarks (paper
//! 002_98026fdc393d1867.txt, section 6.3, Table 3), as access rates.
//!
//! These are *models* of Memcached and Redis driven by memtier and YCSB, not
//! the programs: each key's value is one contiguous object in a single heap,
//! an operation touches every line of its value (a GET copies the value out,
//! a SET writes it), and operations pick keys with the load generator's
//! distribution. What comes from the paper: footprints, key counts, value
//! sizes, the key distributions. What is inferred (and why):
//! - Layout: memtier loads keys in order (`--key-pattern P:P`), so key `i`
//!   sits at `i * value_size`; YCSB inserts in hashed order by default
//!   (`insertorder=hashed`), so its hot keys are scattered: key `i` sits at a
//!   seeded permutation of `i`.
//! - memtier's Gaussian key pattern is centred on the middle of the key
//!   range (memtier's default `--key-median`), with the paper's standard
//!   deviation of 100 keys; keys beyond 8 standard deviations get no accesses.
//! - Read/write mix: memtier's default 1:10 SET:GET; YCSB's CoreWorkload
//!   defaults, 95% reads and 5% updates.
//! - YCSB's hotspot generator puts its hot set at the low end of the key space.
//! - Server threads: Memcached's default 4 worker threads, Redis's 1.

use crate::rates::{RatePhase, RateProfile, RateSegment};
use crate::{lay_out, WorkloadError};
use thermocline_backend::RegionInfo;
use thermocline_vocab::Rng;

/// How operations pick keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyDistribution {
    /// memtier `G:G`: normal around the middle key, this standard deviation in keys.
    Gaussian {
        /// Standard deviation (keys).
        sd: f64,
    },
    /// YCSB hotspot: `hot_share` of operations on the first `hot_fraction` of keys.
    Hotspot {
        /// Fraction of keys that are hot.
        hot_fraction: f64,
        /// Fraction of operations on them.
        hot_share: f64,
    },
}

/// One key-value configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct KvSpec {
    /// Keys.
    pub keys: u64,
    /// Bytes per value (one object per key).
    pub value_bytes: u64,
    /// Key choice.
    pub distribution: KeyDistribution,
    /// Whether keys were inserted in hashed (scattered) order.
    pub hashed_order: bool,
    /// Fraction of operations that write their value.
    pub write_fraction: f64,
    /// Server threads.
    pub threads: usize,
    /// Simulated seconds at the nominal rate.
    pub seconds: f64,
}

/// memtier's configuration in Table 3: 1 TB, 200 K keys of 5 MB, Gaussian
/// keys with a standard deviation of 100.
pub fn memtier(threads: usize) -> KvSpec {
    KvSpec {
        keys: 200_000,
        value_bytes: 5_000_000,
        distribution: KeyDistribution::Gaussian { sd: 100.0 },
        hashed_order: false,
        write_fraction: 1.0 / 11.0,
        threads,
        seconds: 300.0,
    }
}

/// YCSB's configuration in Table 3: 2 TB, 1 M keys of 2 MB, hotspot with 99%
/// of operations on 1% of the data.
pub fn ycsb(threads: usize) -> KvSpec {
    KvSpec {
        keys: 1_000_000,
        value_bytes: 2_000_000,
        distribution: KeyDistribution::Hotspot {
            hot_fraction: 0.01,
            hot_share: 0.99,
        },
        hashed_order: true,
        write_fraction: 0.05,
        threads,
        seconds: 300.0,
    }
}

/// Where key `k` lives (slot index), for hashed insertion order: a seeded
/// permutation built by an affine map modulo `n` with a multiplier coprime to `n`.
fn slot_of(k: u64, n: u64, seed: u64) -> u64 {
    let mut rng = Rng::derive(seed, "kv-slots");
    let mut a = rng.below(n.max(2) - 1) + 1;
    while gcd(a, n) != 1 {
        a += 1;
    }
    let b = rng.below(n.max(1));
    ((u128::from(a) * u128::from(k) + u128::from(b)) % u128::from(n)) as u64
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The model's single heap region and its rate profile at `rate` accesses
/// per second per thread.
pub fn build(
    spec: &KvSpec,
    thp: bool,
    rate: f64,
    seed: u64,
) -> Result<(Vec<RegionInfo>, RateProfile), WorkloadError> {
    if spec.keys == 0 || spec.value_bytes == 0 || spec.threads == 0 {
        return Err(WorkloadError::Invalid(
            "a key-value model needs keys, values and threads".into(),
        ));
    }
    let slot_bytes = spec.value_bytes.div_ceil(4096) * 4096;
    let regions = lay_out(&[("heap".to_string(), spec.keys * slot_bytes)], thp);
    let heap = &regions[0];
    // (key, share of operations) for every key that gets a noticeable share.
    let mut weights: Vec<(u64, f64)> = Vec::new();
    let mut background: Option<(u64, u64, f64)> = None; // keys [a, b) share each
    match spec.distribution {
        KeyDistribution::Gaussian { sd } => {
            let mid = (spec.keys / 2) as f64;
            let lo = (mid - 8.0 * sd).max(0.0) as u64;
            let hi = ((mid + 8.0 * sd) as u64).min(spec.keys - 1);
            for k in lo..=hi {
                let z = (k as f64 - mid) / sd;
                weights.push((k, (-0.5 * z * z).exp()));
            }
            let sum: f64 = weights.iter().map(|w| w.1).sum();
            weights.iter_mut().for_each(|w| w.1 /= sum);
        }
        KeyDistribution::Hotspot {
            hot_fraction,
            hot_share,
        } => {
            let hot = ((spec.keys as f64 * hot_fraction).round() as u64).clamp(1, spec.keys);
            let each_hot = hot_share / hot as f64;
            weights.extend((0..hot).map(|k| (k, each_hot)));
            if hot < spec.keys {
                background = Some((hot, spec.keys, (1.0 - hot_share) / (spec.keys - hot) as f64));
            }
        }
    }
    let mut segments: Vec<RateSegment> = Vec::new();
    let seg = |slot: u64, slots: u64, share: f64| RateSegment {
        asid: heap.asid,
        start: heap.start + slot * slot_bytes,
        len: slots * slot_bytes,
        share,
        write_fraction: spec.write_fraction,
    };
    let slot = |k: u64| {
        if spec.hashed_order {
            slot_of(k, spec.keys, seed)
        } else {
            k
        }
    };
    for &(k, share) in &weights {
        segments.push(seg(slot(k), 1, share));
    }
    if let Some((a, b, each)) = background {
        if spec.hashed_order {
            // Scattered cold keys: the whole heap at the cold rate per slot,
            // minus nothing (hot slots add their hot share on top; the
            // overlap is (1 - hot_share) / keys of the total, negligible).
            segments.push(seg(0, spec.keys, each * (b - a) as f64));
        } else {
            segments.push(seg(a, b - a, each * (b - a) as f64));
        }
    }
    let sum: f64 = segments.iter().map(|s| s.share).sum();
    segments.iter_mut().for_each(|s| s.share /= sum);
    segments.sort_by_key(|s| s.start);
    let accesses = (spec.seconds * rate * spec.threads as f64) as u64;
    let profile = RateProfile {
        phases: vec![RatePhase {
            name: "run".into(),
            accesses,
            segments,
        }],
    };
    profile.validate(&regions).map_err(WorkloadError::Invalid)?;
    Ok((regions, profile))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memtier_hot_keys_are_contiguous_and_ycsb_scattered() {
        let (r, p) = build(&memtier(4), false, 1e6, 1).unwrap();
        assert_eq!(r[0].len, 200_000 * 5_001_216);
        let segs = &p.phases[0].segments;
        assert_eq!(segs.len(), 1601);
        let span = segs.last().unwrap().end() - segs[0].start;
        assert_eq!(span, 1601 * 5_001_216);
        // Within one standard deviation: ~68% of operations.
        let mid = r[0].start + 100_000 * 5_001_216;
        let near: f64 = segs
            .iter()
            .filter(|s| s.start + 100 * 5_001_216 >= mid && s.start <= mid + 100 * 5_001_216)
            .map(|s| s.share)
            .sum();
        assert!((0.66..0.70).contains(&near), "{near}");

        let (r, p) = build(&ycsb(1), false, 1e6, 1).unwrap();
        let segs = &p.phases[0].segments;
        let hot: Vec<&RateSegment> = segs.iter().filter(|s| s.len < r[0].len).collect();
        assert_eq!(hot.len(), 10_000);
        let hot_share: f64 = hot.iter().map(|s| s.share).sum();
        assert!((hot_share - 0.99).abs() < 1e-3, "{hot_share}");
        // Scattered: the hot keys span most of the heap.
        let span = hot.last().unwrap().end() - hot[0].start;
        assert!(span > r[0].len / 2);
    }

    #[test]
    fn slots_are_a_permutation() {
        let n = 1000;
        let mut seen = vec![false; n as usize];
        for k in 0..n {
            let s = slot_of(k, n, 3);
            assert!(!seen[s as usize]);
            seen[s as usize] = true;
        }
    }
}
