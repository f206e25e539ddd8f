//! Application models: operation-level generators that stand in for the
//! server applications of the papers' evaluations (key-value stores, a TPC-C
//! database, Spark, a search engine).
//!
//! A model is a set of regions and a mix of operations. Each operation draws a
//! key from the model's popularity distribution (ranks scattered over the key
//! space, as a hash table scatters keys) and then touches memory in steps:
//! a hash-table slot of the key, all or one of the lines of the key's item,
//! an append at a region's allocation frontier, a recency-skewed read behind
//! that frontier, or a uniform read. Item sizes are fixed or drawn from the
//! value-size distribution of Facebook's ETC memcached pool (Atikoglu et al.,
//! SIGMETRICS'12: generalized Pareto, location 15, scale 214.476, shape
//! 0.348238, as the mutilate load generator encodes it), capped at 64 KiB.
//!
//! One access is one cache line that reaches memory: the models have no LLC
//! in mind, and every line an operation touches counts. A model optionally
//! starts with a load phase that writes one line of every 4 KiB page, as an
//! application's warm-up populates its data before the measured run.
//!
//! These are models of memory behaviour, not the applications: see each
//! preset's description for what it is built after.

use crate::synthetic::{Distribution, Scatter};
use crate::zipf::Zipf;
use crate::WorkloadError;
use crate::{Access, LoadPhase, Pending};
use thermocline_vocab::Rng;

/// How a region's items are sized.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ItemSizes {
    /// Every item has this many bytes.
    Fixed(u64),
    /// `overhead` bytes plus an ETC-distributed value.
    Etc {
        /// Per-item bytes besides the value (hash entry, object header, key).
        overhead: u64,
    },
}

/// One region of a model.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRegion {
    /// Name in reports.
    pub name: &'static str,
    /// Bytes; for item regions, derived from the items when `None`.
    pub bytes: Option<u64>,
    /// Items laid out in the region, indexed by key, if steps address items.
    pub items: Option<ItemSizes>,
    /// Starting allocation frontier as a fraction of the region (appends and
    /// recency reads work behind it); 1.0 means fully allocated.
    pub initial_fill: f64,
    /// Whether the load phase writes this region before the run.
    pub preload: bool,
}

/// A memory step of an operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// `lines` lines of the key's fixed-size slot (`slot_bytes`) in `region`.
    Slot {
        /// Region index.
        region: usize,
        /// Slot size (hash bucket, index entry).
        slot_bytes: u64,
        /// Lines touched from the slot's start.
        lines: u64,
        /// Stores instead of loads.
        write: bool,
    },
    /// Lines of the key's item: all of them (`lines == 0`) or `lines` lines
    /// from a random line of the item.
    Item {
        /// Region index (must have items).
        region: usize,
        /// 0 = every line of the item.
        lines: u64,
        /// Stores instead of loads.
        write: bool,
    },
    /// `bytes` written at the region's frontier, which advances (wrapping).
    Append {
        /// Region index.
        region: usize,
        /// Bytes appended.
        bytes: u64,
    },
    /// `lines` lines of a 4 KiB block behind the frontier whose age rank is
    /// zipfian with exponent `s` (newest most likely).
    Recent {
        /// Region index.
        region: usize,
        /// Lines read from the block's start.
        lines: u64,
        /// Zipf exponent over age.
        s: f64,
        /// Stores instead of loads.
        write: bool,
    },
    /// `lines` lines from a uniformly random line behind the frontier.
    Uniform {
        /// Region index.
        region: usize,
        /// Lines touched.
        lines: u64,
        /// Stores instead of loads.
        write: bool,
    },
}

/// A kind of operation and how often it happens.
#[derive(Clone, Debug, PartialEq)]
pub struct OpKind {
    /// Name, for documentation.
    pub name: &'static str,
    /// Relative frequency.
    pub weight: f64,
    /// Steps, in order.
    pub steps: Vec<Step>,
}

/// A whole application model.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelSpec {
    /// Keys drawn by operations.
    pub keys: u64,
    /// Popularity of keys.
    pub distribution: Distribution,
    /// Regions, in address order.
    pub regions: Vec<ModelRegion>,
    /// The operation mix.
    pub ops: Vec<OpKind>,
    /// Threads (each operation runs on one; round-robin).
    pub threads: usize,
    /// Operations per second of the whole application, from the paper.
    pub ops_per_s: f64,
    /// Nominal length of the measured run (s).
    pub seconds: f64,
}

/// Largest ETC value modelled.
const ETC_CAP: u64 = 64 << 10;

