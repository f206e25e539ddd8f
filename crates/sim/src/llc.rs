//! An optional set-associative, physically indexed last-level cache with LRU
//! replacement and write-back of dirty lines. Physically indexed means the set
//! of a line depends on its frame number: which frame a page gets (its colour)
//! decides which sets it competes for, as Memos's cache-aware placement assumes.

/// Outcome of one access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlcOutcome {
    /// The line was cached.
    Hit,
    /// The line was fetched; `writeback` holds the physical line evicted dirty.
    Miss {
        /// Physical line number written back, if a dirty line was evicted.
        writeback: Option<u64>,
    },
}

/// The cache. Tags are physical line numbers; bit 63 marks a dirty line.
#[derive(Clone, Debug)]
pub struct Llc {
    set_mask: u64,
    ways: usize,
    /// Per set, most recent first; `EMPTY` when unused.
    lines: Vec<u64>,
}

const DIRTY: u64 = 1 << 63;
const EMPTY: u64 = u64::MAX;

/// The largest LLC simulated: above any shipping part, and a bound on the
/// memory a configuration can ask for.
const MAX_LLC_BYTES: u64 = 1 << 30;

impl Llc {
    /// A cache of `bytes` with `ways`-way sets of 64-byte lines; the set count
    /// must be a power of two.
    pub fn new(bytes: u64, ways: usize) -> Result<Self, String> {
        if bytes > MAX_LLC_BYTES {
            return Err(format!(
                "LLC of {bytes} bytes: at most {MAX_LLC_BYTES} (1 GiB) are simulated"
            ));
        }
        let lines = bytes / 64;
        if ways == 0 || lines == 0 || !lines.is_multiple_of(ways as u64) {
            return Err(format!("LLC of {bytes} bytes cannot be {ways}-way"));
        }
        let sets = lines / ways as u64;
        if !sets.is_power_of_two() {
            return Err(format!(
                "LLC of {bytes} bytes, {ways}-way, has {sets} sets: not a power of two"
            ));
        }
        Ok(Llc {
            set_mask: sets - 1,
            ways,
            lines: vec![EMPTY; lines as usize],
        })
    }

    /// The number of sets.
    pub fn sets(&self) -> u64 {
        self.set_mask + 1
    }

    /// Accesses physical line `pline` (physical address / 64) in its
    /// conventional set: the low bits of the line address.
    #[inline]
    pub fn access(&mut self, pline: u64, write: bool) -> LlcOutcome {
        self.access_in(pline & self.set_mask, pline, write)
    }

    /// Accesses physical line `pline` in set `set` (below [`Llc::sets`]),
    /// as a memory system's slab mapping indexes it.
    #[inline]
    pub fn access_in(&mut self, set: u64, pline: u64, write: bool) -> LlcOutcome {
        let s = (set & self.set_mask) as usize * self.ways;
        let set = &mut self.lines[s..s + self.ways];
        if let Some(pos) = set.iter().position(|&l| l != EMPTY && l & !DIRTY == pline) {
            let l = set[pos] | if write { DIRTY } else { 0 };
            set.copy_within(0..pos, 1);
            set[0] = l;
            return LlcOutcome::Hit;
        }
        let victim = set[self.ways - 1];
        set.copy_within(0..self.ways - 1, 1);
        set[0] = pline | if write { DIRTY } else { 0 };
        let writeback = (victim != EMPTY && victim & DIRTY != 0).then_some(victim & !DIRTY);
        LlcOutcome::Miss { writeback }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirty_victims_are_written_back() {
        // 2 sets x 2 ways.
        let mut c = Llc::new(4 * 64, 2).unwrap();
        assert_eq!(c.access(0, true), LlcOutcome::Miss { writeback: None });
        assert_eq!(c.access(2, false), LlcOutcome::Miss { writeback: None });
        assert_eq!(c.access(0, false), LlcOutcome::Hit);
        assert_eq!(c.access(4, false), LlcOutcome::Miss { writeback: None }); // evicts clean 2
        assert_eq!(c.access(6, false), LlcOutcome::Miss { writeback: Some(0) });
    }

    #[test]
    fn frame_colour_selects_sets() {
        // 64 sets: lines of frames that differ only above the set bits collide.
        let mut c = Llc::new(64 * 64, 1).unwrap();
        c.access(0, false);
        assert_eq!(c.access(64, false), LlcOutcome::Miss { writeback: None });
        assert!(matches!(c.access(0, false), LlcOutcome::Miss { .. }));
    }
}
