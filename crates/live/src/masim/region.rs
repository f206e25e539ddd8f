//! One region: its memory, filled and resident, the accesses made to it, and
//! the check of its content.

use super::content::{differing_bytes, expected, region_key, PAGE, WORDS_PER_PAGE};
use super::MasimError;
use std::hint::black_box;

/// What a check of some pages found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Tally {
    pub(super) corrupted_bytes: u64,
    pub(super) lost_writes: u64,
    /// Pages with a corrupted byte or a lost write.
    pub(super) bad_pages: u64,
}

/// Pages of a region of `bytes` scaled by `scale`: rounded up, at least one.
pub(super) fn scaled_pages(bytes: u64, scale: f64) -> Option<usize> {
    let pages = (bytes as f64 * scale / PAGE as f64).ceil().max(1.0);
    // Its words and bytes must be addressable too.
    (pages.is_finite() && pages <= (isize::MAX as u64 / PAGE) as f64).then_some(pages as usize)
}

/// Bytes a region of `pages` takes: its content and its shadow counters.
pub(super) fn footprint(pages: usize) -> u64 {
    pages as u64 * (PAGE + 8)
}

/// One page of content, aligned as the kernel's pages are: a page's counter
/// is on the same kernel page as the words it counts, so a write dirties one
/// page, and a page the kernel loses or brings back stale takes its counter
/// with it.
#[derive(Clone)]
#[repr(C, align(4096))]
struct Page([u64; WORDS_PER_PAGE]);

/// A region's memory and what was done to it.
pub(super) struct Region {
    pub(super) name: String,
    key: u64,
    /// The content; word 0 of every page is that page's write counter.
    content: Vec<Page>,
    /// Writes made to each page, kept apart from the page.
    shadow: Vec<u64>,
    pub(super) reads: u64,
    pub(super) writes: u64,
}

impl Region {
    /// Where its content lives in this process: [start, end) (the shadow
    /// counters are elsewhere), for tools that check where its pages are.
    pub(super) fn address_range(&self) -> (u64, u64) {
        let start = self.content.as_ptr() as u64;
        (start, start + self.content.len() as u64 * PAGE)
    }

    /// Region `index` of `pages` pages, every page written (so resident)
    /// with its content under `seed`.
    pub(super) fn new(
        name: &str,
        index: usize,
        pages: usize,
        seed: u64,
    ) -> Result<Region, MasimError> {
        let no_room = |why: String| MasimError::Memory {
            region: name.to_string(),
            bytes: footprint(pages),
            why,
        };
        let key = region_key(seed, index);
        let mut content = Vec::new();
        content
            .try_reserve_exact(pages)
            .map_err(|e| no_room(e.to_string()))?;
        let mut page = Page([0; WORDS_PER_PAGE]);
        for p in 0..pages {
            for (i, w) in page.0.iter_mut().enumerate() {
                *w = expected(key, p * WORDS_PER_PAGE + i);
            }
            content.push(page.clone());
        }
        let mut shadow = Vec::new();
        shadow
            .try_reserve_exact(pages)
            .map_err(|e| no_room(e.to_string()))?;
        shadow.resize(pages, 0);
        Ok(Region {
            name: name.to_string(),
            key,
            content,
            shadow,
            reads: 0,
            writes: 0,
        })
    }

    /// Its size in bytes (whole pages): the range of its access offsets.
    pub(super) fn size(&self) -> u64 {
        self.content.len() as u64 * PAGE
    }

    /// Its pages.
    pub(super) fn pages(&self) -> usize {
        self.shadow.len()
    }

    /// The page and word holding byte `offset`.
    #[inline]
    fn at(offset: u64) -> (usize, usize) {
        ((offset / PAGE) as usize, (offset % PAGE / 8) as usize)
    }

    /// A load of the word holding byte `offset`.
    #[inline]
    pub(super) fn read(&self, offset: u64) {
        let (p, w) = Self::at(offset);
        black_box(self.content[p].0[w]);
    }

