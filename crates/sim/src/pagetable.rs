//! A 4-level x86-64 radix page table, stored as arenas of 512-entry tables.
//!
//! Entries keep x86's flag bits (P, RW, A, D, PS, and bit 51 as Thermostat's
//! reserved "poison" bit); the address field holds, instead of a physical
//! address, either the index of the next table in its arena or a frame number.
//! Every PMD slot also has a *deposited* leaf table (as Linux deposits one for
//! each THP): a huge page keeps one so that a split needs no allocation, and
//! the simulator keeps ground-truth access counts there for every 4 KiB page.
//!
//! A leaf table interleaves PTEs and counts, five pages per 64-byte host
//! cache line, so that an access that walks to its PTE finds its count in the
//! same line. Host memory: 8 bytes of PTE plus 4 bytes of count per 4 KiB
//! page, 12.9 bytes with the padding.

use thermocline_vocab::Level;

/// Present.
pub const P: u64 = 1 << 0;
/// Writable.
pub const RW: u64 = 1 << 1;
/// Accessed.
pub const A: u64 = 1 << 5;
/// Dirty.
pub const D: u64 = 1 << 6;
/// Page size: this PDE maps a 2 MiB page.
pub const PS: u64 = 1 << 7;
/// Reserved bit 51, set by Thermostat/BadgerTrap to make walks fault.
pub const POISON: u64 = 1 << 51;
const TARGET_MASK: u64 = ((1 << 39) - 1) << 12;

/// The address field of an entry (table index or frame number).
#[inline]
pub fn target(e: u64) -> u64 {
    (e & TARGET_MASK) >> 12
}

/// An entry with `flags` pointing at `target`.
#[inline]
pub fn entry(target: u64, flags: u64) -> u64 {
    ((target << 12) & TARGET_MASK) | flags
}

/// Replaces the address field of `e`.
#[inline]
pub fn retarget(e: u64, target: u64) -> u64 {
    (e & !TARGET_MASK) | ((target << 12) & TARGET_MASK)
}

/// One 512-entry table.
pub type Table = [u64; 512];

/// Pages per host cache line of a leaf table.
const PER_LINE: usize = 5;
/// Host cache lines per leaf table.
const LINES: usize = 512usize.div_ceil(PER_LINE);

/// Five leaf entries and their counts: one host cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
struct Line {
    pte: [u64; PER_LINE],
    count: [u32; PER_LINE],
}

/// A leaf table: 512 PTEs and the ground-truth access count of each page,
/// interleaved by host cache line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    lines: [Line; LINES],
}

impl Default for Leaf {
    fn default() -> Self {
        Leaf {
            lines: [Line {
                pte: [0; PER_LINE],
                count: [0; PER_LINE],
            }; LINES],
        }
    }
}

impl Leaf {
    /// The PTE of slot `i` (0..512).
    #[inline]
    pub fn pte(&self, i: usize) -> u64 {
        let i = i & 511;
        self.lines[i / PER_LINE].pte[i % PER_LINE]
    }

    /// The PTE of slot `i` (0..512), to change.
    #[inline]
    pub fn pte_mut(&mut self, i: usize) -> &mut u64 {
        let i = i & 511;
        &mut self.lines[i / PER_LINE].pte[i % PER_LINE]
    }

    /// The access count of slot `i` (0..512), to change.
    #[inline]
    pub fn count_mut(&mut self, i: usize) -> &mut u32 {
        let i = i & 511;
        &mut self.lines[i / PER_LINE].count[i % PER_LINE]
    }

    /// The first word of the host cache line of slot `i`: reading it brings
    /// the line (PTE and count) into the host cache.
    #[inline]
    pub fn line_word(&self, i: usize) -> &u64 {
        &self.lines[(i & 511) / PER_LINE].pte[0]
    }

    /// The access counts of the 512 slots.
    pub fn counts(&self) -> [u32; 512] {
        std::array::from_fn(|i| self.lines[i / PER_LINE].count[i % PER_LINE])
    }

    /// Zeroes every access count.
    pub fn clear_counts(&mut self) {
        for l in &mut self.lines {
            l.count = [0; PER_LINE];
        }
    }
}

