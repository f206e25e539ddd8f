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
//! in mind, and every line an operation touches counts.
//!
//! A model may have a **warm tail** ([`ModelSpec::warm_tail_per_s`]): besides
//! its operations, it reads single lines drawn uniformly from all the memory
//! it has allocated, at a rate per allocated byte that is the same for every
//! byte, so each page is touched as a Poisson process of the same low rate.
//! It stands for the background work of a server (maintenance, collection,
//! the long tail of requests) that keeps data an operation mix leaves alone
//! from being idle. The touches ride on the operations: each operation adds
//! `warm_tail_per_s / ops_per_s` of them, scaled by the share of the model's
//! bytes allocated so far, carried over from operation to operation so the
//! rate is exact. A model optionally
//! starts with a load phase that writes one line of every 4 KiB page, as an
//! application's warm-up populates its data before the measured run.
//!
//! These are models of memory behaviour, not the applications: see each
//! preset's description for what it is built after.

use crate::synthetic::{Distribution, Scatter};
use crate::zipf::Zipf;
use crate::WorkloadError;
use crate::{Access, LoadPhase, Pending};
use std::sync::{Arc, Mutex};
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
    /// Warm-tail line reads per second when every region is allocated to
    /// its end (0: none): single lines drawn uniformly over the allocated
    /// bytes of every region, so a model with part of its regions
    /// allocated reads that share of this rate (see the module docs).
    pub warm_tail_per_s: f64,
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
    Offsets(Arc<[u32]>),
}

/// What an ETC layout is drawn from: the same key gives the same offsets.
type EtcKey = (u64, String, u64, u64);

/// ETC layouts drawn recently in this process, newest last. Drawing one
/// takes a `powf` per key (most of a short run's time on a model with
/// millions of keys), and the runs of a reproduction or a sweep draw the
/// same few again and again, in turn and in parallel.
static ETC_LAYOUTS: Mutex<Vec<(EtcKey, Arc<[u32]>)>> = Mutex::new(Vec::new());

/// The most the ETC layouts kept may hold (bytes).
const ETC_LAYOUTS_BYTES: usize = 512 << 20;

