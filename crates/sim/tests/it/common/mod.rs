//! Helpers the exact machine's integration tests share.

use thermocline_sim::Machine;
use thermocline_vocab::{Access, Asid, PageType, RegionInfo};

/// One access by core 0 of address space 0, then the epoch settled.
pub fn touch(m: &mut Machine, va: u64, write: bool) {
    m.access(Access {
        va,
        asid: 0,
        core: 0,
        write,
    });
    m.settle();
}

/// A region of address space 0.
pub fn region(name: &str, start: u64, len: u64, page_type: PageType, thp: bool) -> RegionInfo {
    RegionInfo {
        asid: Asid(0),
        name: name.into(),
        start,
        len,
        page_type,
        thp,
    }
}
