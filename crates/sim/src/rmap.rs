//! The reverse map: which virtual page each physical frame backs, as
//! Linux's rmap answers it for physical-address monitoring (DAMON's paddr
//! operations find a folio's PTEs through it). The exact machine keeps one
//! only once something asks, so runs that never monitor physical addresses
//! pay no host memory for it (8 bytes per frame).

/// Per 4 KiB frame, `1 + (asid << 36 | virtual page number)`; 0 when the
/// frame backs no page.
#[derive(Clone, Debug)]
pub(crate) struct ReverseMap {
    owners: Vec<u64>,
}

/// Virtual page numbers of 4-level paging fit in 36 bits.
const VPN_BITS: u32 = 36;

impl ReverseMap {
    /// An empty map of `frames` frames.
    pub(crate) fn new(frames: u64) -> Self {
        ReverseMap {
            owners: vec![0; frames as usize],
        }
    }

    /// Records that `n` frames from `first` back the `n` pages from `va` of `asid`.
    pub(crate) fn map(&mut self, first: u64, n: u64, asid: u16, va: u64) {
        let vpn = va >> 12;
        for i in 0..n {
            if let Some(o) = self.owners.get_mut((first + i) as usize) {
                *o = 1 + ((u64::from(asid) << VPN_BITS) | (vpn + i));
            }
        }
    }

    /// Records that `n` frames from `first` back nothing.
    pub(crate) fn unmap(&mut self, first: u64, n: u64) {
        for i in 0..n {
            if let Some(o) = self.owners.get_mut((first + i) as usize) {
                *o = 0;
            }
        }
    }

    /// The address space and virtual address of the 4 KiB page `frame` backs.
    pub(crate) fn owner(&self, frame: u64) -> Option<(u16, u64)> {
        let o = self
            .owners
            .get(frame as usize)
            .copied()
            .filter(|&o| o != 0)?
            - 1;
        Some(((o >> VPN_BITS) as u16, (o & ((1 << VPN_BITS) - 1)) << 12))
    }

    /// Host bytes held.
    pub(crate) fn host_bytes(&self) -> usize {
        self.owners.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_and_unmaps_frames() {
        let mut r = ReverseMap::new(1024);
        assert_eq!(r.owner(5), None);
        r.map(512, 512, 3, 0x7f00_0020_0000);
        assert_eq!(r.owner(512), Some((3, 0x7f00_0020_0000)));
        assert_eq!(r.owner(1023), Some((3, 0x7f00_0020_0000 + 511 * 4096)));
        r.unmap(512, 1);
        assert_eq!(r.owner(512), None);
        assert_eq!(r.owner(513), Some((3, 0x7f00_0020_1000)));
        assert_eq!(r.owner(5000), None, "beyond the last frame");
    }
}