/// The page table of one address space.
#[derive(Clone, Debug)]
pub struct PageTable {
    /// The PML4 (one table).
    pub pgd: Box<Table>,
    /// PDPT tables.
    pub pud: Vec<Table>,
    /// Page directories.
    pub pmd: Vec<Table>,
    /// Leaf tables, with the ground-truth accesses of each 4 KiB page.
    pub leaves: Vec<Leaf>,
    /// Per page directory, the deposited leaf table of each slot (`u32::MAX`: none).
    pub deposit: Vec<[u32; 512]>,
}

impl Default for PageTable {
    fn default() -> Self {
        PageTable {
            pgd: Box::new([0; 512]),
            pud: Vec::new(),
            pmd: Vec::new(),
            leaves: Vec::new(),
            deposit: Vec::new(),
        }
    }
}

/// Where the entries of one address live (table indices, `None` where absent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Path {
    /// PDPT table index (from the PGD entry).
    pub pud: Option<u32>,
    /// Page-directory index.
    pub pmd: Option<u32>,
    /// Deposited leaf table of the PMD slot.
    pub leaf: Option<u32>,
    /// The PMD entry maps a huge page.
    pub huge: bool,
}

impl PageTable {
    /// Follows present entries from the root as far as they go.
    pub fn path(&self, va: u64) -> Path {
        let mut p = Path::default();
        let e = self.pgd[Level::Pgd.index(va)];
        if e & P == 0 {
            return p;
        }
        let pud = target(e) as u32;
        p.pud = Some(pud);
        let e = self.pud[pud as usize][Level::Pud.index(va)];
        if e & P == 0 {
            return p;
        }
        let pmd = target(e) as u32;
        p.pmd = Some(pmd);
        let slot = Level::Pmd.index(va);
        let leaf = self.deposit[pmd as usize][slot];
        if leaf != u32::MAX {
            p.leaf = Some(leaf);
        }
        let e = self.pmd[pmd as usize][slot];
        p.huge = e & P != 0 && e & PS != 0;
        p
    }

    /// The entry at `level` for `va`, if every table above it exists. For a
    /// huge page, `Level::Pte` names its PMD entry.
    pub fn entry_mut(&mut self, va: u64, level: Level) -> Option<&mut u64> {
        let p = self.path(va);
        match level {
            Level::Pgd => Some(&mut self.pgd[Level::Pgd.index(va)]),
            Level::Pud => Some(&mut self.pud[p.pud? as usize][Level::Pud.index(va)]),
            Level::Pmd => Some(&mut self.pmd[p.pmd? as usize][Level::Pmd.index(va)]),
            Level::Pte if p.huge => Some(&mut self.pmd[p.pmd? as usize][Level::Pmd.index(va)]),
            Level::Pte => {
                let pmd = self.pmd[p.pmd? as usize][Level::Pmd.index(va)];
                if pmd & P == 0 {
                    return None;
                }
                Some(self.leaves[p.leaf? as usize].pte_mut(Level::Pte.index(va)))
            }
        }
    }

    /// The leaf entry (PTE, or PMD of a huge page) of `va`, if present.
    pub fn leaf_mut(&mut self, va: u64) -> Option<&mut u64> {
        self.entry_mut(va, Level::Pte).filter(|e| **e & P != 0)
    }

    /// Creates the tables down to the PMD level for `va` (entries present, A
    /// clear) and returns (page directory, deposited leaf table).
    pub fn ensure_tables(&mut self, va: u64) -> (u32, u32) {
        let gi = Level::Pgd.index(va);
        if self.pgd[gi] & P == 0 {
            self.pud.push([0; 512]);
            self.pgd[gi] = entry(self.pud.len() as u64 - 1, P | RW);
        }
        let pud = target(self.pgd[gi]) as usize;
        let ui = Level::Pud.index(va);
        if self.pud[pud][ui] & P == 0 {
            self.pmd.push([0; 512]);
            self.deposit.push([u32::MAX; 512]);
            self.pud[pud][ui] = entry(self.pmd.len() as u64 - 1, P | RW);
        }
        let pmd = target(self.pud[pud][ui]) as usize;
        let mi = Level::Pmd.index(va);
        if self.deposit[pmd][mi] == u32::MAX {
            self.leaves.push(Leaf::default());
            self.deposit[pmd][mi] = self.leaves.len() as u32 - 1;
        }
        (pmd as u32, self.deposit[pmd][mi])
    }

