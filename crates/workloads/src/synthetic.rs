//! Synthetic access distributions over N items of a given size.
//!
//! - `uniform`: every item equally likely;
//! - `zipf`: item of popularity rank k with probability proportional to 1/k^s;
//! - `hotspot`: `hot_fraction` of the items get `hot_share` of the accesses
//!   (YCSB's hotspot distribution);
//! - `sequential`: items in address order, wrapping.
//!
//! Popularity ranks are scattered over the address space by a fixed bijection
//! (as a hash table scatters keys), except for `sequential`. Each access touches
//! one random cache line of the chosen item; it is a store with probability
//! `write_fraction`. Threads issue accesses round-robin, each on its own core.

use crate::rates::{RatePhase, RateProfile, RateSegment};
use crate::zipf::Zipf;
use crate::Access;
use crate::WorkloadError;
use serde::{Deserialize, Serialize};
use thermocline_vocab::RegionInfo;
use thermocline_vocab::Rng;

/// The popularity distribution.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Distribution {
    /// All items equally likely.
    Uniform,
    /// Zipfian with exponent `s`.
    Zipf {
        /// Exponent (0.99 in YCSB).
        s: f64,
    },
    /// `hot_fraction` of the items receive `hot_share` of the accesses.
    Hotspot {
        /// Fraction of items that are hot (0-1).
        hot_fraction: f64,
        /// Fraction of accesses that go to them (0-1).
        hot_share: f64,
    },
    /// Items in order, wrapping.
    Sequential,
}

/// A synthetic workload's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticSpec {
    /// Popularity distribution.
    pub distribution: Distribution,
    /// Number of items.
    pub items: u64,
    /// Bytes per item (a multiple of 64 is sensible).
    pub item_bytes: u64,
    /// Fraction of accesses that are stores.
    pub write_fraction: f64,
    /// Threads issuing accesses.
    pub threads: usize,
    /// Total accesses.
    pub accesses: u64,
}

