//! Addresses, page sizes and page-table levels of x86-64 4-level paging.

use serde::{Deserialize, Serialize};

/// Bytes in a base page.
pub const PAGE: u64 = 4096;
/// Bytes in a 2 MiB huge page.
pub const HUGE_PAGE: u64 = 2 * 1024 * 1024;
/// Base pages in one huge page.
pub const PAGES_PER_HUGE: u64 = HUGE_PAGE / PAGE;
/// Bytes in a cache line: the unit of memory traffic.
pub const LINE: u64 = 64;

/// An address-space identifier (a process, or a guest VM). It plays the role of
/// x86's PCID: TLB and paging-structure-cache entries are tagged with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Asid(pub u16);

/// The size of a leaf mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PageSize {
    /// A 4 KiB page mapped by a PTE.
    Base,
    /// A 2 MiB page mapped by a PDE with PS=1.
    Huge,
}

impl PageSize {
    /// Size in bytes.
    pub const fn bytes(self) -> u64 {
        match self {
            PageSize::Base => PAGE,
            PageSize::Huge => HUGE_PAGE,
        }
    }

    /// Address of the page containing `va`.
    pub const fn align_down(self, va: u64) -> u64 {
        va & !(self.bytes() - 1)
    }
}

/// A level of the 4-level radix page table, root first. Linux's names are used
/// (PGD/PUD/PMD/PTE for the SDM's PML4E/PDPTE/PDE/PTE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Level {
    /// PML4 entry: covers 512 GiB.
    Pgd,
    /// Page-directory-pointer entry: covers 1 GiB.
    Pud,
    /// Page-directory entry: covers 2 MiB (maps it when PS=1).
    Pmd,
    /// Page-table entry: maps 4 KiB.
    Pte,
}

impl Level {
    /// All levels, root first.
    pub const ALL: [Level; 4] = [Level::Pgd, Level::Pud, Level::Pmd, Level::Pte];

    /// Bytes of virtual address space one entry at this level covers.
    pub const fn span(self) -> u64 {
        1u64 << self.shift()
    }

    /// The lowest virtual-address bit that indexes this level.
    pub const fn shift(self) -> u32 {
        match self {
            Level::Pgd => 39,
            Level::Pud => 30,
            Level::Pmd => 21,
            Level::Pte => 12,
        }
    }

    /// Index of `va`'s entry within a table of this level.
    pub const fn index(self, va: u64) -> usize {
        ((va >> self.shift()) & 511) as usize
    }

    /// Lower-case name, as used in configuration and reports.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Pgd => "pgd",
            Level::Pud => "pud",
            Level::Pmd => "pmd",
            Level::Pte => "pte",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_spans_match_x86_64() {
        assert_eq!(Level::Pgd.span(), 512 << 30);
        assert_eq!(Level::Pud.span(), 1 << 30);
        assert_eq!(Level::Pmd.span(), HUGE_PAGE);
        assert_eq!(Level::Pte.span(), PAGE);
        let va = (3u64 << 39) | (5 << 30) | (7 << 21) | (9 << 12) | 123;
        let idx: Vec<usize> = Level::ALL.iter().map(|l| l.index(va)).collect();
        assert_eq!(idx, vec![3, 5, 7, 9]);
    }

    #[test]
    fn align_down() {
        assert_eq!(PageSize::Base.align_down(0x1234_5fff), 0x1234_5000);
        assert_eq!(PageSize::Huge.align_down(0x1234_5fff), 0x1220_0000);
    }
}
