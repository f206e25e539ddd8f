//! Mapped regions of an address space.

use crate::{Asid, PageType};
use serde::Serialize;

/// One mapped virtual range of an address space (a VMA, in Linux terms).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegionInfo {
    /// Address space.
    pub asid: Asid,
    /// A name for reports (the MASIM region name, "heap", ...).
    pub name: String,
    /// First byte; 4 KiB-aligned.
    pub start: u64,
    /// Length in bytes; a multiple of 4 KiB.
    pub len: u64,
    /// What the pages hold, where known.
    pub page_type: PageType,
    /// Whether transparent huge pages may back this region.
    pub thp: bool,
}

impl RegionInfo {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.start + self.len
    }
}
