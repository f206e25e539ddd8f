//! The page-table bits telemetry reads: Accessed bits by level, Dirty bits
//! of leaves, and which cleared leaf entries still sit in the TLB (their
//! bits are set by the next operation on them only once flushed).

use crate::bits::{KeySet, LazyBits};
use thermocline_vocab::Level;

/// Levels by index, root first.
pub(crate) const LEVELS: [Level; 4] = [Level::Pgd, Level::Pud, Level::Pmd, Level::Pte];

/// Size of the unflushed-entry set above which set entries are pruned.
const UNFLUSHED_PRUNE: usize = 1 << 20;

/// The key of the entry at `level` that maps `va`.
pub(crate) fn entry_key(asid: u16, va: u64, level: Level) -> u64 {
    (u64::from(asid) << 40) | (va >> level.shift())
}

/// The index of `level` in [`LEVELS`].
pub(crate) fn level_index(level: Level) -> usize {
    match level {
        Level::Pgd => 0,
        Level::Pud => 1,
        Level::Pmd => 2,
        Level::Pte => 3,
    }
}

/// The first address under the entry at level index `li` with key `key`.
pub(crate) fn entry_va(li: usize, key: u64) -> u64 {
    (key & ((1 << 40) - 1)) << LEVELS[li].shift()
}

/// A cleared leaf entry not flushed from the TLB since.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unflushed {
    /// Level index.
    pub li: usize,
    /// Key within its level.
    pub key: u64,
}

impl Unflushed {
    /// As one integer: the level index in the top bits.
    fn encode(self) -> u64 {
        self.key | ((self.li as u64) << 60)
    }

    fn decode(enc: u64) -> Self {
        Unflushed {
            li: (enc >> 60) as usize,
            key: enc & ((1 << 60) - 1),
        }
    }

    /// Address space.
    pub fn asid(self) -> u16 {
        (self.key >> 40) as u16
    }

    /// First address it maps.
    pub fn va(self) -> u64 {
        entry_va(self.li, self.key)
    }

    /// Bytes it maps.
    pub fn bytes(self) -> u64 {
        1 << LEVELS[self.li].shift()
    }
}

/// Accessed and Dirty bits, and the cleared entries awaiting a flush.
pub(crate) struct Telemetry {
    /// Accessed bits by level index.
    accessed: [LazyBits; 4],
    /// Dirty bits of leaf entries.
    dirty: LazyBits,
    /// Leaf entries cleared since the last flush (with positive mass),
    /// encoded.
    unflushed: KeySet,
    /// Size at which `unflushed` is next pruned.
    unflushed_limit: usize,
}

impl Telemetry {
    /// Every bit set; nothing cleared.
    pub fn new() -> Self {
        Telemetry {
            accessed: Default::default(),
            dirty: LazyBits::default(),
            unflushed: Default::default(),
            unflushed_limit: UNFLUSHED_PRUNE,
        }
    }

    /// Whether the Accessed bit of entry `key` at level index `li` is set at
    /// progress `now`.
    pub fn accessed(&mut self, li: usize, key: u64, now: f64) -> bool {
        self.accessed[li].test(key, now)
    }

    /// Clears that Accessed bit; it is set again at progress `at`.
    pub fn clear_accessed(&mut self, li: usize, key: u64, at: f64) {
        self.accessed[li].clear(key, at);
    }

    /// Tests and clears the Accessed bits of entries `first..=last` at level
    /// index `li`, which must be cold now and later ([`LazyBits::test_and_clear_cold`]).
    pub fn clear_cold(&mut self, li: usize, first: u64, last: u64, set: impl FnMut(u64)) {
        self.accessed[li].test_and_clear_cold(first, last, set);
    }

    /// Whether the Dirty bit of leaf `key` is set at progress `now`.
    pub fn dirty(&mut self, key: u64, now: f64) -> bool {
        self.dirty.test(key, now)
    }

    /// Clears that Dirty bit; it is set again at progress `at`.
    pub fn clear_dirty(&mut self, key: u64, at: f64) {
        self.dirty.clear(key, at);
    }

    /// Notes a cleared leaf entry that a flush would change: its bit is set
    /// by the next walk now, by the next operation once flushed.
    pub fn note_unflushed(&mut self, li: usize, key: u64, now: f64) {
        self.unflushed.insert(Unflushed { li, key }.encode());
        if self.unflushed.len() > self.unflushed_limit {
            // Entries already set need no redraw at the next flush; the
            // limit doubles past what stays, so pruning is amortised.
            let bits = &mut self.accessed;
            self.unflushed.retain(|&enc| {
                let e = Unflushed::decode(enc);
                !bits[e.li].test(e.key, now)
            });
            self.unflushed_limit = UNFLUSHED_PRUNE.max(2 * self.unflushed.len());
        }
    }

    /// Takes the noted entries of `asid` that overlap `[start, end)`: a flush
    /// of that range.
    pub fn take_unflushed(&mut self, asid: u16, start: u64, end: u64) -> Vec<Unflushed> {
        let in_range = |enc: u64| {
            let e = Unflushed::decode(enc);
            e.asid() == asid && e.va() < end && start < e.va() + e.bytes()
        };
        let keys: Vec<u64> = if end - start <= 4 << 20 {
            let pte = level_index(Level::Pte);
            let pmd = level_index(Level::Pmd);
            let mut cands: Vec<u64> = (start >> 12..end.div_ceil(4096))
                .map(|p| {
                    Unflushed {
                        li: pte,
                        key: entry_key(asid, p << 12, Level::Pte),
                    }
                    .encode()
                })
                .collect();
            cands.extend((start >> 21..end.div_ceil(2 << 20)).map(|u| {
                Unflushed {
                    li: pmd,
                    key: entry_key(asid, u << 21, Level::Pmd),
                }
                .encode()
            }));
            cands
                .into_iter()
                .filter(|k| self.unflushed.remove(k))
                .collect()
        } else {
            let (inside, outside): (Vec<u64>, Vec<u64>) =
                self.unflushed.drain().partition(|&k| in_range(k));
            self.unflushed.extend(outside);
            inside
        };
        keys.into_iter().map(Unflushed::decode).collect()
    }

    /// Host memory the bits hold (bytes, approximate).
    pub fn host_bytes(&self) -> usize {
        self.accessed
            .iter()
            .map(LazyBits::host_bytes)
            .sum::<usize>()
            + self.dirty.host_bytes()
    }
}
