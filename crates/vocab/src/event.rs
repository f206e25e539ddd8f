//! Memory events a workload issues besides its accesses: what an operating
//! system learns when an application frees memory or an I/O completes.
//! HeteroOS (../shared/papers/001_f8c99e4789a9a37b.txt, sections 2.2 and
//! 3.3) places and evicts pages by them: page-cache and slab pages are
//! short-lived, released once their I/O is done, and heap pages are released
//! by unmap.

use crate::Asid;

/// One memory event, between two accesses of the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemEvent {
    /// The pages of a range are released (munmap, free, a slab shrinking, a
    /// page-cache page dropped): their frames are freed, and a later access
    /// to the range faults in a new page, as after munmap and mmap.
    Release {
        /// Address space.
        asid: Asid,
        /// First byte (4 KiB-aligned).
        start: u64,
        /// Bytes (a multiple of 4 KiB).
        len: u64,
    },
    /// An I/O on a range of page-cache or buffer pages completed: the pages
    /// stay mapped, but the I/O no longer needs them (HeteroOS-LRU evicts
    /// such pages from FastMem at once).
    IoDone {
        /// Address space.
        asid: Asid,
        /// First byte (4 KiB-aligned).
        start: u64,
        /// Bytes (a multiple of 4 KiB).
        len: u64,
    },
}

impl MemEvent {
    /// The address space and range the event concerns.
    pub fn range(&self) -> (Asid, u64, u64) {
        match *self {
            MemEvent::Release { asid, start, len } | MemEvent::IoDone { asid, start, len } => {
                (asid, start, len)
            }
        }
    }

    /// The same event in address space `asid` (a mix moves each
    /// component's events into the component's own space).
    pub fn with_asid(self, asid: Asid) -> Self {
        match self {
            MemEvent::Release { start, len, .. } => MemEvent::Release { asid, start, len },
            MemEvent::IoDone { start, len, .. } => MemEvent::IoDone { asid, start, len },
        }
    }

    /// Why the event cannot be applied as given, if it cannot: a range must
    /// be 4 KiB-aligned, non-empty and below 2^47.
    pub fn check(&self) -> Result<(), String> {
        let (_, start, len) = self.range();
        if len == 0 || start % 4096 != 0 || len % 4096 != 0 {
            return Err(format!(
                "memory event {self:?}: the range must be non-empty and 4 KiB-aligned"
            ));
        }
        if start.checked_add(len).is_none_or(|end| end > 1 << 47) {
            return Err(format!(
                "memory event {self:?}: the range ends beyond 2^47 (4-level paging)"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_must_be_aligned_non_empty_and_in_the_address_space() {
        let ev = |start, len| MemEvent::Release {
            asid: Asid(0),
            start,
            len,
        };
        assert!(ev(4096, 8192).check().is_ok());
        assert!(ev(4096, 0).check().is_err());
        assert!(ev(100, 4096).check().is_err());
        assert!(ev(4096, 100).check().is_err());
        assert!(ev((1 << 47) - 4096, 8192).check().is_err());
        assert!(ev(u64::MAX - 4095, 8192).check().is_err());
    }
}
