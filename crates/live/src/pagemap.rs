//! /proc/PID/pagemap: one 64-bit entry per virtual page
//! (Documentation/admin-guide/mm/pagemap.rst).

use crate::sys::PAGE;
use crate::LiveError;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// One pagemap entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry(pub u64);

impl Entry {
    /// In memory.
    pub fn present(self) -> bool {
        self.0 >> 63 & 1 == 1
    }
    /// In swap (zram, zswap's backing device).
    pub fn swapped(self) -> bool {
        self.0 >> 62 & 1 == 1
    }
    /// A file page or shared anonymous page.
    pub fn file_or_shared(self) -> bool {
        self.0 >> 61 & 1 == 1
    }
    /// Mapped by this process only.
    pub fn exclusive(self) -> bool {
        self.0 >> 56 & 1 == 1
    }
    /// Written since soft-dirty bits were last cleared.
    pub fn soft_dirty(self) -> bool {
        self.0 >> 55 & 1 == 1
    }
    /// The page frame, when present and the reader may see it
    /// (CAP_SYS_ADMIN; 0 otherwise).
    pub fn pfn(self) -> Option<u64> {
        let pfn = self.0 & ((1 << 55) - 1);
        (self.present() && pfn != 0).then_some(pfn)
    }
}

/// An open pagemap of one process.
pub struct Pagemap {
    file: File,
    pid: i32,
}

impl Pagemap {
    /// Opens process `pid`'s pagemap (needs ptrace-read access to it).
    pub fn open(pid: i32) -> Result<Self, LiveError> {
        let path = format!("/proc/{pid}/pagemap");
        let file = File::open(&path).map_err(|e| LiveError::io(path, e, Some(pid)))?;
        Ok(Pagemap { file, pid })
    }

    /// The open file (for the PAGEMAP_SCAN ioctl).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The entries of the pages of `[start, start + out.len() pages)`
    /// (read through a buffer on the stack: no allocation).
    pub fn read(&self, start: u64, out: &mut [Entry]) -> Result<(), LiveError> {
        const PIECE: usize = 512;
        let mut buf = [0u8; PIECE * 8];
        for (k, piece) in out.chunks_mut(PIECE).enumerate() {
            let bytes = &mut buf[..piece.len() * 8];
            bytes.fill(0);
            let first = (start / PAGE + (k * PIECE) as u64) * 8;
            let mut off = 0;
            while off < bytes.len() {
                match self.file.read_at(&mut bytes[off..], first + off as u64) {
                    // end of the address space, or the process is gone:
                    // what was not read stays "not present"
                    Ok(0) => break,
                    Ok(n) => off += n,
                    Err(e) => {
                        return Err(LiveError::io(
                            format!("/proc/{}/pagemap", self.pid),
                            e,
                            Some(self.pid),
                        ))
                    }
                }
            }
            for (e, b) in piece.iter_mut().zip(bytes.chunks_exact(8)) {
                *e = Entry(u64::from_le_bytes(b.try_into().expect("8 bytes")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_bits_decode() {
        let e = Entry(1 << 63 | 1 << 55 | 1 << 56 | 42);
        assert!(e.present() && e.soft_dirty() && e.exclusive() && !e.swapped());
        assert_eq!(e.pfn(), Some(42));
        assert_eq!(Entry(1 << 62).pfn(), None);
        assert!(Entry(1 << 62).swapped());
    }

    #[test]
    fn own_touched_pages_are_present_and_untouched_ones_not() {
        let v = vec![1u8; 16 * PAGE as usize];
        let base = (v.as_ptr() as u64).div_ceil(PAGE) * PAGE;
        let pm = Pagemap::open(std::process::id() as i32).unwrap();
        let mut e = [Entry::default(); 4];
        pm.read(base, &mut e).unwrap();
        assert!(e.iter().all(|e| e.present()), "{e:?}");
        let mut far = [Entry::default(); 1];
        // the zero page of the address space is never mapped
        pm.read(0, &mut far).unwrap();
        assert!(!far[0].present());
    }
}