impl SyntheticSpec {
    /// Footprint in bytes.
    pub fn bytes(&self) -> u64 {
        self.items * self.item_bytes
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if self.items == 0 || self.item_bytes == 0 {
            return Err(WorkloadError::Invalid(
                "items and item_bytes must be positive".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.write_fraction) {
            return Err(WorkloadError::Invalid(
                "write_fraction must be in [0, 1]".into(),
            ));
        }
        if self.threads == 0 || self.threads > 1024 {
            return Err(WorkloadError::Invalid("threads must be 1..=1024".into()));
        }
        match self.distribution {
            Distribution::Zipf { s } if !(s > 0.0 && s < 10.0) => {
                Err(WorkloadError::Invalid("zipf s must be in (0, 10)".into()))
            }
            Distribution::Hotspot {
                hot_fraction,
                hot_share,
            } if !(hot_fraction > 0.0
                && hot_fraction < 1.0
                && (0.0..=1.0).contains(&hot_share)) =>
            {
                Err(WorkloadError::Invalid(
                    "hotspot needs 0 < hot_fraction < 1 and 0 <= hot_share <= 1".into(),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// A fixed bijection of `0..n` that scatters popularity ranks over the
/// address space, as a hash table scatters keys.
#[derive(Clone, Debug)]
pub(crate) struct Scatter {
    n: u64,
    multiplier: u64,
}

impl Scatter {
    pub(crate) fn new(n: u64) -> Self {
        // An odd multiplier coprime with the item count is a bijection.
        let mut multiplier = (0x9E37_79B9_7F4A_7C15u64 % n.max(2)) | 1;
        while gcd(multiplier, n) != 1 {
            multiplier += 2;
        }
        Scatter {
            n: n.max(1),
            multiplier,
        }
    }

    #[inline]
    pub(crate) fn apply(&self, rank: u64) -> u64 {
        ((u128::from(rank) * u128::from(self.multiplier)) % u128::from(self.n)) as u64
    }
}

/// Generates a synthetic workload's accesses.
pub struct SyntheticStream {
    spec: SyntheticSpec,
    base: u64,
    zipf: Option<Zipf>,
    scatter: Scatter,
    left: u64,
    next_item: u64,
    next_core: u16,
    rng: Rng,
}

impl SyntheticStream {
    /// A stream over items laid out from `base`.
    pub fn new(spec: SyntheticSpec, base: u64, seed: u64) -> Self {
        let zipf = match spec.distribution {
            Distribution::Zipf { s } => Some(Zipf::new(spec.items, s)),
            _ => None,
        };
        SyntheticStream {
            left: spec.accesses,
            base,
            zipf,
            scatter: Scatter::new(spec.items),
            next_item: 0,
            next_core: 0,
            rng: Rng::derive(seed, "synthetic"),
            spec,
        }
    }

    fn scatter(&self, rank: u64) -> u64 {
        self.scatter.apply(rank)
    }

    pub(crate) fn fill(&mut self, buf: &mut [Access]) -> usize {
        let n = (buf.len() as u64).min(self.left) as usize;
        let lines = self.spec.item_bytes.div_ceil(64);
        for slot in buf.iter_mut().take(n) {
            let item = match self.spec.distribution {
                Distribution::Uniform => self.rng.below(self.spec.items),
                Distribution::Zipf { .. } => {
                    let r = self.zipf.as_ref().expect("zipf").sample(&mut self.rng);
                    self.scatter(r)
                }
                Distribution::Hotspot {
                    hot_fraction,
                    hot_share,
                } => {
                    let hot = ((self.spec.items as f64 * hot_fraction).ceil() as u64)
                        .clamp(1, self.spec.items - 1);
                    let r = if self.rng.chance(hot_share) {
                        self.rng.below(hot)
                    } else {
                        hot + self.rng.below(self.spec.items - hot)
                    };
                    self.scatter(r)
                }
                Distribution::Sequential => {
                    let i = self.next_item;
                    self.next_item = (i + 1) % self.spec.items;
                    i
                }
            };
            let line = if lines > 1 { self.rng.below(lines) } else { 0 };
            let offset = (item * self.spec.item_bytes + line * 64).min(self.spec.bytes() - 1);
            *slot = Access {
                va: self.base + offset,
                asid: 0,
                core: self.next_core,
                write: self.spec.write_fraction > 0.0 && self.rng.chance(self.spec.write_fraction),
            };
            self.next_core = (self.next_core + 1) % self.spec.threads as u16;
        }
        self.left -= n as u64;
        n
    }
}

/// Item counts up to which zipfian and hotspot workloads are described item
/// by item for the rate machine (one segment per run of equal shares).
pub const MAX_RATE_ITEMS: u64 = 1 << 22;

/// The workload as access rates over `region` (where its items are laid out):
/// each item's share of accesses, at its scattered slot. `None` for
/// sequential sweeps (a moving position, not a rate) and for zipfian or
/// hotspot workloads of more than [`MAX_RATE_ITEMS`] items.
pub fn rate_profile(spec: &SyntheticSpec, region: &RegionInfo) -> Option<RateProfile> {
    let n = spec.items;
    let scatter = Scatter::new(n);
    // Share of each slot (item position), by popularity rank.
    let by_slot: Vec<f64> = match spec.distribution {
        Distribution::Sequential => return None,
        Distribution::Uniform => vec![1.0 / n as f64; 1],
        _ if n > MAX_RATE_ITEMS => return None,
        Distribution::Zipf { s } => {
            let w: Vec<f64> = (0..n).map(|k| ((k + 1) as f64).powf(-s)).collect();
            let total: f64 = w.iter().sum();
            let mut v = vec![0.0; n as usize];
            for (k, wk) in w.iter().enumerate() {
                v[scatter.apply(k as u64) as usize] = wk / total;
            }
            v
        }
        Distribution::Hotspot {
            hot_fraction,
            hot_share,
        } => {
            let hot = ((n as f64 * hot_fraction).ceil() as u64).clamp(1, n - 1);
            let mut v = vec![(1.0 - hot_share) / (n - hot) as f64; n as usize];
            for k in 0..hot {
                v[scatter.apply(k) as usize] = hot_share / hot as f64;
            }
            v
        }
    };
    let mut segments: Vec<RateSegment> = Vec::new();
    let uniform = by_slot.len() == 1;
    let slots = if uniform { 1 } else { n as usize };
    let mut i = 0;
    while i < slots {
        let mut j = i + 1;
        while j < slots && by_slot[j] == by_slot[i] {
            j += 1;
        }
        let (first, count) = if uniform {
            (0, n)
        } else {
            (i as u64, (j - i) as u64)
        };
        let start = region.start + first * spec.item_bytes;
        let len = (count * spec.item_bytes).min(region.end() - start);
        let share = if uniform {
            1.0
        } else {
            by_slot[i] * count as f64
        };
        if share > 0.0 && len > 0 {
            segments.push(RateSegment {
                asid: region.asid,
                start,
                len,
                share,
                write_fraction: spec.write_fraction,
                burst_bytes: 64,
                stride_bytes: 64,
                sweep: false,
            });
        }
        i = j;
    }
    let sum: f64 = segments.iter().map(|s| s.share).sum();
    segments.iter_mut().for_each(|s| s.share /= sum);
    Some(RateProfile {
        phases: vec![RatePhase {
            name: "run".into(),
            accesses: spec.accesses,
            segments,
        }],
    })
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(d: Distribution) -> SyntheticSpec {
        SyntheticSpec {
            distribution: d,
            items: 1000,
            item_bytes: 4096,
            write_fraction: 0.25,
            threads: 2,
            accesses: 100_000,
        }
    }

    #[test]
    fn hotspot_sends_the_share_to_the_hot_items() {
        let d = Distribution::Hotspot {
            hot_fraction: 0.1,
            hot_share: 0.9,
        };
        let mut s = SyntheticStream::new(spec(d), 0, 1);
        let hot: std::collections::BTreeSet<u64> = (0..100).map(|r| s.scatter(r)).collect();
        let mut buf = vec![Access::default(); 100_000];
        assert_eq!(s.fill(&mut buf), 100_000);
        let in_hot = buf.iter().filter(|a| hot.contains(&(a.va / 4096))).count();
        assert!((88_000..92_000).contains(&in_hot), "{in_hot}");
        let writes = buf.iter().filter(|a| a.write).count();
        assert!((23_000..27_000).contains(&writes), "{writes}");
        assert!(buf.iter().all(|a| a.va < 1000 * 4096 && a.core < 2));
        assert_eq!(s.fill(&mut buf), 0);
    }

    #[test]
    fn rate_profiles_match_the_streams() {
        let region = crate::lay_out(&[("items".into(), 1000 * 4096)], false).remove(0);
        for d in [
            Distribution::Uniform,
            Distribution::Zipf { s: 0.99 },
            Distribution::Hotspot {
                hot_fraction: 0.1,
                hot_share: 0.9,
            },
        ] {
            let p = rate_profile(&spec(d), &region).unwrap();
            p.validate(std::slice::from_ref(&region)).unwrap();
            // The stream's per-item counts follow the profile's shares.
            let mut s = SyntheticStream::new(spec(d), region.start, 1);
            let mut buf = vec![Access::default(); 100_000];
            s.fill(&mut buf);
            let segs = &p.phases[0].segments;
            let mut expected = vec![0.0; 1000];
            for seg in segs {
                let first = (seg.start - region.start) / 4096;
                let items = seg.len / 4096;
                for i in first..first + items {
                    expected[i as usize] = seg.share / items as f64;
                }
            }
            let mut seen = vec![0.0; 1000];
            for a in &buf {
                seen[((a.va - region.start) / 4096) as usize] += 1e-5;
            }
            // The ten most popular items agree within 15% (and 0.002 absolute).
            let mut top: Vec<usize> = (0..1000).collect();
            top.sort_by(|&a, &b| expected[b].total_cmp(&expected[a]));
            for &i in &top[..10] {
                let (e, o) = (expected[i], seen[i]);
                assert!(
                    (e - o).abs() < (0.15 * e).max(0.002),
                    "{d:?} item {i}: {e} vs {o}"
                );
            }
        }
        assert!(rate_profile(&spec(Distribution::Sequential), &region).is_none());
    }

    #[test]
    fn scatter_is_a_bijection() {
        let s = SyntheticStream::new(spec(Distribution::Uniform), 0, 1);
        let set: std::collections::BTreeSet<u64> = (0..1000).map(|r| s.scatter(r)).collect();
        assert_eq!(set.len(), 1000);
    }
}