    /// The deposited leaf tables of the page directory that maps `va` (the
    /// 1 GiB range of `va`), if it exists.
    #[inline]
    pub fn deposits_of(&self, va: u64) -> Option<&[u32; 512]> {
        let e = self.pgd[Level::Pgd.index(va)];
        if e & P == 0 {
            return None;
        }
        let e = self.pud.get(target(e) as usize)?[Level::Pud.index(va)];
        if e & P == 0 {
            return None;
        }
        self.deposit.get(target(e) as usize)
    }

    /// Calls `f(va, frame, huge)` for every present leaf mapping, in
    /// address order: a 4 KiB page's PTE or a 2 MiB page's PMD entry.
    pub fn for_each_mapping(&self, mut f: impl FnMut(u64, u64, bool)) {
        for (gi, &g) in self.pgd.iter().enumerate() {
            if g & P == 0 {
                continue;
            }
            for (ui, &u) in self.pud[target(g) as usize].iter().enumerate() {
                if u & P == 0 {
                    continue;
                }
                let pmd = target(u) as usize;
                for (mi, &m) in self.pmd[pmd].iter().enumerate() {
                    if m & P == 0 {
                        continue;
                    }
                    let va = ((gi as u64) << 39) | ((ui as u64) << 30) | ((mi as u64) << 21);
                    if m & PS != 0 {
                        f(va, target(m), true);
                        continue;
                    }
                    let leaf = &self.leaves[target(m) as usize];
                    for i in 0..512 {
                        let e = leaf.pte(i);
                        if e & P != 0 {
                            f(va | (i as u64) << 12, target(e), false);
                        }
                    }
                }
            }
        }
    }

    /// Host bytes held by the tables.
    pub fn host_bytes(&self) -> usize {
        4096 + (self.pud.capacity() + self.pmd.capacity()) * 4096
            + self.leaves.capacity() * std::mem::size_of::<Leaf>()
            + self.deposit.capacity() * 2048
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_fields_round_trip() {
        let e = entry(0x12345, P | A | POISON);
        assert_eq!(target(e), 0x12345);
        assert_eq!(e & (P | A | POISON), P | A | POISON);
        assert_eq!(target(retarget(e, 7)), 7);
        assert_eq!(retarget(e, 7) & POISON, POISON);
    }

    #[test]
    fn leaf_slots_are_independent() {
        let mut l = Leaf::default();
        for i in 0..512 {
            *l.pte_mut(i) = entry(i as u64, P);
            *l.count_mut(i) = 1000 + i as u32;
        }
        for i in 0..512 {
            assert_eq!(target(l.pte(i)), i as u64);
        }
        let counts = l.counts();
        assert!(counts
            .iter()
            .enumerate()
            .all(|(i, &c)| c == 1000 + i as u32));
        l.clear_counts();
        assert_eq!(l.counts(), [0; 512]);
        assert_eq!(target(l.pte(511)), 511, "clearing counts keeps the entries");
        assert_eq!(std::mem::size_of::<Leaf>(), 103 * 64);
    }

    #[test]
    fn ensure_tables_builds_one_path() {
        let mut pt = PageTable::default();
        let va = 0x7f00_1234_5000;
        let (pmd, leaf) = pt.ensure_tables(va);
        assert_eq!(pt.ensure_tables(va + 4096), (pmd, leaf));
        assert_ne!(pt.ensure_tables(va + (2 << 20)).1, leaf);
        let p = pt.path(va);
        assert_eq!(p.pmd, Some(pmd));
        assert_eq!(p.leaf, Some(leaf));
        assert!(!p.huge);
        assert!(pt.leaf_mut(va).is_none(), "leaf not present until mapped");
        *pt.entry_mut(va, Level::Pmd).unwrap() = entry(u64::from(leaf), P | RW);
        *pt.entry_mut(va, Level::Pte).unwrap() = entry(99, P);
        assert_eq!(target(*pt.leaf_mut(va).unwrap()), 99);
    }
}
