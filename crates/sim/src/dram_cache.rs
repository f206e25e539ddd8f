//! DRAM as a memory-side cache in front of the slow tier, as Optane's Memory
//! Mode uses it (../shared/papers/004_5016d0e3a63ff357.txt, section 2.2: "the
//! socket's DRAM is configured as an internal last-level cache, which
//! interposes every access to the local DCPMM memory node").
//!
//! Modelled as Intel documents it: direct-mapped, 64-byte lines, indexed by
//! physical line address, write-back; every access to a slow-tier page goes
//! through it and every miss fills it.

/// Outcome of one access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Served by DRAM.
    Hit,
    /// Read from the slow tier and filled; `writeback` if a dirty line was
    /// evicted to the slow tier.
    Miss {
        /// A dirty victim was written back.
        writeback: bool,
    },
}

const DIRTY: u64 = 1 << 63;

/// A direct-mapped, write-back line cache.
#[derive(Clone, Debug)]
pub struct DramCache {
    /// Per set: line address + 1 (0 = empty), with [`DIRTY`] on top.
    tags: Vec<u64>,
}

impl DramCache {
    /// A cache of `bytes` of DRAM.
    pub fn new(bytes: u64) -> Self {
        DramCache {
            tags: vec![0; (bytes / 64).max(1) as usize],
        }
    }

    /// Accesses physical line `line`.
    #[inline]
    pub fn access(&mut self, line: u64, write: bool) -> CacheOutcome {
        let set = (line % self.tags.len() as u64) as usize;
        let t = &mut self.tags[set];
        if *t & !DIRTY == line + 1 {
            if write {
                *t |= DIRTY;
            }
            return CacheOutcome::Hit;
        }
        let writeback = *t & DIRTY != 0;
        *t = (line + 1) | if write { DIRTY } else { 0 };
        CacheOutcome::Miss { writeback }
    }

    /// Host bytes used.
    pub fn host_bytes(&self) -> usize {
        self.tags.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_mapped_write_back() {
        let mut c = DramCache::new(4 * 64);
        assert_eq!(c.access(1, false), CacheOutcome::Miss { writeback: false });
        assert_eq!(c.access(1, true), CacheOutcome::Hit);
        // Line 5 maps onto line 1's set and evicts it dirty.
        assert_eq!(c.access(5, false), CacheOutcome::Miss { writeback: true });
        assert_eq!(c.access(1, false), CacheOutcome::Miss { writeback: false });
        assert_eq!(c.access(2, false), CacheOutcome::Miss { writeback: false });
        assert_eq!(c.access(1, false), CacheOutcome::Hit);
    }
}
