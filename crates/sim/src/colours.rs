//! Free 4 KiB frames sorted by colour: the index of Memos' two-tiered buddy
//! system (Memos, ../shared/papers/003_4ce7a4cbf1361ba3.txt, section 5.1).
//!
//! A frame's colour is a chosen set of its frame-number bits, those that
//! pick its cache set and bank (Memos: physical-address bits 21, 20 and
//! 18-12, i.e. frame-number bits 9, 8 and 6-0, so 512 colours). The first
//! tier of the buddy system is the channel, which is the tier owning the
//! frame here; this index is its second tier. A frame of a given colour is
//! found in O(1) (Algorithm 2 at order 0, where a block is one page).
//!
//! Uncoloured allocations take the colours in turn, so that consecutive
//! allocations spread over every bank and cache set as consecutive frames
//! of a buddy allocator's block do.

/// The frame-number bits that colour pages under `map`: its bank and slab
/// bits less 12, lowest first; `None` if one lies below bit 12 (a bank or
/// slab that changes within a page cannot be chosen page by page) or there
/// are more than [`MAX_COLOUR_BITS`].
pub fn page_colour_bits(map: &thermocline_model::memsys::AddressMap) -> Option<Vec<u8>> {
    let mut bits: Vec<u8> = map
        .bank_bits
        .iter()
        .chain(&map.slab_bits)
        .copied()
        .collect();
    bits.sort_unstable();
    bits.dedup();
    if bits.iter().any(|&b| b < 12) || bits.is_empty() || bits.len() > MAX_COLOUR_BITS {
        return None;
    }
    Some(bits.iter().map(|b| b - 12).collect())
}

/// How a machine with a memory system colours pages: the frame-number bits
/// of a colour and each colour's (bank, slab).
#[derive(Clone, Debug)]
pub struct Colouring {
    /// Frame-number bits of a colour, lowest colour bit first.
    pub bits: Vec<u8>,
    /// Per colour, the bank and LLC slab of its frames.
    pub places: Vec<(u16, u16)>,
}

/// The colour of `frame` under colour `bits` (frame-number bits, lowest
/// colour bit first).
#[inline]
pub fn colour_of(bits: &[u8], frame: u64) -> usize {
    bits.iter()
        .enumerate()
        .fold(0, |c, (i, &b)| c | (((frame >> b) & 1) as usize) << i)
}

/// Free frames by colour.
#[derive(Clone, Debug)]
pub struct Colours {
    /// Frame-number bits that form the colour, lowest colour bit first.
    bits: Vec<u8>,
    /// Per colour, its free frames (the most recently freed last).
    lists: Vec<Vec<u64>>,
    /// Bit `c` set when colour `c` has a free frame.
    nonempty: Vec<u64>,
    /// The colour the next uncoloured allocation tries first.
    next: usize,
    /// Free frames in all.
    len: u64,
}

/// The most colour bits: 4096 colours.
pub const MAX_COLOUR_BITS: usize = 12;

impl Colours {
    /// An empty index over colours formed by frame-number `bits` (distinct,
    /// below 64, at most [`MAX_COLOUR_BITS`] of them).
    pub fn new(bits: &[u8]) -> Result<Self, String> {
        if bits.is_empty() || bits.len() > MAX_COLOUR_BITS {
            return Err(format!(
                "a colour takes 1 to {MAX_COLOUR_BITS} frame-number bits, not {}",
                bits.len()
            ));
        }
        for (i, &b) in bits.iter().enumerate() {
            if b >= 64 || bits[..i].contains(&b) {
                return Err(format!("colour bit {b} is repeated or beyond bit 63"));
            }
        }
        let n = 1usize << bits.len();
        Ok(Colours {
            bits: bits.to_vec(),
            lists: vec![Vec::new(); n],
            nonempty: vec![0; n.div_ceil(64)],
            next: 0,
            len: 0,
        })
    }

    /// How many colours there are.
    pub fn count(&self) -> usize {
        self.lists.len()
    }

    /// The colour of `frame`.
    #[inline]
    pub fn colour_of(&self, frame: u64) -> usize {
        colour_of(&self.bits, frame)
    }

    /// Free frames in all.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no frame is free.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Free frames of `colour`.
    pub fn len_of(&self, colour: usize) -> usize {
        self.lists.get(colour).map_or(0, Vec::len)
    }

    /// Adds a free frame.
    pub fn push(&mut self, frame: u64) {
        let c = self.colour_of(frame);
        self.lists[c].push(frame);
        self.nonempty[c / 64] |= 1 << (c % 64);
        self.len += 1;
    }

    /// Takes a free frame of `colour`, if there is one.
    pub fn pop(&mut self, colour: usize) -> Option<u64> {
        let list = self.lists.get_mut(colour)?;
        let f = list.pop()?;
        if list.is_empty() {
            self.nonempty[colour / 64] &= !(1 << (colour % 64));
        }
        self.len -= 1;
        Some(f)
    }

