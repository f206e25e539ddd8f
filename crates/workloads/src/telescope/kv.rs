//! Key-value store models for Telescope's application benchmarks (paper
//! 002_98026fdc393d1867.txt, section 6.3, Table 3), as access rates.
//!
//! These are *models* of Memcached and Redis driven by memtier and YCSB, not
//! the programs: each key's value is one contiguous object in a single heap,
//! an operation touches every line of its value (a GET copies the value out,
//! a SET writes it), and operations pick keys with the load generator's
//! distribution. What comes from the paper: footprints, key counts, value
//! sizes, the key distributions. What is inferred (and why):
//! - Layout: both load generators insert keys in key-number order (memtier's
//!   `--key-pattern P:P`; YCSB's load phase walks key numbers in order and
//!   `insertorder=hashed` only hashes the key *names*), and the store
//!   allocates values in insertion order, so key `i` sits at `i * value_size`.
//! - memtier's Gaussian key pattern is centred on the middle of the key
//!   range (memtier's default `--key-median`), with the paper's standard
//!   deviation of 100 keys; keys beyond 8 standard deviations get no accesses.
//! - Read/write mix: memtier's default 1:10 SET:GET; YCSB's CoreWorkload
//!   defaults, 95% reads and 5% updates.
//! - YCSB's hotspot generator puts its hot set at the low end of the key space.
//! - Server threads: Memcached's default 4 worker threads, Redis's 1.
//! - Each thread copies values at 40 M line accesses/s (2.5 GB/s) when its
//!   data is in DRAM: a memcpy-bound server thread (the nominal rate; the
//!   performance model slows it in the slow tier).

use crate::rates::{RatePhase, RateProfile, RateSegment};
use crate::{lay_out, WorkloadError};
use thermocline_vocab::RegionInfo;

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
    /// Fraction of operations that write their value.
    pub write_fraction: f64,
    /// Server threads.
    pub threads: usize,
    /// Simulated seconds at the nominal rate.
    pub seconds: f64,
    /// Nominal line accesses per second per thread.
    pub access_rate: f64,
}

/// memtier's configuration in Table 3: 1 TB, 200 K keys of 5 MB, Gaussian
/// keys with a standard deviation of 100.
pub fn memtier(threads: usize) -> KvSpec {
    KvSpec {
        keys: 200_000,
        value_bytes: 5_000_000,
        distribution: KeyDistribution::Gaussian { sd: 100.0 },
        write_fraction: 1.0 / 11.0,
        threads,
        seconds: 300.0,
        access_rate: 40e6,
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
        write_fraction: 0.05,
        threads,
        seconds: 300.0,
        access_rate: 40e6,
    }
}

/// The model's single heap region and its rate profile at `rate` accesses
/// per second per thread.
pub fn build(
    spec: &KvSpec,
    thp: bool,
    rate: f64,
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
        burst_bytes: slot_bytes,
        stride_bytes: 64,
        sweep: false,
    };
    // Runs of keys with equal shares become one segment.
    let mut i = 0;
    while i < weights.len() {
        let (k, share) = weights[i];
        let mut j = i + 1;
        while j < weights.len() && weights[j].1 == share && weights[j].0 == k + (j - i) as u64 {
            j += 1;
        }
        let n = (j - i) as u64;
        segments.push(seg(k, n, share * n as f64));
        i = j;
    }
    if let Some((a, b, each)) = background {
        segments.push(seg(a, b - a, each * (b - a) as f64));
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
    profile
        .validate(&regions)
        .map_err(|e| WorkloadError::Invalid(e.to_string()))?;
    Ok((regions, profile))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_keys_are_where_they_were_loaded() {
        let (r, p) = build(&memtier(4), false, 1e6).unwrap();
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

        let (r, p) = build(&ycsb(1), false, 1e6).unwrap();
        let segs = &p.phases[0].segments;
        assert_eq!(segs.len(), 2);
        // The first 1% of the heap (keys 0..10 000) takes 99% of operations.
        assert_eq!(segs[0].start, r[0].start);
        assert_eq!(segs[0].len, 10_000 * 2_002_944);
        assert!((segs[0].share - 0.99).abs() < 1e-9);
    }
}
