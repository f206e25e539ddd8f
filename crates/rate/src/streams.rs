//! Every random stream the rate machine draws from, in one place. Each draw is
//! [`Rng::keyed_unit`] (or [`Rng::keyed`]) of the run's seed, one of these
//! streams, a key and a progress (or other position): the same question
//! always gets the same answer, whatever was asked before it.
//!
//! The identities are those the streams had when they were salts written by
//! hand, so the numbers drawn are unchanged. Also here: the shapes drawn
//! ([`poisson`]).

use thermocline_vocab::{Rng, Stream};

/// When a cleared Accessed bit is next set, by level index (root first):
/// keyed by the entry and the progress at the clear.
pub(crate) const ACCESSED: [Stream; 4] = [
    Stream::new("rate/accessed-pgd", 0),
    Stream::new("rate/accessed-pud", 1),
    Stream::new("rate/accessed-pmd", 2),
    Stream::new("rate/accessed-pte", 3),
];

/// When a cleared leaf Accessed bit is set once its TLB entry is flushed:
/// keyed by the entry and the progress at the flush.
pub(crate) const FLUSHED: Stream = Stream::new("rate/accessed-flushed", 0xf1);

/// When a cleared Dirty bit is next set: keyed by the leaf entry and the
/// progress at the clear.
pub(crate) const DIRTY: Stream = Stream::new("rate/dirty", 0xd);

/// When an armed hint fault fires: keyed by the leaf entry and the progress
/// at arming.
pub(crate) const HINT_FAULT: Stream = Stream::new("rate/hint-fault", 0x41).with_key_mask(0x41);

/// Poison faults counted on a page: keyed by the page's base and the
/// progress at which faults were last counted.
pub(crate) const POISON_FAULTS: Stream = Stream::new("rate/poison-faults", 0x9f);

/// The tier of each page of a `Random` run: keyed by address space and page
/// base.
pub(crate) const RANDOM_HOME: Stream = Stream::new("rate/random-home", 7);

/// PEBS-like samples: keyed by the clock step that takes them.
pub(crate) const SAMPLES: Stream = Stream::raw("rate/samples", 0x5a3b);

/// The generator of the poison faults counted on the page at `base` since
/// progress `since`: seeded by the bits of that stream's keyed draw.
pub(crate) fn poison_faults(seed: u64, base: u64, since: f64) -> Rng {
    Rng::new(Rng::keyed_unit(seed, POISON_FAULTS, base, since.to_bits()).to_bits())
}

/// A Poisson draw: Knuth's method below 30, a rounded normal above.
pub(crate) fn poisson(mean: f64, rng: &mut Rng) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    if mean < 30.0 {
        let l = (-mean).exp();
        let (mut k, mut p) = (0u64, 1.0);
        loop {
            p *= rng.unit();
            if p <= l {
                return k;
            }
            k += 1;
        }
    }
    let (u1, u2) = (rng.unit().max(1e-300), rng.unit());
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    (mean + z * mean.sqrt()).round().max(0.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_distinct() {
        let mut all = ACCESSED.to_vec();
        all.extend([
            FLUSHED,
            DIRTY,
            HINT_FAULT,
            POISON_FAULTS,
            RANDOM_HOME,
            SAMPLES,
        ]);
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.name(), b.name());
                assert_ne!(
                    Rng::keyed_unit(1, *a, 2, 3),
                    Rng::keyed_unit(1, *b, 2, 3),
                    "{} and {}",
                    a.name(),
                    b.name()
                );
            }
        }
    }
}