/// An ETC value size (bytes) for uniform `u` in (0, 1].
fn etc_value(u: f64) -> u64 {
    const LOCATION: f64 = 15.0;
    const SCALE: f64 = 214.476;
    const SHAPE: f64 = 0.348238;
    let x = LOCATION + SCALE * (u.powf(-SHAPE) - 1.0) / SHAPE;
    (x.round() as u64).clamp(1, ETC_CAP)
}

/// Item layout of one region: start offsets in 16-byte units (allocators
/// align to 16 bytes), or a fixed stride.
#[derive(Clone, Debug)]
enum Layout {
    Stride(u64),
    Offsets(Vec<u32>),
}

impl Layout {
    fn build(sizes: ItemSizes, keys: u64, seed: u64, region: &str) -> Layout {
        match sizes {
            ItemSizes::Fixed(b) => Layout::Stride(b.max(1)),
            ItemSizes::Etc { overhead } => {
                let mut rng = Rng::derive(seed, &format!("model-items-{region}"));
                let mut offsets = Vec::with_capacity(keys as usize + 1);
                let mut at = 0u64;
                for _ in 0..keys {
                    offsets.push(u32::try_from(at / 16).expect("item region under 64 GiB"));
                    let bytes = overhead + etc_value(1.0 - rng.unit());
                    at += bytes.div_ceil(16) * 16;
                }
                offsets.push(u32::try_from(at / 16).expect("item region under 64 GiB"));
                Layout::Offsets(offsets)
            }
        }
    }

    /// (offset, length) of item `k`.
    fn item(&self, k: u64) -> (u64, u64) {
        match self {
            Layout::Stride(b) => (k * b, *b),
            Layout::Offsets(o) => {
                let a = u64::from(o[k as usize]) * 16;
                (a, u64::from(o[k as usize + 1]) * 16 - a)
            }
        }
    }

    fn bytes(&self, keys: u64) -> u64 {
        match self {
            Layout::Stride(b) => b * keys,
            Layout::Offsets(o) => u64::from(*o.last().expect("offsets end")) * 16,
        }
    }
}

/// Per-region generator state.
#[derive(Clone, Debug)]
struct RegionState {
    base: u64,
    bytes: u64,
    layout: Option<Layout>,
    frontier: u64,
    preload: bool,
}

/// A built model: region sizes known, ready to lay out.
pub struct BuiltModel {
    spec: ModelSpec,
    regions: Vec<RegionState>,
    /// Mean accesses per operation (measured on a sample of operations).
    pub accesses_per_op: f64,
}

impl BuiltModel {
    /// Sizes the regions (drawing item sizes) and measures the mean number of
    /// accesses per operation on 20 000 sample operations.
    pub fn new(spec: ModelSpec, seed: u64) -> Result<BuiltModel, WorkloadError> {
        spec.validate()?;
        let mut regions = Vec::new();
        for r in &spec.regions {
            let layout = r.items.map(|s| Layout::build(s, spec.keys, seed, r.name));
            let bytes = match (r.bytes, &layout) {
                (Some(b), _) => b,
                (None, Some(l)) => l.bytes(spec.keys),
                (None, None) => {
                    return Err(WorkloadError::Invalid(format!(
                        "region {} needs bytes or items",
                        r.name
                    )))
                }
            };
            if let Some(l) = &layout {
                if l.bytes(spec.keys) > bytes {
                    return Err(WorkloadError::Invalid(format!(
                        "region {}: items do not fit",
                        r.name
                    )));
                }
            }
            let bytes = bytes.div_ceil(4096) * 4096;
            regions.push(RegionState {
                base: 0,
                bytes,
                layout,
                frontier: ((bytes as f64 * r.initial_fill.clamp(0.0, 1.0)) as u64) & !63,
                preload: r.preload,
            });
        }
        let mut m = BuiltModel {
            spec,
            regions,
            accesses_per_op: 0.0,
        };
        let mut probe = ModelStream::new(&m, &[], 0, seed ^ 0x5eed, false);
        let ops = 20_000u64;
        let mut n = 0u64;
        let mut buf = Vec::new();
        for _ in 0..ops {
            buf.clear();
            probe.op(&mut buf);
            n += buf.len() as u64;
        }
        m.accesses_per_op = n as f64 / ops as f64;
        Ok(m)
    }

    /// (name, bytes) of each region, for laying out.
    pub fn region_sizes(&self) -> Vec<(String, u64)> {
        self.spec
            .regions
            .iter()
            .zip(&self.regions)
            .map(|(r, s)| (r.name.to_string(), s.bytes))
            .collect()
    }

