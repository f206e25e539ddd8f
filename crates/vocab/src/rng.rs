//! The one random number generator. Every random stream in thermocline is an
//! `Rng` derived from the run's seed and a stream identifier, so that adding a
//! consumer of randomness in one place never changes the numbers another sees.
//!
//! Two ways to derive: [`Rng::derive`] names a sequential stream by a string;
//! [`Rng::keyed`] and [`Rng::keyed_unit`] draw from a named [`Stream`] at a key
//! and a position, so that a draw depends only on (seed, stream, key, position)
//! and not on how many draws came before it: for answers that must not depend
//! on the order in which questions are asked.

/// xoshiro256** (Blackman and Vigna), seeded through SplitMix64. Small, fast and
/// of good statistical quality; not cryptographic, which a simulator does not need.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// SplitMix64's multipliers (and Weyl increment), also used to mix keys.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
const MIX1: u64 = 0xBF58_476D_1CE4_E5B9;
const MIX2: u64 = 0x94D0_49BB_1331_11EB;

/// A named stream of keyed draws ([`Rng::keyed`], [`Rng::keyed_unit`]): the
/// words that set its draws apart from every other stream's under the same
/// seed and key. Define a consumer's streams as constants in one place, where
/// they can be seen (and tested) to differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    name: &'static str,
    /// XORed into every key before it is mixed.
    key_mask: u64,
    /// XORed into the mixed state.
    salt: u64,
}

impl Stream {
    /// The stream `name` with identity `id`, mixed like a key (so that small
    /// distinct ids give unrelated streams).
    pub const fn new(name: &'static str, id: u64) -> Self {
        Stream {
            name,
            key_mask: 0,
            salt: id.rotate_left(42).wrapping_mul(MIX2),
        }
    }

    /// The stream `name` whose identity word `salt` is XORed into the state
    /// as it is, unmixed: for streams whose draws predate [`Stream::new`].
    pub const fn raw(name: &'static str, salt: u64) -> Self {
        Stream {
            name,
            key_mask: 0,
            salt,
        }
    }

    /// This stream with `mask` also XORed into every key: for streams whose
    /// draws predate [`Stream::new`] and salted their keys.
    pub const fn with_key_mask(self, mask: u64) -> Self {
        Stream {
            key_mask: mask,
            ..self
        }
    }

    /// The stream's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The one derivation of a keyed draw's state from (`seed`, stream, `key`,
    /// `at`): the seed XORed with the key and `at`, each spread by a
    /// multiplier, and with the stream's identity.
    const fn state(&self, seed: u64, key: u64, at: u64) -> u64 {
        seed ^ (key ^ self.key_mask).wrapping_mul(GOLDEN)
            ^ at.rotate_left(21).wrapping_mul(MIX1)
            ^ self.salt
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GOLDEN);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(MIX1);
    z = (z ^ (z >> 27)).wrapping_mul(MIX2);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        let mut st = seed;
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        Rng { s }
    }

    /// An independent stream for (`seed`, `stream`): use a distinct constant per
    /// consumer, e.g. a hash of its name.
    pub fn derive(seed: u64, stream: &str) -> Self {
        // FNV-1a over the stream name, mixed with the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in stream.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let mut st = seed ^ h;
        Rng::new(splitmix64(&mut st))
    }

    /// A generator for the draws of `stream` at (`key`, `at`) under `seed`:
    /// the same arguments always give the same sequence.
    pub fn keyed(seed: u64, stream: Stream, key: u64, at: u64) -> Self {
        Rng::new(stream.state(seed, key, at))
    }

    /// One uniform draw in `(0, 1]` (never 0, so its logarithm is finite) of
    /// `stream` at (`key`, `at`) under `seed`: two SplitMix64 rounds over the
    /// keyed state of [`Rng::keyed`].
    pub fn keyed_unit(seed: u64, stream: Stream, key: u64, at: u64) -> f64 {
        let mut st = stream.state(seed, key, at);
        let mut z = splitmix64(&mut st);
        let z = splitmix64(&mut z);
        ((z >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (Lemire's multiply-shift; `n` > 0).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = Rng::derive(7, "workload");
        let mut b = Rng::derive(7, "workload");
        let mut c = Rng::derive(7, "manager");
        let va: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
    }

    #[test]
    fn keyed_draws_are_in_range_vary_and_keep_their_values() {
        let s = Stream::new("test", 3);
        let xs: Vec<f64> = (0..1000).map(|i| Rng::keyed_unit(1, s, i, 2)).collect();
        assert!(xs.iter().all(|&x| x > 0.0 && x <= 1.0));
        let mean = xs.iter().sum::<f64>() / 1000.0;
        assert!((mean - 0.5).abs() < 0.05, "{mean}");
        // Pinned: simulated results depend on these exact values.
        assert_eq!(Rng::keyed_unit(1, s, 5, 2).to_bits(), 0x3fe1_3073_02b8_c4c4);
        let hint = Stream::new("hint", 0x41).with_key_mask(0x41);
        let u = Rng::keyed_unit(42, hint, 0x1234, 1.5f64.to_bits());
        assert_eq!(u.to_bits(), 0x3f89_14eb_bfa8_cf00);
        assert_ne!(
            Rng::keyed_unit(1, s, 5, 2),
            Rng::keyed_unit(1, s.with_key_mask(1), 5, 2)
        );
        let mut a = Rng::keyed(9, Stream::raw("raw", 0x5a3b), 4, 0);
        let mut b = Rng::new(9 ^ 4u64.wrapping_mul(GOLDEN) ^ 0x5a3b);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::new(1);
        let mut hist = [0u32; 10];
        for _ in 0..100_000 {
            let x = r.below(10);
            hist[x as usize] += 1;
        }
        for h in hist {
            assert!((9_000..11_000).contains(&h), "{hist:?}");
        }
    }
}