    /// Takes a free frame of the next colour in turn that has one.
    pub fn pop_next(&mut self) -> Option<u64> {
        let c = self.next_nonempty(self.next)?;
        self.next = (c + 1) % self.count();
        self.pop(c)
    }

    /// The first colour at or after `from` (wrapping) with a free frame.
    fn next_nonempty(&self, from: usize) -> Option<usize> {
        let words = self.nonempty.len();
        // The word of `from` masked below it, the others whole, then the
        // word of `from` again for the colours below it.
        for k in 0..=words {
            let w = (from / 64 + k) % words;
            let mut bits = self.nonempty[w];
            if k == 0 {
                bits &= !0u64 << (from % 64);
            }
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }

    /// Host bytes of the lists.
    pub fn host_bytes(&self) -> usize {
        self.lists.iter().map(|l| l.capacity() * 8).sum::<usize>()
            + self.lists.capacity() * std::mem::size_of::<Vec<u64>>()
            + self.nonempty.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Memos' colours: frame-number bits 0-6, 8 and 9 (address bits 12-18,
    /// 20 and 21).
    const MEMOS: [u8; 9] = [0, 1, 2, 3, 4, 5, 6, 8, 9];

    #[test]
    fn memos_colours_are_address_bits_12_to_18_20_and_21() {
        let c = Colours::new(&MEMOS).unwrap();
        assert_eq!(c.count(), 512);
        let frame_of = |pa: u64| pa >> 12;
        assert_eq!(c.colour_of(frame_of(0)), 0);
        assert_eq!(c.colour_of(frame_of(1 << 12)), 1);
        assert_eq!(c.colour_of(frame_of(1 << 18)), 64);
        // Bit 19 is not a colour bit.
        assert_eq!(c.colour_of(frame_of(1 << 19)), 0);
        assert_eq!(c.colour_of(frame_of(1 << 20)), 128);
        assert_eq!(c.colour_of(frame_of(1 << 21)), 256);
        assert_eq!(c.colour_of(frame_of((1 << 22) | (1 << 12))), 1);
    }

    #[test]
    fn rejects_bad_bit_sets() {
        assert!(Colours::new(&[]).is_err());
        assert!(Colours::new(&[3, 3]).is_err());
        assert!(Colours::new(&[64]).is_err());
        assert!(Colours::new(&[0; 13]).is_err());
    }

    #[test]
    fn uncoloured_allocations_take_the_colours_in_turn() {
        let mut c = Colours::new(&[0, 1]).unwrap();
        for f in 0..8 {
            c.push(f);
        }
        let order: Vec<u64> = std::iter::from_fn(|| c.pop_next()).collect();
        // Colours 0, 1, 2, 3, 0, 1, ... each giving its latest free frame.
        assert_eq!(order, vec![4, 5, 6, 7, 0, 1, 2, 3]);
    }

    proptest! {
        /// Against a reference model (a list of free frames): a coloured
        /// pop returns a free frame of that colour exactly when the model
        /// has one, an uncoloured pop returns a free frame exactly when the
        /// model has any, and the counts agree after every step.
        #[test]
        fn matches_a_list_of_free_frames(
            bits in proptest::sample::subsequence((0u8..12).collect::<Vec<_>>(), 1..5),
            ops in proptest::collection::vec((0u8..3, 0u64..4096), 1..300),
        ) {
            let mut c = Colours::new(&bits).unwrap();
            let mut free: Vec<u64> = Vec::new();
            let mut next_frame = 0u64;
            for (op, x) in ops {
                match op {
                    0 => {
                        c.push(next_frame);
                        free.push(next_frame);
                        next_frame += 1 + x % 7;
                    }
                    1 => {
                        let colour = (x as usize) % c.count();
                        let want = free.iter().any(|&f| c.colour_of(f) == colour);
                        match c.pop(colour) {
                            Some(f) => {
                                prop_assert!(want);
                                prop_assert_eq!(c.colour_of(f), colour);
                                let i = free.iter().position(|&g| g == f);
                                prop_assert!(i.is_some(), "frame {} was not free", f);
                                free.swap_remove(i.unwrap());
                            }
                            None => prop_assert!(!want),
                        }
                    }
                    _ => match c.pop_next() {
                        Some(f) => {
                            let i = free.iter().position(|&g| g == f);
                            prop_assert!(i.is_some(), "frame {} was not free", f);
                            free.swap_remove(i.unwrap());
                        }
                        None => prop_assert!(free.is_empty()),
                    },
                }
                prop_assert_eq!(c.len(), free.len() as u64);
                for colour in 0..c.count() {
                    let n = free.iter().filter(|&&f| c.colour_of(f) == colour).count();
                    prop_assert_eq!(c.len_of(colour), n);
                }
            }
        }
    }
}