impl Layout {
    fn build(sizes: ItemSizes, keys: u64, seed: u64, region: &str) -> Layout {
        match sizes {
            ItemSizes::Fixed(b) => Layout::Stride(b.max(1)),
            ItemSizes::Etc { overhead } => {
                let key = (seed, region.to_string(), keys, overhead);
                let kept = |l: &Vec<(EtcKey, Arc<[u32]>)>| {
                    l.iter().find(|(k, _)| *k == key).map(|(_, o)| o.clone())
                };
                if let Some(o) = kept(&ETC_LAYOUTS.lock().unwrap_or_else(|e| e.into_inner())) {
                    return Layout::Offsets(o);
                }
                let offsets = etc_offsets(keys, overhead, seed, region);
                let mut all = ETC_LAYOUTS.lock().unwrap_or_else(|e| e.into_inner());
                // a run in parallel may have drawn it meanwhile: share its copy
                if let Some(o) = kept(&all) {
                    return Layout::Offsets(o);
                }
                all.push((key, offsets.clone()));
                while all.len() > 1
                    && all.iter().map(|(_, o)| o.len() * 4).sum::<usize>() > ETC_LAYOUTS_BYTES
                {
                    all.remove(0);
                }
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

/// The start of each of `keys` items of `overhead` bytes plus an ETC value,
/// and the end of the last, in 16-byte units (allocators align to 16).
fn etc_offsets(keys: u64, overhead: u64, seed: u64, region: &str) -> Arc<[u32]> {
    let mut rng = Rng::derive(seed, &format!("model-items-{region}"));
    let mut offsets = Vec::with_capacity(keys as usize + 1);
    let mut at = 0u64;
    for _ in 0..keys {
        offsets.push(u32::try_from(at / 16).expect("item region under 64 GiB"));
        let bytes = overhead + etc_value(1.0 - rng.unit());
        at += bytes.div_ceil(16) * 16;
    }
    offsets.push(u32::try_from(at / 16).expect("item region under 64 GiB"));
    offsets.into()
}

/// Per-region generator state.
#[derive(Clone, Debug)]
struct RegionState {
    base: u64,
    bytes: u64,
    layout: Option<Layout>,
    frontier: u64,
    /// The furthest the frontier has reached (the region's end once an
    /// append has wrapped): the bytes allocated, which the warm tail reads.
    allocated: u64,
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
            let frontier = ((bytes as f64 * r.initial_fill.clamp(0.0, 1.0)) as u64) & !63;
            regions.push(RegionState {
                base: 0,
                bytes,
                layout,
                frontier,
                allocated: frontier,
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
        if !(self.warm_tail_per_s.is_finite() && self.warm_tail_per_s >= 0.0) {
            return Err(WorkloadError::Invalid(
                "a model's warm tail must be a finite rate, at least 0".into(),
            ));
        }
        if self.warm_tail_per_s > 0.0 && !(self.ops_per_s.is_finite() && self.ops_per_s > 0.0) {
            return Err(WorkloadError::Invalid(
                "a model with a warm tail needs a positive operation rate".into(),
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
    /// Warm-tail reads per operation with every region allocated.
    tail_per_op: f64,
    /// Bytes of every region, allocated or not.
    full_bytes: u64,
    /// Warm-tail reads owed (the fraction carried to the next operation).
    tail_owed: f64,
    /// Warm-tail reads emitted so far.
    tail_reads: u64,
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
        let tail_per_op = if spec.warm_tail_per_s > 0.0 {
            spec.warm_tail_per_s / spec.ops_per_s
        } else {
            0.0
        };
        ModelStream {
            tail_per_op,
            full_bytes: regions.iter().map(|r| r.bytes).sum(),
            tail_owed: 0.0,
            tail_reads: 0,
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
        self.warm_tail(core, out);
    }

    /// The warm-tail reads this operation carries: its share of
    /// `warm_tail_per_s`, scaled by the share of the model's bytes allocated
    /// so far, each one line drawn uniformly over the allocated bytes.
    fn warm_tail(&mut self, core: u16, out: &mut Vec<Access>) {
        if self.tail_per_op <= 0.0 || self.full_bytes == 0 {
            return;
        }
        let allocated: u64 = self.regions.iter().map(|r| r.allocated).sum();
        self.tail_owed += self.tail_per_op * allocated as f64 / self.full_bytes as f64;
        while self.tail_owed >= 1.0 {
            self.tail_owed -= 1.0;
            let mut line = self.rng.below((allocated / 64).max(1));
            for r in &self.regions {
                let lines = r.allocated / 64;
                if line < lines {
                    Self::lines(r, line * 64, 1, false, core, out);
                    self.tail_reads += 1;
                    break;
                }
                line -= lines;
            }
        }
    }

    /// Warm-tail reads emitted so far (for tests and reports).
    pub fn warm_tail_reads(&self) -> u64 {
        self.tail_reads
    }

    /// Bytes allocated so far in each region, in model order: what the warm
    /// tail reads from.
    pub fn allocated_bytes(&self) -> Vec<u64> {
        self.regions.iter().map(|r| r.allocated).collect()
    }

    /// Appends the accesses of one operation (and the warm-tail reads it
    /// carries) to `out`, outside the load phase and the access budget.
    pub fn next_op(&mut self, out: &mut Vec<Access>) {
        self.op(out);
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
                    r.allocated = r.bytes;
                }
                let at = r.frontier;
                r.frontier += bytes.div_ceil(64) * 64;
                r.allocated = r.allocated.max(r.frontier.min(r.bytes));
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
    fn an_etc_layout_drawn_again_is_the_one_kept() {
        let etc = ItemSizes::Etc { overhead: 48 };
        let (Layout::Offsets(a), Layout::Offsets(b)) = (
            Layout::build(etc, 1000, 7, "kept-test"),
            Layout::build(etc, 1000, 7, "kept-test"),
        ) else {
            panic!("ETC sizes give offsets");
        };
        assert!(Arc::ptr_eq(&a, &b), "the second draw reads the first");
        assert_eq!(
            *a,
            *etc_offsets(1000, 48, 7, "kept-test"),
            "and is what a fresh draw gives"
        );
        let Layout::Offsets(c) = Layout::build(etc, 1000, 8, "kept-test") else {
            panic!("ETC sizes give offsets");
        };
        assert_ne!(*a, *c, "another seed draws other sizes");
    }

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
            warm_tail_per_s: 0.0,
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

    /// The warm tail reads `warm_tail_per_s / ops_per_s` lines per
    /// operation, scaled by the allocated share of the model's bytes, drawn
    /// uniformly over the allocated bytes and never beyond a frontier.
    #[test]
    fn the_warm_tail_reads_allocated_bytes_alike_at_its_rate() {
        let mut spec = kv(Distribution::Uniform);
        // The operations read only the table: what lands in the items and
        // the heap is the tail's.
        spec.ops = vec![OpKind {
            name: "get",
            weight: 1.0,
            steps: vec![Step::Slot {
                region: 0,
                slot_bytes: 8,
                lines: 1,
                write: false,
            }],
        }];
        spec.regions.push(ModelRegion {
            name: "heap",
            bytes: Some(4 << 20),
            items: None,
            initial_fill: 0.25,
            preload: false,
        });
        spec.warm_tail_per_s = 2000.0;
        let m = BuiltModel::new(spec, 4).unwrap();
        let sizes = m.region_sizes();
        let full: u64 = sizes.iter().map(|r| r.1).sum();
        let heap_allocated = sizes[2].1 / 4;
        let allocated = sizes[0].1 + sizes[1].1 + heap_allocated;
        let starts = [1u64 << 30, 2u64 << 30, 3u64 << 30];
        let mut s = ModelStream::new(&m, &starts, 0, 7, false);
        let ops = 200_000u64;
        let mut buf = Vec::new();
        let (mut heap, mut items) = (0u64, 0u64);
        for _ in 0..ops {
            buf.clear();
            s.op(&mut buf);
            for a in &buf {
                if a.va >= starts[2] {
                    assert!(a.va < starts[2] + heap_allocated, "{:#x}", a.va);
                    heap += 1;
                } else if a.va >= starts[1] {
                    items += 1;
                }
                assert!(!a.write);
            }
        }
        // 2000 reads/s at 1000 ops/s with every byte allocated: two per
        // operation, times the allocated share (the owed fraction carries).
        let want = ops as f64 * 2.0 * allocated as f64 / full as f64;
        let got = s.warm_tail_reads() as f64;
        assert!((got - want).abs() <= 1.0, "{got} {want}");
        // Uniform over the allocated bytes: each region its byte share
        // (binomial, 5 sigma).
        for (n, bytes) in [(heap, heap_allocated), (items, sizes[1].1)] {
            let p = bytes as f64 / allocated as f64;
            let sigma = (got * p * (1.0 - p)).sqrt();
            assert!((n as f64 - got * p).abs() < 5.0 * sigma, "{n} {p} {got}");
        }
        // The probe counts the tail in the accesses per operation.
        assert!((m.accesses_per_op - (1.0 + want / ops as f64)).abs() < 0.01);
    }

    #[test]
    fn a_warm_tail_must_be_a_rate() {
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let mut spec = kv(Distribution::Uniform);
            spec.warm_tail_per_s = bad;
            assert!(BuiltModel::new(spec, 1).is_err(), "{bad}");
        }
        let mut spec = kv(Distribution::Uniform);
        spec.warm_tail_per_s = 10.0;
        spec.ops_per_s = 0.0;
        assert!(BuiltModel::new(spec, 1).is_err());
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
