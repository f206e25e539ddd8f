//! What the live backend knows of each page of its targets, read from the
//! kernel at every refresh: present on which node, swapped, soft-dirty.

use crate::pagemap::{Entry, Pagemap};
use crate::procfs::Mapping;
use crate::sys::{self, PAGE};
use crate::LiveError;

/// One page's state in a byte: bit 7 soft-dirty, bit 6 swapped, bits 0-5
/// the node (63: neither present nor swapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageState(pub u8);

const DIRTY: u8 = 0x80;
const SWAPPED: u8 = 0x40;
const NO_NODE: u8 = 0x3f;

impl PageState {
    /// Neither present nor swapped (never touched, or freed).
    pub const NONE: PageState = PageState(NO_NODE);

    /// Present on `node`.
    pub fn on(node: i32, dirty: bool) -> Self {
        PageState((node.clamp(0, 62) as u8) | if dirty { DIRTY } else { 0 })
    }

    /// Swapped out.
    pub fn swapped_out(dirty: bool) -> Self {
        PageState(SWAPPED | NO_NODE | if dirty { DIRTY } else { 0 })
    }

    /// The node it is on, if present.
    pub fn node(self) -> Option<i32> {
        (self.0 & SWAPPED == 0 && self.0 & NO_NODE != NO_NODE).then_some((self.0 & NO_NODE) as i32)
    }

    /// Swapped out (to zram or another swap device).
    pub fn swapped(self) -> bool {
        self.0 & SWAPPED != 0
    }

    /// Soft-dirty.
    pub fn dirty(self) -> bool {
        self.0 & DIRTY != 0
    }
}

/// The frame-to-node map, read once (memory hot-plug after the start is
/// not seen; move_pages answers for frames it does not hold).
fn frame_nodes() -> &'static crate::numa::FrameNodes {
    static MAP: std::sync::OnceLock<crate::numa::FrameNodes> = std::sync::OnceLock::new();
    MAP.get_or_init(crate::numa::FrameNodes::read)
}

/// Pages read per pagemap read and per move_pages query.
const CHUNK: usize = 8192;

/// Reads the state of every page of `m` (its present pages' nodes with
/// move_pages, which needs the same access as moving them).
pub fn read_mapping(
    pid: i32,
    pagemap: &Pagemap,
    m: &Mapping,
    out: &mut Vec<PageState>,
) -> Result<(), LiveError> {
    let n = (m.len() / PAGE) as usize;
    out.clear();
    out.resize(n, PageState::NONE);
    let mut entries = vec![Entry::default(); CHUNK.min(n)];
    let mut present = Vec::with_capacity(CHUNK);
    let mut present_idx = Vec::with_capacity(CHUNK);
    let mut status = Vec::with_capacity(CHUNK);
    for first in (0..n).step_by(CHUNK) {
        let count = CHUNK.min(n - first);
        let e = &mut entries[..count];
        pagemap.read(m.start + first as u64 * PAGE, e)?;
        present.clear();
        present_idx.clear();
        for (i, e) in e.iter().enumerate() {
            if e.present() {
                present.push(m.start + (first + i) as u64 * PAGE);
                present_idx.push(first + i);
            } else if e.swapped() {
                out[first + i] = PageState::swapped_out(e.soft_dirty());
            }
        }
        status.clear();
        status.resize(present.len(), 0);
        // With PFNs visible (CAP_SYS_ADMIN) a frame's node is a lookup in
        // the memory blocks' map; move_pages asks the kernel page by page
        // and costs far more (README, Live, Cost).
        let by_frame: Option<Vec<i32>> = present_idx
            .iter()
            .map(|&i| e[i - first].pfn().and_then(|p| frame_nodes().node(p)))
            .collect();
        if let Some(nodes) = by_frame {
            status.copy_from_slice(&nodes);
        } else {
            match sys::move_pages(pid, &present, None, &mut status, 0) {
                Ok(_) => {}
                // a kernel without NUMA: every page is on node 0
                Err(err) if err.raw_os_error() == Some(libc::ENOSYS) => status.fill(0),
                Err(err) => return Err(LiveError::io("move_pages (query)", err, Some(pid))),
            }
        }
        for (k, &i) in present_idx.iter().enumerate() {
            let dirty = e[i - first].soft_dirty();
            out[i] = if status[k] >= 0 {
                PageState::on(status[k], dirty)
            } else {
                // freed between the two reads
                PageState::NONE
            };
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip() {
        let p = PageState::on(1, true);
        assert_eq!(p.node(), Some(1));
        assert!(p.dirty() && !p.swapped());
        let s = PageState::swapped_out(false);
        assert!(s.swapped() && s.node().is_none() && !s.dirty());
        assert!(PageState::NONE.node().is_none() && !PageState::NONE.swapped());
    }

    #[test]
    fn own_heap_reads_as_present() {
        let v = vec![3u8; 64 * PAGE as usize];
        let start = (v.as_ptr() as u64).div_ceil(PAGE) * PAGE;
        let m = Mapping {
            start,
            end: start + 32 * PAGE,
            read: true,
            write: true,
            shared: false,
            path: String::new(),
        };
        let pid = std::process::id() as i32;
        let pm = Pagemap::open(pid).unwrap();
        let mut out = Vec::new();
        read_mapping(pid, &pm, &m, &mut out).unwrap();
        assert_eq!(out.len(), 32);
        assert!(out.iter().all(|s| s.node().is_some()), "{out:?}");
    }
}