    /// Accesses of the load phase (one per 4 KiB page of preloaded regions).
    pub fn load_accesses(&self) -> u64 {
        let ranges: Vec<(u64, u64)> = self
            .regions
            .iter()
            .filter(|r| r.preload)
            .map(|r| (r.base, r.bytes))
            .collect();
        LoadPhase::accesses(&ranges)
    }

    /// Accesses per second of the whole application.
    pub fn access_rate(&self) -> f64 {
        self.spec.ops_per_s * self.accesses_per_op
    }

    /// Threads.
    pub fn threads(&self) -> usize {
        self.spec.threads
    }

    /// Accesses of the measured run at the model's rate.
    pub fn run_accesses(&self) -> u64 {
        (self.access_rate() * self.spec.seconds) as u64
    }
}

impl ModelSpec {
    fn validate(&self) -> Result<(), WorkloadError> {
        if self.keys == 0 || self.threads == 0 || self.ops.is_empty() {
            return Err(WorkloadError::Invalid(
                "a model needs keys, threads and operations".into(),
            ));
        }
        for op in &self.ops {
            for s in &op.steps {
                let (Step::Slot { region, .. }
                | Step::Item { region, .. }
                | Step::Append { region, .. }
                | Step::Recent { region, .. }
                | Step::Uniform { region, .. }) = *s;
                if region >= self.regions.len() {
                    return Err(WorkloadError::Invalid(format!(
                        "op {} uses a missing region",
                        op.name
                    )));
                }
                if matches!(s, Step::Item { .. }) && self.regions[region].items.is_none() {
                    return Err(WorkloadError::Invalid(format!(
                        "op {} reads items of a region without items",
                        op.name
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Generates a model's accesses: the load phase, then operations.
pub struct ModelStream {
    spec: ModelSpec,
    regions: Vec<RegionState>,
    scatter: Scatter,
    zipf: Option<Zipf>,
    recent: Vec<Option<Zipf>>,
    cumulative: Vec<f64>,
    rng: Rng,
    load: LoadPhase,
    left: u64,
    pending: Pending,
    next_core: usize,
}

impl ModelStream {
    /// A stream over `regions` (laid out by the caller, in model order) that
    /// emits the load phase if `load`, then `accesses` accesses of operations.
    pub fn new(
        m: &BuiltModel,
        starts: &[u64],
        accesses: u64,
        seed: u64,
        load: bool,
    ) -> ModelStream {
        let spec = m.spec.clone();
        let mut regions = m.regions.clone();
        for (r, s) in regions.iter_mut().zip(starts) {
            r.base = *s;
        }
        let zipf = match spec.distribution {
            Distribution::Zipf { s } => Some(Zipf::new(spec.keys, s)),
            _ => None,
        };
        let recent = (0..regions.len())
            .map(|i| {
                spec.ops
                    .iter()
                    .flat_map(|o| &o.steps)
                    .find_map(|s| match *s {
                        Step::Recent { region, s, .. } if region == i => {
                            Some(Zipf::new(regions[i].bytes / 4096, s))
                        }
                        _ => None,
                    })
            })
            .collect();
        let total: f64 = spec.ops.iter().map(|o| o.weight.max(0.0)).sum();
        let mut acc = 0.0;
        let cumulative = spec
            .ops
            .iter()
            .map(|o| {
                acc += o.weight.max(0.0) / total;
                acc
            })
            .collect();
        ModelStream {
            scatter: Scatter::new(spec.keys),
            load: LoadPhase::new(if load {
                regions
                    .iter()
                    .filter(|r| r.preload)
                    .map(|r| (r.base, r.bytes))
                    .collect()
            } else {
                Vec::new()
            }),
            left: accesses,
            zipf,
            recent,
            cumulative,
            rng: Rng::derive(seed, "model"),
            pending: Pending::default(),
            next_core: 0,
            spec,
            regions,
        }
    }

    fn key(&mut self) -> u64 {
        let n = self.spec.keys;
        let rank = match self.spec.distribution {
            Distribution::Uniform | Distribution::Sequential => return self.rng.below(n),
            Distribution::Zipf { .. } => self.zipf.as_ref().expect("zipf").sample(&mut self.rng),
            Distribution::Hotspot {
                hot_fraction,
                hot_share,
            } => {
                let hot = ((n as f64 * hot_fraction).ceil() as u64).clamp(1, n.max(2) - 1);
                if self.rng.chance(hot_share) {
                    self.rng.below(hot)
                } else {
                    hot + self.rng.below(n - hot)
                }
            }
        };
        self.scatter.apply(rank)
    }

    /// Appends the accesses of one operation to `out`.
    fn op(&mut self, out: &mut Vec<Access>) {
        let u = self.rng.unit();
        let kind = self
            .cumulative
            .iter()
            .position(|&c| u < c)
            .unwrap_or(self.spec.ops.len() - 1);
        let key = self.key();
        let core = self.next_core as u16;
        self.next_core = (self.next_core + 1) % self.spec.threads;
        for i in 0..self.spec.ops[kind].steps.len() {
            let step = self.spec.ops[kind].steps[i];
            self.step(step, key, core, out);
        }
    }

    fn lines(
        r: &RegionState,
        start: u64,
        lines: u64,
        write: bool,
        core: u16,
        out: &mut Vec<Access>,
    ) {
        let start = start.min(r.bytes.saturating_sub(64)) & !63;
        let end = (start + lines.max(1) * 64).min(r.bytes);
        let mut at = start;
        while at < end {
            out.push(Access {
                va: r.base + at,
                asid: 0,
                core,
                write,
            });
            at += 64;
        }
    }

    fn step(&mut self, step: Step, key: u64, core: u16, out: &mut Vec<Access>) {
        match step {
            Step::Slot {
                region,
                slot_bytes,
                lines,
                write,
            } => {
                let r = &self.regions[region];
                let slots = (r.bytes / slot_bytes.max(1)).max(1);
                // The slot of a key is its hash: scatter again so slots and
                // items of one key are unrelated.
                let slot = self.scatter.apply(key) % slots;
                Self::lines(r, slot * slot_bytes, lines, write, core, out);
            }
            Step::Item {
                region,
                lines,
                write,
            } => {
                let r = &self.regions[region];
                let (off, len) = r.layout.as_ref().expect("validated").item(key);
                let first = off & !63;
                let span = (off + len).div_ceil(64) - off / 64;
                if lines == 0 {
                    Self::lines(r, first, span, write, core, out);
                } else {
                    let skip = self.rng.below(span) * 64;
                    Self::lines(r, first + skip, lines.min(span), write, core, out);
                }
            }
            Step::Append { region, bytes } => {
                let r = &mut self.regions[region];
                if r.frontier + bytes > r.bytes {
                    r.frontier = 0;
                }
                let at = r.frontier;
                r.frontier += bytes.div_ceil(64) * 64;
                Self::lines(r, at, bytes.div_ceil(64), true, core, out);
            }
            Step::Recent {
                region,
                lines,
                write,
                ..
            } => {
                let age = self.recent[region]
                    .as_ref()
                    .expect("built")
                    .sample(&mut self.rng);
                let r = &self.regions[region];
                let blocks = (r.frontier / 4096).max(1);
                let block = (r.frontier / 4096).saturating_sub(age % blocks + 1);
                Self::lines(r, block * 4096, lines, write, core, out);
            }
            Step::Uniform {
                region,
                lines,
                write,
            } => {
                let r = &self.regions[region];
                let extent = r.frontier.max(64);
                let at = self.rng.below(extent / 64) * 64;
                Self::lines(r, at, lines, write, core, out);
            }
        }
    }

    /// Fills `buf`; returns how many accesses were written (0 at the end).
    pub(crate) fn fill(&mut self, buf: &mut [Access]) -> usize {
        let mut n = self.load.fill(buf, &mut self.next_core, self.spec.threads);
        while n < buf.len() && self.left > 0 {
            if self.pending.is_empty() {
                let mut p = std::mem::take(&mut self.pending);
                self.op(p.refill());
                self.pending = p;
            }
            let take = self.pending.drain(&mut buf[n..], self.left);
            self.left -= take as u64;
            n += take;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etc_values_follow_the_generalized_pareto() {
        // Median of GPD(15, 214.476, 0.348238): 15 + 214.476 (2^k - 1) / k.
        let median = 15.0 + 214.476 * (2f64.powf(0.348238) - 1.0) / 0.348238;
        assert_eq!(etc_value(0.5), median.round() as u64);
        assert_eq!(etc_value(1.0), 15);
        assert_eq!(etc_value(1e-300), ETC_CAP);
    }

    fn kv(distribution: Distribution) -> ModelSpec {
        ModelSpec {
            keys: 10_000,
            distribution,
            regions: vec![
                ModelRegion {
                    name: "table",
                    bytes: Some(10_000 * 8),
                    items: None,
                    initial_fill: 1.0,
                    preload: true,
                },
                ModelRegion {
                    name: "items",
                    bytes: None,
                    items: Some(ItemSizes::Etc { overhead: 64 }),
                    initial_fill: 1.0,
                    preload: true,
                },
            ],
            ops: vec![
                OpKind {
                    name: "get",
                    weight: 9.0,
                    steps: vec![
                        Step::Slot {
                            region: 0,
                            slot_bytes: 8,
                            lines: 1,
                            write: false,
                        },
                        Step::Item {
                            region: 1,
                            lines: 0,
                            write: false,
                        },
                    ],
                },
                OpKind {
                    name: "set",
                    weight: 1.0,
                    steps: vec![Step::Item {
                        region: 1,
                        lines: 0,
                        write: true,
                    }],
                },
            ],
            threads: 2,
            ops_per_s: 1000.0,
            seconds: 10.0,
        }
    }

    #[test]
    fn items_are_disjoint_and_operations_stay_in_their_regions() {
        let m = BuiltModel::new(kv(Distribution::Uniform), 3).unwrap();
        let sizes = m.region_sizes();
        let items = m.regions[1].layout.as_ref().unwrap();
        let mut prev_end = 0;
        for k in 0..10_000 {
            let (off, len) = items.item(k);
            assert!(off >= prev_end && len >= 80, "item {k}: {off} {len}");
            prev_end = off + len;
        }
        // Mean item size near 64 + E[GPD] = 64 + 15 + 214.476 / (1 - 0.348).
        let mean = sizes[1].1 as f64 / 10_000.0;
        assert!((360.0..460.0).contains(&mean), "{mean}");
        let starts = [1u64 << 30, 2u64 << 30];
        let mut s = ModelStream::new(&m, &starts, 50_000, 9, true);
        let mut buf = vec![Access::default(); 1000];
        let (mut total, mut loads, mut writes) = (0u64, 0u64, 0u64);
        loop {
            let n = s.fill(&mut buf);
            if n == 0 {
                break;
            }
            for a in &buf[..n] {
                let in_table = a.va >= starts[0] && a.va < starts[0] + sizes[0].1;
                let in_items = a.va >= starts[1] && a.va < starts[1] + sizes[1].1;
                assert!(in_table || in_items, "{:#x}", a.va);
                assert!(a.core < 2);
                if total < m.load_accesses() {
                    assert!(a.write && a.va % 4096 == 0);
                    loads += 1;
                } else {
                    writes += u64::from(a.write);
                }
                total += 1;
            }
        }
        assert_eq!(loads, m.load_accesses());
        assert_eq!(total, m.load_accesses() + 50_000);
        // About one operation in ten is a set, and sets write whole items.
        let share = writes as f64 / 50_000.0;
        assert!((0.05..0.2).contains(&share), "{share}");
    }

    #[test]
    fn hotspot_keys_get_their_share() {
        let d = Distribution::Hotspot {
            hot_fraction: 0.01,
            hot_share: 0.9,
        };
        let m = BuiltModel::new(kv(d), 3).unwrap();
        let mut s = ModelStream::new(&m, &[0, 1 << 30], 0, 9, false);
        let mut counts = vec![0u32; 10_000];
        for _ in 0..20_000 {
            counts[s.key() as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let top: u32 = counts[..100].iter().sum();
        assert!((17_500..18_500).contains(&top), "{top}");
    }

    #[test]
    fn appends_advance_and_recent_reads_stay_behind_the_frontier() {
        let mut spec = kv(Distribution::Uniform);
        spec.regions[0].initial_fill = 0.0;
        spec.regions[0].bytes = Some(1 << 20);
        spec.ops = vec![OpKind {
            name: "grow",
            weight: 1.0,
            steps: vec![
                Step::Append {
                    region: 0,
                    bytes: 256,
                },
                Step::Recent {
                    region: 0,
                    lines: 1,
                    s: 1.0,
                    write: false,
                },
            ],
        }];
        let m = BuiltModel::new(spec, 1).unwrap();
        let mut s = ModelStream::new(&m, &[0, 1 << 30], 5 * 1000, 2, false);
        let mut buf = vec![Access::default(); 5 * 1000];
        assert_eq!(s.fill(&mut buf), 5000);
        // 1000 operations of 4 appended lines and one read.
        assert_eq!(s.regions[0].frontier, 256 * 1000);
        for a in buf.iter().filter(|a| !a.write) {
            assert!(a.va < 256 * 1000, "{:#x}", a.va);
        }
    }
}