    /// A store to the word holding byte `offset`, of what it holds (so a
    /// corrupted word stays corrupted), and one more write on its page's
    /// counter and shadow.
    #[inline]
    pub(super) fn write(&mut self, offset: u64) {
        let (p, w) = Self::at(offset);
        let page = &mut self.content[p].0;
        let v = black_box(page[w]);
        page[w] = v;
        page[0] = page[0].wrapping_add(1);
        self.shadow[p] = self.shadow[p].wrapping_add(1);
    }

    /// Every word against what it should hold (see the module docs).
    pub(super) fn check(&self) -> Tally {
        let mut t = Tally::default();
        for (p, (Page(page), &shadow)) in self.content.iter().zip(&self.shadow).enumerate() {
            let first = p * WORDS_PER_PAGE;
            let mut bad = 0;
            let base = expected(self.key, first);
            let count = page[0].wrapping_sub(base);
            let miscounted = count != shadow;
            if miscounted {
                let d = count.abs_diff(shadow);
                // No counter can be off by more than the region's writes
                // unless its bytes changed.
                if d <= self.writes {
                    t.lost_writes += d;
                } else {
                    bad += differing_bytes(page[0], base.wrapping_add(shadow));
                }
            }
            for (i, &w) in page.iter().enumerate().skip(1) {
                let e = expected(self.key, first + i);
                if w != e {
                    bad += differing_bytes(w, e);
                }
            }
            if miscounted || bad > 0 {
                t.bad_pages += 1;
            }
            t.corrupted_bytes += bad;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(pages: usize) -> Region {
        Region::new("a", 0, pages, 7).unwrap()
    }

    #[test]
    fn fresh_and_written_regions_verify_clean() {
        let mut r = region(3);
        assert_eq!(r.check(), Tally::default());
        for off in [0, 1, 8, 4095, 4096, 3 * 4096 - 1] {
            r.write(off);
            r.read(off);
        }
        r.writes += 6;
        assert_eq!(r.check(), Tally::default());
    }

    #[test]
    fn a_flipped_byte_is_found_and_counted() {
        let mut r = region(2);
        r.content[1].0[3] ^= 0x40;
        let t = r.check();
        assert_eq!((t.corrupted_bytes, t.lost_writes, t.bad_pages), (1, 0, 1));
        // Three bytes of a word in the other page.
        r.content[0].0[5] ^= 0x00ff_0000_ff00_0001;
        let t = r.check();
        assert_eq!((t.corrupted_bytes, t.bad_pages), (4, 2));
    }

    #[test]
    fn a_lost_write_is_found() {
        let mut r = region(2);
        for _ in 0..5 {
            r.write(4096 + 100);
        }
        r.writes += 5;
        assert_eq!(r.check(), Tally::default());
        // The page came back as it was before its last write.
        r.content[1].0[0] = r.content[1].0[0].wrapping_sub(1);
        let t = r.check();
        assert_eq!((t.lost_writes, t.corrupted_bytes, t.bad_pages), (1, 0, 1));
        // The shadow's page lost two writes instead.
        r.content[1].0[0] = r.content[1].0[0].wrapping_add(1);
        r.shadow[1] -= 2;
        assert_eq!(r.check().lost_writes, 2);
    }

    #[test]
    fn a_zeroed_page_is_corruption_not_lost_writes() {
        let mut r = region(2);
        r.content[0].0.fill(0);
        let t = r.check();
        assert_eq!(t.lost_writes, 0);
        assert_eq!(t.bad_pages, 1);
        // Every byte of a page of random-looking words but a handful.
        assert!(t.corrupted_bytes > 4000, "{}", t.corrupted_bytes);
    }

    #[test]
    fn sizes_round_up_to_whole_pages() {
        assert_eq!(scaled_pages(100_000_000, 0.05), Some(1221));
        assert_eq!(scaled_pages(64, 1.0), Some(1));
        assert_eq!(scaled_pages(1 << 30, 1e-9), Some(1));
        assert_eq!(scaled_pages(8192, 1.0), Some(2));
        assert_eq!(scaled_pages(u64::MAX, 1e30), None);
        assert_eq!(region(2).size(), 8192);
    }

    #[test]
    fn pages_are_aligned_as_the_kernel_s() {
        let r = region(3);
        for page in &r.content {
            assert_eq!(page.0.as_ptr() as usize % PAGE as usize, 0);
        }
    }
}
