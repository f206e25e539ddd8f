//! HeteroOS (Kannan et al., ISCA'17; ../shared/papers/001_f8c99e4789a9a37b.txt):
//! page-type-aware placement in the guest OS, HeteroOS-LRU, guest-guided
//! VMM hotness tracking and weighted DRF sharing across VMs.
//!
//! **What is built (issue #22):**
//! - [`guest`]: Table 5's Heap-OD, Heap-IO-Slab-OD and HeteroOS-LRU
//!   (`heteroos-heap-od`, `heteroos-heap-io-slab-od`, `heteroos-lru`);
//! - [`lru`]: their rules apart from the machine (per-type allocation
//!   statistics, HeteroOS-LRU's trigger and thresholds);
//! - [`coordinated`]: HeteroOS-coordinated, `heteroos-coordinated`
//!   (HeteroOS-LRU plus guest-guided VMM tracking of the heap VMAs at
//!   Equation 1's interval, the guest migrating);
//! - [`history`]: HeteroVisor's Accessed-bit history over scans, which
//!   HeteroOS-coordinated's tracking keeps: hot pages by their history, the
//!   least recently used evicted first;
//! - [`vmm`]: the VMM-exclusive (HeteroVisor-like) baseline,
//!   `heteroos-vmm-exclusive`;
//! - [`interval`]: Equation 1, the coordinated tracking interval;
//! - [`drf`]: Algorithm 1's weighted DRF and the max-min it replaces, as
//!   allocations of pages;
//! - [`vms`]: several guest VMs on one host, `heteroos-vms`: each address
//!   space of the workload (each part of a `mix:A+B`) a VM with its own
//!   guest, FastMem and SlowMem divided by weighted DRF or max-min at boot
//!   and applied as per-VM tier quotas, SlowMem then ballooned between
//!   them as their demands change;
//! - [`balloon`]: the clock that takes a VM's SlowMem pages into swap
//!   (inactive first), for the balloon and the guests' own reclaim.
//!
//! The paper's baselines are managers every paper shares: SlowMem-only is
//! `all-slow`, FastMem-only `all-fast`, NUMA-preferred `first-touch`
//! (Linux's preferred-node policy for every page type), and Random
//! `random`. A third tier, on `fastmem+slowmem+swap-heteroos`, is a swap
//! device for overcommitted VMs (see [`vms`]).

use thermocline_backend::{Backend, BackendError};
use thermocline_vocab::{Asid, TierId};

pub mod balloon;
pub mod coordinated;
pub mod drf;
pub mod guest;
pub mod history;
pub mod interval;
pub mod lru;
pub mod vmm;
pub mod vms;

/// SlowMem: the machine's second tier (its last on a two-tier machine). A
/// third tier, on `fastmem+slowmem+swap-heteroos`, is the swap device
/// behind it, where only the guests' reclaim puts pages.
pub(crate) fn slow_tier(b: &dyn Backend) -> TierId {
    TierId(b.tiers().len().clamp(1, 2) as u8 - 1)
}

/// The swap device, if the machine has one (a third tier).
pub(crate) fn swap_tier(b: &dyn Backend) -> Option<TierId> {
    (b.tiers().len() >= 3).then_some(TierId(2))
}

/// FastMem as a guest or tracker sees it: (its pages, the free ones). A
/// VM's FastMem (`vm`: its address space and quota) is its quota, free as
/// far as the machine has frames left; without one, the whole tier.
pub(crate) fn fast_view(
    b: &mut dyn Backend,
    vm: Option<(Asid, u64)>,
) -> Result<(u64, u64), BackendError> {
    let fast = &b.tiers()[0];
    let (pages, free) = (fast.capacity_bytes / 4096, fast.free_bytes / 4096);
    match vm {
        Some((asid, quota)) => {
            let held = b.typed_alloc()?.held_pages(asid, TierId::FAST)?;
            Ok((quota, quota.saturating_sub(held).min(free)))
        }
        None => Ok((pages, free)),
    }
}
