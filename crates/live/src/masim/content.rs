//! The regions' deterministic content: what every word should hold, so that
//! any byte can be checked without a second copy of the memory.

/// Bytes in a page: the unit of the write counters.
pub(super) const PAGE: u64 = 4096;
/// Words in a page; word 0 of each page is its write counter.
pub(super) const WORDS_PER_PAGE: usize = (PAGE / 8) as usize;

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser: consecutive inputs give unrelated outputs.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The key of region `index` under `seed`: regions of one run, and runs of
/// different seeds, hold different content.
pub(super) fn region_key(seed: u64, index: usize) -> u64 {
    mix(mix(seed).wrapping_add((index as u64 + 1).wrapping_mul(GOLDEN)))
}

/// What word `word` of the region keyed `key` holds (before the page's write
/// count is added to its first word).
#[inline]
pub(super) fn expected(key: u64, word: usize) -> u64 {
    mix(key.wrapping_add((word as u64).wrapping_mul(GOLDEN)))
}

/// Bytes in which `a` and `b` differ.
pub(super) fn differing_bytes(a: u64, b: u64) -> u64 {
    (a ^ b).to_le_bytes().iter().filter(|&&x| x != 0).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_depends_on_seed_region_and_word() {
        let k = region_key(1, 0);
        assert_eq!(expected(k, 7), expected(region_key(1, 0), 7));
        assert_ne!(expected(k, 7), expected(k, 8));
        assert_ne!(k, region_key(1, 1));
        assert_ne!(k, region_key(2, 0));
    }

    #[test]
    fn differing_bytes_counts_bytes_not_bits() {
        assert_eq!(differing_bytes(5, 5), 0);
        assert_eq!(differing_bytes(0, 0xff), 1);
        assert_eq!(differing_bytes(0, 0x0101), 2);
        assert_eq!(differing_bytes(0, u64::MAX), 8);
    }
}
