//! PEBS-like sampling: each clock step draws a Poisson number of samples
//! from the sampled event's mass (from a stream keyed by the step) into a
//! bounded buffer that the manager drains.

use crate::index::{Mass, PhaseIndex};
use crate::placement::Placement;
use crate::streams::{self, poisson};
use thermocline_backend::{Sample, SampleEvent, SamplingConfig};
use thermocline_vocab::{Asid, Rng, TierId};

/// One clock step, as sampling sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    /// Steps taken before it: the key of its draws.
    pub index: u64,
    /// Simulated time (ns) at which it starts.
    pub start_ns: f64,
    /// Its length (ns).
    pub ns: f64,
    /// Samples expected in it.
    pub mean: f64,
}

/// The sampling configuration and buffer.
#[derive(Default)]
pub(crate) struct Sampler {
    /// None: sampling is off.
    cfg: Option<SamplingConfig>,
    buf: Vec<Sample>,
    /// Samples lost to a full buffer since the last drain.
    dropped: u64,
}

impl Sampler {
    /// Turns sampling on with `cfg` (off with None), with an empty buffer.
    pub fn configure(&mut self, cfg: Option<SamplingConfig>) {
        *self = Sampler {
            cfg,
            ..Sampler::default()
        };
    }

    /// Whether sampling is on.
    pub fn is_on(&self) -> bool {
        self.cfg.is_some()
    }

    /// Samples expected per access in the phase of `ix` (0 when off).
    pub fn per_access(&self, ix: &PhaseIndex) -> f64 {
        let Some(cfg) = &self.cfg else {
            return 0.0;
        };
        let (kind, scale) = sample_kind(cfg.event);
        ix.total(kind) * scale / cfg.period.max(1) as f64
    }

    /// Draws the samples of `step` (under `seed`) in the phase of `ix`, with
    /// the tiers of `placement`: returns how many were taken (buffered or
    /// dropped).
    pub fn take(&mut self, seed: u64, step: Step, ix: &PhaseIndex, placement: &Placement) -> u64 {
        let Some(cfg) = &self.cfg else {
            return 0;
        };
        let mut rng = Rng::keyed(seed, streams::SAMPLES, step.index, 0);
        let n = poisson(step.mean, &mut rng);
        let (kind, _) = sample_kind(cfg.event);
        let mut taken = 0;
        for _ in 0..n {
            let Some((asid, va)) = ix.locate(rng.unit(), kind) else {
                break;
            };
            taken += 1;
            if self.buf.len() >= cfg.buffer {
                self.dropped += 1;
                continue;
            }
            let write = match kind {
                Mass::Writes => true,
                Mass::Reads => false,
                _ => {
                    let all = ix.mass(asid, va & !4095, (va & !4095) + 4096, Mass::All);
                    let w = ix.mass(asid, va & !4095, (va & !4095) + 4096, Mass::Writes);
                    all > 0.0 && rng.unit() * all < w
                }
            };
            let tier = placement.page(asid, va).map_or(0, |p| p.tier);
            self.buf.push(Sample {
                asid: Asid(asid),
                va,
                write,
                tier: TierId(tier),
                t_ns: (step.start_ns + rng.unit() * step.ns) as u64,
            });
        }
        taken
    }

    /// Moves the buffered samples to `out`: None when sampling is off, else
    /// (samples moved, samples dropped since the last drain).
    pub fn drain(&mut self, out: &mut Vec<Sample>) -> Option<(usize, u64)> {
        self.cfg.as_ref()?;
        let n = self.buf.len();
        out.append(&mut self.buf);
        Some((n, std::mem::take(&mut self.dropped)))
    }
}

/// Which mass a sampled event follows, and its scale.
fn sample_kind(event: SampleEvent) -> (Mass, f64) {
    use SampleEvent::*;
    match event {
        RetiredLoads => (Mass::Reads, 1.0),
        RetiredStores => (Mass::Writes, 1.0),
        RetiredAll => (Mass::All, 1.0),
        // LLC-miss events: approximated by the LLC-miss mass (loads and
        // stores alike).
        LlcMissLoads | LlcMissStores | LlcMissAll => (Mass::LlcMisses, 1.0),
    }
}
