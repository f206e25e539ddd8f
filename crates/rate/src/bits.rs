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
//! first use) plus the next set time of each entry in a block of 512 (4 KiB)
//! that holds a cleared entry whose next set time is finite. An entry whose
//! next set time is infinite (cold now and in every later phase) in a block
//! with none costs its bit only.

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
/// Entries per block of next set times (2 MiB of 4 KiB pages).
const BLOCK: usize = 512;
const BLOCKS: usize = (1 << CHUNK_BITS) / BLOCK;

/// The bits of 64 Ki consecutive keys.
struct Chunk {
    cleared: Box<[u64; CHUNK_WORDS]>,
    /// Next set time of each cleared key (infinite: none), by block of
    /// [`BLOCK`] keys allocated at the first finite one: a scan reads them
    /// in key order, so they sit side by side rather than in a hash map.
    next: Box<[Option<Box<[f64; BLOCK]>>]>,
}

impl Chunk {
    fn new() -> Self {
        Chunk {
            cleared: Box::new([0; CHUNK_WORDS]),
            next: (0..BLOCKS).map(|_| None).collect(),
        }
    }

    fn next_at(&self, bit: usize) -> f64 {
        self.next[bit / BLOCK]
            .as_ref()
            .map_or(f64::INFINITY, |b| b[bit % BLOCK])
    }

    fn set_next(&mut self, bit: usize, at: f64) {
        match &mut self.next[bit / BLOCK] {
            Some(b) => b[bit % BLOCK] = at,
            None if at.is_finite() => {
                let mut b = Box::new([f64::INFINITY; BLOCK]);
                b[bit % BLOCK] = at;
                self.next[bit / BLOCK] = Some(b);
            }
            None => {}
        }
    }
}

/// One level's bits (or the Dirty bits of leaf entries).
pub struct LazyBits {
    /// Chunk number to its index in `chunks`.
    index: KeyMap<usize>,
    chunks: Vec<Chunk>,
    /// The chunk last looked up (number, index): telemetry goes page after
    /// page, so most lookups skip the map.
    last: (u64, usize),
}

impl Default for LazyBits {
    fn default() -> Self {
        LazyBits {
            index: KeyMap::default(),
            chunks: Vec::new(),
            last: (u64::MAX, 0),
        }
    }
}

impl LazyBits {
    /// The chunk of `key` and the key's bit in it; None if nothing in it
    /// was ever cleared.
    fn find(&mut self, key: u64) -> Option<(&mut Chunk, usize)> {
        let (c, bit) = (key >> CHUNK_BITS, (key & ((1 << CHUNK_BITS) - 1)) as usize);
        if self.last.0 != c {
            self.last = (c, *self.index.get(&c)?);
        }
        Some((&mut self.chunks[self.last.1], bit))
    }

    /// As [`Self::find`], allocating the chunk if needed.
    fn find_or_add(&mut self, key: u64) -> (&mut Chunk, usize) {
        let c = key >> CHUNK_BITS;
        if self.last.0 != c {
            let n = self.chunks.len();
            let i = *self.index.entry(c).or_insert(n);
            if i == n {
                self.chunks.push(Chunk::new());
            }
            self.last = (c, i);
        }
        let bit = (key & ((1 << CHUNK_BITS) - 1)) as usize;
        (&mut self.chunks[self.last.1], bit)
    }

    /// Whether the bit of `key` is set at progress `now`.
    pub fn test(&mut self, key: u64, now: f64) -> bool {
        let Some((chunk, bit)) = self.find(key) else {
            return true;
        };
        let (w, m) = (bit / 64, 1u64 << (bit % 64));
        if chunk.cleared[w] & m == 0 {
            return true;
        }
        let at = chunk.next_at(bit);
        if at.is_finite() && at <= now {
            chunk.set_next(bit, f64::INFINITY);
            chunk.cleared[w] &= !m;
            true
        } else {
            false
        }
    }

    /// Clears `key`; it will be set at progress `set_at` (infinite: never).
    pub fn clear(&mut self, key: u64, set_at: f64) {
        let (chunk, bit) = self.find_or_add(key);
        chunk.cleared[bit / 64] |= 1 << (bit % 64);
        chunk.set_next(
            bit,
            if set_at.is_finite() {
                set_at
            } else {
                f64::INFINITY
            },
        );
    }

    /// Tests and clears every key in `[first, last]` that lies in no
    /// pending map entry's way: the fast path for ranges that are cold now
    /// and later. Calls `set(key)` for each key whose bit was set. Keys with
    /// a pending draw must not be in the range (the caller checks mass).
    pub fn test_and_clear_cold(&mut self, first: u64, last: u64, mut set: impl FnMut(u64)) {
        let mut key = first;
        while key <= last {
            let (chunk, bit) = self.find_or_add(key);
            let (w, bit) = (bit / 64, key % 64);
            let span = (64 - bit).min(last - key + 1);
            let mask = if span == 64 {
                u64::MAX
            } else {
                ((1u64 << span) - 1) << bit
            };
            let mut fresh = !chunk.cleared[w] & mask;
            chunk.cleared[w] |= mask;
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
        let blocks: usize = (self.chunks.iter())
            .map(|c| c.next.iter().flatten().count())
            .sum();
        self.chunks.len() * (CHUNK_WORDS * 8 + BLOCKS * 8 + 48) + blocks * BLOCK * 8
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
