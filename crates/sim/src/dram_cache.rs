//! DRAM as a memory-side cache in front of the slow tier, as Optane's Memory
//! Mode uses it (../shared/papers/004_5016d0e3a63ff357.txt, section 2.2: "the
//! socket's DRAM is configured as an internal last-level cache, which
//! interposes every access to the local DCPMM memory node").
//!
//! Modelled as Intel documents it: direct-mapped, 64-byte lines, indexed by
//! physical line address, write-back and write-allocate; every access to a
//! slow-tier page that leaves the core's caches goes through it:
//! - a read (an LLC miss, a store's read for ownership included) that hits
//!   is served by DRAM; one that misses reads the line from the slow tier
//!   and fills it, clean;
//! - a dirty line the LLC evicts is written into the cache: a hit marks the
//!   line dirty, a miss allocates it dirty (the whole line is written, so
//!   nothing is read from the slow tier);
//! - a line a miss evicts is written back to the slow tier if dirty.
//!
//! So a store dirties its DRAM-cache line when its dirty LLC line is evicted
//! (the LLC holds the store until then, as the hardware's does); without an
//! LLC a store is itself the write into the cache. Counted as the
//! performance model prices them (`thermocline_model::perf`): hits and miss
//! reads are the fast and slow tiers' latency; fills, the LLC's write-backs
//! and the cache's own write-backs are bandwidth (posted writes).
//!
//! Deviations: the sets are the fast tier's capacity over 64 B, indexed by
//! the line address within the whole physical space (the hardware's
//! cache is the DRAM of the socket, indexed by the DCPMM address); the
//! lines of a page that migrates stay cached under its old frame (the
//! memory-mode manager moves nothing); an LLC victim's write-back is
//! handled before the read that evicted it; the cache's own DRAM traffic
//! (hits, fills, write-backs into it) is not seen by the memory
//! controllers (`crate::memctl`), while its misses' reads and its
//! write-backs are, on the slow tier's channel.

/// Outcome of one access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// The line was cached.
    Hit,
    /// The line was not cached and now is; `writeback` holds the line
    /// evicted dirty, which goes back to the slow tier.
    Miss {
        /// Physical line number written back, if a dirty line was evicted.
        writeback: Option<u64>,
    },
}

/// What the cache has counted since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DramCacheCounts {
    /// Accesses (reads and written lines) that found their line.
    pub hits: u64,
    /// Accesses that did not.
    pub misses: u64,
    /// Dirty lines evicted (written back to the slow tier).
    pub writebacks: u64,
}

const DIRTY: u64 = 1 << 63;

/// A direct-mapped, write-back line cache.
#[derive(Clone, Debug)]
pub struct DramCache {
    /// Per set: line address + 1 (0 = empty), with [`DIRTY`] on top.
    tags: Vec<u64>,
    counts: DramCacheCounts,
}

impl DramCache {
    /// A cache of `bytes` of DRAM.
    pub fn new(bytes: u64) -> Self {
        DramCache {
            tags: vec![0; (bytes / 64).max(1) as usize],
            counts: DramCacheCounts::default(),
        }
    }

    /// Accesses physical line `line`: a read (`write` false) or a write of
    /// the whole line (a store without an LLC, or an LLC write-back), which
    /// leaves it dirty.
    #[inline]
    pub fn access(&mut self, line: u64, write: bool) -> CacheOutcome {
        let set = (line % self.tags.len() as u64) as usize;
        let t = &mut self.tags[set];
        if *t & !DIRTY == line + 1 {
            if write {
                *t |= DIRTY;
            }
            self.counts.hits += 1;
            return CacheOutcome::Hit;
        }
        let writeback = (*t & DIRTY != 0).then(|| (*t & !DIRTY) - 1);
        *t = (line + 1) | if write { DIRTY } else { 0 };
        self.counts.misses += 1;
        self.counts.writebacks += u64::from(writeback.is_some());
        CacheOutcome::Miss { writeback }
    }

    /// What the cache has counted.
    pub fn counts(&self) -> DramCacheCounts {
        self.counts
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
        assert_eq!(c.access(1, false), CacheOutcome::Miss { writeback: None });
        assert_eq!(c.access(1, true), CacheOutcome::Hit);
        // Line 5 maps onto line 1's set and evicts it dirty.
        assert_eq!(
            c.access(5, false),
            CacheOutcome::Miss { writeback: Some(1) }
        );
        assert_eq!(c.access(1, false), CacheOutcome::Miss { writeback: None });
        assert_eq!(c.access(2, false), CacheOutcome::Miss { writeback: None });
        assert_eq!(c.access(1, false), CacheOutcome::Hit);
        // A written line is allocated dirty, and line 0 is a line too.
        assert_eq!(c.access(0, true), CacheOutcome::Miss { writeback: None });
        assert_eq!(
            c.access(4, false),
            CacheOutcome::Miss { writeback: Some(0) }
        );
        let n = c.counts();
        assert_eq!((n.hits, n.misses, n.writebacks), (2, 6, 2));
    }
}
