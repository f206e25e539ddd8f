//! Lazily answered Accessed and Dirty bits.
//!
//! A bit that was never cleared is set (every page was touched when the
//! workload initialised it). Clearing an entry draws, once, the workload
//! progress (in accesses) at which it will next be set, from the entry's
//! mass in the current and every later phase; a test compares that draw with
//! the progress now. The draw is a function of (seed, entry, progress at the
//! clear), so the same question always gets the same answer.
//!
//! Storage is proportional to what telemetry touched: one bit per cleared
//! entry in chunked bitmaps (64 Ki entries, 8 KiB, per chunk, allocated on
//! first use) plus a map entry for each cleared entry whose next set time is
//! finite and still in the future. An entry whose next set time is infinite
//! (cold now and in every later phase) costs its bit only.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher for integer keys: SipHash's DoS resistance buys
/// nothing for simulator-chosen keys and costs most of a lookup.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ (k >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        self.0 ^= self.0 >> 32;
    }
}

/// A hash map keyed by integers.
pub type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;
/// A hash set of integers.
pub type KeySet = std::collections::HashSet<u64, BuildHasherDefault<KeyHasher>>;

const CHUNK_BITS: u32 = 16;
const CHUNK_WORDS: usize = (1 << CHUNK_BITS) / 64;

/// One level's bits (or the Dirty bits of leaf entries).
#[derive(Default)]
pub struct LazyBits {
    cleared: KeyMap<Box<[u64; CHUNK_WORDS]>>,
    pending: KeyMap<f64>,
}

impl LazyBits {
    fn word(&self, key: u64) -> (u64, usize, u64) {
        let chunk = key >> CHUNK_BITS;
        let bit = key & ((1 << CHUNK_BITS) - 1);
        (chunk, (bit / 64) as usize, 1u64 << (bit % 64))
    }

    /// Whether `key` is cleared and not yet known to be set.
    fn is_cleared(&self, key: u64) -> bool {
        let (c, w, m) = self.word(key);
        self.cleared.get(&c).is_some_and(|b| b[w] & m != 0)
    }

    fn set_cleared(&mut self, key: u64, on: bool) {
        let (c, w, m) = self.word(key);
        if on {
            self.cleared
                .entry(c)
                .or_insert_with(|| Box::new([0; CHUNK_WORDS]))[w] |= m;
        } else if let Some(b) = self.cleared.get_mut(&c) {
            b[w] &= !m;
        }
    }

    /// Whether the bit of `key` is set at progress `now`.
    pub fn test(&mut self, key: u64, now: f64) -> bool {
        if !self.is_cleared(key) {
            return true;
        }
        match self.pending.get(&key) {
            Some(&at) if at <= now => {
                self.pending.remove(&key);
                self.set_cleared(key, false);
                true
            }
            _ => false,
        }
    }

    /// Clears `key`; it will be set at progress `set_at` (infinite: never).
    pub fn clear(&mut self, key: u64, set_at: f64) {
        self.set_cleared(key, true);
        if set_at.is_finite() {
            self.pending.insert(key, set_at);
        } else {
            self.pending.remove(&key);
        }
    }

    /// Tests and clears every key in `[first, last]` that lies in no
    /// pending map entry's way: the fast path for ranges that are cold now
    /// and later. Calls `set(key)` for each key whose bit was set. Keys with
    /// a pending draw must not be in the range (the caller checks mass).
    pub fn test_and_clear_cold(&mut self, first: u64, last: u64, mut set: impl FnMut(u64)) {
        let mut key = first;
        while key <= last {
            let (c, w, _) = self.word(key);
            let bit = key % 64;
            let span = (64 - bit).min(last - key + 1);
            let mask = if span == 64 {
                u64::MAX
            } else {
                ((1u64 << span) - 1) << bit
            };
            let chunk = self
                .cleared
                .entry(c)
                .or_insert_with(|| Box::new([0; CHUNK_WORDS]));
            let mut fresh = !chunk[w] & mask;
            chunk[w] |= mask;
            while fresh != 0 {
                let b = fresh.trailing_zeros() as u64;
                set(key - bit + b);
                fresh &= fresh - 1;
            }
            key += span;
        }
    }

    /// Host bytes held.
    pub fn host_bytes(&self) -> usize {
        self.cleared.len() * (CHUNK_WORDS * 8 + 32) + self.pending.len() * 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_cleared_is_set_and_draws_decide_after_a_clear() {
        let mut b = LazyBits::default();
        assert!(b.test(5, 0.0));
        b.clear(5, 100.0);
        assert!(!b.test(5, 50.0));
        assert!(b.test(5, 100.0));
        assert!(b.test(5, 0.0), "stays set until cleared again");
        b.clear(5, f64::INFINITY);
        assert!(!b.test(5, 1e300));
    }

    #[test]
    fn bulk_cold_clear_reports_only_set_bits() {
        let mut b = LazyBits::default();
        b.clear(70, f64::INFINITY);
        let mut seen = Vec::new();
        b.test_and_clear_cold(60, 200, |k| seen.push(k));
        assert_eq!(seen.len(), 140);
        assert!(!seen.contains(&70));
        let mut again = Vec::new();
        b.test_and_clear_cold(0, 300, |k| again.push(k));
        assert_eq!(again.len(), 301 - 141);
    }
}
