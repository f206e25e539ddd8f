//! Memory tiers and page types.

use serde::{Deserialize, Serialize};

/// A memory tier, numbered from fastest (0) to slowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TierId(pub u8);

impl TierId {
    /// The fast tier (DRAM in every preset).
    pub const FAST: TierId = TierId(0);
    /// The slow tier of a two-tier machine.
    pub const SLOW: TierId = TierId(1);

    /// Index into per-tier arrays.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a page holds, where the backend knows it. HeteroOS places pages by type
/// (heap first, then I/O page cache and slab); backends that cannot tell say `Anon`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[repr(u8)]
pub enum PageType {
    /// Anonymous memory: heap, stack, private mappings.
    #[default]
    Anon,
    /// File-backed page cache (buffered I/O, memory-mapped files).
    FileCache,
    /// Kernel slab objects (e.g. network buffers).
    Slab,
    /// Buffers of in-flight device I/O.
    IoBuffer,
    /// Page-table pages.
    PageTable,
}

impl PageType {
    /// How many page types there are.
    pub const COUNT: usize = 5;

    /// Every page type, in [`PageType::index`] order.
    pub const ALL: [PageType; PageType::COUNT] = [
        PageType::Anon,
        PageType::FileCache,
        PageType::Slab,
        PageType::IoBuffer,
        PageType::PageTable,
    ];

    /// Its position in [`PageType::ALL`], for per-type tables.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lower-case name as in configuration files.
    pub const fn name(self) -> &'static str {
        match self {
            PageType::Anon => "anon",
            PageType::FileCache => "file-cache",
            PageType::Slab => "slab",
            PageType::IoBuffer => "io-buffer",
            PageType::PageTable => "page-table",
        }
    }
}

#[cfg(test)]
mod page_type_tests {
    use super::PageType;

    #[test]
    fn every_type_sits_at_its_index() {
        for (i, t) in PageType::ALL.iter().enumerate() {
            assert_eq!(t.index(), i, "{}", t.name());
        }
    }
}
